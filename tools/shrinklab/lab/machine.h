/* SPDX-License-Identifier: MIT */
/*
 * What the lab reads of the machine it runs on.
 */
#ifndef SHRINKLAB_MACHINE_H
#define SHRINKLAB_MACHINE_H

#include "types.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * The record every result document and table carries, as mmtests and LKP
 * record it: the CPU model, the online CPUs, the kernel, what kind of
 * machine it is (native, UML, QEMU, another hypervisor) and the load.
 */
struct lab_machine {
	char cpu_model[128]; /* /proc/cpuinfo "model name", "" unknown */
	long cpus;           /* online CPUs */
	char kernel[400];    /* uname: system, release, version, machine */
	char release[160];   /* uname system and release */
	char kind[192];      /* "native", "UML", "QEMU", "virtual machine (...)" */
	double load[3];      /* /proc/loadavg: 1, 5, 15 minutes */
	bool have_load;
};
/* The machine now (the load as of this call). */
void lab_machine_read(struct lab_machine *m);
/* The machine when the run started: read on the first call (the report's
 * header makes it), the same record after. */
const struct lab_machine *lab_machine_at_start(void);
/* "QEMU; AMD EPYC, 2 online CPUs; Linux 6.12.117; load average 3.1 2.9 2.5" */
void lab_machine_words(char *buf, size_t len, const struct lab_machine *m);

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
