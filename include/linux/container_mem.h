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
#endif

#endif /* _LINUX_CONTAINER_MEM_H */
