/* SPDX-License-Identifier: MIT */
/*
 * A JSON reader: a document parsed into a tree of values (jsonr.c says
 * what it accepts), so that the lab can judge the documents both worlds
 * write (the model's and the guest's shrinklab/2, klab's klab-lab/1).
 */
#ifndef SHRINKLAB_JSONR_H
#define SHRINKLAB_JSONR_H

#include <stdbool.h>
#include <stddef.h>

enum jsonr_type {
	JSONR_NULL,
	JSONR_BOOL,
	JSONR_NUMBER,
	JSONR_STRING,
	JSONR_ARRAY,
	JSONR_OBJECT,
};

struct jsonr_value {
	enum jsonr_type type;
	bool boolean;               /* JSONR_BOOL */
	double number;              /* JSONR_NUMBER */
	char *string;               /* JSONR_STRING: decoded, NUL-terminated */
	size_t len;                 /* JSONR_ARRAY, JSONR_OBJECT: members */
	struct jsonr_value *items;  /* their values, in the document's order */
	char **keys;                /* JSONR_OBJECT: their keys */
};

/*
 * Parse the @len bytes of @text (the whole of them: one value, white space
 * around it) into @out.
 * Context: any; allocates.
 * Return: 0; -EINVAL with @why (@whylen bytes) saying what is wrong and
 * where, or -ENOMEM; @out is a JSONR_NULL then.
 */
int jsonr_parse(const char *text, size_t len, struct jsonr_value *out, char *why,
		size_t whylen);
/*
 * Read and parse the file at @path ("-": standard input) into @out.
 * Context: process context; allocates.
 * Return: 0; -errno of the read (@why names the file), -EINVAL or -ENOMEM.
 */
int jsonr_read_file(const char *path, struct jsonr_value *out, char *why, size_t whylen);
/* Free what @v holds; @v is a JSONR_NULL after. Context: any. */
void jsonr_free(struct jsonr_value *v);

/* Member @key of object @obj; NULL when @obj is NULL or no object, or lacks it. */
const struct jsonr_value *jsonr_get(const struct jsonr_value *obj, const char *key);
/* Item @i of array @arr; NULL when out of range or no array. */
const struct jsonr_value *jsonr_at(const struct jsonr_value *arr, size_t i);
/* The members of @v when it is an array or object, else 0. */
size_t jsonr_len(const struct jsonr_value *v);
/* @v's string, or NULL when @v is NULL or no string. */
const char *jsonr_str(const struct jsonr_value *v);
/* @v's number in @out: true, or false when @v is NULL or no number. */
bool jsonr_num(const struct jsonr_value *v, double *out);
/* @v is true (a JSON true, or a number other than 0, as Python's bool()). */
bool jsonr_truthy(const struct jsonr_value *v);

#endif /* SHRINKLAB_JSONR_H */
