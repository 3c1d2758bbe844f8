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
	do {
		urcu_memb_barrier();
	} while (atomic_load_explicit(&shr_rcu_pending, memory_order_relaxed) != 0);
	SHR_TSAN_ACQUIRE(&shr_rcu_gp_token);
}
