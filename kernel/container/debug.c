// SPDX-License-Identifier: GPL-2.0
/*
 * The debug subsystem: read-only files that show the container core's own
 * state, for tests and for debugging the core.
 */

#define pr_fmt(fmt) "container_debug: " fmt

#include <linux/containers.h>
#include <linux/err.h>
#include <linux/kernfs.h>
#include <linux/limits.h>
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

static void debug_put_name(struct seq_file *sf,
			   struct container_subsys_state *pos,
			   struct container_subsys_state *top, char *buf)
{
	if (pos == top) {
		seq_puts(sf, " .");
		return;
	}
	kernfs_name(pos->container->kn, buf, NAME_MAX + 1);
	seq_printf(sf, " %s", buf);
}

/*
 * The subtree as the core's RCU walks visit it: "pre" and the container
 * names in pre-order, then "post" and the names in post-order ("." is the
 * container read).  For tests of the walks themselves.
 */
static int descendants_show(struct seq_file *sf, void *v)
{
	struct container_subsys_state *top = seq_subsys_state(sf), *pos;
	char *buf;

	buf = kmalloc(NAME_MAX + 1, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	rcu_read_lock();
	seq_puts(sf, "pre");
	container_for_each_descendant_pre(pos, top)
		debug_put_name(sf, pos, top, buf);
	seq_puts(sf, "\npost");
	container_for_each_descendant_post(pos, top)
		debug_put_name(sf, pos, top, buf);
	seq_putc(sf, '\n');
	rcu_read_unlock();
	kfree(buf);
	return 0;
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
	{
		.name = "descendants",
		.seq_show = descendants_show,
	},
	{ }	/* terminate */
};

struct container_subsys debug_subsys = {
	.name = "debug",
	.create = debug_create,
	.destroy = debug_destroy,
	.files = debug_files,
};
