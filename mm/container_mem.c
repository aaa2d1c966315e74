// SPDX-License-Identifier: GPL-2.0
/*
 * The memory subsystem of process containers: charge every user page to
 * a container, limit what a container may use, and reclaim its pages.
 *
 * Charging.  Built without CONFIG_MEMCG, <linux/memcontrol.h> forwards the
 * memory cgroup charging interface (mem_cgroup_charge(), the swap-in
 * charge, uncharge, migration, replacement and THP split) here, so every
 * place where upstream charges a folio charges it to a container: faults,
 * COW, page cache, shmem, swap-in, khugepaged, userfaultfd, KSM, uprobes.
 * The container is that of the mm's owner task (mm->owner, kept up to date
 * by the MM_OWNER code), or of current when there is no mm (the page cache
 * of read() and write()).  Tasks of a hierarchy's top container, and every
 * task while the subsystem is not bound to a hierarchy, are not charged.
 *
 * A charged folio's head page records its owner in struct page, in the word
 * memory cgroups use for the same (page->container_mem; struct page does not
 * grow, since the two cannot be built together), and the folio sits on its
 * owner's list of charged folios, oldest first, linked through page_ext.  So
 * the hooks that only need the owner (the LRU and rmap ones, and uncharge for
 * the many folios that were never charged) cost no page_ext lookup.  Usage,
 * limit, peak and failcnt are a page_counter per container, charged
 * hierarchically: a charge counts against every ancestor below the top.  A
 * charge stays with the container that made it when the task moves.  When a
 * container is removed, its folios move to its parent's list, whose counter
 * already includes them (to nobody, at the top).  Each CPU keeps a small stock
 * of pages charged ahead to one container (struct mem_stock), so that most
 * charges and uncharges touch only that CPU's data, not the counters of every
 * ancestor.
 *
 * Statistics.  memory.stat is kept in per-CPU counters.  What kind of page a
 * folio is (anonymous, page cache, shmem) is not known when it is charged, but
 * it is when the folio first goes on an LRU list: the hook in
 * lruvec_add_folio() records the kind and the list in the low bits of the
 * owner word and counts them; uncharge, migration and THP split take them back
 * or pass them on.  mapped_file follows the rmap's NR_FILE_MAPPED updates.
 * These updates go to the folio's owner of the moment, read under RCU without
 * its lock; when the folios of a container move to its parent, whatever its
 * counters still hold is folded into the parent's after a grace period (on
 * removal, from the RCU callback that frees it).
 *
 * Limits.  A charge that would take a container (or an ancestor) over its
 * hard limit first reclaims folios of that container's subtree: isolated
 * from the LRU and handed to reclaim_pages(), file pages first, anonymous
 * ones only when swap is available.  If that fails, out_of_memory() runs
 * limited to the subtree (struct oom_control.container), so the victim is
 * chosen among the subtree's threads, and killed and reaped, as by the
 * kernel's OOM killer, but never outside the subtree.
 *
 * Swap.  A swap slot records which container swapped its page out (the swap
 * map of mm/swap_cgroup.c); the page is charged to that container when it
 * is read back, whoever reads it.
 *
 * Reclaim and memory.stat walk a subtree with the core's walks of the
 * states' tree under rcu_read_lock() (container_for_each_descendant_pre()),
 * not under container_mutex, which the charge path cannot take: charges
 * happen under mmap_lock, and container_mutex is held around mmap_lock in
 * cpuset's attach.  A removed container leaves the tree at rmdir; its
 * folios are on its own list (and out of its parent's reclaim) until its
 * destroy hands them to the parent, a grace period later.
 *
 * Locking:
 *
 * mem_container.lock	irq-safe spinlock: the folio list and the owner
 *			recorded in the owner word of the folios on it.  The
 *			lists of a child and its parent are locked child first
 *			(when folios move up).  Never held with the LRU lock
 *			of a node held, and the LRU lock is never taken
 *			under it.
 * mem_limit_mutex	serialises writes of the limits and force_empty.
 * mem_stock.lock	local lock (interrupts off) of a CPU's stock; taken
 *			inside mem_container.lock, nothing is taken inside it.
 * mem_ids' xa_lock	irq-safe (the last put of an id can come from an RCU
 *			callback); a leaf.  The swap map's lock
 *			(swap_cgroup_record()) is taken with none of ours
 *			held.  The OOM path takes oom_lock, then (scanning
 *			tasks) css_group_lock and task_lock(), with none of
 *			ours held.
 *
 * The LRU hook runs under the folio's LRU lock and takes none of ours: it
 * reads the owner under RCU and updates the kind and list bits of the
 * owner word with cmpxchg, as moving the folios of a container up changes
 * the owner bits of live folios with cmpxchg too.  Everything else that
 * writes the word holds the owner's lock at a time when the LRU hook
 * cannot run for the folio: charge (a new folio), uncharge (refcount
 * zero), migration (isolated) and split (frozen).  The statistics counters
 * are per-CPU and atomic, without a lock; force_empty waits for a grace
 * period under mem_limit_mutex before folding them.
 *
 * Destroy runs a grace period after a container's last task left it.  A
 * charge served from the stock finds its container and records the folio
 * within one RCU read-side section, so it is done before destroy starts;
 * a charge that goes to the page_counters and may sleep in reclaim pins
 * the container with a percpu_ref, which destroy waits for.  Destroy then
 * moves the folios up and frees the structure after another grace
 * period, since uncharge looks at the owner under the RCU read lock.
 */

#define pr_fmt(fmt) "container_mem: " fmt

#include <linux/container_mem.h>
#include <linux/containers.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/jump_label.h>
#include <linux/local_lock.h>
#include <linux/mm.h>
#include <linux/mm_inline.h>
#include <linux/oom.h>
#include <linux/page_counter.h>
#include <linux/page_ext.h>
#include <linux/pagevec.h>
#include <linux/percpu.h>
#include <linux/percpu-refcount.h>
#include <linux/rculist.h>
#include <linux/resume_user_mode.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/swap.h>
#include <linux/swap_cgroup.h>
#include <linux/xarray.h>

#include "internal.h"

/* Pages a CPU charges ahead to one container (struct mem_stock). */
#define MEM_CHARGE_BATCH	64U
/* How often a charge reclaims before it turns to the OOM killer. */
#define MEM_RECLAIM_RETRIES	5
/* Folios isolated and reclaimed per batch. */
#define MEM_RECLAIM_BATCH	32
/* Longest sleep of a task allocating far over its soft limit. */
#define MEM_THROTTLE_MAX	(HZ / 10)
/* Alignment of struct mem_container: leaves MEM_WORD_FLAGS in the word. */
#define MEM_OWNER_ALIGN		128

/* Event counters, per CPU. */
enum mem_event {
	MEM_PGPGIN,		/* charges */
	MEM_PGPGOUT,		/* uncharges */
	MEM_SOFT_LIMIT_HITS,	/* charges that left usage over the soft limit */
	MEM_THROTTLED,		/* times a task slept for the soft limit */
	MEM_RECLAIMED,		/* pages the over-limit handler reclaimed */
	MEM_OOM_KILL,		/* processes killed for its hard limit */
	MEM_NR_EVENTS,
};

/* Page counts of memory.stat: per CPU, and folded from removed children. */
enum mem_stat_item {
	MEM_CACHE,		/* page cache, shmem included */
	MEM_RSS,		/* anonymous (and swap cache) */
	MEM_RSS_HUGE,		/* anonymous large folios */
	MEM_SHMEM,		/* shmem/tmpfs page cache */
	MEM_MAPPED_FILE,	/* page cache mapped in page tables */
	MEM_LRU_BASE,		/* + enum lru_list: last LRU list put on */
	MEM_NR_STATS = MEM_LRU_BASE + NR_LRU_LISTS,
};

struct mem_percpu {
	long stat[MEM_NR_STATS];
	unsigned long ev[MEM_NR_EVENTS];
};

/**
 * struct mem_container - the memory state of one container
 * @css: the subsystem state
 * @memory: usage, hard limit, peak and failcnt, in pages
 * @soft_limit: the soft limit, in pages
 * @ref: pins the structure while a charge is in flight
 * @ref_done: completed when @ref drops to zero after destroy killed it
 * @lock: protects @folios and the owner of the folios on it
 * @folios: the folios charged to this container, oldest first
 * @pcpu: per-CPU page counts and event counters
 * @folded: page counts handed over from removed descendants (and to them,
 *	for updates that reached this container after its folios left)
 * @soft_work: the over-limit handler (container_mem_wq)
 * @soft_reclaimed: pages the handler has reclaimed, ever
 * @throttle_mark: @soft_reclaimed when a task last slept for the soft limit
 * @throttle: current throttling delay in jiffies, 0 when not throttling
 * @had_children: a child was created (destroy must wait for its fold)
 * @id: the number swap entries record their owner by (0 at the top)
 * @id_ref: one reference while the container lives, plus one per swap
 *	entry recorded with @id; the structure stays (without its per-CPU
 *	counters) until the last one is dropped
 * @rcu: folds the page counts into the parent and frees the structure
 */
struct mem_container {
	struct container_subsys_state css;
	struct page_counter memory;
	unsigned long soft_limit;
	struct percpu_ref ref;
	struct completion ref_done;
	spinlock_t lock;		/* @folios and their owner */
	struct list_head folios;
	struct mem_percpu __percpu *pcpu;
	atomic_long_t folded[MEM_NR_STATS];
	struct work_struct soft_work;
	atomic_long_t soft_reclaimed;
	unsigned long throttle_mark;
	unsigned long throttle;
	bool had_children;
	unsigned short id;
	refcount_t id_ref;
	struct rcu_head rcu;
} __aligned(MEM_OWNER_ALIGN);

/*
 * The owner word of a charged folio's head page (page->container_mem):
 * the owning mem_container, whose alignment leaves the low bits for what
 * memory.stat counts the folio as: 1 + the LRU list it is counted on (0:
 * none yet), and its kind, set the first time it goes on a list.  0 when
 * the folio is not charged.
 */
#define MEM_WORD_LRU		0x07UL
#define MEM_KIND_COUNTED	0x08UL	/* the kind bits below are set */
#define MEM_KIND_ANON		0x10UL
#define MEM_KIND_SHMEM		0x20UL
#define MEM_KIND_HUGE		0x40UL	/* large, and MEM_KIND_ANON */
#define MEM_WORD_KIND		0x78UL
#define MEM_WORD_FLAGS		(MEM_WORD_LRU | MEM_WORD_KIND)

/*
 * What page_ext holds for the head page of a charged folio: its entry in
 * the owner's list, and the folio (to get from the list to it).  Both are
 * protected by the owner's lock.
 */
struct mem_page_ext {
	struct list_head node;
	struct folio *folio;
};

/**
 * struct mem_stock - pages charged ahead to one container on one CPU
 * @lock: guards the stock, with interrupts off
 * @cached: the container they are charged to, or NULL
 * @nr_pages: how many
 *
 * A charge takes its pages from its CPU's stock when that holds pages of
 * its container; otherwise it charges the page_counters for a batch of
 * MEM_CHARGE_BATCH pages and keeps the rest here.  An uncharge gives its
 * pages back to the stock of the same container.  So most charges and
 * uncharges do not touch the page_counters of the hierarchy at all.
 *
 * Stocked pages count in the page_counters (against the limits and in
 * the peak), but memory.usage_in_bytes leaves them out.  The stocks of a
 * subtree are given back before a charge reclaims for a limit, when a
 * limit is set, on force_empty and when a container is destroyed; a dead
 * CPU's stock is given back by the CPU hotplug callback.
 */
struct mem_stock {
	local_lock_t lock;
	struct mem_container *cached;
	unsigned int nr_pages;
};

static DEFINE_PER_CPU(struct mem_stock, mem_stock) = {
	.lock = INIT_LOCAL_LOCK(lock),
};

static struct mem_container root_mem;
static struct kmem_cache *mem_cachep;

/*
 * On while a memory container other than the top exists: only then can a
 * folio be charged, so that without one the charge and uncharge hooks cost
 * a patched-out branch.  Counts the containers; a container's folios are
 * handed up (at the top: uncharged) before its count is dropped.
 */
DEFINE_STATIC_KEY_FALSE(container_mem_charging);
/*
 * The containers by id, for the owners recorded in the swap map: an entry
 * stays until the container is gone and no swap entry records it (RCU).
 */
static DEFINE_XARRAY_FLAGS(mem_ids, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
/* On once a swap entry may record an owner: swap frees look it up. */
DEFINE_STATIC_KEY_FALSE(container_mem_swap_owned);
static DEFINE_MUTEX(mem_limit_mutex);
/* Runs the over-limit handlers; reclaim may be needed to make progress. */
static struct workqueue_struct *container_mem_wq;

static bool container_mem_need(void)
{
	return true;
}

struct page_ext_operations container_mem_page_ext_ops = {
	.size = sizeof(struct mem_page_ext),
	.need = container_mem_need,
};

static inline struct mem_container *css_mem(struct container_subsys_state *css)
{
	return css ? container_of(css, struct mem_container, css) : NULL;
}

static inline struct mem_page_ext *page_ext_mem(struct page_ext *pe)
{
	return page_ext_data(pe, &container_mem_page_ext_ops);
}

/*
 * The page_ext data of @folio's head page, NULL if it has none (then it
 * cannot be charged).  The caller holds the RCU read lock and the folio,
 * or is freeing it: its memory section stays online.
 */
static __always_inline struct mem_page_ext *mem_folio_ext(struct folio *folio)
{
	struct page_ext *pe = page_ext_lookup(&folio->page);

	return pe ? page_ext_mem(pe) : NULL;
}

static inline bool mem_is_top(const struct mem_container *mc)
{
	return !mc->css.parent;
}

/* The parent container's state, NULL at the top. */
static inline struct mem_container *mem_parent(struct mem_container *mc)
{
	return css_mem(mc->css.parent);
}

static inline struct mem_container *mem_word_owner(unsigned long word)
{
	return (struct mem_container *)(word & ~MEM_WORD_FLAGS);
}

/* The owner of @folio, or NULL; under RCU. */
static inline struct mem_container *mem_owner(struct folio *folio)
{
	return mem_word_owner(READ_ONCE(folio->container_mem));
}

static void mem_event(struct mem_container *mc, enum mem_event ev,
		      unsigned long n)
{
	this_cpu_add(mc->pcpu->ev[ev], n);
}

static unsigned long mem_event_sum(struct mem_container *mc, enum mem_event ev)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(mc->pcpu, cpu)->ev[ev];
	return sum;
}

static void mem_stat_mod(struct mem_container *mc, enum mem_stat_item item,
			 long nr)
{
	this_cpu_add(mc->pcpu->stat[item], nr);
}

/* Pages @mc counts for @item; negative for a moment while folios move. */
static long mem_stat_read(struct mem_container *mc, enum mem_stat_item item)
{
	long sum = atomic_long_read(&mc->folded[item]);
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(mc->pcpu, cpu)->stat[item];
	return sum;
}

/*
 * Hand what @mc's counters hold over to @to (NULL: the top, which keeps
 * none).  Called once @mc's folios have left it and a grace period has
 * passed, so that no update for them can still reach @mc.
 */
static void mem_stat_fold(struct mem_container *mc, struct mem_container *to)
{
	int i;

	for (i = 0; i < MEM_NR_STATS; i++) {
		long v = mem_stat_read(mc, i);

		atomic_long_sub(v, &mc->folded[i]);
		if (to)
			atomic_long_add(v, &to->folded[i]);
	}
}

static __always_inline void mem_count_kind(struct mem_container *mc,
					   unsigned long kind, long nr)
{
	if (!(kind & MEM_KIND_COUNTED))
		return;
	if (kind & MEM_KIND_ANON) {
		mem_stat_mod(mc, MEM_RSS, nr);
		if (kind & MEM_KIND_HUGE)
			mem_stat_mod(mc, MEM_RSS_HUGE, nr);
	} else {
		mem_stat_mod(mc, MEM_CACHE, nr);
		if (kind & MEM_KIND_SHMEM)
			mem_stat_mod(mc, MEM_SHMEM, nr);
	}
}

/* Take @nr pages counted as owner word @word says out of @mc's counts. */
static __always_inline void mem_uncount(struct mem_container *mc,
					unsigned long word, long nr)
{
	mem_count_kind(mc, word & MEM_WORD_KIND, -nr);
	if (word & MEM_WORD_LRU)
		mem_stat_mod(mc, MEM_LRU_BASE + (word & MEM_WORD_LRU) - 1, -nr);
}

static unsigned long mem_folio_kind(struct folio *folio)
{
	unsigned long kind = MEM_KIND_COUNTED;

	/*
	 * A folio read from swap is in the swap cache before anything maps
	 * it: count it as anonymous (a shmem one read back from swap too).
	 */
	if (folio_test_anon(folio) || folio_test_swapcache(folio)) {
		kind |= MEM_KIND_ANON;
		if (folio_test_large(folio))
			kind |= MEM_KIND_HUGE;
	} else if (folio_test_swapbacked(folio)) {
		kind |= MEM_KIND_SHMEM;
	}
	return kind;
}

/**
 * __container_mem_lru_add - a folio goes on an LRU list
 * @folio: the folio
 * @lru: the list (enum lru_list)
 *
 * Counts a charged folio on @lru instead of the list it was last counted
 * on, and the first time, counts its kind.  A folio taken off its list
 * (isolated for reclaim or migration) stays counted on it until it is put
 * back or freed.
 *
 * Context: the folio's LRU lock held, interrupts off.
 */
void __container_mem_lru_add(struct folio *folio, int lru)
{
	unsigned long old = READ_ONCE(folio->container_mem), new;
	struct mem_container *mc;
	long nr;

	lockdep_assert_irqs_disabled();
	/* The owner stays valid until rcu_read_unlock(). */
	rcu_read_lock();
	/* Against a move of the folio to another owner (mem_move_folios()). */
	do {
		if (!old)
			goto out;
		new = old;
		if (!(old & MEM_WORD_KIND))
			new |= mem_folio_kind(folio);
		new = (new & ~MEM_WORD_LRU) | (lru + 1);
		/* Put back on the list it was counted on: nothing to do. */
		if (new == old)
			goto out;
	} while (!try_cmpxchg(&folio->container_mem, &old, new));

	mc = mem_word_owner(new);
	nr = folio_nr_pages(folio);
	if (!(old & MEM_WORD_KIND))
		mem_count_kind(mc, new & MEM_WORD_KIND, nr);
	if ((old ^ new) & MEM_WORD_LRU) {
		if (old & MEM_WORD_LRU)
			mem_stat_mod(mc, MEM_LRU_BASE + (old & MEM_WORD_LRU) - 1,
				     -nr);
		mem_stat_mod(mc, MEM_LRU_BASE + lru, nr);
	}
out:
	rcu_read_unlock();
}

/**
 * __container_mem_mod_mapped - pages of a file folio are mapped or unmapped
 * @folio: the folio
 * @nr: how many pages more are mapped (negative: fewer)
 *
 * Context: the page table lock held.
 */
void __container_mem_mod_mapped(struct folio *folio, int nr)
{
	struct mem_container *mc;

	rcu_read_lock();
	mc = mem_owner(folio);
	if (mc)
		mem_stat_mod(mc, MEM_MAPPED_FILE, nr);
	rcu_read_unlock();
}

static bool mem_is_descendant(struct mem_container *mc,
			      struct mem_container *top)
{
	return container_css_is_descendant(&mc->css, &top->css);
}

/*
 * The container to charge for @mm (current when NULL); NULL when nothing
 * is to be charged.  Under RCU, which keeps it from being destroyed: its
 * destroy runs a grace period after its last task left.
 */
static struct mem_container *mem_charge_target(struct mm_struct *mm)
{
	struct task_struct *task = current;
	struct mem_container *mc;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "charge target outside RCU");
	if (mm) {
		task = rcu_dereference(mm->owner);
		if (!task)
			return NULL;
	} else if (current->flags & PF_KTHREAD) {
		return NULL;
	}
	mc = css_mem(task_subsys_state(task, mem_subsys_id));
	return mem_is_top(mc) ? NULL : mc;
}

/*
 * Per-CPU stocks of charged pages.
 */

/* Give back every page of @stock: its CPU's lock held, or the CPU dead. */
static void mem_stock_drain(struct mem_stock *stock)
{
	struct mem_container *mc = stock->cached;

	if (mc && stock->nr_pages)
		page_counter_uncharge(&mc->memory, stock->nr_pages);
	WRITE_ONCE(stock->nr_pages, 0);
	WRITE_ONCE(stock->cached, NULL);
}

/*
 * Put @nr pages charged to @mc into this CPU's stock.  When it holds
 * another container's pages, @take_over gives those back first; without
 * it, the pages are uncharged instead.  A stock never keeps more than two
 * batches.  Context: interrupts off, this CPU's stock lock held.
 */
static void __mem_refill_stock(struct mem_container *mc, unsigned int nr,
			       bool take_over)
{
	struct mem_stock *stock = this_cpu_ptr(&mem_stock);
	unsigned int excess = 0;

	lockdep_assert_held(this_cpu_ptr(&mem_stock.lock));
	if (stock->cached != mc) {
		if (!take_over) {
			page_counter_uncharge(&mc->memory, nr);
			return;
		}
		mem_stock_drain(stock);
		WRITE_ONCE(stock->cached, mc);
	}
	nr += stock->nr_pages;
	if (nr > 2 * MEM_CHARGE_BATCH) {
		excess = nr - MEM_CHARGE_BATCH;
		nr = MEM_CHARGE_BATCH;
	}
	WRITE_ONCE(stock->nr_pages, nr);
	if (excess)
		page_counter_uncharge(&mc->memory, excess);
}

static bool mem_stock_in_subtree(int cpu, void *top)
{
	struct mem_container *mc;
	bool ret;

	rcu_read_lock();
	mc = READ_ONCE(per_cpu(mem_stock, cpu).cached);
	ret = mc && mem_is_descendant(mc, top);
	rcu_read_unlock();
	return ret;
}

static void mem_drain_local_stock(void *top)
{
	struct mem_stock *stock;
	unsigned long flags;

	local_lock_irqsave(&mem_stock.lock, flags);
	stock = this_cpu_ptr(&mem_stock);
	if (stock->cached && mem_is_descendant(stock->cached, top))
		mem_stock_drain(stock);
	local_unlock_irqrestore(&mem_stock.lock, flags);
}

/*
 * Give back the stocked pages of @top's subtree on every online CPU.
 * Context: may sleep (waits for the other CPUs); @top pinned.
 */
static void mem_drain_stocks(struct mem_container *top)
{
	on_each_cpu_cond(mem_stock_in_subtree, mem_drain_local_stock, top,
			 true);
}

static int mem_cpu_dead(unsigned int cpu)
{
	mem_stock_drain(&per_cpu(mem_stock, cpu));
	return 0;
}

/*
 * Charged pages of @mc's subtree, not counting those in stocks.
 *
 * page_counter_try_charge() adds first and takes a charge back when it
 * finds the counter over the limit, so a reader can catch an attempt that
 * fails; the watermark only ever sees charges that stuck, and bounds what
 * is reported by what was really charged at some point.
 */
static unsigned long mem_usage(struct mem_container *mc)
{
	long usage = min(page_counter_read(&mc->memory),
			 READ_ONCE(mc->memory.watermark));
	int cpu;

	rcu_read_lock();
	for_each_possible_cpu(cpu) {
		struct mem_stock *stock = per_cpu_ptr(&mem_stock, cpu);
		struct mem_container *pos = READ_ONCE(stock->cached);

		if (pos && mem_is_descendant(pos, mc))
			usage -= READ_ONCE(stock->nr_pages);
	}
	rcu_read_unlock();
	return max(usage, 0L);
}

/*
 * Reclaim.
 */

/*
 * Take references on up to @max folios of @mc that reclaim may try, the
 * oldest first, and rotate them to the end of the list so that the next
 * batch looks at others.  Adds the folios looked at to @scanned.
 */
static int mem_pick_folios(struct mem_container *mc, struct folio **batch,
			   int max, bool may_swap, bool clean_only,
			   unsigned long *scanned)
{
	struct mem_page_ext *mpe, *tmp;
	unsigned long flags, looked = 0;
	LIST_HEAD(seen);
	int n = 0;

	spin_lock_irqsave(&mc->lock, flags);
	list_for_each_entry_safe(mpe, tmp, &mc->folios, node) {
		struct folio *folio = mpe->folio;

		if (n == max || looked == 4UL * max)
			break;
		looked++;
		list_move_tail(&mpe->node, &seen);
		if (!folio_test_lru(folio) || folio_test_unevictable(folio))
			continue;
		if (!may_swap && folio_test_swapbacked(folio))
			continue;
		if (clean_only && (folio_test_dirty(folio) ||
				   folio_test_writeback(folio)))
			continue;
		if (!folio_try_get(folio))
			continue;
		batch[n++] = folio;
	}
	list_splice_tail(&seen, &mc->folios);
	spin_unlock_irqrestore(&mc->lock, flags);
	*scanned += looked;
	return n;
}

/*
 * Try to free @nr_pages pages charged to @top's subtree.  A caller that
 * may not enter the filesystem or do I/O (@gfp) only gets clean file pages
 * dropped, never written or swapped.  May sleep.
 * Return: the number of pages freed.
 */
static unsigned long mem_reclaim(struct mem_container *top,
				 unsigned long nr_pages, gfp_t gfp)
{
	bool clean_only = (gfp & (__GFP_FS | __GFP_IO)) != (__GFP_FS | __GFP_IO);
	bool may_swap = !clean_only && get_nr_swap_pages() > 0;
	struct folio *batch[MEM_RECLAIM_BATCH];
	unsigned long reclaimed = 0, scanned;
	int pass, idle = 0;

	/* File pages first: reclaim them alone before touching anon. */
	for (pass = 0; pass < 2 && reclaimed < nr_pages; pass++) {
		bool swap = pass && may_swap;

		if (pass && !may_swap)
			break;
		idle = 0;
		scanned = 0;
		while (reclaimed < nr_pages && idle < 4) {
			unsigned long before = scanned;
			struct container_subsys_state *css;
			struct mem_container *pos;
			LIST_HEAD(list);
			unsigned long got;
			int n = 0, i;

			rcu_read_lock();
			/* A removed container's lock and (empty) list stay valid. */
			container_for_each_descendant_pre(css, &top->css) {
				pos = css_mem(css);
				n += mem_pick_folios(pos, batch + n,
						     MEM_RECLAIM_BATCH - n, swap,
						     clean_only, &scanned);
				if (n == MEM_RECLAIM_BATCH)
					break;
			}
			rcu_read_unlock();
			/*
			 * Nothing to try among the folios looked at (tmpfs
			 * without swap, say): go on through the lists, but
			 * once round them at most (usage bounds the folios).
			 */
			if (!n) {
				if (scanned == before ||
				    scanned >= page_counter_read(&top->memory))
					break;
				cond_resched();
				continue;
			}

			for (i = 0; i < n; i++) {
				if (folio_isolate_lru(batch[i]))
					list_add(&batch[i]->lru, &list);
				folio_put(batch[i]);
			}
			got = list_empty(&list) ? 0 : reclaim_pages(&list);
			reclaimed += got;
			idle = got ? 0 : idle + 1;
			cond_resched();
		}
	}
	return reclaimed;
}

/* Would @nr more pages fit under the hard limit of @mc and its ancestors? */
static bool mem_fits(struct mem_container *mc, unsigned long nr)
{
	struct page_counter *c;

	for (c = &mc->memory; c; c = c->parent)
		if (page_counter_read(c) + nr > READ_ONCE(c->max))
			return false;
	return true;
}

/**
 * container_mem_get_max - the hard limit out_of_memory() measures against
 * @css: the memory state of the container in OOM
 *
 * Return: the lowest hard limit of @css and its ancestors, in pages.
 */
unsigned long container_mem_get_max(struct container_subsys_state *css)
{
	struct mem_container *mc = css_mem(css);
	unsigned long max = PAGE_COUNTER_MAX;

	for (; !mem_is_top(mc); mc = mem_parent(mc))
		max = min(max, READ_ONCE(mc->memory.max));
	return max;
}

/**
 * container_mem_scan_tasks - the tasks out_of_memory() chooses among
 * @css: the memory state of the container in OOM
 * @fn: called for each task of @css's subtree; non-zero ends the scan
 * @arg: passed to @fn
 *
 * Every thread is visited, so a process whose main thread has exited is
 * found through the threads that remain.
 *
 * Context: under oom_lock; @fn runs with a spinlock held.
 */
void container_mem_scan_tasks(struct container_subsys_state *css,
			      int (*fn)(struct task_struct *, void *),
			      void *arg)
{
	lockdep_assert_held(&oom_lock);
	container_scan_tasks(css, fn, arg);
}

/*
 * The OOM killer of a container: out_of_memory() limited to @top's subtree,
 * so that the victim is chosen, killed and reaped (oom_score_adj, the OOM
 * reaper, memory reserves for the victim) as the kernel's OOM killer does,
 * but never outside the subtree.  Return false if there was nothing to
 * kill, true if a process was killed or one is already dying.
 */
static bool mem_oom_kill(struct mem_container *top, gfp_t gfp,
			 unsigned int nr_pages)
{
	struct oom_control oc = {
		.container = &top->css,
		.gfp_mask = gfp,
		.order = get_order(nr_pages * PAGE_SIZE),
	};
	bool ret;

	if (mutex_lock_killable(&oom_lock))
		return true;
	/* Someone else's victim may have made room meanwhile. */
	if (mem_fits(top, nr_pages)) {
		mutex_unlock(&oom_lock);
		return true;
	}
	ret = tsk_is_oom_victim(current) || fatal_signal_pending(current) ||
	      (current->flags & PF_EXITING) || out_of_memory(&oc);
	mutex_unlock(&oom_lock);
	if (oc.chosen && oc.chosen != (void *)-1UL)
		mem_event(top, MEM_OOM_KILL, 1);
	return ret;
}

/*
 * The soft limit: Rohit Seth's page_limit.
 *
 * A charge that leaves a container (or an ancestor) over its soft limit
 * counts a soft_limit_hit and queues the container's over-limit handler,
 * which reclaims the container's pages, file pages first, until it is
 * back under the limit or nothing more can be reclaimed.  A work item
 * never runs twice at once.  A task that charges while its container is
 * more than 1/8 over the soft limit is also throttled: on its way back to
 * user space it sleeps, interruptibly, a little longer each time the
 * container is still that far over (up to MEM_THROTTLE_MAX), but only
 * while the handler makes progress: when it has reclaimed nothing since
 * the last sleep (anonymous memory without swap, say), tasks are not
 * slowed down for nothing.
 */

static void mem_soft_limit_work(struct work_struct *work)
{
	struct mem_container *mc = container_of(work, struct mem_container,
						soft_work);
	unsigned long usage, soft, got;

	for (;;) {
		usage = page_counter_read(&mc->memory);
		soft = READ_ONCE(mc->soft_limit);
		if (usage <= soft)
			break;
		got = mem_reclaim(mc, min(usage - soft, 1024UL), GFP_KERNEL);
		if (!got)
			break;
		atomic_long_add(got, &mc->soft_reclaimed);
		mem_event(mc, MEM_RECLAIMED, got);
		cond_resched();
	}
	if (page_counter_read(&mc->memory) <= READ_ONCE(mc->soft_limit))
		WRITE_ONCE(mc->throttle, 0);
}

static inline bool mem_far_over_soft(struct mem_container *mc)
{
	unsigned long soft = READ_ONCE(mc->soft_limit);

	return page_counter_read(&mc->memory) > soft + soft / 8;
}

static void mem_check_soft_limit(struct mem_container *mc)
{
	struct mem_container *pos;
	bool throttle = false;

	for (pos = mc; !mem_is_top(pos); pos = mem_parent(pos)) {
		if (page_counter_read(&pos->memory) <= READ_ONCE(pos->soft_limit))
			continue;
		mem_event(pos, MEM_SOFT_LIMIT_HITS, 1);
		/* Most charges find it queued: skip the atomic bitop then. */
		if (!work_pending(&pos->soft_work))
			queue_work(container_mem_wq, &pos->soft_work);
		if (mem_far_over_soft(pos))
			throttle = true;
	}
	if (throttle && !(current->flags & PF_KTHREAD))
		set_notify_resume(current);
}

/**
 * container_mem_handle_throttle - throttle a task far over its soft limit
 *
 * Called through mem_cgroup_handle_over_high() on the way back to user
 * space, after a charge asked for it.  Sleeps interruptibly while the
 * task's container (or an ancestor) is more than 1/8 over its soft limit,
 * longer each time; the handler's reclaim runs meanwhile.
 */
void container_mem_handle_throttle(void)
{
	struct mem_container *mc, *pos, *over = NULL;
	unsigned long delay, progress;

	rcu_read_lock();
	mc = css_mem(task_subsys_state(current, mem_subsys_id));
	for (pos = mc; !mem_is_top(pos); pos = mem_parent(pos))
		if (mem_far_over_soft(pos))
			over = pos;
	if (!over || !percpu_ref_tryget_live(&over->ref)) {
		rcu_read_unlock();
		return;
	}
	rcu_read_unlock();

	/*
	 * Sleeping only helps while the handler reclaims: not before it has
	 * reclaimed anything, nor when it has reclaimed nothing since the
	 * last sleep (it found nothing it can reclaim: anonymous memory
	 * without swap, say).
	 */
	progress = atomic_long_read(&over->soft_reclaimed);
	if (progress == READ_ONCE(over->throttle_mark)) {
		WRITE_ONCE(over->throttle, 0);
		percpu_ref_put(&over->ref);
		return;
	}
	WRITE_ONCE(over->throttle_mark, progress);

	delay = clamp(READ_ONCE(over->throttle) * 2, 1UL,
		      (unsigned long)MEM_THROTTLE_MAX);
	WRITE_ONCE(over->throttle, delay);
	mem_event(over, MEM_THROTTLED, 1);
	schedule_timeout_interruptible(delay);
	percpu_ref_put(&over->ref);
}

/*
 * Charging.
 */

static int mem_try_charge(struct mem_container *mc, unsigned int nr_pages,
			  gfp_t gfp)
{
	int reclaim_retries = MEM_RECLAIM_RETRIES, oom_waits = 0;
	unsigned int batch = max(nr_pages, MEM_CHARGE_BATCH);
	bool drained = !gfpflags_allow_blocking(gfp);
	struct page_counter *fail;
	struct mem_container *over;
	unsigned long flags;

	/*
	 * Charge a batch and stock the rest, unless that would hit a limit
	 * (and count in failcnt) where the pages asked for would not.
	 */
	if (batch > nr_pages && !mem_fits(mc, batch))
		batch = nr_pages;
retry:
	if (page_counter_try_charge(&mc->memory, batch, &fail)) {
		if (batch > nr_pages) {
			local_lock_irqsave(&mem_stock.lock, flags);
			__mem_refill_stock(mc, batch - nr_pages, true);
			local_unlock_irqrestore(&mem_stock.lock, flags);
		}
		mem_check_soft_limit(mc);
		return 0;
	}
	over = container_of(fail, struct mem_container, memory);
	if (batch > nr_pages) {
		batch = nr_pages;
		goto retry;
	}
	/* Pages in the stocks of the subtree may be all that is missing. */
	if (!drained) {
		drained = true;
		mem_drain_stocks(over);
		goto retry;
	}

	/*
	 * A dying task fails at once: its fault returns and it exits
	 * without taking the container over its limit.
	 */
	if (fatal_signal_pending(current) && !(gfp & __GFP_NOFAIL))
		return -ENOMEM;
	if (!gfpflags_allow_blocking(gfp))
		goto nomem;

	if (reclaim_retries-- > 0) {
		if (mem_reclaim(over, nr_pages, gfp))
			reclaim_retries = MEM_RECLAIM_RETRIES;
		goto retry;
	}
	if (gfp & __GFP_NORETRY)
		goto nomem;

	/* Wait (about a second at most) for a victim to free its memory. */
	if (oom_waits++ < 50 && mem_oom_kill(over, gfp, nr_pages)) {
		schedule_timeout_killable(HZ / 50);
		reclaim_retries = 1;
		goto retry;
	}
nomem:
	/* __GFP_NOFAIL (buffer heads, say) must not fail: go over instead. */
	if (!(gfp & __GFP_NOFAIL))
		return -ENOMEM;
	page_counter_charge(&mc->memory, nr_pages);
	mem_check_soft_limit(mc);
	return 0;
}

/* Put @folio, whose page_ext data is @mpe, on @mc's list: lock held. */
static void mem_list_add(struct mem_container *mc, struct mem_page_ext *mpe,
			 struct folio *folio)
{
	lockdep_assert_held(&mc->lock);
	mpe->folio = folio;
	list_add_tail(&mpe->node, &mc->folios);
}

/* Take @folio off its owner's list: the owner's lock and RCU held. */
static __always_inline void mem_list_del(struct folio *folio)
{
	struct mem_page_ext *mpe = mem_folio_ext(folio);

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "list del outside RCU");
	lockdep_assert_held(&mem_owner(folio)->lock);
	/* Charged only with page_ext: it stays while the folio exists. */
	if (WARN_ON_ONCE(!mpe))
		return;
	list_del(&mpe->node);
	mpe->folio = NULL;
}

/*
 * Record @folio as charged to @mc.  With @from_stock, first take its pages
 * from this CPU's stock, under the same interrupts-off section (the stock
 * lock nests inside @mc's), and return false, having changed nothing,
 * when the stock cannot cover them.  Otherwise the pages are on @mc's
 * counter already; if @folio cannot be recorded they are given back.
 * Inlined, so that each caller gets only its own half.  Under RCU.
 */
static __always_inline bool mem_commit(struct mem_container *mc,
				       struct folio *folio, bool from_stock)
{
	unsigned int nr = folio_nr_pages(folio);
	struct mem_page_ext *mpe;
	unsigned long flags;
	bool ok;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "commit outside RCU");
	/* A folio charged already: complain on the path that gives up. */
	if (from_stock && folio->container_mem)
		return false;
	mpe = mem_folio_ext(folio);
	if (!mpe)
		goto fail;
	spin_lock_irqsave(&mc->lock, flags);
	if (from_stock) {
		struct mem_stock *stock;

		local_lock(&mem_stock.lock);
		stock = this_cpu_ptr(&mem_stock);
		ok = stock->cached == mc && stock->nr_pages >= nr;
		if (ok)
			WRITE_ONCE(stock->nr_pages, stock->nr_pages - nr);
		local_unlock(&mem_stock.lock);
	} else {
		ok = !WARN_ON_ONCE(folio->container_mem);
	}
	if (ok) {
		/* Nothing else sees the new folio yet. */
		WRITE_ONCE(folio->container_mem, (unsigned long)mc);
		mem_list_add(mc, mpe, folio);
	}
	spin_unlock_irqrestore(&mc->lock, flags);
	if (ok) {
		mem_event(mc, MEM_PGPGIN, 1);
		return true;
	}
fail:
	if (!from_stock)
		page_counter_uncharge(&mc->memory, nr);
	return false;
}

/* Charge @folio to @mc, pinned, through the page_counters; may sleep. */
static noinline int mem_charge_pinned(struct mem_container *mc,
				      struct folio *folio, gfp_t gfp)
{
	int ret;

	ret = mem_try_charge(mc, folio_nr_pages(folio), gfp);
	if (!ret) {
		rcu_read_lock();
		mem_commit(mc, folio, false);
		rcu_read_unlock();
	}
	percpu_ref_put(&mc->ref);
	return ret;
}

/**
 * __container_mem_charge - charge a new folio
 * @folio: the folio, not yet visible to anyone else
 * @mm: the mm it is for, or NULL for current's container
 * @gfp: how hard to try
 *
 * Called through mem_cgroup_charge() and mem_cgroup_swapin_charge_folio()
 * (container_mem_charge()) while a container other than the top exists.
 * Over a hard limit, reclaims the container's pages, then kills its
 * largest process.
 *
 * Return: 0, or -ENOMEM if the folio could not be charged.
 */
int __container_mem_charge(struct folio *folio, struct mm_struct *mm,
			   gfp_t gfp)
{
	struct mem_container *mc;

	rcu_read_lock();
	mc = mem_charge_target(mm);
	/* The common case: this CPU's stock holds pages of @mc. */
	if (!mc || mem_commit(mc, folio, true)) {
		rcu_read_unlock();
		return 0;
	}
	/* Reclaim may sleep: pin @mc instead. */
	percpu_ref_get(&mc->ref);
	rcu_read_unlock();
	return mem_charge_pinned(mc, folio, gfp);
}

/*
 * Lock the owner of a folio whose owner word is @word, and return it; NULL
 * if the folio is not charged.  The folios of a removed container move to
 * its parent under both locks, so check again once locked.  The caller
 * holds the RCU read lock, which keeps even a freed owner's memory valid.
 */
static struct mem_container *mem_lock_owner(unsigned long *word,
					    unsigned long *flags)
{
	struct mem_container *mc;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "owner locked outside RCU");
	for (;;) {
		mc = mem_word_owner(READ_ONCE(*word));
		if (!mc)
			return NULL;
		spin_lock_irqsave(&mc->lock, *flags);
		if (mem_word_owner(READ_ONCE(*word)) == mc)
			return mc;
		spin_unlock_irqrestore(&mc->lock, *flags);
	}
}

/*
 * Uncharge @nr pages of folios just taken off @mc's list (@events folios),
 * and drop @mc's lock.  The pages go back to this CPU's stock while the
 * lock is held: once destroy has moved @mc's folios away and emptied the
 * stocks, no stock gets @mc's pages again.
 */
static void mem_uncharge_unlock(struct mem_container *mc, unsigned long nr,
				unsigned long events, unsigned long flags)
	__releases(&mc->lock)
{
	lockdep_assert_held(&mc->lock);
	local_lock(&mem_stock.lock);
	__mem_refill_stock(mc, nr, false);
	local_unlock(&mem_stock.lock);
	spin_unlock_irqrestore(&mc->lock, flags);
	mem_event(mc, MEM_PGPGOUT, events);
}

/*
 * Take @folio, being freed, off the list of @mc, which is locked and its
 * owner, and out of @mc's page counts.  Return its number of pages.
 */
static __always_inline long mem_uncharge_locked(struct mem_container *mc,
						struct folio *folio)
{
	long nr = folio_nr_pages(folio);

	lockdep_assert_held(&mc->lock);
	mem_uncount(mc, folio->container_mem, nr);
	mem_list_del(folio);
	/* The refcount is zero: the LRU hook cannot run for it. */
	WRITE_ONCE(folio->container_mem, 0);
	return nr;
}

/**
 * __container_mem_uncharge - a charged folio is being freed
 * @folio: the folio
 *
 * Called through mem_cgroup_uncharge() (container_mem_uncharge()) for a
 * folio whose owner word is set.
 *
 * Context: any; the folio's refcount is zero.
 */
void __container_mem_uncharge(struct folio *folio)
{
	struct mem_container *mc;
	unsigned long flags;

	rcu_read_lock();
	mc = mem_lock_owner(&folio->container_mem, &flags);
	if (mc)
		mem_uncharge_unlock(mc, mem_uncharge_locked(mc, folio), 1,
				    flags);
	rcu_read_unlock();
}

/**
 * container_mem_uncharge_folios - __container_mem_uncharge() for a batch
 * @folios: the folios being freed
 */
void container_mem_uncharge_folios(struct folio_batch *folios)
{
	unsigned long flags, nr = 0, events = 0;
	struct mem_container *locked = NULL;
	unsigned int i;

	if (!static_branch_unlikely(&container_mem_charging))
		return;
	/*
	 * Folios of one container usually come together: keep its lock
	 * over them and give their pages back at once.  The RCU read lock
	 * keeps the locked owner's memory valid.
	 */
	rcu_read_lock();
	for (i = 0; i < folio_batch_count(folios); i++) {
		struct folio *folio = folios->folios[i];
		struct mem_container *mc = mem_owner(folio);

		if (!mc)
			continue;
		/* Read with @locked held: if it is @locked, it stays so. */
		if (mc != locked) {
			if (locked)
				mem_uncharge_unlock(locked, nr, events, flags);
			nr = 0;
			events = 0;
			locked = mem_lock_owner(&folio->container_mem, &flags);
			mc = locked;
			if (!mc)
				continue;
		}
		nr += mem_uncharge_locked(mc, folio);
		events++;
	}
	if (locked)
		mem_uncharge_unlock(locked, nr, events, flags);
	rcu_read_unlock();
}

/**
 * container_mem_migrate - move the charge of a folio to its replacement
 * @old: the folio being migrated, which ends up uncharged
 * @new: the new folio, of the same size, which takes over the charge
 */
void container_mem_migrate(struct folio *old, struct folio *new)
{
	long nr = folio_nr_pages(old);
	struct mem_page_ext *mpe_new;
	struct mem_container *mc;
	unsigned long flags;

	if (!container_mem_charged(old))
		return;
	rcu_read_lock();
	mpe_new = mem_folio_ext(new);
	mc = mem_lock_owner(&old->container_mem, &flags);
	if (mc) {
		unsigned long word = old->container_mem;

		mem_list_del(old);
		if (mpe_new) {
			/*
			 * Its kind goes with it; @new is not on an LRU list
			 * yet.  Neither folio is on one: no LRU hook runs.
			 */
			mem_uncount(mc, word & MEM_WORD_LRU, nr);
			WRITE_ONCE(new->container_mem,
				   (unsigned long)mc | (word & MEM_WORD_KIND));
			mem_list_add(mc, mpe_new, new);
		} else {
			mem_uncount(mc, word, nr);
		}
		WRITE_ONCE(old->container_mem, 0);
		spin_unlock_irqrestore(&mc->lock, flags);
		if (!mpe_new)
			page_counter_uncharge(&mc->memory, nr);
	}
	rcu_read_unlock();
}

/**
 * container_mem_replace - charge a replacement folio like the old one
 * @old: the folio being replaced; it keeps its charge until freed
 * @new: the new folio
 *
 * The new folio is charged to the same container, without a limit check,
 * unless it is charged already (as memcg, for FUSE's splice move, which
 * may hand over a folio that has a charge of its own).
 */
void container_mem_replace(struct folio *old, struct folio *new)
{
	struct mem_page_ext *mpe_new;
	struct mem_container *mc;
	unsigned long flags;

	if (!container_mem_charged(old) || READ_ONCE(new->container_mem))
		return;
	rcu_read_lock();
	mpe_new = mem_folio_ext(new);
	mc = mpe_new ? mem_lock_owner(&old->container_mem, &flags) : NULL;
	if (mc) {
		page_counter_charge(&mc->memory, folio_nr_pages(new));
		/* Not visible yet: no LRU hook runs for it. */
		WRITE_ONCE(new->container_mem, (unsigned long)mc);
		mem_list_add(mc, mpe_new, new);
		spin_unlock_irqrestore(&mc->lock, flags);
		mem_event(mc, MEM_PGPGIN, 1);
	}
	rcu_read_unlock();
}

/*
 * Swap.  When a charged folio gets a swap slot, the slot records its owner's
 * id in the swap map (mm/swap_cgroup.c, which memory cgroups use the same
 * way), and the owner's id_ref counts the slot.  A folio read back from swap
 * is charged to that owner, whoever reads it: a fault, readahead, swapoff or
 * shmem.  When the owner is gone (its id_ref kept the structure), the
 * folio is charged as a new one would be.  Freeing the slot drops the count.
 */

static void mem_free_struct(struct rcu_head *rcu)
{
	kmem_cache_free(mem_cachep, container_of(rcu, struct mem_container, rcu));
}

/* Drop @nr id references; free the structure with the last one. */
static void mem_id_put(struct mem_container *mc, unsigned int nr)
{
	unsigned long flags;

	if (!refcount_sub_and_test(nr, &mc->id_ref))
		return;
	xa_lock_irqsave(&mem_ids, flags);
	__xa_erase(&mem_ids, mc->id);
	xa_unlock_irqrestore(&mem_ids, flags);
	/* Lookups hold the RCU read lock; mc->rcu's first use is over. */
	call_rcu(&mc->rcu, mem_free_struct);
}

/**
 * __container_mem_swap_record - a charged folio gets swap slots
 * @folio: the folio, locked, in the swap cache
 * @entry: its first swap entry
 *
 * Context: any; takes the owner's lock.
 * Return: 0 (the slots are not charged: there is no swap limit).
 */
int __container_mem_swap_record(struct folio *folio, swp_entry_t entry)
{
	unsigned int nr = folio_nr_pages(folio);
	struct mem_container *mc;
	unsigned long flags;

	rcu_read_lock();
	mc = mem_lock_owner(&folio->container_mem, &flags);
	if (mc) {
		refcount_add(nr, &mc->id_ref);
		spin_unlock_irqrestore(&mc->lock, flags);
		swap_cgroup_record(entry, mc->id, nr);
	}
	rcu_read_unlock();
	return 0;
}

/* Drop @nr references of the swap entries that record @id. */
static void mem_swap_id_put(unsigned short id, unsigned int nr)
{
	struct mem_container *mc;

	if (!id || !nr)
		return;
	rcu_read_lock();
	mc = xa_load(&mem_ids, id);
	rcu_read_unlock();
	/* Our references on it keep it. */
	if (!WARN_ON_ONCE(!mc))
		mem_id_put(mc, nr);
}

/**
 * __container_mem_swap_free - swap slots are freed
 * @entry: the first one
 * @nr: how many
 *
 * A run of adjacent slots (a zap of consecutive swap PTEs) may hold pages
 * of several folios, swapped out by different containers: each slot's
 * owner gets its own count back.
 */
void __container_mem_swap_free(swp_entry_t entry, unsigned int nr)
{
	unsigned short id, run_id = 0;
	unsigned int i, run = 0;

	for (i = 0; i < nr; i++) {
		id = swap_cgroup_record(swp_entry(swp_type(entry),
						  swp_offset(entry) + i), 0, 1);
		if (id != run_id) {
			mem_swap_id_put(run_id, run);
			run_id = id;
			run = 0;
		}
		run++;
	}
	mem_swap_id_put(run_id, run);
}

/**
 * __container_mem_swapin_charge - charge a folio read back from swap
 * @folio: the new folio
 * @mm: the mm of the fault, or NULL (readahead, swapoff, shmem)
 * @gfp: how reclaim may be done
 * @entry: the swap entry it is read from
 *
 * The folio goes to the container that swapped it out, if it still
 * exists; otherwise it is charged as any new folio of @mm.
 *
 * Return: 0 or -ENOMEM.
 */
int __container_mem_swapin_charge(struct folio *folio, struct mm_struct *mm,
				  gfp_t gfp, swp_entry_t entry)
{
	unsigned short id = lookup_swap_cgroup_id(entry);
	struct mem_container *mc;

	if (id) {
		rcu_read_lock();
		mc = xa_load(&mem_ids, id);
		if (mc && percpu_ref_tryget_live(&mc->ref)) {
			rcu_read_unlock();
			return mem_charge_pinned(mc, folio, gfp);
		}
		rcu_read_unlock();
	}
	return __container_mem_charge(folio, mm, gfp);
}

/**
 * container_mem_split - a charged large folio is being split
 * @head: its first page
 * @old_order: its order before the split
 * @new_order: the order of each new folio
 *
 * Each new folio after the first becomes charged to the same container.
 * Called before the tail pages become folios of their own, while
 * page_folio() of a tail page still gives the old large folio; the folio
 * is frozen, so no LRU hook runs for it.
 */
void container_mem_split(struct page *head, int old_order, int new_order)
{
	struct mem_container *mc;
	unsigned long flags, i, word;

	if (!container_mem_charged(page_folio(head)))
		return;
	rcu_read_lock();
	mc = mem_lock_owner(&head->container_mem, &flags);
	if (!mc)
		goto out;
	word = head->container_mem;
	/* Small anonymous folios are no longer rss_huge. */
	if ((word & MEM_KIND_HUGE) && !new_order) {
		mem_stat_mod(mc, MEM_RSS_HUGE, -(1L << old_order));
		word &= ~MEM_KIND_HUGE;
		WRITE_ONCE(head->container_mem, word);
	}
	for (i = 1UL << new_order; i < 1UL << old_order; i += 1UL << new_order) {
		/* The first page of a new folio: the folio, once split. */
		struct folio *tail = (struct folio *)(head + i);
		struct mem_page_ext *mpe = mem_folio_ext(tail);

		if (!mpe)
			continue;
		/* Each new folio counts its own pages as the old one did. */
		WRITE_ONCE(tail->container_mem, word);
		mem_list_add(mc, mpe, tail);
	}
	spin_unlock_irqrestore(&mc->lock, flags);
out:
	rcu_read_unlock();
}

/* Folios handled with interrupts off at a time, at most. */
#define MEM_FOLIO_CHUNK	256

/*
 * Move every folio of @mc to @to, or make them uncharged when @to is the
 * top.  The counters are the caller's business.  The list is handled
 * MEM_FOLIO_CHUNK folios at a time, oldest first, the locks dropped in
 * between: uncharges go on meanwhile, each under the lock of the owner it
 * finds, and a folio that replacement or a split adds to @mc meanwhile is
 * moved with the rest (the loop runs until the list is empty).  @mc must
 * get no new charges.  May sleep.
 * Return: the pages moved.
 */
static unsigned long mem_move_folios(struct mem_container *mc,
				     struct mem_container *to)
{
	bool to_top = mem_is_top(to);
	unsigned long flags, nr = 0;
	unsigned int n;

	do {
		spin_lock_irqsave(&mc->lock, flags);
		if (!to_top)
			spin_lock_nested(&to->lock, SINGLE_DEPTH_NESTING);
		for (n = 0; n < MEM_FOLIO_CHUNK && !list_empty(&mc->folios);
		     n++) {
			struct mem_page_ext *mpe;
			unsigned long word, new;
			struct folio *folio;

			mpe = list_first_entry(&mc->folios, struct mem_page_ext,
					       node);
			folio = mpe->folio;
			nr += folio_nr_pages(folio);
			if (to_top) {
				/* The top keeps no list: uncharged. */
				list_del(&mpe->node);
				mpe->folio = NULL;
				xchg(&folio->container_mem, 0);
				continue;
			}
			list_move_tail(&mpe->node, &to->folios);
			/* The LRU hook may change the other bits meanwhile. */
			word = READ_ONCE(folio->container_mem);
			do {
				new = (word & MEM_WORD_FLAGS) | (unsigned long)to;
			} while (!try_cmpxchg(&folio->container_mem, &word,
					      new));
		}
		if (!to_top)
			spin_unlock(&to->lock);
		spin_unlock_irqrestore(&mc->lock, flags);
		cond_resched();
	} while (n == MEM_FOLIO_CHUNK);
	return nr;
}

/*
 * Control files.
 */

enum {
	MEM_USAGE,
	MEM_MAX_USAGE,
	MEM_LIMIT,
	MEM_SOFT_LIMIT,
	MEM_FAILCNT,
};

static struct container_file *mem_of_cft(struct kernfs_open_file *of)
{
	return of->kn->priv;
}

static u64 mem_read(struct container_subsys_state *css,
		    struct container_file *cft)
{
	struct mem_container *mc = css_mem(css);

	switch (cft->private) {
	case MEM_USAGE:
		/* As cgroup v1: the top shows what the whole system uses. */
		if (mem_is_top(mc))
			return (u64)(global_node_page_state(NR_FILE_PAGES) +
				     global_node_page_state(NR_ANON_MAPPED)) *
			       PAGE_SIZE;
		return (u64)mem_usage(mc) * PAGE_SIZE;
	case MEM_MAX_USAGE:
		return (u64)READ_ONCE(mc->memory.watermark) * PAGE_SIZE;
	case MEM_LIMIT:
		return (u64)READ_ONCE(mc->memory.max) * PAGE_SIZE;
	case MEM_SOFT_LIMIT:
		return (u64)READ_ONCE(mc->soft_limit) * PAGE_SIZE;
	case MEM_FAILCNT:
		return READ_ONCE(mc->memory.failcnt);
	}
	return 0;
}

/* Set the hard limit, reclaiming first when usage is above it. */
static int mem_set_limit(struct mem_container *mc, unsigned long nr_pages)
{
	int retries = MEM_RECLAIM_RETRIES;
	unsigned long usage;

	for (;;) {
		mem_drain_stocks(mc);
		if (!page_counter_set_max(&mc->memory, nr_pages))
			return 0;
		if (signal_pending(current))
			return -EINTR;
		usage = page_counter_read(&mc->memory);
		if (usage > nr_pages &&
		    mem_reclaim(mc, usage - nr_pages, GFP_KERNEL))
			continue;
		if (!retries--)
			return -EBUSY;
	}
}

/*
 * A size in bytes with an optional k, m, g or t suffix (powers of 1024),
 * or -1 for unlimited, into pages, rounded down.  Stricter than memparse():
 * a number that does not fit in 64 bits is an error, not a wrap.
 */
static int mem_parse_bytes(char *buf, unsigned long *nr_pages)
{
	static const char suffixes[] = "kmgt";
	unsigned int shift = 0;
	size_t len = strlen(buf);
	const char *sfx;
	u64 bytes;

	if (!strcmp(buf, "-1")) {
		*nr_pages = PAGE_COUNTER_MAX;
		return 0;
	}
	if (!len)
		return -EINVAL;
	sfx = strchr(suffixes, tolower(buf[len - 1]));
	if (sfx && buf[len - 1]) {
		shift = 10 * (sfx - suffixes + 1);
		buf[--len] = '\0';
	}
	if (!len || kstrtoull(buf, 0, &bytes))
		return -EINVAL;
	if (shift && bytes > (U64_MAX >> shift))
		return -EINVAL;
	bytes <<= shift;
	*nr_pages = min_t(u64, bytes >> PAGE_SHIFT, PAGE_COUNTER_MAX);
	return 0;
}

static ssize_t mem_write(struct kernfs_open_file *of, char *buf,
			 size_t nbytes, loff_t off)
{
	struct mem_container *mc = css_mem(of_subsys_state(of));
	struct container_file *cft = mem_of_cft(of);
	unsigned long nr_pages;
	int ret;

	buf = strstrip(buf);
	switch (cft->private) {
	case MEM_LIMIT:
	case MEM_SOFT_LIMIT:
		ret = mem_parse_bytes(buf, &nr_pages);
		if (ret)
			return ret;
		mutex_lock(&mem_limit_mutex);
		if (cft->private == MEM_LIMIT)
			ret = mem_set_limit(mc, nr_pages);
		else
			WRITE_ONCE(mc->soft_limit, nr_pages);
		mutex_unlock(&mem_limit_mutex);
		break;
	case MEM_MAX_USAGE:
	case MEM_FAILCNT:
		/* cgroup v1: only 0 may be written, to reset. */
		if (strcmp(buf, "0"))
			return -EINVAL;
		if (cft->private == MEM_MAX_USAGE)
			page_counter_reset_watermark(&mc->memory);
		else
			WRITE_ONCE(mc->memory.failcnt, 0);
		ret = 0;
		break;
	default:
		ret = -EINVAL;
	}
	return ret ?: nbytes;
}

/* The counts of memory.stat, in pages except for the events. */
struct mem_stat {
	long stat[MEM_NR_STATS];
	unsigned long events[MEM_NR_EVENTS];
};

static void mem_stat_add(struct mem_container *mc, struct mem_stat *st)
{
	int i;

	for (i = 0; i < MEM_NR_STATS; i++)
		st->stat[i] += mem_stat_read(mc, i);
	for (i = 0; i < MEM_NR_EVENTS; i++)
		st->events[i] += mem_event_sum(mc, i);
}

static const char * const mem_event_names[MEM_NR_EVENTS] = {
	[MEM_PGPGIN] = "pgpgin",
	[MEM_PGPGOUT] = "pgpgout",
	[MEM_SOFT_LIMIT_HITS] = "soft_limit_hits",
	[MEM_THROTTLED] = "throttled",
	[MEM_RECLAIMED] = "reclaimed",
	[MEM_OOM_KILL] = "oom_kill",
};

static const char * const mem_stat_names[MEM_NR_STATS] = {
	[MEM_CACHE] = "cache",
	[MEM_RSS] = "rss",
	[MEM_RSS_HUGE] = "rss_huge",
	[MEM_SHMEM] = "shmem",
	[MEM_MAPPED_FILE] = "mapped_file",
	[MEM_LRU_BASE + LRU_INACTIVE_ANON] = "inactive_anon",
	[MEM_LRU_BASE + LRU_ACTIVE_ANON] = "active_anon",
	[MEM_LRU_BASE + LRU_INACTIVE_FILE] = "inactive_file",
	[MEM_LRU_BASE + LRU_ACTIVE_FILE] = "active_file",
	[MEM_LRU_BASE + LRU_UNEVICTABLE] = "unevictable",
};

static void mem_stat_print(struct seq_file *sf, const char *prefix,
			   const struct mem_stat *st)
{
	int i;

	/* A count caught while folios move up may dip below zero. */
	for (i = 0; i < MEM_NR_STATS; i++)
		seq_printf(sf, "%s%s %lu\n", prefix, mem_stat_names[i],
			   max(st->stat[i], 0L) * PAGE_SIZE);
	for (i = 0; i < MEM_NR_EVENTS; i++)
		seq_printf(sf, "%s%s %lu\n", prefix, mem_event_names[i],
			   st->events[i]);
}

static int mem_stat_show(struct seq_file *sf, void *v)
{
	struct mem_container *mc = css_mem(seq_subsys_state(sf)), *pos;
	unsigned long limit = PAGE_COUNTER_MAX;
	struct container_subsys_state *css;
	struct mem_stat *st;

	st = kcalloc(2, sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	mem_stat_add(mc, &st[0]);
	rcu_read_lock();
	container_for_each_descendant_pre(css, &mc->css)
		mem_stat_add(css_mem(css), &st[1]);
	rcu_read_unlock();
	for (pos = mc; !mem_is_top(pos); pos = mem_parent(pos))
		limit = min(limit, READ_ONCE(pos->memory.max));

	mem_stat_print(sf, "", &st[0]);
	seq_printf(sf, "hierarchical_memory_limit %llu\n",
		   (u64)limit * PAGE_SIZE);
	mem_stat_print(sf, "total_", &st[1]);
	kfree(st);
	return 0;
}

/*
 * memory.force_empty, whatever is written (as cgroup v1): reclaim all the
 * container can give back; if it has no task, move what stays (memory
 * that cannot be reclaimed, such as tmpfs without swap) to the parent.
 * With tasks, the rest is left charged, and the write succeeds all the same.
 */
static ssize_t mem_force_empty_write(struct kernfs_open_file *of, char *buf,
				     size_t nbytes, loff_t off)
{
	struct mem_container *mc = css_mem(of_subsys_state(of));
	unsigned long nr;
	int ret = 0;

	mutex_lock(&mem_limit_mutex);
	/* Let go of freed folios that per-CPU LRU batches still hold. */
	lru_add_drain_all();
	mem_drain_stocks(mc);
	while ((nr = page_counter_read(&mc->memory)) && !signal_pending(current))
		if (!mem_reclaim(mc, nr, GFP_KERNEL))
			break;
	if (signal_pending(current)) {
		ret = -EINTR;
		goto out;
	}
	if (container_task_count(mc->css.container))
		goto out;
	/* Own folios only: those of children stay with the children. */
	mem_drain_stocks(mc);
	nr = mem_move_folios(mc, mem_parent(mc));
	if (mem_is_top(mem_parent(mc)))
		page_counter_uncharge(&mc->memory, nr);
	else
		page_counter_cancel(&mc->memory, nr);
	synchronize_rcu();
	mem_stat_fold(mc, mem_is_top(mem_parent(mc)) ? NULL : mem_parent(mc));
out:
	mutex_unlock(&mem_limit_mutex);
	return ret ?: nbytes;
}

/*
 * memory.use_hierarchy: always 1, as in cgroup v1 since 6.2: charges and
 * limits apply to the whole subtree.  Writing 1 is accepted, anything
 * else fails with EINVAL, as v1 answers the no longer supported flat
 * mode.
 */
static u64 mem_read_use_hierarchy(struct container_subsys_state *css,
				  struct container_file *cft)
{
	return 1;
}

static int mem_write_use_hierarchy(struct container_subsys_state *css,
				   struct container_file *cft, u64 val)
{
	return val == 1 ? 0 : -EINVAL;
}

static struct container_file mem_files[] = {
	{
		.name = "usage_in_bytes",
		.read_u64 = mem_read,
		.private = MEM_USAGE,
	},
	{
		.name = "max_usage_in_bytes",
		.flags = CONTAINER_FILE_NOT_ON_ROOT,
		.read_u64 = mem_read,
		.write = mem_write,
		.private = MEM_MAX_USAGE,
	},
	{
		.name = "limit_in_bytes",
		.flags = CONTAINER_FILE_NOT_ON_ROOT,
		.read_u64 = mem_read,
		.write = mem_write,
		.private = MEM_LIMIT,
	},
	{
		.name = "soft_limit_in_bytes",
		.flags = CONTAINER_FILE_NOT_ON_ROOT,
		.read_u64 = mem_read,
		.write = mem_write,
		.private = MEM_SOFT_LIMIT,
	},
	{
		.name = "failcnt",
		.flags = CONTAINER_FILE_NOT_ON_ROOT,
		.read_u64 = mem_read,
		.write = mem_write,
		.private = MEM_FAILCNT,
	},
	{
		.name = "force_empty",
		.flags = CONTAINER_FILE_NOT_ON_ROOT,
		.write = mem_force_empty_write,
	},
	{
		.name = "stat",
		.seq_show = mem_stat_show,
	},
	{
		.name = "use_hierarchy",
		.read_u64 = mem_read_use_hierarchy,
		.write_u64 = mem_write_use_hierarchy,
	},
	{ }	/* terminator */
};

/*
 * Subsystem callbacks.
 */

static void mem_ref_release(struct percpu_ref *ref)
{
	struct mem_container *mc = container_of(ref, struct mem_container, ref);

	complete(&mc->ref_done);
}

static int mem_state_init(struct mem_container *mc,
			  struct mem_container *parent)
{
	mc->pcpu = alloc_percpu(struct mem_percpu);
	if (!mc->pcpu)
		return -ENOMEM;
	if (percpu_ref_init(&mc->ref, mem_ref_release, 0, GFP_KERNEL)) {
		free_percpu(mc->pcpu);
		return -ENOMEM;
	}
	init_completion(&mc->ref_done);
	INIT_WORK(&mc->soft_work, mem_soft_limit_work);
	spin_lock_init(&mc->lock);
	INIT_LIST_HEAD(&mc->folios);
	/* The top is not charged: its children's counters have no parent. */
	page_counter_init(&mc->memory,
			  parent && !mem_is_top(parent) ? &parent->memory : NULL,
			  false);
	mc->soft_limit = PAGE_COUNTER_MAX;
	return 0;
}

static struct container_subsys_state *
mem_create(struct container_subsys_state *parent_css)
{
	struct mem_container *parent = css_mem(parent_css), *mc;
	u32 id;
	int ret;

	if (!parent) {
		BUILD_BUG_ON(MEM_WORD_FLAGS >= MEM_OWNER_ALIGN);
		/* KMEM_CACHE() aligns objects as the type: MEM_OWNER_ALIGN. */
		mem_cachep = KMEM_CACHE(mem_container, SLAB_PANIC);
		container_mem_wq = alloc_workqueue("container_mem",
						   WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
		if (!container_mem_wq || mem_state_init(&root_mem, NULL))
			panic("container_mem: no memory at boot\n");
		return &root_mem.css;
	}
	mc = kmem_cache_zalloc(mem_cachep, GFP_KERNEL);
	if (!mc)
		return ERR_PTR(-ENOMEM);
	ret = xa_alloc_irq(&mem_ids, &id, mc, XA_LIMIT(1, USHRT_MAX),
			   GFP_KERNEL);
	if (ret) {
		kmem_cache_free(mem_cachep, mc);
		return ERR_PTR(ret == -EBUSY ? -ENOSPC : ret);
	}
	mc->id = id;
	refcount_set(&mc->id_ref, 1);
	if (mem_state_init(mc, parent)) {
		xa_erase_irq(&mem_ids, id);
		kmem_cache_free(mem_cachep, mc);
		return ERR_PTR(-ENOMEM);
	}
	if (!static_key_enabled(&container_mem_swap_owned))
		static_branch_enable(&container_mem_swap_owned);
	parent->had_children = true;
	static_branch_inc(&container_mem_charging);
	return &mc->css;
}

/*
 * A grace period after destroy moved the folios up, no update for them
 * can reach @mc any more: hand its page counts to the parent.  The parent
 * is still there: its destroy waits for these callbacks (rcu_barrier()).
 */
static void mem_free_rcu(struct rcu_head *rcu)
{
	struct mem_container *mc = container_of(rcu, struct mem_container, rcu);

	mem_stat_fold(mc, mem_is_top(mem_parent(mc)) ? NULL : mem_parent(mc));

	free_percpu(mc->pcpu);
	mc->pcpu = NULL;
	/* Swap entries may still record it: see mem_id_put(). */
	mem_id_put(mc, 1);
}

static void mem_destroy(struct container_subsys_state *css)
{
	struct mem_container *mc = css_mem(css), *parent = mem_parent(mc);
	unsigned long nr;

	if (WARN_ON_ONCE(mc == &root_mem))
		return;
	/* Removed children fold their counts into ours from RCU callbacks. */
	if (mc->had_children)
		rcu_barrier();
	/* Wait for charges in flight, then hand the folios up. */
	percpu_ref_kill(&mc->ref);
	wait_for_completion(&mc->ref_done);
	cancel_work_sync(&mc->soft_work);
	percpu_ref_exit(&mc->ref);

	nr = mem_move_folios(mc, parent);
	/* At the top the moved folios are no longer charged at all. */
	if (mem_is_top(parent) && nr)
		page_counter_uncharge(&mc->memory, nr);
	/*
	 * Uncharges stock @mc's pages only while its folios are on its
	 * list: after the move, empty the stocks for good.  No CPU goes
	 * down meanwhile, whose stock mem_cpu_dead() would empty later.
	 */
	cpus_read_lock();
	mem_drain_stocks(mc);
	cpus_read_unlock();

	call_rcu(&mc->rcu, mem_free_rcu);
	static_branch_dec(&container_mem_charging);
}

static int __init container_mem_init(void)
{
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN,
					"mm/container_mem:dead", NULL,
					mem_cpu_dead);
	return ret < 0 ? ret : 0;
}
subsys_initcall(container_mem_init);

struct container_subsys mem_subsys = {
	.name = "memory",
	.create = mem_create,
	.destroy = mem_destroy,
	.files = mem_files,
};
