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
 * Usage, limit, peak and failcnt are a page_counter per container, charged
 * hierarchically: a charge counts against every ancestor below the top.  A
 * charge stays with the container that made it when the task moves (but
 * see Moving, below).  Each CPU keeps a small stock of pages charged ahead
 * to one container (struct mem_stock), so that most charges and uncharges
 * touch only that CPU's data, not the counters of every ancestor.
 *
 * LRU lists.  A charged folio records its owner in struct page, in the word
 * memory cgroups use for the same (folio->container_mem; struct page does
 * not grow, since the two cannot be built together): a pointer to the
 * owner's table of per-node parts (struct container_mem_node), each with
 * an lruvec.  folio_lruvec() and the LRU lock helpers of memcontrol.h find
 * the folio's lruvec through it, so a charged folio sits on its container's
 * LRU lists, not the node's, under the container's LRU lock, and nothing
 * else is kept per folio.  The kernel's reclaim scans them: a charge over
 * a hard limit and the soft-limit handler reclaim through
 * try_to_free_container_pages(), which scans the lruvecs of the subtree
 * only; global reclaim (kswapd, direct) scans the node's own lruvec and
 * every container's (shrink_node_containers() in mm/vmscan.c, and
 * lru_gen_shrink_containers() with the multi-gen LRU).  The sizes of the
 * lists are each lruvec's own (lruvec->lru_zone_size), for the classic
 * lists and the generations alike.
 *
 * Statistics.  memory.stat counts what mm/ counts for a folio in the node
 * statistics (NR_FILE_PAGES as cache, NR_ANON_MAPPED as rss, ...): the
 * lruvec statistics calls of vmstat.h add to the per-CPU counters of the
 * folio's owner for the items memory.stat shows, at the moment mm/ counts
 * them, inline: the owner word leads to the counters
 * (container_mem_node->stat; a removed owner's folios count for its heir
 * out of line).  The LRU lines are the sizes of the container's lruvecs.
 *
 * Removal.  Each charged page holds a reference on its owner's percpu_ref
 * (so does a stock, a child, and a charge in flight).  When a container is
 * removed, its folios on LRU lists move to its parent's lists (at the top:
 * they become uncharged), under both LRU locks, for folios whose LRU flag
 * the mover clears (so no one else moves them meanwhile); its counters are
 * folded into the parent's a grace period later.  Folios off the lists at
 * that moment (isolated by reclaim or migration, in per-CPU LRU batches)
 * come back to the removed container's lists: a delayed work item moves
 * them up too, until no page is charged to it.  The structure is freed
 * once the last reference is gone.  Before folios move (here, and when
 * their charges move with a task), the multi-gen LRU is told to leave the
 * generations of the container's folios alone (mem_start_move()), as
 * memory cgroups' moving_account does: its page table scans update them
 * without the LRU lock.
 *
 * Limits.  A charge that would take a container (or an ancestor) over its
 * hard limit first reclaims from that container's subtree.  If that fails,
 * out_of_memory() runs limited to the subtree (struct oom_control.container),
 * so the victim is chosen among the subtree's threads, and killed and
 * reaped, as by the kernel's OOM killer, but never outside the subtree.
 *
 * Moving.  With memory.move_charge_at_immigrate set in the container a
 * process moves into, the charges of the pages it maps (and of the swap
 * slots of its anonymous memory) that its old container holds move with
 * it, as in cgroup v1: after the move, from the page tables, for folios
 * that cannot change their counts meanwhile (mapped only there, locked,
 * off the LRU lists, clean).
 *
 * Swap.  As in cgroup v1, a second page_counter per container (memsw)
 * counts memory and swap together: a charge counts against both, and
 * when reclaim takes a charged folio out of the swap cache, its memory
 * charge goes but its memsw charge stays with its swap slots, which record
 * the container in the swap map of mm/swap_cgroup.c.  A page read back is
 * charged to that container, whoever reads it; the slot then gives up its
 * memsw charge (the new folio has one), as does a slot that is freed.
 *
 * Locking:
 *
 * lruvec->lru_lock	the LRU lists of a container on one node, and the
 *			owner word of the folios on them that have their LRU
 *			flag set.  When folios move up, the child's lock is
 *			taken first, then the parent's (nested).
 * mem_limit_mutex	serialises writes of the limits and force_empty.
 * mem_stock.lock	local lock (interrupts off) of a CPU's stock; nothing
 *			is taken inside it.
 * mem_moves_lock	the moves queued by mem_attach() (container_mutex
 *			held) for mem_post_attach(); a leaf.  The move itself
 *			runs with no container lock: the mm's mmap_lock
 *			(read), then a page table lock, then folio_trylock()
 *			and the lruvec lock of folio_isolate_lru(), as
 *			reclaim nests them; reclaim for room in the new
 *			container runs after the walk dropped them all.
 * mem_ids' xa_lock	irq-safe; a leaf.  The swap map's lock
 *			(swap_cgroup_record()) is taken with none of ours
 *			held, at swap-out inside the mapping's i_pages lock
 *			(interrupts off).  The OOM path takes oom_lock, then (scanning
 *			tasks) css_group_lock and task_lock(), with none of
 *			ours held.
 *
 * The owner word is otherwise written only when no one else can reach the
 * folio: charge (a new folio), uncharge (refcount zero), migration (both
 * folios isolated) and split (frozen).  Readers that do not hold the
 * folio's LRU lock read it under RCU: a container's per-node parts and
 * counters are freed a grace period after its last reference is dropped.
 * Walks of a subtree use the core's walks of the states' tree under RCU,
 * and hold a reference on the container they are at when they sleep.
 */

#define pr_fmt(fmt) "container_mem: " fmt

#include <linux/backing-dev.h>
#include <linux/container_mem.h>
#include <linux/containers.h>
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
#include <linux/pagevec.h>
#include <linux/pagewalk.h>
#include <linux/percpu.h>
#include <linux/percpu-refcount.h>
#include <linux/resume_user_mode.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/swap.h>
#include <linux/swap_cgroup.h>
#include <linux/swapops.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "internal.h"

/* Pages a CPU charges ahead to one container (struct mem_stock). */
#define MEM_CHARGE_BATCH	64U
/* How often a charge reclaims before it turns to the OOM killer. */
#define MEM_RECLAIM_RETRIES	5
/* Longest sleep of a task allocating far over its soft limit. */
#define MEM_THROTTLE_MAX	(HZ / 10)
/* How soon, and how often at most, a removed container's stragglers move. */
#define MEM_ZOMBIE_DELAY	HZ
#define MEM_ZOMBIE_DELAY_MAX	(10 * HZ)

/* Event counters, per CPU. */
enum mem_event {
	MEM_PGPGIN,		/* charges */
	MEM_PGPGOUT,		/* uncharges */
	MEM_PGSCAN,		/* folios reclaim scanned on its lists */
	MEM_SOFT_LIMIT_HITS,	/* charges that left usage over the soft limit */
	MEM_THROTTLED,		/* times a task slept for the soft limit */
	MEM_RECLAIMED,		/* pages the over-limit handler reclaimed */
	MEM_OOM_KILL,		/* processes killed for its hard limit */
	MEM_NR_EVENTS,
};

struct mem_percpu {
	long stat[CONTAINER_MEM_NR_STATS];
	unsigned long ev[MEM_NR_EVENTS];
};

/**
 * struct mem_container - the memory state of one container
 * @css: the subsystem state
 * @memory: usage, hard limit, peak and failcnt, in pages
 * @memsw: the same for memory and swap together (memory.memsw.*)
 * @soft_limit: the soft limit, in pages
 * @ref: one reference per charged page (stocked pages too) and per swap
 *	slot charged to it, per stock holding its pages, per child and per
 *	charge in flight, plus the initial one until removal
 * @pcpu: per-CPU page counts and event counters
 * @folded: page counts handed over from removed descendants
 * @soft_work: the over-limit handler (container_mem_wq)
 * @soft_reclaimed: pages the handler has reclaimed, ever
 * @throttle_mark: @soft_reclaimed when a task last slept for the soft limit
 * @throttle: current throttling delay in jiffies, 0 when not throttling
 * @swappiness: memory.swappiness (the top's is vm_swappiness)
 * @oom_kill_disable: memory.oom_control: tasks wait instead of an OOM kill
 * @move_charge: memory.move_charge_at_immigrate (MEM_MOVE_*)
 * @under_oom: tasks waiting for room under this container's hard limit
 * @dead: removed: its statistics go to the parent from now on
 * @moving: folios are being moved to another container's lruvec: the
 *	multi-gen LRU must not change their generation meanwhile
 *	(mem_start_move())
 * @zombie_work: moves up the folios that come back to a removed container
 * @zombie_delay: the current delay of @zombie_work
 * @free_rwork: frees the per-node parts and counters after the last put
 * @id: the number swap slots record their owner by (0 at the top)
 * @rcu: folds the statistics after removal; later frees the structure
 * @node: the per-node parts, by node id (none at the top, whose folios
 *	are on the nodes' own lruvecs); the owner word points here
 */
struct mem_container {
	struct container_subsys_state css;
	struct page_counter memory;
	struct page_counter memsw;
	unsigned long soft_limit;
	struct percpu_ref ref;
	struct mem_percpu __percpu *pcpu;
	atomic_long_t folded[CONTAINER_MEM_NR_STATS];
	struct work_struct soft_work;
	atomic_long_t soft_reclaimed;
	unsigned long throttle_mark;
	unsigned long throttle;
	int swappiness;
	bool oom_kill_disable;
	unsigned int move_charge;
	atomic_t under_oom;
	bool dead;
	atomic_t moving;
	struct delayed_work zombie_work;
	unsigned long zombie_delay;
	struct rcu_work free_rwork;
	unsigned short id;
	struct rcu_head rcu;
	struct container_mem_node *node[];
};

/**
 * struct mem_stock - pages charged ahead to one container on one CPU
 * @lock: guards the stock, with interrupts off
 * @cached: the container they are charged to (with a reference), or NULL
 * @nr_pages: how many; each holds a reference on @cached too
 *
 * A charge takes its pages from its CPU's stock when that holds pages of
 * its container; otherwise it charges the page_counters for a batch of
 * MEM_CHARGE_BATCH pages and keeps the rest here.  An uncharge gives its
 * pages back to the stock of the same container.  So most charges and
 * uncharges do not touch the page_counters of the hierarchy at all, nor
 * the container's reference count: a page's reference moves with it.
 *
 * Stocked pages count in the page_counters, memory and memsw alike
 * (against the limits and in the peak), but memory.usage_in_bytes leaves
 * them out.  The stocks of a subtree are given back before a charge
 * reclaims for a limit, when a limit is set, on force_empty and when a
 * container is removed; a dead CPU's stock is given back by the CPU
 * hotplug callback.
 */
struct mem_stock {
	local_lock_t lock;
	struct mem_container *cached;
	unsigned int nr_pages;
};

static DEFINE_PER_CPU(struct mem_stock, mem_stock) = {
	.lock = INIT_LOCAL_LOCK(lock),
};

static struct mem_container *root_mem;
static struct kmem_cache *mem_cachep;

/*
 * On while a memory container other than the top exists: only then can a
 * folio be charged, so that without one the charge and uncharge hooks cost
 * a patched-out branch.  Counts the containers until they are freed.
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

static inline struct mem_container *css_mem(struct container_subsys_state *css)
{
	return css ? container_of(css, struct mem_container, css) : NULL;
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

/* The owner word of folios charged to @mc. */
static inline unsigned long mem_word(struct mem_container *mc)
{
	return (unsigned long)mc->node;
}

/* The owner of @folio, or NULL; under RCU or with the binding stable. */
static inline struct mem_container *mem_owner(struct folio *folio)
{
	struct container_mem_node **table;

	table = (struct container_mem_node **)READ_ONCE(folio->container_mem);
	return table ? table[folio_nid(folio)]->owner : NULL;
}

/* Is @lruvec a node's own (the top's), not a container's? */
static inline bool mem_lruvec_is_node(struct lruvec *lruvec)
{
	return lruvec == &lruvec_pgdat(lruvec)->__lruvec;
}

/* The lruvec of @mc on @pgdat; the node's own for the top. */
static inline struct lruvec *mem_lruvec(struct mem_container *mc,
					struct pglist_data *pgdat)
{
	if (mem_is_top(mc))
		return &pgdat->__lruvec;
	return &mc->node[pgdat->node_id]->lruvec;
}

/* The container of @lruvec; the top for a node's own. */
static inline struct mem_container *mem_lruvec_owner(struct lruvec *lruvec)
{
	if (mem_lruvec_is_node(lruvec))
		return root_mem;
	return container_of(lruvec, struct container_mem_node, lruvec)->owner;
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

/* Pages @mc counts for @item; negative for a moment while folios move. */
static long mem_stat_read(struct mem_container *mc,
			  enum container_mem_stat_item item)
{
	long sum = atomic_long_read(&mc->folded[item]);
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(mc->pcpu, cpu)->stat[item];
	return sum;
}

/*
 * Where statistics for folios of @mc go: @mc, or once it is removed its
 * nearest ancestor that is not; NULL at the top, which keeps none (its
 * memory.stat shows the system's).  Under RCU: a removed container folds
 * its counters into this one a grace period after it is marked dead.
 */
static struct mem_container *mem_stat_target(struct mem_container *mc)
{
	while (!mem_is_top(mc) && READ_ONCE(mc->dead))
		mc = mem_parent(mc);
	return mem_is_top(mc) ? NULL : mc;
}

/*
 * Hand what @mc's first @nr counters hold over to @to (NULL: the top, which
 * drops it).
 */
static void mem_stat_fold(struct mem_container *mc, struct mem_container *to,
			  int nr)
{
	int i;

	for (i = 0; i < nr; i++) {
		long v = mem_stat_read(mc, i);

		atomic_long_sub(v, &mc->folded[i]);
		if (to)
			atomic_long_add(v, &to->folded[i]);
	}
}

/* Add @val pages to item @item of @mc (or its heir; the top keeps none). */
static void mem_stat_mod(struct mem_container *mc,
			 enum container_mem_stat_item item, long val)
{
	rcu_read_lock();
	mc = mc ? mem_stat_target(mc) : NULL;
	if (mc)
		this_cpu_add(mc->pcpu->stat[item], val);
	rcu_read_unlock();
}

/**
 * __container_mem_stat_mod_removed - count a folio of a removed container
 * @folio: the folio
 * @item: the memory.stat page count
 * @val: by how much it changes, in pages
 *
 * The lruvec statistics calls of <linux/vmstat.h> count a charged folio
 * in its container's per-CPU counters inline, through the owner word
 * (container_mem_stat_mod_folio()); once the container is removed, its
 * counters are folded into its parent's, and the folio's counts go to the
 * nearest ancestor that is not removed, from here.
 *
 * Context: any; under RCU; the folio is held, or being freed by the caller.
 */
void __container_mem_stat_mod_removed(struct folio *folio,
				      enum container_mem_stat_item item,
				      int val)
{
	mem_stat_mod(mem_owner(folio), item, val);
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
	mc = container_of(task_subsys_state(task, mem_subsys_id),
			  struct mem_container, css);
	return mem_is_top(mc) ? NULL : mc;
}

/*
 * Per-CPU stocks of charged pages.
 */

/* Give back @nr pages charged to @mc: memory and memory+swap. */
static void mem_cancel_charge(struct mem_container *mc, unsigned long nr)
{
	page_counter_uncharge(&mc->memory, nr);
	page_counter_uncharge(&mc->memsw, nr);
}

/* Charge @nr pages to @mc whatever its limits: memory and memory+swap. */
static void mem_force_charge(struct mem_container *mc, unsigned long nr)
{
	page_counter_charge(&mc->memory, nr);
	page_counter_charge(&mc->memsw, nr);
}

/* Uncharge @nr pages of @mc and drop the references they carry. */
static void mem_cancel_pages(struct mem_container *mc, unsigned long nr)
{
	mem_cancel_charge(mc, nr);
	percpu_ref_put_many(&mc->ref, nr);
}

/* Give back every page of @stock: its CPU's lock held, or the CPU dead. */
static void mem_stock_drain(struct mem_stock *stock)
{
	struct mem_container *mc = stock->cached;

	if (!mc)
		return;
	if (stock->nr_pages)
		mem_cancel_pages(mc, stock->nr_pages);
	WRITE_ONCE(stock->nr_pages, 0);
	WRITE_ONCE(stock->cached, NULL);
	percpu_ref_put(&mc->ref);
}

/*
 * Put @nr pages charged to @mc into this CPU's stock, each with the
 * reference on @mc it carries (a stocked page holds one, as a charged
 * folio's page does, so that a charge from the stock or an uncharge into
 * it takes or drops none).  When the stock holds another container's
 * pages, @take_over gives those back first; without it, the pages are
 * uncharged instead, as they are for a removed container.  A stock never
 * keeps more than two batches.
 * Context: interrupts off, this CPU's stock lock held.
 */
static void __mem_refill_stock(struct mem_container *mc, unsigned int nr,
			       bool take_over)
{
	struct mem_stock *stock = this_cpu_ptr(&mem_stock);
	unsigned int excess = 0;

	lockdep_assert_held(this_cpu_ptr(&mem_stock.lock));
	if (stock->cached != mc || READ_ONCE(mc->dead)) {
		if (!take_over || READ_ONCE(mc->dead)) {
			mem_cancel_pages(mc, nr);
			return;
		}
		mem_stock_drain(stock);
		percpu_ref_get(&mc->ref);
		WRITE_ONCE(stock->cached, mc);
	}
	nr += stock->nr_pages;
	if (nr > 2 * MEM_CHARGE_BATCH) {
		excess = nr - MEM_CHARGE_BATCH;
		nr = MEM_CHARGE_BATCH;
	}
	WRITE_ONCE(stock->nr_pages, nr);
	if (excess)
		mem_cancel_pages(mc, excess);
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
 * Charged pages of @mc's subtree on @counter (@mc's memory or memsw), not
 * counting those in stocks.
 *
 * page_counter_try_charge() adds first and takes a charge back when it
 * finds the counter over the limit, so a reader can catch an attempt that
 * fails; the watermark only ever sees charges that stuck, and bounds what
 * is reported by what was really charged at some point.
 */
static unsigned long mem_usage(struct mem_container *mc,
			       struct page_counter *counter)
{
	long usage = min(page_counter_read(counter),
			 READ_ONCE(counter->watermark));
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
 * Try to free @nr_pages pages charged to @top's subtree, with the kernel's
 * reclaim limited to the subtree's lruvecs.  May sleep.
 * Return: the number of pages freed.
 */
static unsigned long mem_reclaim(struct mem_container *top,
				 unsigned long nr_pages, gfp_t gfp)
{
	return try_to_free_container_pages(&top->css, nr_pages, gfp, true);
}

/**
 * container_mem_lruvec_iter - walk the lruvecs of a subtree on one node
 * @top: the memory state of the subtree's root, NULL for the whole system
 * @prev: the lruvec returned last, NULL to start
 * @pgdat: the node
 *
 * Visits @top's lruvec first, then its descendants' in pre-order; for the
 * whole system, the node's own lruvec first.  Each container visited is
 * held until the next call, so the caller may sleep in between; a
 * container removed meanwhile is visited if it still has pages (its
 * folios move up soon), and the walk goes on from it.
 *
 * Return: the next lruvec, or NULL when the walk is over.
 */
struct lruvec *container_mem_lruvec_iter(struct container_subsys_state *top,
					 struct lruvec *prev,
					 struct pglist_data *pgdat)
{
	struct container_subsys_state *pos = NULL;
	struct mem_container *prev_mc = NULL, *mc = NULL;

	if (!top)
		top = &root_mem->css;
	if (prev) {
		prev_mc = mem_lruvec_owner(prev);
		pos = &prev_mc->css;
	}
	rcu_read_lock();
	while ((pos = container_css_next_descendant_pre(pos, top))) {
		mc = css_mem(pos);
		if (mem_is_top(mc) || percpu_ref_tryget(&mc->ref))
			break;
	}
	rcu_read_unlock();
	if (prev_mc && !mem_is_top(prev_mc))
		percpu_ref_put(&prev_mc->ref);
	return pos ? mem_lruvec(mc, pgdat) : NULL;
}

/**
 * container_mem_note_scanned - reclaim scanned folios of an lruvec
 * @lruvec: the lruvec
 * @nr: how many folios
 *
 * Counts them in pgscan of the lruvec's container (the top's for a node's
 * own lruvec).
 */
void container_mem_note_scanned(struct lruvec *lruvec, unsigned long nr)
{
	if (nr)
		mem_event(mem_lruvec_owner(lruvec), MEM_PGSCAN, nr);
}

/* How far @mc, or the ancestor furthest over, is over its soft limit. */
static unsigned long mem_soft_excess(struct mem_container *mc)
{
	unsigned long excess = 0, usage, soft;

	for (; !mem_is_top(mc); mc = mem_parent(mc)) {
		usage = page_counter_read(&mc->memory);
		soft = READ_ONCE(mc->soft_limit);
		if (usage > soft)
			excess = max(excess, usage - soft);
	}
	return excess;
}

/**
 * container_mem_soft_excess - how far over its soft limit an lruvec's container is
 * @lruvec: an lruvec of a container held by the caller
 *
 * Global reclaim takes first from the containers over their soft limit
 * (Rohit Seth's "first to go under memory pressure"): a container is over
 * when it or one of its ancestors is, by the largest of their excesses.
 *
 * Return: the excess in pages, 0 for the top or a container within its
 * soft limit and its ancestors'.
 */
unsigned long container_mem_soft_excess(struct lruvec *lruvec)
{
	return mem_soft_excess(mem_lruvec_owner(lruvec));
}

/**
 * container_mem_soft_limit_lruvecs - where global reclaim takes from first
 * @pgdat: the node
 * @vecs: filled with up to CONTAINER_MEM_SOFT_BATCH lruvecs, each held
 *
 * The lruvecs on @pgdat of the containers over their soft limit (or below
 * an ancestor that is), the largest excess first, as cgroup v1 orders its
 * per-node tree of memory cgroups over their soft limit; only the
 * CONTAINER_MEM_SOFT_BATCH largest.  Release them with
 * container_mem_put_lruvecs().
 *
 * Return: how many there are in @vecs.
 */
int container_mem_soft_limit_lruvecs(struct pglist_data *pgdat,
				     struct lruvec **vecs)
{
	unsigned long excess[CONTAINER_MEM_SOFT_BATCH], e;
	struct container_subsys_state *pos;
	int n = 0, i;

	rcu_read_lock();
	container_for_each_descendant_pre(pos, &root_mem->css) {
		struct mem_container *mc = css_mem(pos);

		if (mem_is_top(mc))
			continue;
		e = mem_soft_excess(mc);
		if (!e || (n == CONTAINER_MEM_SOFT_BATCH && e <= excess[n - 1]))
			continue;
		if (!percpu_ref_tryget(&mc->ref))
			continue;
		/* The smallest goes to make room. */
		if (n == CONTAINER_MEM_SOFT_BATCH)
			percpu_ref_put(&mem_lruvec_owner(vecs[--n])->ref);
		/* Keep the order; among equals, the walk's (parents first). */
		for (i = n; i > 0 && excess[i - 1] < e; i--) {
			excess[i] = excess[i - 1];
			vecs[i] = vecs[i - 1];
		}
		excess[i] = e;
		vecs[i] = mem_lruvec(mc, pgdat);
		n++;
	}
	rcu_read_unlock();
	return n;
}

/**
 * container_mem_put_lruvecs - release lruvecs of containers
 * @vecs: lruvecs from container_mem_soft_limit_lruvecs()
 * @nr: how many
 */
void container_mem_put_lruvecs(struct lruvec **vecs, int nr)
{
	while (nr--)
		percpu_ref_put(&mem_lruvec_owner(vecs[nr])->ref);
}

/**
 * container_mem_css_lruvec - the lruvec of a container on a node
 * @css: the container's memory state, held by the caller
 * @pgdat: the node
 *
 * Return: its lruvec on @pgdat (the node's own for the top).
 */
struct lruvec *container_mem_css_lruvec(struct container_subsys_state *css,
					struct pglist_data *pgdat)
{
	return mem_lruvec(css_mem(css), pgdat);
}

static int mem_swappiness(struct mem_container *mc)
{
	if (mem_is_top(mc))
		return READ_ONCE(vm_swappiness);
	return READ_ONCE(mc->swappiness);
}

/**
 * container_mem_swappiness - the swappiness reclaim uses for an lruvec
 * @lruvec: the lruvec reclaim scans, its container held
 * @swappiness: the system's
 *
 * Return: the memory.swappiness of @lruvec's container, as cgroup v1 uses
 * each memory cgroup's; @swappiness for a node's own lruvec.
 */
int container_mem_swappiness(struct lruvec *lruvec, int swappiness)
{
	if (mem_lruvec_is_node(lruvec))
		return swappiness;
	return mem_swappiness(mem_lruvec_owner(lruvec));
}

/**
 * container_mem_parent_lruvec - the lruvec of the parent container
 * @lruvec: a container's lruvec
 *
 * Reclaim costs noted in an lruvec are noted in its ancestors' too, as
 * they are for memory cgroups (lru_note_cost()).
 *
 * Return: the parent's lruvec on the same node (a node's own for a
 * container of the top), or NULL for a node's own lruvec.
 */
struct lruvec *container_mem_parent_lruvec(struct lruvec *lruvec)
{
	if (mem_lruvec_is_node(lruvec))
		return NULL;
	return mem_lruvec(mem_parent(mem_lruvec_owner(lruvec)),
			  lruvec_pgdat(lruvec));
}

/*
 * Workingset events (refaults, activations, restores) of a folio of @lruvec
 * count in its container and every ancestor's lruvec, as a memory cgroup's
 * hierarchical statistics do: reclaim of a subtree compares its own.
 */
void __container_mem_lruvec_mod(struct lruvec *lruvec,
				enum node_stat_item idx, int val)
{
	for (; lruvec && !mem_lruvec_is_node(lruvec);
	     lruvec = container_mem_parent_lruvec(lruvec))
		atomic_long_add(val, &lruvec->workingset[idx -
						WORKINGSET_REFAULT_BASE]);
}

/**
 * container_mem_lruvec_id - the id a shadow entry records for an lruvec
 * @lruvec: the lruvec a folio is evicted from
 *
 * Return: the id of @lruvec's container, 0 for a node's own lruvec.
 */
unsigned short container_mem_lruvec_id(struct lruvec *lruvec)
{
	if (mem_lruvec_is_node(lruvec))
		return 0;
	return mem_lruvec_owner(lruvec)->id;
}

/**
 * container_mem_lruvec_rcu - the lruvec of a shadow entry's container
 * @id: the id container_mem_lruvec_id() gave at eviction
 * @pgdat: the node of the evicted folio
 *
 * The lruvec stays valid until the caller leaves its RCU read-side
 * section: a container's per-node parts are freed a grace period after
 * its id is erased (mem_ref_release()).
 *
 * Context: RCU read lock held.
 * Return: the lruvec; the node's for id 0; NULL when the container is gone.
 */
struct lruvec *container_mem_lruvec_rcu(unsigned short id,
					struct pglist_data *pgdat)
{
	struct mem_container *mc;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "no rcu_read_lock()");
	if (!id)
		return &pgdat->__lruvec;
	mc = xa_load(&mem_ids, id);
	return mc ? mem_lruvec(mc, pgdat) : NULL;
}

/**
 * container_mem_lruvec_moving - are folios leaving @lruvec's container?
 * @lruvec: the lruvec whose folios the multi-gen LRU is about to age
 *
 * folio_update_gen() may only run on a folio of @lruvec while the folio
 * stays there.  A container's folios move to another lruvec when it is
 * removed or emptied (mem_reparent()) and when their charges move with a
 * task (mem_move_charges()); the mover raises @moving and waits a grace
 * period first, so a caller that saw it clear under rcu_read_lock() is done
 * before any folio moves, as with memory cgroups' moving_account.
 *
 * Context: RCU read lock held, until the caller is done with the folios.
 * Return: true if the caller must leave the folios' generations alone.
 */
bool container_mem_lruvec_moving(struct lruvec *lruvec)
{
	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "no rcu_read_lock()");
	if (mem_lruvec_is_node(lruvec))
		return false;
	return atomic_read(&mem_lruvec_owner(lruvec)->moving);
}

/**
 * container_mem_lruvec_tryget - the lruvec of a shadow entry's container
 * @id: the id container_mem_lruvec_id() gave at eviction
 * @pgdat: the node of the evicted folio
 *
 * A container that is freed since (its id may be another's by now, as
 * with memory cgroup ids) gives NULL.  Put the lruvec with
 * container_mem_lruvec_put().
 *
 * Context: RCU read lock held.
 * Return: the lruvec, its container pinned; the node's for id 0; or NULL.
 */
struct lruvec *container_mem_lruvec_tryget(unsigned short id,
					   struct pglist_data *pgdat)
{
	struct lruvec *lruvec = container_mem_lruvec_rcu(id, pgdat);

	if (lruvec && !mem_lruvec_is_node(lruvec) &&
	    !percpu_ref_tryget(&mem_lruvec_owner(lruvec)->ref))
		return NULL;
	return lruvec;
}

/**
 * container_mem_lruvec_put - let go of container_mem_lruvec_tryget()'s pin
 * @lruvec: what it returned
 */
void container_mem_lruvec_put(struct lruvec *lruvec)
{
	if (lruvec && !mem_lruvec_is_node(lruvec))
		percpu_ref_put(&mem_lruvec_owner(lruvec)->ref);
}

static bool mem_counter_fits(struct page_counter *c, unsigned long nr)
{
	for (; c; c = c->parent)
		if (page_counter_read(c) + nr > READ_ONCE(c->max))
			return false;
	return true;
}

/*
 * Would @nr more pages fit under the hard limits (memory, and memory+swap)
 * of @mc and its ancestors?
 */
static bool mem_fits(struct mem_container *mc, unsigned long nr)
{
	return mem_counter_fits(&mc->memory, nr) &&
	       mem_counter_fits(&mc->memsw, nr);
}

/* Is @mc at one of its own hard limits? */
static bool mem_at_limit(struct mem_container *mc)
{
	return page_counter_read(&mc->memory) >= READ_ONCE(mc->memory.max) ||
	       page_counter_read(&mc->memsw) >= READ_ONCE(mc->memsw.max);
}

/**
 * container_mem_get_max - the hard limit out_of_memory() measures against
 * @css: the memory state of the container in OOM
 *
 * As memory cgroups v1 do: the lowest memory limit of @css and its
 * ancestors, plus the swap the lowest memory+swap limit leaves above it
 * (when @css may swap), up to the swap space there is.
 *
 * Return: a number of pages.
 */
unsigned long container_mem_get_max(struct container_subsys_state *css)
{
	struct mem_container *mc = css_mem(css);
	unsigned long max = PAGE_COUNTER_MAX, memsw = PAGE_COUNTER_MAX;
	int swappiness = mem_swappiness(mc);

	for (; !mem_is_top(mc); mc = mem_parent(mc)) {
		max = min(max, READ_ONCE(mc->memory.max));
		memsw = min(memsw, READ_ONCE(mc->memsw.max));
	}
	if (swappiness && memsw > max)
		max += min(memsw - max, (unsigned long)total_swap_pages);
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
 * memory.oom_control, as in cgroup v1: with oom_kill_disable set, a charge
 * that hits the container's hard limit does not run the OOM killer; it
 * fails, and a user page fault that failed so waits at its end (with no
 * lock held, in pagefault_out_of_memory()) until the container has room
 * again: pages freed, the limit raised, or oom_kill_disable cleared (the
 * fault is then retried, and may kill).  The task can be killed while it
 * waits.  under_oom counts the waiting tasks.
 */
static DECLARE_WAIT_QUEUE_HEAD(mem_oom_waitq);
static atomic_t mem_oom_waiters = ATOMIC_INIT(0);

/* Room was made somewhere, or a limit or oom_kill_disable changed. */
static inline void mem_oom_wake(void)
{
	if (unlikely(atomic_read(&mem_oom_waiters)))
		wake_up_all(&mem_oom_waitq);
}

/* Does @mc's hard limit still leave no room, with oom_kill_disable set? */
static bool mem_oom_blocked(struct mem_container *mc)
{
	if (!READ_ONCE(mc->oom_kill_disable))
		return false;
	mem_drain_stocks(mc);
	return mem_at_limit(mc);
}

/**
 * container_mem_oom_synchronize - wait out an OOM with the OOM killer off
 * @handle: wait (false: only tell whether this task's fault failed so)
 *
 * Called through mem_cgroup_oom_synchronize() by pagefault_out_of_memory(),
 * after a user page fault failed to charge.  Finds the lowest container of
 * current's (or an ancestor) that is at its hard limit; when it has
 * oom_kill_disable set, sleeps (killable) until it has room again.
 *
 * Context: process context, no locks held.
 * Return: true if the fault failed for such a container (retry it), false
 * to let the caller go on as for any other VM_FAULT_OOM.
 */
bool container_mem_oom_synchronize(bool handle)
{
	struct mem_container *mc, *over = NULL;
	DEFINE_WAIT(wait);

	if (!container_mem_enabled())
		return false;
	rcu_read_lock();
	for (mc = mem_charge_target(current->mm); mc && !mem_is_top(mc);
	     mc = mem_parent(mc)) {
		if (mem_at_limit(mc)) {
			over = mc;
			break;
		}
	}
	if (over && (!READ_ONCE(over->oom_kill_disable) ||
		     !percpu_ref_tryget(&over->ref)))
		over = NULL;
	rcu_read_unlock();
	if (!over)
		return false;
	if (handle) {
		atomic_inc(&over->under_oom);
		atomic_inc(&mem_oom_waiters);
		for (;;) {
			prepare_to_wait(&mem_oom_waitq, &wait, TASK_KILLABLE);
			if (fatal_signal_pending(current) ||
			    !mem_oom_blocked(over))
				break;
			/* Stocks hold room too: look again now and then. */
			schedule_timeout(HZ / 4);
		}
		finish_wait(&mem_oom_waitq, &wait);
		atomic_dec(&mem_oom_waiters);
		atomic_dec(&over->under_oom);
	}
	percpu_ref_put(&over->ref);
	return true;
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

/*
 * Charge @nr pages to @mc's memory and memory+swap counters.  On failure,
 * return the container whose limit was hit, and whether reclaim may swap
 * to make room there (not for memory+swap: swapping out does not lower it).
 */
static struct mem_container *mem_counters_charge(struct mem_container *mc,
						 unsigned long nr,
						 bool *may_swap)
{
	struct page_counter *fail;

	if (!page_counter_try_charge(&mc->memsw, nr, &fail)) {
		*may_swap = false;
		return container_of(fail, struct mem_container, memsw);
	}
	if (!page_counter_try_charge(&mc->memory, nr, &fail)) {
		page_counter_uncharge(&mc->memsw, nr);
		*may_swap = true;
		return container_of(fail, struct mem_container, memory);
	}
	return NULL;
}

static int mem_try_charge(struct mem_container *mc, unsigned int nr_pages,
			  gfp_t gfp)
{
	int reclaim_retries = MEM_RECLAIM_RETRIES, oom_waits = 0;
	unsigned int batch = max(nr_pages, MEM_CHARGE_BATCH);
	bool drained = !gfpflags_allow_blocking(gfp);
	struct mem_container *over;
	unsigned long flags;
	bool may_swap;

	/*
	 * Charge a batch and stock the rest, unless that would hit a limit
	 * (and count in failcnt) where the pages asked for would not.
	 */
	if (batch > nr_pages && !mem_fits(mc, batch))
		batch = nr_pages;
retry:
	over = mem_counters_charge(mc, batch, &may_swap);
	if (!over) {
		if (batch > nr_pages) {
			/* @mc is pinned: the stocked pages' references. */
			percpu_ref_get_many(&mc->ref, batch - nr_pages);
			local_lock_irqsave(&mem_stock.lock, flags);
			__mem_refill_stock(mc, batch - nr_pages, true);
			local_unlock_irqrestore(&mem_stock.lock, flags);
		}
		mem_check_soft_limit(mc);
		return 0;
	}
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
		if (try_to_free_container_pages(&over->css, nr_pages, gfp,
						may_swap))
			reclaim_retries = MEM_RECLAIM_RETRIES;
		goto retry;
	}
	if (gfp & __GFP_NORETRY)
		goto nomem;
	/* No OOM kill: a user fault waits in container_mem_oom_synchronize(). */
	if (READ_ONCE(over->oom_kill_disable))
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
	mem_force_charge(mc, nr_pages);
	mem_check_soft_limit(mc);
	return 0;
}

/*
 * Record @folio as charged to @mc: it holds a reference on @mc per page.
 * With @from_stock, take its pages, and their references, from this CPU's
 * stock, and return false, having changed nothing, when the stock cannot
 * cover them.  Otherwise the pages are on @mc's counter already.  Inlined,
 * so that each caller gets only its own half.  Under RCU or with @mc
 * pinned.
 */
static __always_inline bool mem_commit(struct mem_container *mc,
				       struct folio *folio, bool from_stock)
{
	unsigned int nr = folio_nr_pages(folio);

	if (from_stock) {
		struct mem_stock *stock;
		unsigned long flags;
		bool ok;

		local_lock_irqsave(&mem_stock.lock, flags);
		stock = this_cpu_ptr(&mem_stock);
		ok = stock->cached == mc && stock->nr_pages >= nr;
		if (ok)
			WRITE_ONCE(stock->nr_pages, stock->nr_pages - nr);
		local_unlock_irqrestore(&mem_stock.lock, flags);
		if (!ok)
			return false;
	} else {
		percpu_ref_get_many(&mc->ref, nr);
	}
	/* Nothing else sees the new folio yet, nor its lruvec. */
	WRITE_ONCE(folio->container_mem, mem_word(mc));
	mem_event(mc, MEM_PGPGIN, 1);
	return true;
}

/* Charge @folio to @mc, pinned, through the page_counters; may sleep. */
static noinline int mem_charge_pinned(struct mem_container *mc,
				      struct folio *folio, gfp_t gfp)
{
	int ret;

	ret = mem_try_charge(mc, folio_nr_pages(folio), gfp);
	if (!ret)
		mem_commit(mc, folio, false);
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

	VM_WARN_ON_ONCE_FOLIO(folio->container_mem, folio);
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
 * Uncharge @nr pages of @events folios of @mc that are gone or no longer
 * charged: back to this CPU's stock with their references, or to the
 * counters, dropping them.
 */
static void mem_uncharge_pages(struct mem_container *mc, unsigned long nr,
			       unsigned long events)
{
	unsigned long flags;

	mem_event(mc, MEM_PGPGOUT, events);
	/* @mc may be gone after this, with the last of these references. */
	local_lock_irqsave(&mem_stock.lock, flags);
	__mem_refill_stock(mc, nr, false);
	local_unlock_irqrestore(&mem_stock.lock, flags);
	mem_oom_wake();
}

/**
 * __container_mem_uncharge - a charged folio is being freed
 * @folio: the folio
 *
 * Called through mem_cgroup_uncharge() (container_mem_uncharge()) for a
 * folio whose owner word is set.
 *
 * Context: any; the folio's refcount is zero and it is off the LRU.
 */
void __container_mem_uncharge(struct folio *folio)
{
	struct mem_container *mc = mem_owner(folio);

	/* Its pages' references keep @mc. */
	WRITE_ONCE(folio->container_mem, 0);
	mem_uncharge_pages(mc, folio_nr_pages(folio), 1);
}

/**
 * container_mem_uncharge_folios - __container_mem_uncharge() for a batch
 * @folios: the folios being freed
 */
void container_mem_uncharge_folios(struct folio_batch *folios)
{
	unsigned long last_word = 0, nr = 0, events = 0;
	struct mem_container *last = NULL;
	unsigned int i;

	if (!static_branch_unlikely(&container_mem_charging))
		return;
	/*
	 * Folios of one container usually come together: uncharge at once.
	 * Equal owner words name the same container.
	 */
	for (i = 0; i < folio_batch_count(folios); i++) {
		struct folio *folio = folios->folios[i];
		unsigned long word = READ_ONCE(folio->container_mem);

		if (!word)
			continue;
		if (word != last_word) {
			if (last)
				mem_uncharge_pages(last, nr, events);
			last = mem_owner(folio);
			last_word = word;
			nr = 0;
			events = 0;
		}
		WRITE_ONCE(folio->container_mem, 0);
		nr += folio_nr_pages(folio);
		events++;
	}
	if (last)
		mem_uncharge_pages(last, nr, events);
}

/**
 * container_mem_migrate - move the charge of a folio to its replacement
 * @old: the folio being migrated, which ends up uncharged
 * @new: the new folio, of the same size, which takes over the charge
 *
 * Both folios are isolated: neither is on an LRU list.
 */
void container_mem_migrate(struct folio *old, struct folio *new)
{
	unsigned long word;

	if (!container_mem_charged(old))
		return;
	word = READ_ONCE(old->container_mem);
	/* The references of its pages go with it. */
	WRITE_ONCE(new->container_mem, word);
	WRITE_ONCE(old->container_mem, 0);
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
	struct mem_container *mc;

	if (!container_mem_charged(old) || READ_ONCE(new->container_mem))
		return;
	/* @old is locked: its owner is stable, and held by its pages. */
	mc = mem_owner(old);
	mem_force_charge(mc, folio_nr_pages(new));
	mem_commit(mc, new, false);
}

/*
 * Swap, as memory cgroups v1 account it.  While a charged folio is in the
 * swap cache it is charged as any other (memory and memsw).  When reclaim
 * takes it out of the swap cache, its data in swap only, the folio's memory
 * charge goes and its memsw charge passes to its swap slots: each records
 * the container's id in the swap map, and holds a reference on it as a
 * charged page does.  A folio read back from swap is charged (memory and
 * memsw) to that container, whoever reads it: a fault, readahead, swapoff
 * or shmem; the slots then give up their charge.  A slot freed gives up
 * its charge too.  When that container was removed meanwhile, the folio
 * read back is charged as a new one would be.
 */

static void mem_free_struct(struct rcu_head *rcu)
{
	kmem_cache_free(mem_cachep, container_of(rcu, struct mem_container, rcu));
}

/**
 * __container_mem_swapout - a charged folio leaves the swap cache for swap
 * @folio: the folio, frozen (refcount zero), no longer in the swap cache
 * @entry: its first swap slot
 *
 * Called through mem_cgroup_swapout() by reclaim, in __remove_mapping().
 * The folio's memory charge goes; its memsw charge, and its references,
 * stay with its slots, or go to the nearest ancestor still there if its
 * container was removed (nothing records a container that is gone).
 *
 * Context: the mapping's i_pages lock held, interrupts off.
 */
void __container_mem_swapout(struct folio *folio, swp_entry_t entry)
{
	unsigned int nr = folio_nr_pages(folio);
	struct mem_container *mc = mem_owner(folio), *to;

	lockdep_assert_irqs_disabled();
	/* Frozen and out of the swap cache: no one else reads the word. */
	WRITE_ONCE(folio->container_mem, 0);
	page_counter_uncharge(&mc->memory, nr);
	mem_event(mc, MEM_PGPGOUT, 1);

	rcu_read_lock();
	to = mem_stat_target(mc);
	if (to != mc) {
		/* A removed container's child keeps it: @to is not freed. */
		if (to) {
			page_counter_charge(&to->memsw, nr);
			percpu_ref_get_many(&to->ref, nr);
		}
		page_counter_uncharge(&mc->memsw, nr);
	}
	if (to) {
		swap_cgroup_record(entry, to->id, nr);
		/* Folded into the heir, if @to is removed, after this. */
		__this_cpu_add(to->pcpu->stat[CONTAINER_MEM_SWAP], nr);
	}
	rcu_read_unlock();
	if (to != mc)
		percpu_ref_put_many(&mc->ref, nr);
	mem_oom_wake();
}

/* @nr swap slots charged to container @id give up their charge. */
static void mem_swap_uncharge(unsigned short id, unsigned int nr)
{
	struct mem_container *mc, *to;

	if (!id || !nr)
		return;
	rcu_read_lock();
	/* The slots' references keep it. */
	mc = xa_load(&mem_ids, id);
	if (WARN_ON_ONCE(!mc)) {
		rcu_read_unlock();
		return;
	}
	page_counter_uncharge(&mc->memsw, nr);
	to = mem_stat_target(mc);
	if (to)
		this_cpu_sub(to->pcpu->stat[CONTAINER_MEM_SWAP], nr);
	rcu_read_unlock();
	percpu_ref_put_many(&mc->ref, nr);
	mem_oom_wake();
}

/**
 * __container_mem_swap_free - swap slots give up their charge
 * @entry: the first one
 * @nr: how many
 *
 * Called through mem_cgroup_uncharge_swap() when the slots are freed, and
 * through mem_cgroup_swapin_uncharge_swap() when their data is read back
 * into a folio that is charged (memory+swap would count it twice).  A run
 * of adjacent slots (a zap of consecutive swap PTEs) may hold pages of
 * several folios, swapped out by different containers: each slot's
 * container gets its own count back.
 */
void __container_mem_swap_free(swp_entry_t entry, unsigned int nr)
{
	unsigned short id, run_id = 0;
	unsigned int i, run = 0;

	for (i = 0; i < nr; i++) {
		id = swap_cgroup_record(swp_entry(swp_type(entry),
						  swp_offset(entry) + i), 0, 1);
		if (id != run_id) {
			mem_swap_uncharge(run_id, run);
			run_id = id;
			run = 0;
		}
		run++;
	}
	mem_swap_uncharge(run_id, run);
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
 * Each new folio after the first becomes charged to the same container
 * (the references of its pages stay).  Called before the tail pages
 * become folios of their own, while page_folio() of a tail page still
 * gives the old large folio; the folio is frozen.
 */
void container_mem_split(struct page *head, int old_order, int new_order)
{
	unsigned long word = READ_ONCE(head->container_mem), i;

	if (!word)
		return;
	for (i = 1UL << new_order; i < 1UL << old_order; i += 1UL << new_order)
		WRITE_ONCE(head[i].container_mem, word);
}

/*
 * Moving charges with a task: memory.move_charge_at_immigrate.
 */

#define MEM_MOVE_ANON	0x1U	/* anonymous pages, and their swap slots */
#define MEM_MOVE_FILE	0x2U	/* page cache and shmem pages mapped */
#define MEM_MOVE_MASK	(MEM_MOVE_ANON | MEM_MOVE_FILE)

/*
 * Folios of @mc are about to move to other lruvecs: the multi-gen LRU stops
 * changing their generations first (container_mem_lruvec_moving()).
 */
static void mem_start_move(struct mem_container *mc)
{
	if (!IS_ENABLED(CONFIG_LRU_GEN))
		return;
	atomic_inc(&mc->moving);
	synchronize_rcu();
}

static void mem_end_move(struct mem_container *mc)
{
	if (IS_ENABLED(CONFIG_LRU_GEN))
		atomic_dec(&mc->moving);
}

/**
 * struct mem_move - the charges of one mm to move after an attach
 * @node: in mem_moves
 * @mm: the mm, with a reference (mmget)
 * @from: its owner's old container, pinned
 * @to: the new one, pinned (NULL: the top, where pages are not charged)
 * @flags: MEM_MOVE_* of @to when the owner moved in
 * @precharge: pages charged to @to ahead, by reclaim outside the walk
 * @need: pages the walk found no room for under @to's limits
 * @resume: where the walk goes on once they are found
 */
struct mem_move {
	struct list_head node;
	struct mm_struct *mm;
	struct mem_container *from;
	struct mem_container *to;
	unsigned int flags;
	unsigned long precharge;
	unsigned long need;
	unsigned long resume;
};

/* Moves queued by mem_attach() for mem_post_attach(). */
static LIST_HEAD(mem_moves);
static DEFINE_SPINLOCK(mem_moves_lock);

/* Take @nr pages of room under @mv->to's limits, without sleeping. */
static bool mem_move_charge_to(struct mem_move *mv, unsigned int nr)
{
	bool may_swap;

	if (!mv->to)
		return true;
	if (mv->precharge >= nr) {
		mv->precharge -= nr;
		return true;
	}
	if (!mem_counters_charge(mv->to, nr, &may_swap))
		return true;
	mv->need = nr;
	return false;
}

/*
 * Move @folio, mapped at @pmd_mapped or by one PTE of @mv->mm (whose page
 * table lock is held), from @mv->from to @mv->to, if it is @mv->from's and
 * nothing can change its counts meanwhile: mapped only there (no other
 * mapping can come or go while it is locked and the lock is held), not
 * under writeback, not dirty where dirty pages are counted, and taken
 * off its LRU list (so its lruvec changes with its owner).
 * Return -ENOSPC when @mv->to has no room for it without reclaim.
 */
static int mem_move_folio(struct mem_move *mv, struct folio *folio,
			  bool pmd_mapped)
{
	long nr = folio_nr_pages(folio);
	bool anon = folio_test_anon(folio);
	struct mem_container *to = mv->to;
	int ret = 0;

	if (!(mv->flags & (anon ? MEM_MOVE_ANON : MEM_MOVE_FILE)))
		return 0;
	if (READ_ONCE(folio->container_mem) != mem_word(mv->from))
		return 0;
	if (folio_mapcount(folio) != 1 ||
	    (folio_test_large(folio) && !pmd_mapped))
		return 0;
	if (!folio_trylock(folio))
		return 0;
	if (folio_test_writeback(folio) ||
	    (!anon && (!folio->mapping ||
		       (folio_test_dirty(folio) &&
			mapping_can_writeback(folio->mapping)))))
		goto unlock;
	if (!mem_move_charge_to(mv, nr)) {
		ret = -ENOSPC;
		goto unlock;
	}
	/* Off the list, only a folio's isolator changes its owner. */
	if (!folio_isolate_lru(folio)) {
		if (to)
			mv->precharge += nr;
		goto unlock;
	}
	/* @mv->from was removed meanwhile, and the folio moved up. */
	if (READ_ONCE(folio->container_mem) != mem_word(mv->from)) {
		if (to)
			mv->precharge += nr;
		folio_putback_lru(folio);
		goto unlock;
	}

	/* Its counts go with it (container_mem_stat_index()). */
	if (anon) {
		mem_stat_mod(mv->from, CONTAINER_MEM_RSS, -nr);
		mem_stat_mod(to, CONTAINER_MEM_RSS, nr);
		if (pmd_mapped) {
			mem_stat_mod(mv->from, CONTAINER_MEM_RSS_HUGE, -nr);
			mem_stat_mod(to, CONTAINER_MEM_RSS_HUGE, nr);
		}
	} else {
		mem_stat_mod(mv->from, CONTAINER_MEM_CACHE, -nr);
		mem_stat_mod(to, CONTAINER_MEM_CACHE, nr);
		mem_stat_mod(mv->from, CONTAINER_MEM_MAPPED_FILE, -nr);
		mem_stat_mod(to, CONTAINER_MEM_MAPPED_FILE, nr);
		if (folio_test_swapbacked(folio)) {
			mem_stat_mod(mv->from, CONTAINER_MEM_SHMEM, -nr);
			mem_stat_mod(to, CONTAINER_MEM_SHMEM, nr);
		}
	}
	if (to)
		percpu_ref_get_many(&to->ref, nr);
	WRITE_ONCE(folio->container_mem, to ? mem_word(to) : 0);
	mem_cancel_charge(mv->from, nr);
	mem_event(mv->from, MEM_PGPGOUT, 1);
	if (to)
		mem_event(to, MEM_PGPGIN, 1);
	/* @mv holds a reference on @mv->from. */
	percpu_ref_put_many(&mv->from->ref, nr);
	folio_putback_lru(folio);
unlock:
	folio_unlock(folio);
	return ret;
}

/*
 * Move the charge of swap slot @entry, recorded by @mv->from, to @mv->to:
 * it holds memory+swap there from now on.  The slot's page table lock is
 * held, so it is not freed meanwhile; a swap-in racing with the move
 * gives up the charge of whichever container the slot records.
 */
static void mem_move_swap(struct mem_move *mv, swp_entry_t entry)
{
	struct mem_container *to = mv->to;
	struct page_counter *fail;

	if (!IS_ENABLED(CONFIG_SWAP) || !(mv->flags & MEM_MOVE_ANON) ||
	    lookup_swap_cgroup_id(entry) != mv->from->id)
		return;
	/* No room: it stays (reclaim cannot lower memory+swap). */
	if (to && !page_counter_try_charge(&to->memsw, 1, &fail))
		return;
	if (swap_cgroup_cmpxchg(entry, mv->from->id, to ? to->id : 0) !=
	    mv->from->id) {
		if (to)
			page_counter_uncharge(&to->memsw, 1);
		return;
	}
	if (to) {
		percpu_ref_get(&to->ref);
		mem_stat_mod(to, CONTAINER_MEM_SWAP, 1);
	}
	page_counter_uncharge(&mv->from->memsw, 1);
	mem_stat_mod(mv->from, CONTAINER_MEM_SWAP, -1);
	percpu_ref_put(&mv->from->ref);
}

static int mem_move_pmd_range(pmd_t *pmd, unsigned long addr,
			      unsigned long end, struct mm_walk *walk)
{
	struct vm_area_struct *vma = walk->vma;
	struct mem_move *mv = walk->private;
	struct folio *folio;
	spinlock_t *ptl;	/* the page table's lock */
	pte_t *pte, *start;
	int ret = 0;

	/* No room for a folio here: the walk goes on from this table. */
	mv->resume = addr;
	ptl = pmd_trans_huge_lock(pmd, vma);
	if (ptl) {
		/* For sparse, which does not see a lock taken conditionally. */
		__acquire(ptl);
		folio = NULL;
		if (pmd_present(*pmd) && !is_huge_zero_pmd(*pmd))
			folio = vm_normal_folio_pmd(vma, addr, *pmd);
		if (folio)
			ret = mem_move_folio(mv, folio, true);
		spin_unlock(ptl);
		return ret;
	}
	start = pte_offset_map_lock(vma->vm_mm, pmd, addr, &ptl);
	pte = start;
	if (!pte) {
		walk->action = ACTION_AGAIN;
		return 0;
	}
	/* For sparse, as above (pte_offset_map_lock()). */
	__acquire(ptl);
	for (; addr != end; pte++, addr += PAGE_SIZE) {
		pte_t ptent = ptep_get(pte);

		if (pte_present(ptent)) {
			folio = vm_normal_folio(vma, addr, ptent);
			if (folio)
				ret = mem_move_folio(mv, folio, false);
			if (ret)
				break;
		} else if (is_swap_pte(ptent)) {
			swp_entry_t entry = pte_to_swp_entry(ptent);

			if (!non_swap_entry(entry))
				mem_move_swap(mv, entry);
		}
	}
	pte_unmap_unlock(start, ptl);
	cond_resched();
	return ret;
}

static const struct mm_walk_ops mem_move_walk_ops = {
	.pmd_entry = mem_move_pmd_range,
	.walk_lock = PGWALK_RDLOCK,
};

/*
 * Walk @mv->mm and move what it maps of @mv->from's to @mv->to.  When @to
 * has no room, reclaim there (outside the walk, with no lock held) for
 * what is missing, without an OOM kill, and go on; when that fails, what
 * is left stays charged to @mv->from.
 */
static void mem_move_charges(struct mem_move *mv)
{
	const gfp_t gfp = GFP_KERNEL | __GFP_NORETRY;
	unsigned int ahead;
	int ret;

	/* Nothing moves into a container being removed meanwhile. */
	if (mv->to && !percpu_ref_tryget_live(&mv->to->ref))
		return;
	/* Folios in per-CPU LRU batches cannot be taken off a list. */
	lru_add_drain_all();
	mem_start_move(mv->from);
	for (;;) {
		if (mmap_read_lock_killable(mv->mm))
			break;
		/* What lies before @mv->resume was walked already. */
		ret = walk_page_range(mv->mm, mv->resume, ULONG_MAX,
				      &mem_move_walk_ops, mv);
		mmap_read_unlock(mv->mm);
		if (ret != -ENOSPC || fatal_signal_pending(current))
			break;
		/* Room for a batch, or at least for the folio that needs it. */
		ahead = max_t(unsigned long, mv->need, MEM_CHARGE_BATCH);
		if (mem_try_charge(mv->to, ahead, gfp)) {
			ahead = mv->need;
			if (mem_try_charge(mv->to, ahead, gfp))
				break;
		}
		mv->precharge += ahead;
	}
	mem_end_move(mv->from);
	if (mv->precharge)
		mem_cancel_charge(mv->to, mv->precharge);
	if (mv->to)
		percpu_ref_put(&mv->to->ref);
	mem_oom_wake();
}

/*
 * The owner of an mm moved into @css from @old_css: queue the move of its
 * charges for mem_post_attach(), which runs without the container locks.
 */
static void mem_attach(struct container_subsys_state *css,
		       struct container_subsys_state *old_css,
		       struct task_struct *task)
{
	struct mem_container *to = css_mem(css), *from = css_mem(old_css);
	unsigned int flags = READ_ONCE(to->move_charge);
	struct mem_move *mv;
	struct mm_struct *mm;

	if (!flags || to == from || mem_is_top(from))
		return;
	mm = get_task_mm(task);
	if (!mm)
		return;
	/* As in cgroup v1: only with the task the mm is charged for. */
	if (rcu_access_pointer(mm->owner) != task) {
		mmput(mm);
		return;
	}
	mv = kzalloc(sizeof(*mv), GFP_KERNEL);
	if (!mv) {
		mmput(mm);
		return;
	}
	mv->mm = mm;
	mv->from = from;
	mv->to = mem_is_top(to) ? NULL : to;
	mv->flags = flags;
	percpu_ref_get(&from->ref);
	if (mv->to)
		percpu_ref_get(&to->ref);
	spin_lock(&mem_moves_lock);
	list_add_tail(&mv->node, &mem_moves);
	spin_unlock(&mem_moves_lock);
}

/* The write that moved tasks is done: move their charges now. */
static void mem_post_attach(void)
{
	struct mem_move *mv, *tmp;
	LIST_HEAD(moves);

	spin_lock(&mem_moves_lock);
	list_splice_init(&mem_moves, &moves);
	spin_unlock(&mem_moves_lock);
	list_for_each_entry_safe(mv, tmp, &moves, node) {
		mem_move_charges(mv);
		mmput(mv->mm);
		if (mv->to)
			percpu_ref_put(&mv->to->ref);
		percpu_ref_put(&mv->from->ref);
		kfree(mv);
	}
}

static u64 mem_read_move_charge(struct container_subsys_state *css,
				struct container_file *cft)
{
	return READ_ONCE(css_mem(css)->move_charge);
}

static int mem_write_move_charge(struct container_subsys_state *css,
				 struct container_file *cft, u64 val)
{
	if (val & ~(u64)MEM_MOVE_MASK)
		return -EINVAL;
	WRITE_ONCE(css_mem(css)->move_charge, val);
	return 0;
}

/*
 * Removal.
 */

/* Folios moved with interrupts off at a time, at most. */
#define MEM_MOVE_BATCH	PAGEVEC_SIZE

/*
 * Move the folios of list @head of @from (@mc's) to the tail of their list
 * of @to, and make them @to's (owner word @word; 0 at the top).  Only folios
 * whose LRU flag this clears move: those isolated by someone else, or being
 * freed, stay.  Each folio moved takes its references to @to's container
 * (@to_mc; NULL at the top).  Return the pages moved.
 */
static unsigned long mem_move_lru_list(struct lruvec *from, struct lruvec *to,
				       struct list_head *head,
				       struct mem_container *to_mc)
{
	unsigned long word = to_mc ? mem_word(to_mc) : 0, moved = 0, pass;
	struct folio_batch fbatch;
	bool full;

	folio_batch_init(&fbatch);
	do {
		struct folio *folio, *next;

		pass = 0;
		full = false;
		spin_lock_irq(&from->lru_lock);
		spin_lock_nested(&to->lru_lock, SINGLE_DEPTH_NESTING);
		list_for_each_entry_safe(folio, next, head, lru) {
			long nr = folio_nr_pages(folio);

			if (!folio_test_lru(folio) || !folio_try_get(folio))
				continue;
			/* Put after the locks are dropped: may be the last. */
			full = !folio_batch_add(&fbatch, folio);
			if (!folio_test_clear_lru(folio))
				goto next;
			lruvec_del_folio(from, folio);
			if (to_mc)
				percpu_ref_get_many(&to_mc->ref, nr);
			WRITE_ONCE(folio->container_mem, word);
			lruvec_add_folio_tail(to, folio);
			folio_set_lru(folio);
			pass += nr;
next:
			if (full)
				break;
		}
		spin_unlock(&to->lru_lock);
		spin_unlock_irq(&from->lru_lock);
		folios_put(&fbatch);
		moved += pass;
		cond_resched();
	} while (full && pass);
	return moved;
}

/*
 * The same for the generations of the multi-gen LRU: while it is on, or
 * while it is being turned on or off, they hold the evictable folios.
 */
static unsigned long mem_move_lru_gen(struct lruvec *from, struct lruvec *to,
				      struct mem_container *to_mc)
{
	unsigned long moved = 0;
#ifdef CONFIG_LRU_GEN
	int gen, type, zone;

	for (gen = 0; gen < MAX_NR_GENS; gen++)
		for (type = 0; type < ANON_AND_FILE; type++)
			for (zone = 0; zone < MAX_NR_ZONES; zone++)
				moved += mem_move_lru_list(from, to,
					&from->lrugen.folios[gen][type][zone],
					to_mc);
#endif
	return moved;
}

static void mem_kick_zombie(struct mem_container *mc)
{
	mod_delayed_work(system_wq, &mc->zombie_work, 0);
}

/*
 * Move the folios on @mc's LRU lists to its parent's (at the top: they
 * become uncharged).  The parent's counter already counts them, through
 * the hierarchy; @mc's own drops them.  Return the pages moved.
 */
static unsigned long mem_reparent(struct mem_container *mc)
{
	struct mem_container *parent = mem_parent(mc);
	struct mem_container *to_mc = mem_is_top(parent) ? NULL : parent;
	unsigned long moved = 0;
	int nid;

	if (!page_counter_read(&mc->memory))
		return 0;
	mem_start_move(mc);
	for_each_node(nid) {
		struct pglist_data *pgdat = NODE_DATA(nid);
		struct lruvec *from, *to;
		enum lru_list lru;

		if (!pgdat)
			continue;
		from = mem_lruvec(mc, pgdat);
		to = mem_lruvec(parent, pgdat);
		for_each_evictable_lru(lru)
			moved += mem_move_lru_list(from, to, &from->lists[lru],
						   to_mc);
		moved += mem_move_lru_gen(from, to, to_mc);
	}
	mem_end_move(mc);
	if (!moved)
		return 0;
	if (to_mc) {
		page_counter_cancel(&mc->memory, moved);
		page_counter_cancel(&mc->memsw, moved);
	} else {
		/* Folios of the top are not charged, not even to its sum. */
		page_counter_uncharge(&mc->memory, moved);
		page_counter_uncharge(&mc->memsw, moved);
	}
	/* The parent is gone too: it moves them further up. */
	if (to_mc && READ_ONCE(to_mc->dead))
		mem_kick_zombie(to_mc);
	percpu_ref_put_many(&mc->ref, moved);
	return moved;
}

/*
 * Folios that were off the LRU lists when @mc was removed (isolated by
 * reclaim, compaction or migration, in per-CPU LRU batches, unevictable)
 * come back to its lists later: move them up, less often as time goes by,
 * until nothing is charged to @mc any more.  @mc is freed only after this
 * is cancelled (mem_free_work()).
 */
static void mem_zombie_work(struct work_struct *work)
{
	struct mem_container *mc = container_of(to_delayed_work(work),
						struct mem_container,
						zombie_work);

	lru_add_drain_all();
	mem_drain_stocks(mc);
	if (mem_reparent(mc))
		mc->zombie_delay = MEM_ZOMBIE_DELAY;
	else
		mc->zombie_delay = min(2 * mc->zombie_delay,
				       (unsigned long)MEM_ZOMBIE_DELAY_MAX);
	if (page_counter_read(&mc->memory))
		queue_delayed_work(system_wq, &mc->zombie_work,
				   mc->zombie_delay);
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

/* Or'ed in: the memory.memsw.* file, of the memory+swap counter. */
#define MEM_MEMSW	0x100

/* Pages of swap in use in the whole system (the top's swap usage). */
static unsigned long mem_system_swap(void)
{
	return max(total_swap_pages - get_nr_swap_pages(), 0L);
}

static struct container_file *mem_of_cft(struct kernfs_open_file *of)
{
	return of->kn->priv;
}

static u64 mem_read(struct container_subsys_state *css,
		    struct container_file *cft)
{
	struct mem_container *mc = css_mem(css);
	bool memsw = cft->private & MEM_MEMSW;
	struct page_counter *counter = memsw ? &mc->memsw : &mc->memory;
	unsigned long usage;

	switch (cft->private & ~MEM_MEMSW) {
	case MEM_USAGE:
		if (!mem_is_top(mc))
			return (u64)mem_usage(mc, counter) * PAGE_SIZE;
		/* As cgroup v1: the top shows what the whole system uses. */
		usage = global_node_page_state(NR_FILE_PAGES) +
			global_node_page_state(NR_ANON_MAPPED);
		if (memsw)
			usage += mem_system_swap();
		return (u64)usage * PAGE_SIZE;
	case MEM_MAX_USAGE:
		return (u64)READ_ONCE(counter->watermark) * PAGE_SIZE;
	case MEM_LIMIT:
		return (u64)READ_ONCE(counter->max) * PAGE_SIZE;
	case MEM_SOFT_LIMIT:
		return (u64)READ_ONCE(mc->soft_limit) * PAGE_SIZE;
	case MEM_FAILCNT:
		return READ_ONCE(counter->failcnt);
	}
	return 0;
}

/*
 * Set the hard limit of memory (@memsw false) or of memory+swap, reclaiming
 * first when usage is above it.  As in cgroup v1, the memory+swap limit may
 * not be below the memory limit: a write that would make it so fails.
 */
static int mem_set_limit(struct mem_container *mc, unsigned long nr_pages,
			 bool memsw)
{
	struct page_counter *counter = memsw ? &mc->memsw : &mc->memory;
	int retries = MEM_RECLAIM_RETRIES;
	unsigned long usage;

	lockdep_assert_held(&mem_limit_mutex);
	if (memsw ? nr_pages < READ_ONCE(mc->memory.max) :
		    nr_pages > READ_ONCE(mc->memsw.max))
		return -EINVAL;
	for (;;) {
		mem_drain_stocks(mc);
		if (!page_counter_set_max(counter, nr_pages))
			return 0;
		if (signal_pending(current))
			return -EINTR;
		/* Swapping out does not lower memory+swap. */
		usage = page_counter_read(counter);
		if (usage > nr_pages &&
		    try_to_free_container_pages(&mc->css, usage - nr_pages,
						GFP_KERNEL, !memsw))
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
	bool memsw = cft->private & MEM_MEMSW;
	struct page_counter *counter = memsw ? &mc->memsw : &mc->memory;
	unsigned long nr_pages;
	int ret;

	buf = strstrip(buf);
	switch (cft->private & ~MEM_MEMSW) {
	case MEM_LIMIT:
	case MEM_SOFT_LIMIT:
		/* As cgroup v1's root: unlimited, and it cannot be set. */
		if (mem_is_top(mc))
			return -EINVAL;
		ret = mem_parse_bytes(buf, &nr_pages);
		if (ret)
			return ret;
		mutex_lock(&mem_limit_mutex);
		if (cft->private == MEM_SOFT_LIMIT)
			WRITE_ONCE(mc->soft_limit, nr_pages);
		else
			ret = mem_set_limit(mc, nr_pages, memsw);
		mutex_unlock(&mem_limit_mutex);
		mem_oom_wake();
		break;
	case MEM_MAX_USAGE:
	case MEM_FAILCNT:
		/* cgroup v1: only 0 may be written, to reset. */
		if (strcmp(buf, "0"))
			return -EINVAL;
		if ((cft->private & ~MEM_MEMSW) == MEM_MAX_USAGE)
			page_counter_reset_watermark(counter);
		else
			WRITE_ONCE(counter->failcnt, 0);
		ret = 0;
		break;
	default:
		ret = -EINVAL;
	}
	return ret ?: nbytes;
}

/* The counts of memory.stat, in pages except for the events. */
struct mem_stat {
	long stat[CONTAINER_MEM_NR_STATS];
	long lru[NR_LRU_LISTS];
	unsigned long events[MEM_NR_EVENTS];
};

/* Pages on list @lru of @mc's lruvecs. */
static unsigned long mem_lru_pages(struct mem_container *mc,
				   enum lru_list lru)
{
	unsigned long nr = 0;
	int nid, zid;

	for_each_node(nid)
		for (zid = 0; zid < MAX_NR_ZONES; zid++)
			nr += container_mem_zone_lru_size(&mc->node[nid]->lruvec,
							  lru, zid);
	return nr;
}

static void mem_stat_add(struct mem_container *mc, struct mem_stat *st)
{
	enum lru_list lru;
	int i;

	if (!mem_is_top(mc)) {
		for (i = 0; i < CONTAINER_MEM_NR_STATS; i++)
			st->stat[i] += mem_stat_read(mc, i);
		for_each_lru(lru)
			st->lru[lru] += mem_lru_pages(mc, lru);
	}
	for (i = 0; i < MEM_NR_EVENTS; i++)
		st->events[i] += mem_event_sum(mc, i);
}

/* The top container: what the system counts. */
static void mem_stat_system(struct mem_stat *st)
{
	static const enum node_stat_item items[CONTAINER_MEM_SWAP] = {
		[CONTAINER_MEM_CACHE] = NR_FILE_PAGES,
		[CONTAINER_MEM_RSS] = NR_ANON_MAPPED,
		[CONTAINER_MEM_RSS_HUGE] = NR_ANON_THPS,
		[CONTAINER_MEM_SHMEM] = NR_SHMEM,
		[CONTAINER_MEM_MAPPED_FILE] = NR_FILE_MAPPED,
		[CONTAINER_MEM_DIRTY] = NR_FILE_DIRTY,
		[CONTAINER_MEM_WRITEBACK] = NR_WRITEBACK,
	};
	enum lru_list lru;
	int i;

	for (i = 0; i < CONTAINER_MEM_SWAP; i++)
		st->stat[i] = global_node_page_state(items[i]);
	st->stat[CONTAINER_MEM_SWAP] = mem_system_swap();
	for_each_lru(lru)
		st->lru[lru] = global_node_page_state(NR_LRU_BASE + lru);
}

static const char * const mem_event_names[MEM_NR_EVENTS] = {
	[MEM_PGPGIN] = "pgpgin",
	[MEM_PGPGOUT] = "pgpgout",
	[MEM_PGSCAN] = "pgscan",
	[MEM_SOFT_LIMIT_HITS] = "soft_limit_hits",
	[MEM_THROTTLED] = "throttled",
	[MEM_RECLAIMED] = "reclaimed",
	[MEM_OOM_KILL] = "oom_kill",
};

static const char * const mem_stat_names[CONTAINER_MEM_NR_STATS] = {
	[CONTAINER_MEM_CACHE] = "cache",
	[CONTAINER_MEM_RSS] = "rss",
	[CONTAINER_MEM_RSS_HUGE] = "rss_huge",
	[CONTAINER_MEM_SHMEM] = "shmem",
	[CONTAINER_MEM_MAPPED_FILE] = "mapped_file",
	[CONTAINER_MEM_DIRTY] = "dirty",
	[CONTAINER_MEM_WRITEBACK] = "writeback",
	[CONTAINER_MEM_SWAP] = "swap",
};

static const char * const mem_lru_names[NR_LRU_LISTS] = {
	[LRU_INACTIVE_ANON] = "inactive_anon",
	[LRU_ACTIVE_ANON] = "active_anon",
	[LRU_INACTIVE_FILE] = "inactive_file",
	[LRU_ACTIVE_FILE] = "active_file",
	[LRU_UNEVICTABLE] = "unevictable",
};

/* In cgroup v1's order: page counts, pgpgin/pgpgout, LRU lists, ours. */
static void mem_stat_print(struct seq_file *sf, const char *prefix,
			   const struct mem_stat *st)
{
	int i;

	/* A count caught while folios move up may dip below zero. */
	for (i = 0; i < CONTAINER_MEM_NR_STATS; i++) {
		/* As in cgroup v1: no swap line without swap accounting. */
		if (i == CONTAINER_MEM_SWAP && !IS_ENABLED(CONFIG_SWAP))
			continue;
		seq_printf(sf, "%s%s %lu\n", prefix, mem_stat_names[i],
			   max(st->stat[i], 0L) * PAGE_SIZE);
	}
	for (i = MEM_PGPGIN; i <= MEM_PGPGOUT; i++)
		seq_printf(sf, "%s%s %lu\n", prefix, mem_event_names[i],
			   st->events[i]);
	for (i = 0; i < NR_LRU_LISTS; i++)
		seq_printf(sf, "%s%s %lu\n", prefix, mem_lru_names[i],
			   max(st->lru[i], 0L) * PAGE_SIZE);
	for (i = MEM_PGPGOUT + 1; i < MEM_NR_EVENTS; i++)
		seq_printf(sf, "%s%s %lu\n", prefix, mem_event_names[i],
			   st->events[i]);
}

static int mem_stat_show(struct seq_file *sf, void *v)
{
	struct mem_container *mc = css_mem(seq_subsys_state(sf)), *pos;
	unsigned long limit = PAGE_COUNTER_MAX, memsw_limit = PAGE_COUNTER_MAX;
	struct container_subsys_state *css;
	struct mem_stat *st;
	int i;

	st = kcalloc(2, sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	rcu_read_lock();
	container_for_each_descendant_pre(css, &mc->css)
		mem_stat_add(css_mem(css), &st[1]);
	rcu_read_unlock();
	if (mem_is_top(mc)) {
		/*
		 * As cgroup v1: the top counts the whole system, and what
		 * its children do not count as its own.
		 */
		for (i = 0; i < CONTAINER_MEM_NR_STATS; i++)
			st[0].stat[i] = -st[1].stat[i];
		for (i = 0; i < NR_LRU_LISTS; i++)
			st[0].lru[i] = -st[1].lru[i];
		mem_stat_system(&st[1]);
		for (i = 0; i < CONTAINER_MEM_NR_STATS; i++)
			st[0].stat[i] += st[1].stat[i];
		for (i = 0; i < NR_LRU_LISTS; i++)
			st[0].lru[i] += st[1].lru[i];
	}
	mem_stat_add(mc, &st[0]);
	for (pos = mc; !mem_is_top(pos); pos = mem_parent(pos)) {
		limit = min(limit, READ_ONCE(pos->memory.max));
		memsw_limit = min(memsw_limit, READ_ONCE(pos->memsw.max));
	}

	mem_stat_print(sf, "", &st[0]);
	seq_printf(sf, "hierarchical_memory_limit %llu\n",
		   (u64)limit * PAGE_SIZE);
	if (IS_ENABLED(CONFIG_SWAP))
		seq_printf(sf, "hierarchical_memsw_limit %llu\n",
			   (u64)memsw_limit * PAGE_SIZE);
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

	/* As cgroup v1's root: the top has nothing charged of its own. */
	if (mem_is_top(mc))
		return -EINVAL;
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
	mem_reparent(mc);
	/* Updates that found the folios still ours are done: hand them up. */
	synchronize_rcu();
	rcu_read_lock();
	/* Its swap slots stay charged to it. */
	mem_stat_fold(mc, mem_stat_target(mem_parent(mc)), CONTAINER_MEM_SWAP);
	rcu_read_unlock();
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

/* memory.oom_control, as in cgroup v1 (see container_mem_oom_synchronize()) */
static int mem_oom_control_show(struct seq_file *sf, void *v)
{
	struct mem_container *mc = css_mem(seq_subsys_state(sf)), *pos;
	bool under_oom = false;

	/* As in v1, the whole subtree of a container in OOM is under OOM. */
	for (pos = mc; !mem_is_top(pos) && !under_oom; pos = mem_parent(pos))
		under_oom = atomic_read(&pos->under_oom) > 0;
	seq_printf(sf, "oom_kill_disable %d\n", READ_ONCE(mc->oom_kill_disable));
	seq_printf(sf, "under_oom %d\n", under_oom);
	seq_printf(sf, "oom_kill %lu\n", mem_event_sum(mc, MEM_OOM_KILL));
	return 0;
}

/* 0 or 1; not at the top, whose OOM is the system's. */
static int mem_oom_control_write(struct container_subsys_state *css,
				 struct container_file *cft, u64 val)
{
	struct mem_container *mc = css_mem(css);

	if (mem_is_top(mc) || val > 1)
		return -EINVAL;
	WRITE_ONCE(mc->oom_kill_disable, val);
	mem_oom_wake();
	return 0;
}

/*
 * memory.swappiness, as in cgroup v1: 0 to 200, inherited at creation;
 * the top's is the system's vm.swappiness.  With 0, reclaim for the
 * container's limit never swaps (it turns to the OOM killer instead).
 */
static u64 mem_read_swappiness(struct container_subsys_state *css,
			       struct container_file *cft)
{
	return mem_swappiness(css_mem(css));
}

static int mem_write_swappiness(struct container_subsys_state *css,
				struct container_file *cft, u64 val)
{
	struct mem_container *mc = css_mem(css);

	if (val > MAX_SWAPPINESS)
		return -EINVAL;
	if (mem_is_top(mc))
		WRITE_ONCE(vm_swappiness, val);
	else
		WRITE_ONCE(mc->swappiness, val);
	return 0;
}

static struct container_file mem_files[] = {
	{
		.name = "usage_in_bytes",
		.read_u64 = mem_read,
		.private = MEM_USAGE,
	},
	{
		.name = "max_usage_in_bytes",
		.read_u64 = mem_read,
		.write = mem_write,
		.private = MEM_MAX_USAGE,
	},
	{
		.name = "limit_in_bytes",
		.read_u64 = mem_read,
		.write = mem_write,
		.private = MEM_LIMIT,
	},
	{
		.name = "soft_limit_in_bytes",
		.read_u64 = mem_read,
		.write = mem_write,
		.private = MEM_SOFT_LIMIT,
	},
	{
		.name = "failcnt",
		.read_u64 = mem_read,
		.write = mem_write,
		.private = MEM_FAILCNT,
	},
	{
		.name = "force_empty",
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
	{
		.name = "swappiness",
		.read_u64 = mem_read_swappiness,
		.write_u64 = mem_write_swappiness,
	},
	{
		.name = "move_charge_at_immigrate",
		.read_u64 = mem_read_move_charge,
		.write_u64 = mem_write_move_charge,
	},
	{
		.name = "oom_control",
		.seq_show = mem_oom_control_show,
		.write_u64 = mem_oom_control_write,
	},
#ifdef CONFIG_SWAP
	{
		.name = "memsw.usage_in_bytes",
		.read_u64 = mem_read,
		.private = MEM_MEMSW | MEM_USAGE,
	},
	{
		.name = "memsw.max_usage_in_bytes",
		.read_u64 = mem_read,
		.write = mem_write,
		.private = MEM_MEMSW | MEM_MAX_USAGE,
	},
	{
		.name = "memsw.limit_in_bytes",
		.read_u64 = mem_read,
		.write = mem_write,
		.private = MEM_MEMSW | MEM_LIMIT,
	},
	{
		.name = "memsw.failcnt",
		.read_u64 = mem_read,
		.write = mem_write,
		.private = MEM_MEMSW | MEM_FAILCNT,
	},
#endif
	{ }	/* terminator */
};

/*
 * Subsystem callbacks.
 */

/*
 * The last reference is gone, a grace period ago: no folio, stock, child
 * or walk refers to @mc, and no RCU reader can still be at its lruvecs or
 * counters.
 */
static void mem_free_work(struct work_struct *work)
{
	struct mem_container *mc = container_of(to_rcu_work(work),
						struct mem_container,
						free_rwork);
	struct mem_container *parent = mem_parent(mc);
	int nid;

	cancel_work_sync(&mc->soft_work);
	cancel_delayed_work_sync(&mc->zombie_work);
	for_each_node(nid)
		kfree(mc->node[nid]);
	free_percpu(mc->pcpu);
	mc->pcpu = NULL;
	percpu_ref_exit(&mc->ref);
	if (!mem_is_top(parent))
		percpu_ref_put(&parent->ref);
	static_branch_dec(&container_mem_charging);
	call_rcu(&mc->rcu, mem_free_struct);
}

static void mem_ref_release(struct percpu_ref *ref)
{
	struct mem_container *mc = container_of(ref, struct mem_container, ref);
	unsigned long flags;

	/*
	 * No folio, swap slot or stock refers to it: its id goes now, and
	 * lookups by id (RCU, container_mem_lruvec_tryget()) are over before
	 * mem_free_work() frees what they look at.
	 */
	xa_lock_irqsave(&mem_ids, flags);
	__xa_erase(&mem_ids, mc->id);
	xa_unlock_irqrestore(&mem_ids, flags);
	queue_rcu_work(system_wq, &mc->free_rwork);
}

static int mem_state_init(struct mem_container *mc,
			  struct mem_container *parent)
{
	int nid;

	mc->pcpu = alloc_percpu(struct mem_percpu);
	if (!mc->pcpu)
		return -ENOMEM;
	if (percpu_ref_init(&mc->ref, mem_ref_release, 0, GFP_KERNEL)) {
		free_percpu(mc->pcpu);
		return -ENOMEM;
	}
	INIT_WORK(&mc->soft_work, mem_soft_limit_work);
	INIT_DELAYED_WORK(&mc->zombie_work, mem_zombie_work);
	INIT_RCU_WORK(&mc->free_rwork, mem_free_work);
	/*
	 * The top's own tasks are not charged, but its counters sum its
	 * children's, as cgroup v1's root: its peak and failcnt are theirs.
	 */
	page_counter_init(&mc->memory, parent ? &parent->memory : NULL, false);
	page_counter_init(&mc->memsw, parent ? &parent->memsw : NULL, false);
	mc->soft_limit = PAGE_COUNTER_MAX;
	if (!parent)
		return 0;
	mc->swappiness = mem_swappiness(parent);
	mc->oom_kill_disable = READ_ONCE(parent->oom_kill_disable);
	for_each_node(nid) {
		struct container_mem_node *pn;

		pn = kzalloc_node(sizeof(*pn), GFP_KERNEL,
				  node_state(nid, N_NORMAL_MEMORY) ? nid :
				  NUMA_NO_NODE);
		if (!pn)
			goto fail;
		lruvec_init(&pn->lruvec);
		pn->lruvec.pgdat = NODE_DATA(nid);
		pn->stat = mc->pcpu->stat;
		pn->owner = mc;
		mc->node[nid] = pn;
	}
	return 0;
fail:
	for_each_node(nid)
		kfree(mc->node[nid]);
	percpu_ref_exit(&mc->ref);
	free_percpu(mc->pcpu);
	return -ENOMEM;
}

static struct container_subsys_state *
mem_create(struct container_subsys_state *parent_css)
{
	struct mem_container *parent = css_mem(parent_css), *mc;
	u32 id;
	int ret;

	if (!parent) {
		size_t size = struct_size_t(struct mem_container, node,
					    nr_node_ids);

		mem_cachep = kmem_cache_create("mem_container", size, 0,
					       SLAB_PANIC, NULL);
		container_mem_wq = alloc_workqueue("container_mem",
						   WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
		root_mem = kmem_cache_zalloc(mem_cachep, GFP_KERNEL);
		if (!container_mem_wq || !root_mem ||
		    mem_state_init(root_mem, NULL))
			panic("container_mem: no memory at boot\n");
		return &root_mem->css;
	}
	mc = kmem_cache_zalloc(mem_cachep, GFP_KERNEL);
	if (!mc)
		return ERR_PTR(-ENOMEM);
	/* Reserved: lookups by id find it only once it is set up. */
	ret = xa_alloc_irq(&mem_ids, &id, NULL, XA_LIMIT(1, USHRT_MAX),
			   GFP_KERNEL);
	if (ret) {
		kmem_cache_free(mem_cachep, mc);
		return ERR_PTR(ret == -EBUSY ? -ENOSPC : ret);
	}
	mc->id = id;
	if (mem_state_init(mc, parent)) {
		xa_erase_irq(&mem_ids, id);
		kmem_cache_free(mem_cachep, mc);
		return ERR_PTR(-ENOMEM);
	}
	xa_store_irq(&mem_ids, id, mc, GFP_KERNEL);
	if (!static_key_enabled(&container_mem_swap_owned))
		static_branch_enable(&container_mem_swap_owned);
	/* A child's folios move to its parent: keep the parent till then. */
	if (!mem_is_top(parent))
		percpu_ref_get(&parent->ref);
	static_branch_inc(&container_mem_charging);
	return &mc->css;
}

/*
 * A grace period after @mc was marked dead, no statistics update reaches
 * its counters any more: hand them to the container that gets its updates
 * now.  If folios are left (off the LRU when the others moved up), the
 * zombie work moves them when they come back.
 */
static void mem_dead_rcu(struct rcu_head *rcu)
{
	struct mem_container *mc = container_of(rcu, struct mem_container, rcu);

	rcu_read_lock();
	mem_stat_fold(mc, mem_stat_target(mc), CONTAINER_MEM_NR_STATS);
	rcu_read_unlock();
	if (page_counter_read(&mc->memory))
		queue_delayed_work(system_wq, &mc->zombie_work,
				   mc->zombie_delay);
	percpu_ref_put(&mc->ref);
}

/*
 * Called a grace period after the container was removed: no task is in
 * it and no walk of the tree finds it.  Hand its folios to the parent;
 * the structure goes when the last reference does.
 */
static void mem_destroy(struct container_subsys_state *css)
{
	struct mem_container *mc = css_mem(css);
	int nid;

	if (WARN_ON_ONCE(mem_is_top(mc)))
		return;
	cancel_work_sync(&mc->soft_work);
	/* Statistics go to the parent from now on; stocks take no pages. */
	WRITE_ONCE(mc->dead, true);
	for_each_node(nid)
		WRITE_ONCE(mc->node[nid]->stat, NULL);
	mc->zombie_delay = MEM_ZOMBIE_DELAY;
	/* Folios in per-CPU LRU batches go on their lists, to move with them. */
	lru_add_drain_all();
	mem_reparent(mc);
	/* No CPU goes down meanwhile, whose stock mem_cpu_dead() would empty. */
	cpus_read_lock();
	mem_drain_stocks(mc);
	cpus_read_unlock();

	percpu_ref_get(&mc->ref);
	call_rcu(&mc->rcu, mem_dead_rcu);
	percpu_ref_kill(&mc->ref);
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
	.attach = mem_attach,
	.post_attach = mem_post_attach,
	.files = mem_files,
};
