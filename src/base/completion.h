/* SPDX-License-Identifier: MIT */
/*
 * A one-shot completion (the kernel's struct completion, reduced to what the
 * shrinker's free path needs): one waiter, one or more completers.
 */
#ifndef SHR_COMPLETION_H
#define SHR_COMPLETION_H

#include <pthread.h>
#include <stdbool.h>

#include "lock.h"

struct shr_completion {
	struct shr_mutex lock; /* SHR_LOCK_COMPLETION, a leaf */
	pthread_cond_t cond;
	bool done; /* Sync: lock */
};

void shr_completion_init(struct shr_completion *c);
void shr_completion_destroy(struct shr_completion *c);
void shr_complete(struct shr_completion *c);
void shr_wait_for_completion(struct shr_completion *c);

#endif /* SHR_COMPLETION_H */
