/* SPDX-License-Identifier: MIT */
/*
 * Thread registration and grace periods: thin wrappers over liburcu-memb,
 * plus the TSan token described in rcu.h.
 */
#include <stdio.h>
#include <stdlib.h>

#include "rcu.h"

#ifdef SHR_TSAN
char shr_rcu_gp_token;
#endif

atomic_long shr_rcu_pending;

void shr_thread_register(void)
{
	urcu_memb_register_thread();
}

void shr_thread_unregister(void)
{
	urcu_memb_unregister_thread();
}

void shr_synchronize_rcu(void)
{
	urcu_memb_synchronize_rcu();
	SHR_TSAN_ACQUIRE(&shr_rcu_gp_token);
}

void shr_rcu_barrier(void)
{
	/*
	 * A 0 means no callback of ours is queued or running (a callback
	 * raises the count for what it queues before it lowers its own in
	 * shr_rcu_callback_exit()), so there is nothing to wait for; liburcu's
	 * barrier costs a round of its callback thread (about 10 ms), so it is
	 * skipped then. After urcu_memb_barrier() every callback queued before
	 * it has returned; read the count again for what they queued.
	 */
	for (unsigned int rounds = 0;
	     atomic_load_explicit(&shr_rcu_pending, memory_order_acquire) != 0; rounds++) {
		/* Callback chains are a few links deep; thousands of rounds mean
		 * a callback that never calls shr_rcu_callback_exit(). */
		if (rounds == 5000) {
			fprintf(stderr, "libshrinker BUG: shr_rcu_barrier(): %ld callbacks never "
					"finished (missing shr_rcu_callback_exit()?)\n",
				atomic_load(&shr_rcu_pending));
			abort();
		}
		urcu_memb_barrier();
	}
	SHR_TSAN_ACQUIRE(&shr_rcu_gp_token);
}
