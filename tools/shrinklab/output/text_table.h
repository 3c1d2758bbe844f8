/* SPDX-License-Identifier: MIT */
/*
 * A plain-text table as the kernel lab's tables print: columns as wide as
 * their widest cell, two spaces in front and between, a dashed line under
 * the header, no trailing space (text_table.c).
 */
#ifndef SHRINKLAB_TEXT_TABLE_H
#define SHRINKLAB_TEXT_TABLE_H

#include <stddef.h>
#include <stdio.h>

struct lab_text_table {
	size_t cols, nr_rows;
	char **cells; /* nr_rows * cols copies */
	int err;      /* -ENOMEM once a row could not be kept */
};

/* An empty table of @cols columns. Context: any. */
void lab_text_table_init(struct lab_text_table *t, size_t cols);
/* A copy of @row (@t->cols strings) as the next row; on -ENOMEM @t->err
 * is set and later rows are dropped. Context: any; allocates. */
void lab_text_table_add(struct lab_text_table *t, const char *const *row);
/* @header (@t->cols strings), the dashes and every row. Return: @t->err
 * (nothing printed when it is not 0). Context: any; allocates. */
int lab_text_table_print(FILE *out, const struct lab_text_table *t, const char *const *header);
/* Free what @t holds. Context: any. */
void lab_text_table_free(struct lab_text_table *t);

#endif /* SHRINKLAB_TEXT_TABLE_H */
