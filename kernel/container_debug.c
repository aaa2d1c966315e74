// SPDX-License-Identifier: GPL-2.0
/*
 * The debug subsystem: read-only files that show the container core's own
 * state, for tests and for debugging the core.
 */

#define pr_fmt(fmt) "container_debug: " fmt

#include <linux/containers.h>
#include <linux/err.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "container-internal.h"

static struct container_subsys_state *
debug_create(struct container_subsys_state *parent_css)
{
	struct container_subsys_state *css;

	css = kzalloc(sizeof(*css), GFP_KERNEL);
	return css ?: ERR_PTR(-ENOMEM);
}

static void debug_destroy(struct container_subsys_state *css)
{
	kfree(css);
}

/* Number of css_groups that reference the container. */
static u64 container_refcount_read(struct container_subsys_state *css,
				   struct container_file *cft)
{
	u64 n;

	spin_lock(&css_group_lock);
	n = css->container->nr_css_groups;
	spin_unlock(&css_group_lock);
	return n;
}

static u64 taskcount_read(struct container_subsys_state *css,
			  struct container_file *cft)
{
	return container_task_count(css->container);
}

/* The reader's css_group: a unique id, never a kernel address. */
static u64 current_css_group_read(struct container_subsys_state *css,
				  struct container_file *cft)
{
	u64 id;

	rcu_read_lock();
	id = rcu_dereference(current->containers)->id;
	rcu_read_unlock();
	return id;
}

static u64 current_css_group_refcount_read(struct container_subsys_state *css,
					   struct container_file *cft)
{
	u64 n;

	rcu_read_lock();
	n = refcount_read(&rcu_dereference(current->containers)->refcount);
	rcu_read_unlock();
	return n;
}

static u64 releasable_read(struct container_subsys_state *css,
			   struct container_file *cft)
{
	return container_is_releasable(css->container);
}

static u64 css_group_count_read(struct container_subsys_state *css,
				struct container_file *cft)
{
	return container_css_group_count();
}

static struct container_file debug_files[] = {
	{
		.name = "container_refcount",
		.read_u64 = container_refcount_read,
	},
	{
		.name = "taskcount",
		.read_u64 = taskcount_read,
	},
	{
		.name = "current_css_group",
		.read_u64 = current_css_group_read,
	},
	{
		.name = "current_css_group_refcount",
		.read_u64 = current_css_group_refcount_read,
	},
	{
		.name = "releasable",
		.read_u64 = releasable_read,
	},
	{
		.name = "css_group_count",
		.read_u64 = css_group_count_read,
	},
	{ }	/* terminate */
};

struct container_subsys debug_subsys = {
	.name = "debug",
	.create = debug_create,
	.destroy = debug_destroy,
	.files = debug_files,
};
