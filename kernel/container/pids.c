// SPDX-License-Identifier: GPL-2.0
/*
 * The pids subsystem: Rohit Seth's task limit, with cgroup's file names.
 *
 * Every task (thread) in a container below the top of the hierarchy is
 * counted in that container and in each of its ancestors below the top.
 * fork() and clone() fail with EAGAIN when the new task would take the
 * container, or any ancestor, over its pids.max; that container's
 * pids.events counts the refusal.  A task is counted from the moment its
 * fork is allowed until it exits (not until it is reaped).  Moving a task
 * moves its count and may exceed a limit, as in cgroup; lowering a limit
 * below the current count is allowed and only stops further forks.
 *
 * The counts are atomic64_t, changed without a lock: a fork charges each
 * level in turn and undoes what it did if one is over its limit, so a
 * concurrent fork may be refused because of a charge that is then taken
 * back, never admitted over a limit.
 */

#define pr_fmt(fmt) "container_pids: " fmt

#include <linux/atomic.h>
#include <linux/containers.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/threads.h>

/* "max": more than any number of tasks can reach. */
#define PIDS_MAX	(PID_MAX_LIMIT + 1ULL)

/**
 * struct pids - the pids state of one container
 * @css: the subsystem state (its parent is the parent container's)
 * @counter: tasks in the container and its descendants
 * @limit: pids.max, PIDS_MAX for "max"
 * @events_max: forks refused because of @limit
 */
struct pids {
	struct container_subsys_state css;
	atomic64_t counter;
	atomic64_t limit;
	atomic64_t events_max;
};

static struct pids root_pids;

static inline struct pids *css_pids(struct container_subsys_state *css)
{
	return css ? container_of(css, struct pids, css) : NULL;
}

static inline struct pids *pids_parent(struct pids *p)
{
	return css_pids(p->css.parent);
}

/* The top of the hierarchy counts nothing. */
static inline bool pids_is_top(const struct pids *p)
{
	return !p->css.parent;
}

static void pids_uncharge(struct pids *pids, int n)
{
	struct pids *p;

	for (p = pids; !pids_is_top(p); p = pids_parent(p))
		WARN_ON_ONCE(atomic64_sub_return(n, &p->counter) < 0);
}

/* Charge without looking at the limits (attach). */
static void pids_charge(struct pids *pids, int n)
{
	struct pids *p;

	for (p = pids; !pids_is_top(p); p = pids_parent(p))
		atomic64_add(n, &p->counter);
}

/**
 * pids_try_charge - charge tasks to a container and its ancestors
 * @pids: the container the tasks join
 * @n: the number of tasks
 *
 * Charge each level from @pids up to (not including) the top, unless that
 * takes one over its limit: then undo the levels charged so far and count
 * the refusal in the pids.events of the level whose limit was hit.
 *
 * Context: any; no lock is taken.
 * Return: 0, or -EAGAIN if a limit would be exceeded.
 */
static int pids_try_charge(struct pids *pids, int n)
{
	struct pids *p, *q;

	for (p = pids; !pids_is_top(p); p = pids_parent(p)) {
		s64 new = atomic64_add_return(n, &p->counter);

		if (new > atomic64_read(&p->limit))
			goto revert;
	}
	return 0;

revert:
	for (q = pids; q != p; q = pids_parent(q))
		atomic64_sub(n, &q->counter);
	atomic64_sub(n, &p->counter);
	atomic64_inc(&p->events_max);
	return -EAGAIN;
}

static struct container_subsys_state *
pids_create(struct container_subsys_state *parent_css)
{
	struct pids *parent = css_pids(parent_css), *pids;

	if (!parent) {
		atomic64_set(&root_pids.limit, PIDS_MAX);
		return &root_pids.css;
	}
	pids = kzalloc(sizeof(*pids), GFP_KERNEL);
	if (!pids)
		return ERR_PTR(-ENOMEM);
	atomic64_set(&pids->limit, PIDS_MAX);
	return &pids->css;
}

static void pids_destroy(struct container_subsys_state *css)
{
	struct pids *pids = css_pids(css);

	if (WARN_ON_ONCE(pids == &root_pids))
		return;
	WARN_ON_ONCE(atomic64_read(&pids->counter));
	kfree(pids);
}

static int pids_can_fork(struct container_subsys_state *css,
			 struct task_struct *child)
{
	return pids_try_charge(css_pids(css), 1);
}

static void pids_cancel_fork(struct container_subsys_state *css,
			     struct task_struct *child)
{
	pids_uncharge(css_pids(css), 1);
}

/*
 * Charge the new chain before uncharging the old one: common ancestors are
 * briefly counted twice, so that a racing fork may be refused there but is
 * never let through over a limit.
 */
static void pids_attach(struct container_subsys_state *css,
			struct container_subsys_state *old_css,
			struct task_struct *task)
{
	pids_charge(css_pids(css), 1);
	pids_uncharge(css_pids(old_css), 1);
}

static void pids_exit(struct task_struct *task)
{
	struct pids *pids;

	rcu_read_lock();
	pids = css_pids(task_subsys_state(task, pids_subsys_id));
	pids_uncharge(pids, 1);
	rcu_read_unlock();
}

static int pids_max_show(struct seq_file *sf, void *v)
{
	s64 limit = atomic64_read(&css_pids(seq_subsys_state(sf))->limit);

	if (limit >= PIDS_MAX)
		seq_puts(sf, "max\n");
	else
		seq_printf(sf, "%lld\n", limit);
	return 0;
}

static ssize_t pids_max_write(struct kernfs_open_file *of, char *buf,
			      size_t nbytes, loff_t off)
{
	struct pids *pids = css_pids(of_subsys_state(of));
	s64 limit;

	buf = strstrip(buf);
	if (!strcmp(buf, "max")) {
		limit = PIDS_MAX;
	} else {
		if (kstrtoll(buf, 0, &limit))
			return -EINVAL;
		if (limit < 0 || limit >= PIDS_MAX)
			return -EINVAL;
	}
	/* Lowering below the count is fine: later forks fail. */
	atomic64_set(&pids->limit, limit);
	return nbytes;
}

static s64 pids_current_read(struct container_subsys_state *css,
			     struct container_file *cft)
{
	return atomic64_read(&css_pids(css)->counter);
}

static int pids_events_show(struct seq_file *sf, void *v)
{
	struct pids *pids = css_pids(seq_subsys_state(sf));

	seq_printf(sf, "max %lld\n", (s64)atomic64_read(&pids->events_max));
	return 0;
}

static struct container_file pids_files[] = {
	{
		.name = "max",
		.flags = CONTAINER_FILE_NOT_ON_ROOT,
		.seq_show = pids_max_show,
		.write = pids_max_write,
	},
	{
		.name = "current",
		.flags = CONTAINER_FILE_NOT_ON_ROOT,
		.read_s64 = pids_current_read,
	},
	{
		.name = "events",
		.flags = CONTAINER_FILE_NOT_ON_ROOT,
		.seq_show = pids_events_show,
	},
	{ }	/* terminator */
};

struct container_subsys pids_subsys = {
	.name = "pids",
	.create = pids_create,
	.destroy = pids_destroy,
	.can_fork = pids_can_fork,
	.cancel_fork = pids_cancel_fork,
	.attach = pids_attach,
	.exit = pids_exit,
	.files = pids_files,
};
