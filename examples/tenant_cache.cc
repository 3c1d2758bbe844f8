// SPDX-License-Identifier: MIT
//
// tenant_cache.cc: the C example's cache (tenant_cache.c) from C++, in
// brief: a cache whose entries are charged to tenants (memory cgroups) on a
// memcg-aware list_lru, a shrinker that frees them, pressure on one tenant
// that frees only its entries, and a removed tenant whose entries move to
// the root. The library's objects are owned by RAII wrappers, and every
// thread that calls the library holds an RcuThread.
//
//   c++ -std=c++11 tenant_cache.cc $(pkg-config --cflags --libs libshrinker)
//
// Prints what it did and "tenant_cache.cc: ok"; exit status 0, or 1.
#include <atomic>
#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <shrinker/host.h>
#include <shrinker/list_lru.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/shrinker.h>

namespace {

// Registration for the lifetime of a thread's use of the library.
struct RcuThread {
	RcuThread() { shr_thread_register(); }
	~RcuThread() { shr_thread_unregister(); }
	RcuThread(const RcuThread &) = delete;
	RcuThread &operator=(const RcuThread &) = delete;
};

void must(int ret, const char *what)
{
	if (ret < 0)
		throw std::runtime_error(std::string(what) + ": error " + std::to_string(-ret));
}

// Standard layout, the list item first: a list item is its entry.
struct Entry {
	shr_list_head lru;
	shr_mem_cgroup *owner; // the tenant charged; a reference
	unsigned long key;
};

class Cache {
public:
	explicit Cache(shr_host *host)
	{
		must(shr_shrinker_alloc(host, SHR_SHRINKER_MEMCG_AWARE, "tenant-cache++",
					&shrinker_),
		     "shr_shrinker_alloc");
		shrinker_->count_objects = count;
		shrinker_->scan_objects = scan;
		shrinker_->seeks = SHR_DEFAULT_SEEKS;
		shrinker_->private_data = this;
		must(shr_list_lru_init_memcg(host, shrinker_, &lru_), "shr_list_lru_init_memcg");
		must(shr_shrinker_register(shrinker_), "shr_shrinker_register");
	}

	~Cache()
	{
		shr_list_head head;

		shr_list_head_init(&head);
		shr_list_lru_walk(lru_, isolate, &head, ~0UL);
		dispose(&head);
		shr_shrinker_free(shrinker_);
		(void)shr_list_lru_destroy(lru_);
	}

	Cache(const Cache &) = delete;
	Cache &operator=(const Cache &) = delete;

	void insert(shr_mem_cgroup *tenant, unsigned long key)
	{
		Entry *e = new Entry{ {}, tenant, key };

		shr_list_head_init(&e->lru);
		shr_mem_cgroup_get(tenant);
		if (shr_list_lru_add(lru_, &e->lru, 0, tenant) != 1) {
			shr_mem_cgroup_put(tenant);
			delete e;
			throw std::runtime_error("shr_list_lru_add");
		}
	}

	unsigned long held_by(shr_mem_cgroup *memcg) { return shr_list_lru_count_one(lru_, 0, memcg); }
	unsigned long freed() const { return freed_; }

private:
	static Entry *entry_of(shr_list_head *item) { return reinterpret_cast<Entry *>(item); }

	static shr_lru_status isolate(shr_list_head *item, shr_list_lru_one *list, void *arg)
	{
		shr_list_lru_isolate_move(list, item, static_cast<shr_list_head *>(arg));
		return SHR_LRU_REMOVED;
	}

	static unsigned long count(shr_shrinker *s, shr_shrink_control *sc)
	{
		Cache *c = static_cast<Cache *>(s->private_data);
		unsigned long n = shr_list_lru_shrink_count(c->lru_, sc);

		return n ? n : SHR_SHRINK_EMPTY;
	}

	static unsigned long scan(shr_shrinker *s, shr_shrink_control *sc)
	{
		Cache *c = static_cast<Cache *>(s->private_data);
		shr_list_head head;

		shr_list_head_init(&head);
		shr_list_lru_shrink_walk(c->lru_, sc, isolate, &head);
		return c->dispose(&head);
	}

	unsigned long dispose(shr_list_head *head)
	{
		unsigned long n = 0;

		while (!shr_list_head_empty(head)) {
			shr_list_head *item = head->next;
			Entry *e = entry_of(item);

			shr_list_del_init(item);
			shr_mem_cgroup_put(e->owner);
			delete e;
			n++;
		}
		freed_ += n;
		return n;
	}

	shr_shrinker *shrinker_ = nullptr;
	shr_list_lru *lru_ = nullptr;
	std::atomic<unsigned long> freed_{ 0 };
};

int run()
{
	RcuThread registered;
	shr_host_params params;
	shr_host *host;
	int failures = 0;
	auto check = [&failures](bool ok, const char *what) {
		if (!ok) {
			std::fprintf(stderr, "tenant_cache.cc: FAILED: %s\n", what);
			failures++;
		}
	};

	shr_host_params_init(&params);
	must(shr_host_create(&params, &host), "shr_host_create");
	shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	{
		Cache cache(host);
		std::vector<shr_mem_cgroup *> tenants(2);
		for (auto &t : tenants)
			must(shr_mem_cgroup_create(root, &t), "shr_mem_cgroup_create");

		// One worker per tenant, each registered while it runs.
		std::vector<std::thread> workers;
		std::atomic<int> insert_failures{ 0 };
		for (std::size_t i = 0; i < tenants.size(); i++)
			workers.emplace_back([&cache, &tenants, &insert_failures, i] {
				RcuThread worker;
				try {
					for (unsigned long k = 0; k < 500; k++)
						cache.insert(tenants[i], k);
				} catch (const std::exception &) {
					insert_failures++;
				}
			});
		for (auto &w : workers)
			w.join();
		check(insert_failures == 0, "every insert succeeds");

		unsigned long freed = 0;
		must(shr_mem_cgroup_reclaim(tenants[0], 200, &freed), "shr_mem_cgroup_reclaim");
		std::printf("reclaim 200 from tenant0: %lu freed; tenant0 %lu, tenant1 %lu left\n",
			    freed, cache.held_by(tenants[0]), cache.held_by(tenants[1]));
		check(freed >= 200 && cache.held_by(tenants[0]) == 500 - freed,
		      "pressure on tenant0 frees tenant0's entries");
		check(cache.held_by(tenants[1]) == 500, "tenant1 is untouched");

		must(shr_mem_cgroup_offline(tenants[1]), "shr_mem_cgroup_offline");
		std::printf("tenant1 removed: %lu entries reparented to the root\n",
			    cache.held_by(root));
		check(cache.held_by(root) == 500, "tenant1's entries are on the root's list");

		must(shr_mem_cgroup_offline(tenants[0]), "shr_mem_cgroup_offline");
		// ~Cache evicts the rest.
	}
	shr_rcu_barrier();
	check(shr_host_destroy(host) == 0, "the host is destroyed");
	if (failures)
		return 1;
	std::printf("tenant_cache.cc: ok\n");
	return 0;
}

} // namespace

int main()
{
	try {
		return run();
	} catch (const std::exception &e) {
		std::fprintf(stderr, "tenant_cache.cc: %s\n", e.what());
		return 1;
	}
}
