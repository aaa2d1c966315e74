/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to the container core and its built-in subsystems.
 */
#ifndef _KERNEL_CONTAINER_INTERNAL_H
#define _KERNEL_CONTAINER_INTERNAL_H

#include <linux/containers.h>
#include <linux/kernfs.h>
#include <linux/limits.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>

#define MAX_CONTAINER_ROOT_NAMELEN	64

/* container_root.flags */
enum {
	ROOT_NOPREFIX,		/* subsystem files without "<subsys>." */
};

/**
 * struct container_root - a hierarchy
 * @rcu: frees it after a grace period, since RCU readers may still be
 *	looking at @top through a subsystem state that just moved away
 *	(first: kfree_rcu() needs a small offset)
 * @kf_root: its kernfs tree (NULL for the dummy root)
 * @subsys_mask: the subsystems bound to it
 * @hierarchy_id: its number in /proc/<pid>/container; 0 for the dummy root
 * @flags: ROOT_* bits
 * @top: the top container
 * @nr_containers: containers in it, the top one included
 * @sb: its superblock while mounted
 * @nr_mounting: mounts in progress that will use it; it must not be
 *	destroyed while non-zero
 * @list: entry in container_roots
 * @release_agent: path of the release agent, "" for none
 * @name: the name= mount option, "" for none
 *
 * Everything here is protected by container_mutex.
 */
struct container_root {
	struct rcu_head rcu;
	struct kernfs_root *kf_root;
	unsigned long subsys_mask;
	int hierarchy_id;
	unsigned long flags;
	struct container top;
	int nr_containers;
	struct super_block *sb;
	int nr_mounting;
	struct list_head list;
	char release_agent[PATH_MAX];
	char name[MAX_CONTAINER_ROOT_NAMELEN];
};

/*
 * A link between a css_group and the container it belongs to in one
 * hierarchy.  @cont_node is on container.css_groups (css_group_lock),
 * @cg_node on css_group.links (container_mutex).
 */
struct cg_link {
	struct list_head cont_node;
	struct list_head cg_node;
	struct css_group *cg;
	struct container *cont;
};

extern struct mutex container_mutex;
extern spinlock_t css_group_lock;

#endif /* _KERNEL_CONTAINER_INTERNAL_H */
