/* SPDX-License-Identifier: MIT */
/*
 * Thread registration and grace periods: thin wrappers over liburcu-memb,
 * plus the TSan token described in rcu.h.
 */
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
	 * shr_rcu_callback_enter() drops shr_rcu_pending when a callback
	 * starts, so 0 can be read while the last callback is still running
	 * (it may still free, count down, or queue another callback). After a
	 * 0, one more barrier waits for that callback; a 0 read after it
	 * proves every callback finished (one that queued more raised the
	 * count before finishing).
	 */
	for (;;) {
		urcu_memb_barrier();
		if (atomic_load_explicit(&shr_rcu_pending, memory_order_relaxed) != 0)
			continue;
		urcu_memb_barrier();
		if (atomic_load_explicit(&shr_rcu_pending, memory_order_relaxed) == 0)
			break;
	}
	SHR_TSAN_ACQUIRE(&shr_rcu_gp_token);
}
