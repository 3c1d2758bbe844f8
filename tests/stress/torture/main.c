/* SPDX-License-Identifier: MIT */
/*
 * torture: every operation of the subsystem at once, on every design.
 * This file: the command line, the state (T) and the helpers every file
 * takes (random numbers, violations); torture.h names the other files, one
 * per concern.
 *
 *   torture -t SECONDS|--ops N -s SEED -d DESIGN|all [--units cache|kmalloc]
 *           [--expand-batch N] [--nokmem] [--nonslab-ids] [--threads N]
 *           [--nodes N] [--strict-bits | --kernel-bits] [--mounts N]
 *           [--delays MAX_US[,PERMILLE] | --delays 0] [--delay-points P,...]
 *           [--faults | --no-faults] [--no-readers | --readers-no-stats]
 *           [--id-base N]
 *
 * Length: -t SECONDS of wall time (long runs by hand), or --ops N
 * operations (the test suite: bounded by work, so a loaded machine makes a
 * run slower, never shorter; the checks and phases then come every so many
 * operations, run.c's run_clock()).
 *
 * Worker threads pick operations at random: mount, unmount and remount
 * superblocks (shrinker + two list_lrus), create cgroups under live and
 * dying parents, offline and release them, add and delete objects in random
 * cgroups and nodes, reclaim one cgroup (shr_shrink_slab), a subtree
 * (shr_mem_cgroup_reclaim) and the host (shr_drop_caches).
 *
 * Mounts. Up to 256 slots (--mounts); 8 are open at the start and the rest
 * open over the first half of the run, so shrinker ids climb past 64 and
 * 128 and the designs that grow per-cgroup arrays grow them while adds and
 * reclaim run. A mount gets the lowest free id, often the one an unmount or
 * a remount (a container restart) has just released, whose bits other
 * cgroups still hold, and adds its first objects at once ("lasting" ones:
 * only reclaim or the unmount frees them): the id-reuse race of
 * docs/design/RACES.md R2.
 *
 * Ids past every size class (--id-base N). Before the workers start, N
 * memcg-aware shrinkers (never registered, so no walk calls them) take ids
 * 0..N-1; then the ballast shrinkers at the first id past each size class
 * a design's per-cgroup structure crosses are freed again (64 and 128: unit
 * and bitmap word boundaries; 1024: flat's id-sized array is past
 * kmalloc-8k; 65536: a pointer per unit passes 8 KiB; 131072: indexed's
 * 4-byte count per unit passes 8 KiB; 524288: flat's array passes the page
 * allocator's largest order and is vmalloc'ed). The first FIRST_MOUNTS
 * slots are mounted (memcg-aware superblocks) before the workers start, so
 * the holes are taken and at least two mounts sit at ids N and up from the
 * start, whatever the run's speed; later mounts take the lowest free id,
 * a hole or past N. Every cgroup then holds bits, objects and deferred work
 * at those ids while the readers (bookkeeping, stats, debugfs) and reclaim
 * run on them; the run fails unless a mount reached id N. The ballast is
 * work, not time: it is made before the clock starts and freed after the
 * checks. flat grows one id at a time by default, which would
 * copy the root's arrays once per ballast id: it needs --expand-batch here;
 * nobitmap (no bits) visits every allocated id on every cgroup reclaim, the
 * ballast's too, and is skipped (the pre-4.19 cost, not a race to find).
 *
 * Shrinker kinds. Each mount draws one: the lab's superblock (NUMA- and
 * memcg-aware, root bits), the same without root bits (the root walk list
 * under indexed), not NUMA-aware (deferred slot 0), not memcg-aware (root
 * lists, root walk only), neither; or a queue cache (struct tq, below):
 * memcg-aware and NONSLAB, objects on its own per-cgroup queues, bits set
 * with shr_set_shrinker_bit() and queues moved up at offline, like the
 * kernel's THP deferred split queue, with or without root bits. With
 * --nokmem the list_lrus keep root lists only and the queue caches are what
 * non-root reclaim calls; with --nonslab-ids they live in the second id
 * space.
 *
 * Isolate callbacks. While the workers run, a superblock scan's callback
 * returns every status a callback can (REMOVED mostly, REMOVED_RETRY,
 * ROTATE, SKIP, RETRY, STOP: the last two drop the list lock mid-walk);
 * each must be seen in a run. Checks scan with REMOVED only.
 *
 * Fault injection (default; --no-faults turns it off). While the workers
 * run, the main thread replaces the allocator's fault rule every 4 ms:
 * mostly "fail one of the next few hundred allocations", sometimes "fail
 * every allocation of one cache" (XArray nodes, kmalloc classes, units,
 * objects), sometimes none. Every call must return 0 or -ENOMEM (mount,
 * cgroup creation, add; a failed add leaves nothing behind and its record
 * goes back to FREE); the checks run with faults off and must hold.
 *
 * Readers. 3% of the operations read what the API documents as safe while
 * everything else runs, racing rmdir and release: shr_shrinker_get_stats(),
 * the debugfs count file (parsed) and scan file (of a cgroup that may be
 * gone: 0 or -ENOENT), shr_mem_cgroup_bookkeeping() of a referenced cgroup,
 * and full or broken-off iterator walks with a lookup by inode number.
 *
 * Cgroups. Slots 0..7 are persistent (taken offline only at the end, and
 * never given children), so a bit lost in them is not healed by an offline
 * (reparenting sets the parent's bit) before a check sees it; half the
 * lasting objects and half the single-cgroup reclaims go to them.
 *
 * Window widening (debug builds, <shrinker/race.h>): the race points'
 * delays are armed by default (100 us at 10/1000, scaled per point), in
 * stutter phases; each design's run reports the points it reached, and -d
 * all fails if a point reachable by the designs run was never hit.
 *
 * The ledger. Every object added gets a record whose atomic word holds
 * (generation << 8 | state). States: FREE -> ADDING (the adder) -> ON_LIST
 * (the adder, once the add returned) -> ISOLATED (a scan's or an unmount's
 * isolate callback, under the list lock; also straight from ADDING) or
 * DELETING (a deleter that claimed it) -> FREE with the generation bumped
 * (the free hook). The object carries (generation, index) in its serial, so
 * a scan that isolates or frees an object twice, or an object the ledger
 * has already seen freed, trips a compare-exchange and is a violation.
 * Records are recycled only through FREE, so their number bounds the
 * objects alive at once.
 *
 * Quiescent points, every half second: the main thread raises `pause`;
 * every worker finishes its operation and waits on a barrier; the main
 * thread checks and lets them go. Checks: every ON_LIST record is seen
 * exactly once by a walk over every list and no other object is on a list;
 * list counts agree with the walk; offlining one cgroup moves its deferred
 * work to its parent exactly; shr_drop_caches() empties the lists of every
 * online cgroup (no object stranded without its bit). At the end: the same. The kernel's
 * own rule for an add through a dying cgroup (the bit goes to the dying
 * caller) could leave the owner's bit clear; the library sets the owner's
 * bit instead (list_lru.c), so any stranded object is a violation. The
 * tainted lists are still tracked and counted; --kernel-bits tolerates them
 * again (for comparing against the kernel's rule). Adds
 * mostly charge the nearest live ancestor, as the kernel's objcg
 * reparenting does; one in eight goes through the dying cgroup itself.
 * Then every cgroup goes offline and a
 * second drop_caches must again leave every list empty; after teardown the
 * private slab allocator's totals equal their snapshot from before the host
 * existed.
 *
 * Locking of the test itself (not of the library): cg_lock guards the
 * cgroup table; each mount slot has a rwlock, read-held by whoever adds to
 * or deletes from that mount, write-held by mount and unmount, so an
 * unmount never destroys lists under an adder. Reclaim takes neither: the
 * library's shrinker pinning is what is under test there.
 */
#include "torture.h"

struct torture T;

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

unsigned int rng_below(uint64_t *s, unsigned int bound)
{
	return (unsigned int)(rng_next(s) % bound);
}

void count_op(enum op_kind k)
{
	atomic_fetch_add_explicit(&T.ops[k], 1, memory_order_relaxed);
}

__attribute__((format(printf, 1, 2), noreturn)) void violation(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "torture: VIOLATION (design %s, seed %" PRIu64 "): ", T.design,
		T.cfg.seed);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\ntorture: replay with -s %" PRIu64 " -d %s\n", T.cfg.seed, T.design);
	fflush(stderr);
	_exit(1);
}

/* A call failed with @ret: fine if it is -ENOMEM while faults are injected. */
void enomem_ok(int ret, const char *what)
{
	if (ret != -ENOMEM || !T.cfg.faults)
		violation("%s: %d", what, ret);
	atomic_fetch_add_explicit(&T.enomem, 1, memory_order_relaxed);
}

static void usage(const char *msg, const char *arg)
{
	fprintf(stderr, "torture: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	fprintf(stderr, "usage: torture -t SECONDS|--ops N -s SEED -d DESIGN|all [--units cache|kmalloc] "
			"[--expand-batch N] [--nokmem] [--nonslab-ids] [--threads N] [--nodes N] "
			"[--strict-bits | --kernel-bits] [--delays MAX_US[,PERMILLE] | --delays 0] "
			"[--delay-points NAME,...] [--mounts N] [--faults | --no-faults] [--no-readers | --readers-no-stats] "
			"[--id-base N]\n");
	exit(2);
}

/* --delay-points NAME[,NAME...]: only these race points delay. */
static void parse_delay_points(const char *v)
{
	char buf[512], *tok, *save;

	if (!v || strlen(v) >= sizeof(buf))
		usage("bad value for", "--delay-points");
	strcpy(buf, v);
	T.cfg.delay_mask = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int p;

		for (p = 0; p < SHR_RACE_NR; p++)
			if (!strcmp(tok, shr_race_point_name((enum shr_race_point)p)))
				break;
		if (p == SHR_RACE_NR)
			usage("unknown race point", tok);
		T.cfg.delay_mask |= UINT64_C(1) << p;
	}
	if (!T.cfg.delay_mask)
		usage("bad value for", "--delay-points");
}

/* --delays MAX_US[,PERMILLE]; 0 turns widening off. */
static void parse_delays(const char *v)
{
	char *end;
	unsigned long us, pm = T.cfg.delay_permille;

	if (!v)
		usage("missing value for", "--delays");
	errno = 0;
	us = strtoul(v, &end, 10);
	if (!errno && *end == ',' && end[1] >= '0' && end[1] <= '9')
		pm = strtoul(end + 1, &end, 10);
	if (errno || *end || end == v || *v == '-' || us > 1000000 || pm < 1 || pm > 1000)
		usage("bad value for --delays (MAX_US[,PERMILLE], permille 1..1000)", v);
	T.cfg.delay_max_us = (unsigned int)us;
	T.cfg.delay_permille = (unsigned int)pm;
}

static long parse_num(const char *s, long min, long max, const char *what)
{
	char *end;
	long v;

	if (!s)
		usage("missing value for", what);
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max)
		usage("bad value for", what);
	return v;
}

int main(int argc, char **argv)
{
	const char *design = NULL;
	int skipped = 0, ran = 0;
	bool seconds_given = false;

	shr_host_params_init(&T.cfg.params);
	T.cfg.params.nr_nodes = 2;
	T.cfg.seconds = 5;
	T.cfg.seed = (uint64_t)time(NULL);
	T.cfg.threads = 4;
	/* Widening on by default where the build has race points. */
	T.cfg.delay_max_us = DEFAULT_DELAY_US;
	T.cfg.delay_permille = DEFAULT_DELAY_PERMILLE;
	T.cfg.delay_mask = SHR_RACE_ALL;
	T.cfg.mounts = DEFAULT_MOUNTS;
	T.cfg.faults = true;
	T.cfg.readers = true;
	T.cfg.stats_readers = true;
	if (getenv("SHR_RACE_DELAYS"))
		parse_delays(getenv("SHR_RACE_DELAYS"));
	T.strict_bits = true;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-t")) {
			T.cfg.seconds = (int)parse_num(v, 1, 86400, a);
			seconds_given = true;
			i++;
		} else if (!strcmp(a, "--ops")) {
			T.cfg.ops = parse_num(v, 1, 1000000000000L, a);
			i++;
		} else if (!strcmp(a, "-s") || !strcmp(a, "--seed")) {
			char *end;

			if (!v)
				usage("missing value for", a);
			errno = 0;
			T.cfg.seed = strtoull(v, &end, 10);
			if (errno || *end || end == v || *v == '-')
				usage("bad value for", a);
			i++;
		} else if (!strcmp(a, "-d") || !strcmp(a, "--design")) {
			if (!v)
				usage("missing value for", a);
			design = v;
			i++;
		} else if (!strcmp(a, "--units")) {
			if (v && !strcmp(v, "kmalloc"))
				T.cfg.params.units = SHR_UNITS_KMALLOC;
			else if (v && !strcmp(v, "cache"))
				T.cfg.params.units = SHR_UNITS_CACHE;
			else
				usage("--units takes cache or kmalloc", v);
			i++;
		} else if (!strcmp(a, "--expand-batch")) {
			T.cfg.params.expand_batch = (unsigned int)parse_num(v, 1, 65536, a);
			i++;
		} else if (!strcmp(a, "--strict-bits")) {
			T.strict_bits = true;
		} else if (!strcmp(a, "--kernel-bits")) {
			T.strict_bits = false;
		} else if (!strcmp(a, "--nokmem")) {
			T.cfg.params.kmem = false;
		} else if (!strcmp(a, "--nonslab-ids")) {
			T.cfg.params.kmem = false;
			T.cfg.params.nonslab_ids = true;
		} else if (!strcmp(a, "--threads")) {
			T.cfg.threads = (int)parse_num(v, 1, MAX_THREADS, a);
			i++;
		} else if (!strcmp(a, "--faults")) {
			T.cfg.faults = true;
		} else if (!strcmp(a, "--no-faults")) {
			T.cfg.faults = false;
		} else if (!strcmp(a, "--no-readers")) {
			T.cfg.readers = false;
		} else if (!strcmp(a, "--readers-no-stats")) {
			T.cfg.stats_readers = false;
		} else if (!strcmp(a, "--mounts")) {
			T.cfg.mounts = (int)parse_num(v, 1, MAX_MOUNTS, a);
			i++;
		} else if (!strcmp(a, "--id-base")) {
			T.cfg.id_base = (int)parse_num(v, 0, 1 << 22, a);
			i++;
		} else if (!strcmp(a, "--delays")) {
			parse_delays(v);
			i++;
		} else if (!strcmp(a, "--delay-points")) {
			parse_delay_points(v);
			i++;
		} else if (!strcmp(a, "--nodes")) {
			T.cfg.params.nr_nodes = (int)parse_num(v, 1, SHR_MAX_NUMNODES, a);
			i++;
		} else {
			usage("unknown argument", a);
		}
	}
	if (!design)
		usage("-d DESIGN is required (a design name or all)", NULL);
	if (seconds_given && T.cfg.ops)
		usage("give -t SECONDS or --ops N, not both", NULL);
	pthread_mutex_init(&T.free_lock, NULL);
	pthread_mutex_init(&T.cg_lock, NULL);
	for (int s = 0; s < MAX_MOUNTS; s++)
		pthread_rwlock_init(&T.mounts[s].lock, NULL);

	shr_thread_register();
	printf("torture: seed %" PRIu64 "\n", T.cfg.seed);
	if (widening())
		printf("torture: window widening on: delays up to %u us at %u/1000 of race-point "
		       "hits, stutter %.2f s on / %.2f s off\n",
		       T.cfg.delay_max_us, T.cfg.delay_permille, STUTTER_ON_S, STUTTER_OFF_S);
	else
		printf("torture: window widening off (%s)\n",
		       shr_race_available() ? "--delays 0" : "no race points in this build");
	fflush(stdout);
	if (!strcmp(design, "all")) {
		for (int d = 0; d < SHR_NR_DESIGNS; d++) {
			if (run_design((enum shr_design)d))
				skipped++;
			else
				ran++;
		}
	} else {
		enum shr_design d;
		struct shr_host_params p = T.cfg.params;
		const char *why = NULL;

		if (shr_design_parse(design, &d))
			usage("unknown design", design);
		p.design = d;
		if (shr_host_params_check(&p, &why))
			usage("bad parameters", why);
		if (run_design(d))
			skipped++;
		else
			ran++;
	}
	if (!strcmp(design, "all"))
		check_race_coverage();
	printf("torture: %d design(s) passed, %d skipped, seed %" PRIu64 "\n", ran, skipped,
	       T.cfg.seed);
	shr_thread_unregister();
	if (!ran) {
		fprintf(stderr, "torture: the options apply to no design\n");
		return 2;
	}
	return 0;
}
