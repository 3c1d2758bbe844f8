/* SPDX-License-Identifier: MIT */
/*
 * The one-shot completion (src/base/completion.c) a shrinker's free waits
 * on: a wait after the completion returns at once; a waiter blocks until
 * the completion and then sees everything the completer wrote before it;
 * several completers and several waiters; a completion is reusable after
 * destroy and init.
 *
 * Internal test (tests/meson.build): completion.h is a src/base header.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

#include "completion.h"
#include "harness.h"

#define WAITERS 4

struct shared {
	struct shr_completion done;
	atomic_int woken;
	int payload; /* written before complete, read after wait: no atomics */
};

static void *waiter(void *arg)
{
	struct shared *s = arg;

	shr_wait_for_completion(&s->done);
	/* Ordered by the completion's mutex: the completer's write is seen. */
	if (s->payload != 42)
		atomic_store(&s->woken, -1000);
	atomic_fetch_add(&s->woken, 1);
	return NULL;
}

static void test_wait_after_complete_returns(void **state)
{
	struct shr_completion c;

	(void)state;
	shr_completion_init(&c);
	shr_complete(&c);
	shr_wait_for_completion(&c);
	shr_wait_for_completion(&c); /* one-shot: it stays complete */
	shr_completion_destroy(&c);
}

/* Waiters started before the completion stay blocked until it comes (they
 * are given every chance to run past it), then all of them return and see
 * the payload. */
static void test_waiters_block_until_complete(void **state)
{
	struct shared s = { .payload = 0 };
	pthread_t t[WAITERS];

	(void)state;
	shr_completion_init(&s.done);
	atomic_init(&s.woken, 0);
	for (int i = 0; i < WAITERS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, waiter, &s), 0);
	for (int i = 0; i < 1000; i++)
		sched_yield();
	usleep(20000);
	assert_int_equal(atomic_load(&s.woken), 0);
	s.payload = 42;
	shr_complete(&s.done);
	shr_complete(&s.done); /* a second completer changes nothing */
	for (int i = 0; i < WAITERS; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	assert_int_equal(atomic_load(&s.woken), WAITERS);
	shr_completion_destroy(&s.done);
}

static void test_reinit_makes_it_incomplete_again(void **state)
{
	struct shared s = { .payload = 42 };
	pthread_t t;

	(void)state;
	shr_completion_init(&s.done);
	shr_complete(&s.done);
	shr_completion_destroy(&s.done);
	shr_completion_init(&s.done);
	atomic_init(&s.woken, 0);
	assert_int_equal(pthread_create(&t, NULL, waiter, &s), 0);
	usleep(20000);
	assert_int_equal(atomic_load(&s.woken), 0);
	shr_complete(&s.done);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(atomic_load(&s.woken), 1);
	shr_completion_destroy(&s.done);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wait_after_complete_returns),
		cmocka_unit_test(test_waiters_block_until_complete),
		cmocka_unit_test(test_reinit_makes_it_incomplete_again),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("completion", tests);
}
