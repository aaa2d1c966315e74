/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a charged folio's owner word points to, for the memory controller
 * of process containers (mm/container_mem.c).  Apart from
 * <linux/container_mem.h>, so that <linux/vmstat.h>, which <linux/mm.h>
 * includes, can count a folio's statistics for its container inline.
 */
#ifndef _LINUX_CONTAINER_MEM_DEFS_H
#define _LINUX_CONTAINER_MEM_DEFS_H

#include <linux/mmzone.h>

struct mem_container;

/**
 * enum container_mem_stat_item - the page counts of memory.stat
 * @CONTAINER_MEM_CACHE: NR_FILE_PAGES: page cache, shmem, swap cache
 * @CONTAINER_MEM_RSS: NR_ANON_MAPPED
 * @CONTAINER_MEM_RSS_HUGE: NR_ANON_THPS
 * @CONTAINER_MEM_SHMEM: NR_SHMEM
 * @CONTAINER_MEM_MAPPED_FILE: NR_FILE_MAPPED
 * @CONTAINER_MEM_DIRTY: NR_FILE_DIRTY
 * @CONTAINER_MEM_WRITEBACK: NR_WRITEBACK
 * @CONTAINER_MEM_SWAP: swap slots charged to the container (no node
 *	statistic)
 * @CONTAINER_MEM_NR_STATS: how many
 *
 * Each is kept per CPU, and folded from removed descendants.
 */
enum container_mem_stat_item {
	CONTAINER_MEM_CACHE,
	CONTAINER_MEM_RSS,
	CONTAINER_MEM_RSS_HUGE,
	CONTAINER_MEM_SHMEM,
	CONTAINER_MEM_MAPPED_FILE,
	CONTAINER_MEM_DIRTY,
	CONTAINER_MEM_WRITEBACK,
	CONTAINER_MEM_SWAP,
	CONTAINER_MEM_NR_STATS,
};

/**
 * struct container_mem_node - a memory container's part of one node
 * @lruvec: the LRU lists of the container's folios on the node
 * @stat: the container's per-CPU memory.stat page counts, indexed by
 *	enum container_mem_stat_item; NULL once it is removed, when its
 *	folios count for its nearest ancestor that is not (RCU)
 * @owner: the container
 *
 * The owner word of a charged folio points to its container's table of
 * these, indexed by node id.
 */
struct container_mem_node {
	struct lruvec lruvec;
	long __percpu *stat;
	struct mem_container *owner;
};

/*
 * The memory.stat page count that counts node statistic @idx, or -1.
 * Constant-folded where @idx is constant, as at most callers.
 */
static __always_inline int container_mem_stat_index(enum node_stat_item idx)
{
	switch (idx) {
	case NR_FILE_PAGES:
		return CONTAINER_MEM_CACHE;
	case NR_ANON_MAPPED:
		return CONTAINER_MEM_RSS;
	case NR_ANON_THPS:
		return CONTAINER_MEM_RSS_HUGE;
	case NR_SHMEM:
		return CONTAINER_MEM_SHMEM;
	case NR_FILE_MAPPED:
		return CONTAINER_MEM_MAPPED_FILE;
	case NR_FILE_DIRTY:
		return CONTAINER_MEM_DIRTY;
	case NR_WRITEBACK:
		return CONTAINER_MEM_WRITEBACK;
	default:
		return -1;
	}
}

#endif /* _LINUX_CONTAINER_MEM_DEFS_H */
