/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory controller of process containers: the hooks mm/ calls.
 *
 * With CONFIG_CONTAINER_MEM the memory cgroup charging interface of
 * <linux/memcontrol.h> (built without CONFIG_MEMCG) forwards to these, so
 * every place upstream charges a folio to a memory cgroup charges it to a
 * container instead.  See mm/container_mem.c.
 */
#ifndef _LINUX_CONTAINER_MEM_H
#define _LINUX_CONTAINER_MEM_H

#include <linux/types.h>
#include <linux/jump_label.h>

struct folio;
struct folio_batch;
struct page_ext_operations;
struct mm_struct;
struct page;

#ifdef CONFIG_CONTAINER_MEM
int container_mem_charge(struct folio *folio, struct mm_struct *mm, gfp_t gfp);
void container_mem_uncharge(struct folio *folio);
void container_mem_uncharge_folios(struct folio_batch *folios);
void container_mem_migrate(struct folio *old, struct folio *new);
void container_mem_replace(struct folio *old, struct folio *new);
void container_mem_split(struct page *head, int old_order, int new_order);
void container_mem_handle_throttle(void);

extern struct page_ext_operations container_mem_page_ext_ops;

/* On while a memory container other than the top exists. */
DECLARE_STATIC_KEY_FALSE(container_mem_charging);
void __container_mem_lru_add(struct folio *folio, int lru);
void __container_mem_mod_mapped(struct folio *folio, int nr);

/* @folio goes on LRU list @lru: count it for its container's memory.stat. */
static inline void container_mem_lru_add(struct folio *folio, int lru)
{
	if (static_branch_unlikely(&container_mem_charging))
		__container_mem_lru_add(folio, lru);
}

/* @nr more (or fewer) pages of file folio @folio are mapped. */
static inline void container_mem_mod_mapped(struct folio *folio, int nr)
{
	if (static_branch_unlikely(&container_mem_charging))
		__container_mem_mod_mapped(folio, nr);
}
#else
static inline void container_mem_lru_add(struct folio *folio, int lru)
{
}

static inline void container_mem_mod_mapped(struct folio *folio, int nr)
{
}
#endif

#endif /* _LINUX_CONTAINER_MEM_H */
