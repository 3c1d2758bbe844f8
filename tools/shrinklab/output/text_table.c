/* SPDX-License-Identifier: MIT */
/*
 * The kernel lab's plain-text table (text_table.h): cells are copied in as
 * rows come, widths are taken when printing, so a row may be added after
 * any other. Memory: one allocation per cell, freed by
 * lab_text_table_free(); a failed allocation marks the table (err) and
 * the print refuses it rather than print a table with rows missing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "text_table.h"

void lab_text_table_init(struct lab_text_table *t, size_t cols)
{
	memset(t, 0, sizeof(*t));
	t->cols = cols;
}

void lab_text_table_add(struct lab_text_table *t, const char *const *row)
{
	char **cells;

	if (t->err)
		return;
	cells = realloc(t->cells, (t->nr_rows + 1) * t->cols * sizeof(*cells));
	if (!cells) {
		t->err = -ENOMEM;
		return;
	}
	t->cells = cells;
	for (size_t c = 0; c < t->cols; c++) {
		cells[t->nr_rows * t->cols + c] = strdup(row[c]);
		if (!cells[t->nr_rows * t->cols + c]) {
			while (c--)
				free(cells[t->nr_rows * t->cols + c]);
			t->err = -ENOMEM;
			return;
		}
	}
	t->nr_rows++;
}

/* One line of @row in @widths, trailing spaces cut. */
static void line(FILE *out, size_t cols, const char *const *row, const size_t *widths)
{
	size_t pending = 2; /* spaces owed before the next text */

	for (size_t c = 0; c < cols; c++) {
		size_t len = strlen(row[c]);

		if (len) {
			fprintf(out, "%*s%s", (int)pending, "", row[c]);
			pending = 0;
		}
		pending += widths[c] - len + (c + 1 < cols ? 2 : 0);
	}
	fputc('\n', out);
}

int lab_text_table_print(FILE *out, const struct lab_text_table *t, const char *const *header)
{
	size_t *widths;
	char **dashes;
	int err = t->err;

	if (err)
		return err;
	widths = calloc(t->cols ? t->cols : 1, sizeof(*widths));
	dashes = calloc(t->cols ? t->cols : 1, sizeof(*dashes));
	for (size_t c = 0; widths && dashes && c < t->cols; c++) {
		widths[c] = strlen(header[c]);
		for (size_t r = 0; r < t->nr_rows; r++)
			if (strlen(t->cells[r * t->cols + c]) > widths[c])
				widths[c] = strlen(t->cells[r * t->cols + c]);
		dashes[c] = malloc(widths[c] + 1);
		if (!dashes[c]) {
			err = -ENOMEM;
			break;
		}
		memset(dashes[c], '-', widths[c]);
		dashes[c][widths[c]] = '\0';
	}
	if (!widths || !dashes)
		err = -ENOMEM;
	if (!err) {
		line(out, t->cols, header, widths);
		line(out, t->cols, (const char *const *)dashes, widths);
		for (size_t r = 0; r < t->nr_rows; r++)
			line(out, t->cols, (const char *const *)&t->cells[r * t->cols], widths);
	}
	for (size_t c = 0; dashes && c < t->cols; c++)
		free(dashes[c]);
	free(dashes);
	free(widths);
	return err;
}

void lab_text_table_free(struct lab_text_table *t)
{
	for (size_t i = 0; i < t->nr_rows * t->cols; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}
