/* SPDX-License-Identifier: MIT */
/*
 * The JSON reader (jsonr.h): a recursive descent over RFC 8259, one
 * function per production, into a tree the caller frees once.
 *
 * What it accepts: one value with white space around it; objects, arrays,
 * strings (every escape, \u pairs joined into one code point and written
 * as UTF-8), numbers in the RFC's grammar, true, false, null; and the
 * three words Python's json module writes for the non-finite floats (NaN,
 * Infinity, -Infinity), since klab's documents are written by it.
 * Duplicate keys are kept (jsonr_get() finds the first). Nesting is
 * bounded (JSONR_MAX_DEPTH) so that a hostile document cannot exhaust the
 * stack. Every failure says what was expected and at which byte.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonr.h"

#define JSONR_MAX_DEPTH 64

struct parser {
	const char *s;
	size_t len, pos;
	int err;
	char *why;
	size_t whylen;
};

static int fail(struct parser *p, const char *what)
{
	if (!p->err) {
		p->err = -EINVAL;
		snprintf(p->why, p->whylen, "%s at byte %zu", what, p->pos);
	}
	return p->err;
}

static int nomem(struct parser *p)
{
	if (!p->err) {
		p->err = -ENOMEM;
		snprintf(p->why, p->whylen, "out of memory at byte %zu", p->pos);
	}
	return p->err;
}

static void skip_space(struct parser *p)
{
	while (p->pos < p->len && strchr(" \t\r\n", p->s[p->pos]) && p->s[p->pos])
		p->pos++;
}

static bool take_word(struct parser *p, const char *w)
{
	size_t n = strlen(w);

	if (p->len - p->pos < n || memcmp(p->s + p->pos, w, n))
		return false;
	p->pos += n;
	return true;
}

static int parse_value(struct parser *p, struct jsonr_value *v, int depth);

static int hex4(struct parser *p, unsigned *out)
{
	unsigned v = 0;

	if (p->len - p->pos < 4)
		return fail(p, "four hex digits expected after \\u");
	for (int i = 0; i < 4; i++) {
		char c = p->s[p->pos++];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return fail(p, "a hex digit expected in \\u");
	}
	*out = v;
	return 0;
}

/* The code point of a \u escape (p->pos just after the 'u'), a surrogate
 * pair joined. */
static int code_point(struct parser *p, unsigned *cp)
{
	unsigned lo;

	if (hex4(p, cp))
		return p->err;
	if (*cp >= 0xdc00 && *cp <= 0xdfff)
		return fail(p, "a low surrogate without its high one");
	if (*cp < 0xd800 || *cp > 0xdbff)
		return 0;
	if (!take_word(p, "\\u"))
		return fail(p, "a high surrogate without its low one");
	if (hex4(p, &lo))
		return p->err;
	if (lo < 0xdc00 || lo > 0xdfff)
		return fail(p, "a high surrogate without its low one");
	*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
	return 0;
}

static size_t put_utf8(char *out, unsigned cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* One escape after its backslash, written at @out; its length in @n. */
static int escape(struct parser *p, char *out, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;
	unsigned cp;

	if (p->pos >= p->len)
		return fail(p, "an escape expected after \\");
	e = strchr(from, p->s[p->pos]);
	if (e && *e) {
		p->pos++;
		out[0] = to[e - from];
		*n = 1;
		return 0;
	}
	if (p->s[p->pos] != 'u')
		return fail(p, "an unknown escape");
	p->pos++;
	if (code_point(p, &cp))
		return p->err;
	if (!cp)
		return fail(p, "\\u0000 in a string");
	*n = put_utf8(out, cp);
	return 0;
}

/* A string (p->pos at its opening quote) in @out, newly allocated. A
 * decoded string is never longer than its text. */
static int parse_string(struct parser *p, char **out)
{
	size_t start = ++p->pos, n = 0;
	char *buf;

	while (p->pos < p->len && p->s[p->pos] != '"')
		p->pos += p->s[p->pos] == '\\' ? 2 : 1;
	if (p->pos >= p->len)
		return fail(p, "an unterminated string");
	buf = malloc(p->pos - start + 1);
	if (!buf)
		return nomem(p);
	p->pos = start;
	while (p->s[p->pos] != '"') {
		unsigned char c = (unsigned char)p->s[p->pos];
		size_t k = 0;

		if (c < 0x20) {
			free(buf);
			return fail(p, "a control character in a string");
		}
		if (c != '\\') {
			buf[n++] = (char)c;
			p->pos++;
			continue;
		}
		p->pos++;
		if (escape(p, buf + n, &k)) {
			free(buf);
			return p->err;
		}
		n += k;
	}
	p->pos++;
	buf[n] = '\0';
	*out = buf;
	return 0;
}

static size_t digits(struct parser *p)
{
	size_t start = p->pos;

	while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
		p->pos++;
	return p->pos - start;
}

/* A number in the RFC's grammar, or one of Python's non-finite words. */
static int parse_number(struct parser *p, double *out)
{
	size_t start = p->pos, int_digits;
	char buf[64];

	if (take_word(p, "NaN")) {
		*out = NAN;
		return 0;
	}
	if (take_word(p, "Infinity") || take_word(p, "-Infinity")) {
		*out = p->s[start] == '-' ? -INFINITY : INFINITY;
		return 0;
	}
	if (p->pos < p->len && p->s[p->pos] == '-')
		p->pos++;
	int_digits = digits(p);
	if (!int_digits || (int_digits > 1 && p->s[p->pos - int_digits] == '0'))
		return fail(p, "a number expected");
	if (p->pos < p->len && p->s[p->pos] == '.') {
		p->pos++;
		if (!digits(p))
			return fail(p, "a digit expected after the decimal point");
	}
	if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
		p->pos++;
		if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
			p->pos++;
		if (!digits(p))
			return fail(p, "a digit expected in the exponent");
	}
	if (p->pos - start >= sizeof(buf))
		return fail(p, "a number too long");
	memcpy(buf, p->s + start, p->pos - start);
	buf[p->pos - start] = '\0';
	*out = strtod(buf, NULL);
	return 0;
}

/* Room for one more member of @v (an array or object being built). */
static int grow(struct parser *p, struct jsonr_value *v, size_t *cap)
{
	struct jsonr_value *items;
	char **keys;

	if (v->len < *cap)
		return 0;
	*cap = *cap ? 2 * *cap : 8;
	items = realloc(v->items, *cap * sizeof(*items));
	if (!items)
		return nomem(p);
	v->items = items;
	if (v->type != JSONR_OBJECT)
		return 0;
	keys = realloc(v->keys, *cap * sizeof(*keys));
	if (!keys)
		return nomem(p);
	v->keys = keys;
	return 0;
}

/* The members of an array or object (p->pos after its opening bracket). */
static int parse_members(struct parser *p, struct jsonr_value *v, int depth)
{
	bool object = v->type == JSONR_OBJECT;
	char close = object ? '}' : ']';
	size_t cap = 0;

	skip_space(p);
	if (p->pos < p->len && p->s[p->pos] == close) {
		p->pos++;
		return 0;
	}
	for (;;) {
		skip_space(p);
		if (grow(p, v, &cap))
			return p->err;
		if (object) {
			if (p->pos >= p->len || p->s[p->pos] != '"')
				return fail(p, "a key expected");
			if (parse_string(p, &v->keys[v->len]))
				return p->err;
			skip_space(p);
			if (p->pos >= p->len || p->s[p->pos] != ':') {
				free(v->keys[v->len]);
				return fail(p, "':' expected after a key");
			}
			p->pos++;
		}
		if (parse_value(p, &v->items[v->len], depth + 1)) {
			/* The member's own completed parts; the rest are counted. */
			jsonr_free(&v->items[v->len]);
			if (object)
				free(v->keys[v->len]);
			return p->err;
		}
		v->len++;
		skip_space(p);
		if (p->pos < p->len && p->s[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (p->pos < p->len && p->s[p->pos] == close) {
			p->pos++;
			return 0;
		}
		return fail(p, object ? "',' or '}' expected" : "',' or ']' expected");
	}
}

static int parse_value(struct parser *p, struct jsonr_value *v, int depth)
{
	char c;

	memset(v, 0, sizeof(*v));
	if (depth > JSONR_MAX_DEPTH)
		return fail(p, "nested too deep");
	skip_space(p);
	if (p->pos >= p->len)
		return fail(p, "a value expected");
	c = p->s[p->pos];
	if (c == '{' || c == '[') {
		p->pos++;
		v->type = c == '{' ? JSONR_OBJECT : JSONR_ARRAY;
		return parse_members(p, v, depth);
	}
	if (c == '"') {
		v->type = JSONR_STRING;
		return parse_string(p, &v->string);
	}
	if (take_word(p, "true") || take_word(p, "false")) {
		v->type = JSONR_BOOL;
		v->boolean = c == 't';
		return 0;
	}
	if (take_word(p, "null"))
		return 0;
	v->type = JSONR_NUMBER;
	return parse_number(p, &v->number);
}

int jsonr_parse(const char *text, size_t len, struct jsonr_value *out, char *why,
		size_t whylen)
{
	struct parser p = { .s = text, .len = len, .why = why, .whylen = whylen };

	if (whylen)
		why[0] = '\0';
	if (!parse_value(&p, out, 0)) {
		skip_space(&p);
		if (p.pos < p.len)
			fail(&p, "the end of the document expected");
	}
	if (p.err)
		jsonr_free(out);
	return p.err;
}

int jsonr_read_file(const char *path, struct jsonr_value *out, char *why, size_t whylen)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t len = 0, cap = 1 << 16;
	char *buf, *bigger;
	int err;

	memset(out, 0, sizeof(*out));
	if (!f) {
		err = -errno;
		snprintf(why, whylen, "%s: %s", path, strerror(-err));
		return err;
	}
	buf = malloc(cap);
	while (buf) {
		len += fread(buf + len, 1, cap - len, f);
		if (len < cap)
			break;
		bigger = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
		if (!bigger) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = bigger;
		cap *= 2;
	}
	err = !buf ? -ENOMEM : ferror(f) ? -EIO : 0;
	if (f != stdin)
		fclose(f);
	if (err) {
		snprintf(why, whylen, "%s: %s", path, strerror(-err));
		free(buf);
		return err;
	}
	err = jsonr_parse(buf, len, out, why, whylen);
	free(buf);
	if (err && whylen) {
		char what[256];

		snprintf(what, sizeof(what), "%s", why);
		snprintf(why, whylen, "%s: %s", path, what);
	}
	return err;
}

void jsonr_free(struct jsonr_value *v)
{
	for (size_t i = 0; i < v->len; i++) {
		jsonr_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->string);
	memset(v, 0, sizeof(*v));
}

const struct jsonr_value *jsonr_get(const struct jsonr_value *obj, const char *key)
{
	if (!obj || obj->type != JSONR_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->len; i++)
		if (!strcmp(obj->keys[i], key))
			return &obj->items[i];
	return NULL;
}

const struct jsonr_value *jsonr_at(const struct jsonr_value *arr, size_t i)
{
	if (!arr || arr->type != JSONR_ARRAY || i >= arr->len)
		return NULL;
	return &arr->items[i];
}

size_t jsonr_len(const struct jsonr_value *v)
{
	return v && (v->type == JSONR_ARRAY || v->type == JSONR_OBJECT) ? v->len : 0;
}

const char *jsonr_str(const struct jsonr_value *v)
{
	return v && v->type == JSONR_STRING ? v->string : NULL;
}

bool jsonr_num(const struct jsonr_value *v, double *out)
{
	if (!v || v->type != JSONR_NUMBER)
		return false;
	*out = v->number;
	return true;
}

bool jsonr_truthy(const struct jsonr_value *v)
{
	if (!v)
		return false;
	return v->type == JSONR_BOOL ? v->boolean : v->type == JSONR_NUMBER && v->number != 0;
}
