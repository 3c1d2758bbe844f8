/* SPDX-License-Identifier: MIT */
/*
 * One-shot completion: a flag under a mutex and a condition variable. The
 * mutex orders everything the completer did before shr_complete() before
 * everything the waiter does after shr_wait_for_completion() returns.
 */
#include "completion.h"

void shr_completion_init(struct shr_completion *c)
{
	shr_mutex_init(&c->lock, SHR_LOCK_COMPLETION);
	pthread_cond_init(&c->cond, NULL);
	c->done = false;
}

void shr_completion_destroy(struct shr_completion *c)
{
	pthread_cond_destroy(&c->cond);
	shr_mutex_destroy(&c->lock);
}

void shr_complete(struct shr_completion *c)
{
	shr_mutex_lock(&c->lock);
	c->done = true;
	pthread_cond_broadcast(&c->cond);
	shr_mutex_unlock(&c->lock);
}

void shr_wait_for_completion(struct shr_completion *c)
{
	shr_mutex_lock(&c->lock);
	while (!c->done)
		shr_mutex_cond_wait(&c->lock, &c->cond);
	shr_mutex_unlock(&c->lock);
}
