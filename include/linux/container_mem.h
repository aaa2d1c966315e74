/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory controller of process containers: the hooks mm/ calls.
 *
 * Built without CONFIG_MEMCG, the memory cgroup interface of
 * <linux/memcontrol.h> forwards to these: charging, and the lookup of a
 * folio's lruvec.  Each memory container has an lruvec per node, and a
 * charged folio sits on its container's lists instead of the node's (see
 * mm/container_mem.c).  Without CONFIG_CONTAINER_MEM every hook is the
 * code memcontrol.h has without memory cgroups, so callers need no #ifdef.
 */
#ifndef _LINUX_CONTAINER_MEM_H
#define _LINUX_CONTAINER_MEM_H

#include <linux/types.h>
#include <linux/jump_label.h>
#include <linux/mm.h>
#include <linux/spinlock.h>
#include <linux/container_mem_defs.h>

struct folio_batch;
struct container_subsys_state;
struct task_struct;
struct mem_container;

/* Containers over their soft limit that global reclaim orders, at most. */
#define CONTAINER_MEM_SOFT_BATCH	16

#ifdef CONFIG_CONTAINER_MEM
void container_mem_uncharge_folios(struct folio_batch *folios);
void container_mem_migrate(struct folio *old, struct folio *new);
void container_mem_replace(struct folio *old, struct folio *new);
void container_mem_split(struct page *head, int old_order, int new_order);
void container_mem_handle_throttle(void);
bool container_mem_oom_synchronize(bool handle);

/* On while a memory container other than the top exists. */
DECLARE_STATIC_KEY_FALSE(container_mem_charging);
int __container_mem_charge(struct folio *folio, struct mm_struct *mm,
			   gfp_t gfp);
void __container_mem_uncharge(struct folio *folio);
int __container_mem_swapin_charge(struct folio *folio, struct mm_struct *mm,
				  gfp_t gfp, swp_entry_t entry);
void __container_mem_swapout(struct folio *folio, swp_entry_t entry);
void __container_mem_swap_free(swp_entry_t entry, unsigned int nr);
/* On once a swap entry may record its owner. */
DECLARE_STATIC_KEY_FALSE(container_mem_swap_owned);

/* Is a memory container other than the top there (reclaim walks them)? */
static inline bool container_mem_enabled(void)
{
	return static_branch_unlikely(&container_mem_charging);
}

/*
 * The owner word of a charged folio (folio->container_mem) points to its
 * container's table of per-node parts, indexed by node id; 0 when the
 * folio is not charged (it is on the node's own lists).  It changes only
 * for a folio nobody else can reach (charge, uncharge, migration, split),
 * or, when a removed container's folios move to its parent, under both
 * containers' LRU locks for a folio whose LRU flag the mover cleared: the
 * binding of folio and lruvec is stable under the same conditions as a
 * memory cgroup's (see folio_memcg()).
 */
static inline bool container_mem_charged(struct folio *folio)
{
	return static_branch_unlikely(&container_mem_charging) &&
	       READ_ONCE(folio->container_mem);
}

static inline struct lruvec *container_mem_folio_lruvec(struct folio *folio)
{
	struct container_mem_node **table;

	table = (struct container_mem_node **)READ_ONCE(folio->container_mem);
	if (!table)
		return &folio_pgdat(folio)->__lruvec;
	return &table[folio_nid(folio)]->lruvec;
}

static inline bool container_mem_folio_matches_lruvec(struct folio *folio,
						      struct lruvec *lruvec)
{
	return container_mem_folio_lruvec(folio) == lruvec;
}

/* Is @lruvec a memory container's, not a node's own? */
static inline bool container_mem_owns_lruvec(struct lruvec *lruvec)
{
	return lruvec != &lruvec_pgdat(lruvec)->__lruvec;
}

/* A folio's LRU lists and their lock count for its container's lruvec. */
static inline void container_mem_update_lru_size(struct lruvec *lruvec,
						 enum lru_list lru, int zid,
						 long nr_pages)
{
	lockdep_assert_held(&lruvec->lru_lock);
	lruvec->lru_zone_size[zid][lru] += nr_pages;
	VM_WARN_ON_ONCE((long)lruvec->lru_zone_size[zid][lru] < 0);
}

static inline unsigned long
container_mem_zone_lru_size(struct lruvec *lruvec, enum lru_list lru, int zid)
{
	return READ_ONCE(lruvec->lru_zone_size[zid][lru]);
}

/*
 * lruvec_page_state(): a container's LRU sizes and workingset events are
 * its lruvec's own; the node's own lruvec answers for the whole node, as
 * the root memory cgroup's does (reclaim balances the node on them).
 */
static inline unsigned long container_mem_lruvec_state(struct lruvec *lruvec,
						       enum node_stat_item idx)
{
	struct pglist_data *pgdat = lruvec_pgdat(lruvec);
	unsigned long size = 0;
	int zid;

	if (lruvec == &pgdat->__lruvec)
		return node_page_state(pgdat, idx);
	if (idx >= WORKINGSET_REFAULT_BASE && idx <= WORKINGSET_RESTORE_FILE)
		return atomic_long_read(&lruvec->workingset[idx -
						WORKINGSET_REFAULT_BASE]);
	if (idx < NR_LRU_BASE || idx >= NR_LRU_BASE + NR_LRU_LISTS)
		return node_page_state(pgdat, idx);
	for (zid = 0; zid < MAX_NR_ZONES; zid++)
		size += container_mem_zone_lru_size(lruvec, idx - NR_LRU_BASE,
						    zid);
	return size;
}

/* The memory.swappiness for reclaim of @lruvec. */
int container_mem_swappiness(struct lruvec *lruvec, int swappiness);
/* The id a workingset shadow entry records for @lruvec (0: the node's). */
unsigned short container_mem_lruvec_id(struct lruvec *lruvec);
/* The lruvec of shadow id @id on @pgdat, under RCU; NULL when it is gone. */
struct lruvec *container_mem_lruvec_rcu(unsigned short id,
					struct pglist_data *pgdat);
/* Are folios moving away from @lruvec's container (lru_gen_look_around())? */
bool container_mem_lruvec_moving(struct lruvec *lruvec);
/* The lruvec of shadow id @id on @pgdat, pinned; NULL when it is gone. */
struct lruvec *container_mem_lruvec_tryget(unsigned short id,
					   struct pglist_data *pgdat);
void container_mem_lruvec_put(struct lruvec *lruvec);
/* The lruvec of the container of memory state @css on @pgdat. */
struct lruvec *container_mem_css_lruvec(struct container_subsys_state *css,
					struct pglist_data *pgdat);
/* The lruvec of the parent of @lruvec's container: reclaim's cost model. */
struct lruvec *container_mem_parent_lruvec(struct lruvec *lruvec);

/* Walk the lruvecs of @top's subtree on @pgdat (@top NULL: all, node's too). */
struct lruvec *container_mem_lruvec_iter(struct container_subsys_state *top,
					 struct lruvec *prev,
					 struct pglist_data *pgdat);
/* Reclaim scanned @nr folios of @lruvec: memory.stat's pgscan. */
void container_mem_note_scanned(struct lruvec *lruvec, unsigned long nr);
/* Pages @lruvec's container (or an ancestor) is over its soft limit. */
unsigned long container_mem_soft_excess(struct lruvec *lruvec);
/* The lruvecs over a soft limit global reclaim takes first, largest first. */
int container_mem_soft_limit_lruvecs(struct pglist_data *pgdat,
				     struct lruvec **vecs);
void container_mem_put_lruvecs(struct lruvec **vecs, int nr);
unsigned long try_to_free_container_pages(struct container_subsys_state *css,
					  unsigned long nr_pages, gfp_t gfp,
					  bool may_swap);

/* Charge new folio @folio for @mm (NULL: current); 0 or -ENOMEM. */
static inline int container_mem_charge(struct folio *folio,
				       struct mm_struct *mm, gfp_t gfp)
{
	if (!static_branch_unlikely(&container_mem_charging))
		return 0;
	return __container_mem_charge(folio, mm, gfp);
}

/* @folio is being freed: uncharge it. */
static inline void container_mem_uncharge(struct folio *folio)
{
	if (container_mem_charged(folio))
		__container_mem_uncharge(folio);
}

/* For out_of_memory() limited to a container: see mm/oom_kill.c. */
unsigned long container_mem_get_max(struct container_subsys_state *css);
void container_mem_scan_tasks(struct container_subsys_state *css,
			      int (*fn)(struct task_struct *, void *),
			      void *arg);

/* Charge @folio, read from swap @entry, to the container that swapped it. */
static inline int container_mem_swapin_charge(struct folio *folio,
					      struct mm_struct *mm, gfp_t gfp,
					      swp_entry_t entry)
{
	if (!static_branch_unlikely(&container_mem_charging))
		return 0;
	return __container_mem_swapin_charge(folio, mm, gfp, entry);
}

/*
 * @folio leaves the swap cache, its data in the slots from @entry on: its
 * memory charge goes, its memory+swap charge stays with the slots.
 */
static inline void container_mem_swapout(struct folio *folio,
					 swp_entry_t entry)
{
	if (container_mem_charged(folio))
		__container_mem_swapout(folio, entry);
}

/*
 * @nr swap slots from @entry on are freed, or their data is charged again
 * in a folio read back: they give up their memory+swap charge.
 */
static inline void container_mem_swap_free(swp_entry_t entry, unsigned int nr)
{
	if (static_branch_unlikely(&container_mem_swap_owned))
		__container_mem_swap_free(entry, nr);
}
#else
static inline bool container_mem_enabled(void)
{
	return false;
}

static inline struct lruvec *container_mem_folio_lruvec(struct folio *folio)
{
	return &folio_pgdat(folio)->__lruvec;
}

static inline bool container_mem_folio_matches_lruvec(struct folio *folio,
						      struct lruvec *lruvec)
{
	return lruvec_pgdat(lruvec) == folio_pgdat(folio);
}

static inline bool container_mem_owns_lruvec(struct lruvec *lruvec)
{
	return false;
}

static inline void container_mem_update_lru_size(struct lruvec *lruvec,
						 enum lru_list lru, int zid,
						 long nr_pages)
{
}

static inline unsigned long
container_mem_zone_lru_size(struct lruvec *lruvec, enum lru_list lru, int zid)
{
	return 0;
}

static inline unsigned long container_mem_lruvec_state(struct lruvec *lruvec,
						       enum node_stat_item idx)
{
	return node_page_state(lruvec_pgdat(lruvec), idx);
}

static inline struct lruvec *container_mem_parent_lruvec(struct lruvec *lruvec)
{
	return NULL;
}

static inline unsigned short container_mem_lruvec_id(struct lruvec *lruvec)
{
	return 0;
}

static inline struct lruvec *
container_mem_lruvec_rcu(unsigned short id, struct pglist_data *pgdat)
{
	return &pgdat->__lruvec;
}

static inline bool container_mem_lruvec_moving(struct lruvec *lruvec)
{
	return false;
}

static inline struct lruvec *
container_mem_lruvec_tryget(unsigned short id, struct pglist_data *pgdat)
{
	return NULL;
}

static inline void container_mem_lruvec_put(struct lruvec *lruvec)
{
}

static inline int container_mem_swappiness(struct lruvec *lruvec,
					   int swappiness)
{
	return swappiness;
}

static inline struct lruvec *
container_mem_css_lruvec(struct container_subsys_state *css,
			 struct pglist_data *pgdat)
{
	return &pgdat->__lruvec;
}

static inline struct lruvec *
container_mem_lruvec_iter(struct container_subsys_state *top,
			  struct lruvec *prev, struct pglist_data *pgdat)
{
	return NULL;
}

static inline void container_mem_note_scanned(struct lruvec *lruvec,
					      unsigned long nr)
{
}

static inline unsigned long container_mem_soft_excess(struct lruvec *lruvec)
{
	return 0;
}

static inline int container_mem_soft_limit_lruvecs(struct pglist_data *pgdat,
						   struct lruvec **vecs)
{
	return 0;
}

static inline void container_mem_put_lruvecs(struct lruvec **vecs, int nr)
{
}

static inline int container_mem_charge(struct folio *folio,
				       struct mm_struct *mm, gfp_t gfp)
{
	return 0;
}

static inline void container_mem_uncharge(struct folio *folio)
{
}

static inline void container_mem_uncharge_folios(struct folio_batch *folios)
{
}

static inline void container_mem_migrate(struct folio *old, struct folio *new)
{
}

static inline void container_mem_replace(struct folio *old, struct folio *new)
{
}

static inline void container_mem_split(struct page *head, int old_order,
				       int new_order)
{
}

static inline void container_mem_handle_throttle(void)
{
}

static inline bool container_mem_oom_synchronize(bool handle)
{
	return false;
}

static inline int container_mem_swapin_charge(struct folio *folio,
					      struct mm_struct *mm, gfp_t gfp,
					      swp_entry_t entry)
{
	return 0;
}

static inline void container_mem_swapout(struct folio *folio,
					 swp_entry_t entry)
{
}

static inline void container_mem_swap_free(swp_entry_t entry, unsigned int nr)
{
}

static inline unsigned long
container_mem_get_max(struct container_subsys_state *css)
{
	return 0;
}

static inline void
container_mem_scan_tasks(struct container_subsys_state *css,
			 int (*fn)(struct task_struct *, void *), void *arg)
{
}
#endif

/* Lock @folio's lruvec (the binding must be stable, see above). */
static inline struct lruvec *container_mem_folio_lruvec_lock(struct folio *folio)
{
	struct lruvec *lruvec = container_mem_folio_lruvec(folio);

	spin_lock(&lruvec->lru_lock);
	return lruvec;
}

static inline struct lruvec *
container_mem_folio_lruvec_lock_irq(struct folio *folio)
{
	struct lruvec *lruvec = container_mem_folio_lruvec(folio);

	spin_lock_irq(&lruvec->lru_lock);
	return lruvec;
}

static inline struct lruvec *
container_mem_folio_lruvec_lock_irqsave(struct folio *folio,
					unsigned long *flags)
{
	struct lruvec *lruvec = container_mem_folio_lruvec(folio);

	spin_lock_irqsave(&lruvec->lru_lock, *flags);
	return lruvec;
}

#endif /* _LINUX_CONTAINER_MEM_H */
