// SPDX-License-Identifier: GPL-2.0
/*
 * The ns subsystem: tie containers to namespaces.
 *
 * In a hierarchy with the ns subsystem bound, a task that creates new
 * namespaces (clone() or unshare() with CLONE_NEWNS, CLONE_NEWUTS,
 * CLONE_NEWIPC, CLONE_NEWPID or CLONE_NEWNET) gets a new child container
 * of its current one, named "node_<pid>" after its pid in the initial pid
 * namespace, and is moved into it.  Tasks may then only move further down:
 * a task can never leave the subtree its namespaces were created in.
 */

#define pr_fmt(fmt) "container_ns: " fmt

#include <linux/containers.h>
#include <linux/err.h>
#include <linux/pid.h>
#include <linux/slab.h>

#include "container-internal.h"

static struct container_subsys_state *
ns_create(struct container_subsys_state *parent_css)
{
	struct container_subsys_state *css;

	css = kzalloc(sizeof(*css), GFP_KERNEL);
	return css ?: ERR_PTR(-ENOMEM);
}

static void ns_destroy(struct container_subsys_state *css)
{
	kfree(css);
}

/*
 * A task may only move into its own container or one below it, whoever
 * asks (cgroup's ns subsystem had the same rule).
 */
static int ns_can_attach(const struct container_subsys_state *css,
			 struct task_struct *task)
{
	struct container *cur, *c;

	lockdep_assert_held(&container_mutex);
	rcu_read_lock();
	cur = task_subsys_state(task, ns_subsys_id)->container;
	rcu_read_unlock();
	for (c = css->container; c; c = c->parent)
		if (c == cur)
			return 0;
	return -EPERM;
}

struct container_subsys ns_subsys = {
	.name = "ns",
	.create = ns_create,
	.destroy = ns_destroy,
	.can_attach = ns_can_attach,
};

/**
 * container_ns_clone - give a task that made new namespaces its container
 * @task: the task: a new child of clone(), or current after unshare()
 *
 * When the ns subsystem is bound to a hierarchy, create a child of
 * @task's container there, named "node_<pid>" ("node_<pid>-2", ... if
 * that name is taken), and move @task into it.  A failure (out of memory)
 * is logged and leaves @task where it was: the namespaces stay created.
 *
 * Context: process context, no locks held; may sleep.
 */
void container_ns_clone(struct task_struct *task)
{
	char name[MAX_CONTAINER_CLONE_NAMELEN];
	int ret;

	snprintf(name, sizeof(name), "node_%d", task_pid_nr(task));
	ret = container_clone(task, &ns_subsys, name);
	if (ret)
		pr_warn_ratelimited("no container for the namespaces of %d: %d\n",
				    task_pid_nr(task), ret);
}
