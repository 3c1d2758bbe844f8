/* SPDX-License-Identifier: MIT */
/*
 * The machine (machine.h): what it is (CPU model, online CPUs, kernel, the
 * kind of machine, the load: the record of every document and table),
 * MemTotal and MemAvailable from /proc/meminfo, this process's peak
 * resident set, and the default memory budget.
 *
 * The kind: UML when uname's machine is "um"; QEMU when the CPU model or
 * the DMI vendor says QEMU; another hypervisor when the CPU's hypervisor
 * flag is set (named from /sys/hypervisor/type when the kernel says;
 * Firecracker and others leave it unsaid); else native.
 *
 * The default memory budget is what the machine can give: MemAvailable
 * minus a margin (an eighth of it, at least 1 GiB) for the rest of the
 * system. It only decides how many cgroups a design that does not fit gets;
 * the scales' own needs are in docs/guides/LAB.md.
 *
 * An address-space limit (RLIMIT_AS, prlimit --as, ulimit -v) is read
 * here too: what it leaves unmapped. The budget that fits in it depends on
 * the run (how many hosts, on how many nodes): lab_budget_fit_as() in
 * scale.c.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "machine.h"

#define LAB_BUDGET_MIN_MARGIN (1ull << 30)

/* The "KEY: N kB" line of @file (/proc/meminfo, /proc/self/status) in
 * bytes, 0 when unknown. */
static unsigned long long kb_field(const char *file, const char *key)
{
	FILE *f = fopen(file, "r");
	char line[256];
	size_t klen = strlen(key);
	unsigned long long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			kb = strtoull(line + klen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return kb * 1024;
}

/* The value of the first line of /proc/cpuinfo starting with @key, or "". */
static void cpuinfo(const char *key, char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	size_t klen = strlen(key);

	buf[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, key, klen) || !colon)
			continue;
		colon++;
		colon += strspn(colon, " \t");
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

/* The first line of file @path, or "". */
static void first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static void machine_kind(struct lab_machine *m, const struct utsname *u)
{
	char flags[4096], vendor[128], hv[64];

	first_line("/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor));
	cpuinfo("flags", flags, sizeof(flags));
	first_line("/sys/hypervisor/type", hv, sizeof(hv));
	if (u && !strcmp(u->machine, "um"))
		snprintf(m->kind, sizeof(m->kind), "UML");
	else if (strstr(m->cpu_model, "QEMU") || strstr(vendor, "QEMU"))
		snprintf(m->kind, sizeof(m->kind), "QEMU");
	else if (strstr(flags, " hypervisor") || hv[0])
		snprintf(m->kind, sizeof(m->kind), "virtual machine (%s)",
			 hv[0] ? hv : vendor[0] ? vendor : "the hypervisor does not say which");
	else
		snprintf(m->kind, sizeof(m->kind), "native");
}

void lab_machine_read(struct lab_machine *m)
{
	struct utsname u;
	bool named = !uname(&u);
	FILE *f;

	memset(m, 0, sizeof(*m));
	cpuinfo("model name", m->cpu_model, sizeof(m->cpu_model));
	m->cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (named) {
		snprintf(m->kernel, sizeof(m->kernel), "%s %s %s %s", u.sysname, u.release,
			 u.version, u.machine);
		snprintf(m->release, sizeof(m->release), "%s %s", u.sysname, u.release);
	}
	machine_kind(m, named ? &u : NULL);
	f = fopen("/proc/loadavg", "r");
	if (f) {
		m->have_load = fscanf(f, "%lf %lf %lf", &m->load[0], &m->load[1], &m->load[2]) == 3;
		fclose(f);
	}
}

const struct lab_machine *lab_machine_at_start(void)
{
	static struct lab_machine start;
	static bool read;

	if (!read) {
		lab_machine_read(&start);
		read = true;
	}
	return &start;
}

void lab_machine_words(char *buf, size_t len, const struct lab_machine *m)
{
	char load[64] = "unknown";

	if (m->have_load)
		snprintf(load, sizeof(load), "%.2f %.2f %.2f", m->load[0], m->load[1], m->load[2]);
	snprintf(buf, len, "%s; %s, %ld online CPUs; %s; load average %s", m->kind,
		 m->cpu_model[0] ? m->cpu_model : "CPU model unknown", m->cpus, m->release, load);
}

static unsigned long long meminfo(const char *key)
{
	return kb_field("/proc/meminfo", key);
}

unsigned long long lab_mem_available(void)
{
	return meminfo("MemAvailable");
}

unsigned long long lab_mem_total(void)
{
	return meminfo("MemTotal");
}

unsigned long long lab_as_limit(unsigned long long *unmapped)
{
	struct rlimit rl;
	unsigned long long mapped;

	*unmapped = 0;
	if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	mapped = kb_field("/proc/self/status", "VmSize");
	*unmapped = mapped < rl.rlim_cur ? rl.rlim_cur - mapped : 0;
	return rl.rlim_cur;
}

void lab_budget_default(struct lab_options *opt)
{
	unsigned long long avail = lab_mem_available(), margin;

	if (opt->mem_budget_given)
		return;
	if (!avail) {
		opt->mem_budget = 12ull << 30;
		snprintf(opt->budget_note, sizeof(opt->budget_note),
			 "12 GiB: MemAvailable unknown");
		return;
	}
	margin = avail / 8 > LAB_BUDGET_MIN_MARGIN ? avail / 8 : LAB_BUDGET_MIN_MARGIN;
	opt->mem_budget = avail > margin ? avail - margin : avail / 2;
	snprintf(opt->budget_note, sizeof(opt->budget_note),
		 "MemAvailable %.1f GiB minus %.1f GiB for the rest of the system",
		 (double)avail / (1ull << 30), (double)(avail > margin ? margin : avail / 2) /
		 (1ull << 30));
}

unsigned long long lab_peak_rss(void)
{
	return kb_field("/proc/self/status", "VmHWM");
}
