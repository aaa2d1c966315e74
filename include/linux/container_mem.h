/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory controller of process containers: the hooks mm/ calls.
 *
 * Built without CONFIG_MEMCG, the memory cgroup charging interface of
 * <linux/memcontrol.h> forwards to these, so every place upstream charges
 * a folio to a memory cgroup charges it to a container instead (see
 * mm/container_mem.c).  Without CONFIG_CONTAINER_MEM every hook is an
 * empty inline, so the callers need no #ifdef.
 */
#ifndef _LINUX_CONTAINER_MEM_H
#define _LINUX_CONTAINER_MEM_H

#include <linux/types.h>
#include <linux/jump_label.h>
#include <linux/mm_types.h>

struct folio_batch;
struct page_ext_operations;
struct container_subsys_state;
struct task_struct;

#ifdef CONFIG_CONTAINER_MEM
void container_mem_uncharge_folios(struct folio_batch *folios);
void container_mem_migrate(struct folio *old, struct folio *new);
void container_mem_replace(struct folio *old, struct folio *new);
void container_mem_split(struct page *head, int old_order, int new_order);
void container_mem_handle_throttle(void);

extern struct page_ext_operations container_mem_page_ext_ops;

/* On while a memory container other than the top exists. */
DECLARE_STATIC_KEY_FALSE(container_mem_charging);
int __container_mem_charge(struct folio *folio, struct mm_struct *mm,
			   gfp_t gfp);
void __container_mem_uncharge(struct folio *folio);
void __container_mem_lru_add(struct folio *folio, int lru);
void __container_mem_mod_mapped(struct folio *folio, int nr);
int __container_mem_swapin_charge(struct folio *folio, struct mm_struct *mm,
				  gfp_t gfp, swp_entry_t entry);
int __container_mem_swap_record(struct folio *folio, swp_entry_t entry);
void __container_mem_swap_free(swp_entry_t entry, unsigned int nr);
/* On once a swap entry may record its owner. */
DECLARE_STATIC_KEY_FALSE(container_mem_swap_owned);

/*
 * The hooks below cost a patched-out branch while no container but the
 * top exists, and a test of the folio's owner word (0: not charged)
 * before they call out otherwise: most folios a task maps are shared
 * page cache charged to nobody.
 */
static inline bool container_mem_charged(struct folio *folio)
{
	return static_branch_unlikely(&container_mem_charging) &&
	       READ_ONCE(folio->container_mem);
}

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

/* @folio goes on LRU list @lru: count it for its container's memory.stat. */
static inline void container_mem_lru_add(struct folio *folio, int lru)
{
	if (container_mem_charged(folio))
		__container_mem_lru_add(folio, lru);
}

/* @nr more (or fewer) pages of file folio @folio are mapped. */
static inline void container_mem_mod_mapped(struct folio *folio, int nr)
{
	if (container_mem_charged(folio))
		__container_mem_mod_mapped(folio, nr);
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

/* @folio gets swap slots from @entry on: record its owner there. */
static inline int container_mem_swap_record(struct folio *folio,
					    swp_entry_t entry)
{
	if (container_mem_charged(folio))
		return __container_mem_swap_record(folio, entry);
	return 0;
}

/* @nr swap slots from @entry on are freed. */
static inline void container_mem_swap_free(swp_entry_t entry, unsigned int nr)
{
	if (static_branch_unlikely(&container_mem_swap_owned))
		__container_mem_swap_free(entry, nr);
}
#else
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

static inline int container_mem_swapin_charge(struct folio *folio,
					      struct mm_struct *mm, gfp_t gfp,
					      swp_entry_t entry)
{
	return 0;
}

static inline int container_mem_swap_record(struct folio *folio,
					    swp_entry_t entry)
{
	return 0;
}

static inline void container_mem_swap_free(swp_entry_t entry, unsigned int nr)
{
}

static inline void container_mem_lru_add(struct folio *folio, int lru)
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

static inline void container_mem_mod_mapped(struct folio *folio, int nr)
{
}
#endif

#endif /* _LINUX_CONTAINER_MEM_H */
