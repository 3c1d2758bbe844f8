/* SPDX-License-Identifier: MIT */
/*
 * What the lab reads of the machine it runs on.
 */
#ifndef SHRINKLAB_MACHINE_H
#define SHRINKLAB_MACHINE_H

#include "types.h"

/* MemAvailable and MemTotal in bytes, 0 when unknown. */
unsigned long long lab_mem_available(void);
unsigned long long lab_mem_total(void);
/* Peak resident set (VmHWM) of this process in bytes, 0 if unknown. */
unsigned long long lab_peak_rss(void);
/* The address-space limit (RLIMIT_AS) in bytes, 0 when there is none;
 * @unmapped what it leaves beyond what this process has mapped now. */
unsigned long long lab_as_limit(unsigned long long *unmapped);
/* Size the default memory budget from the machine (if none was given):
 * opt->mem_budget and the note that says how. */
void lab_budget_default(struct lab_options *opt);

#endif /* SHRINKLAB_MACHINE_H */
