// SPDX-License-Identifier: GPL-2.0
/*
 * Generic process containers.
 *
 * A hierarchy is a tree of containers, visible as a mount of the
 * "container" filesystem (kernfs).  Subsystems (resource controllers and
 * others) are bound to at most one hierarchy; those bound to none live in
 * the top container of a dummy hierarchy.  Every task is in exactly one
 * container of every hierarchy.  A task points to a css_group: the array of
 * its subsystem states, shared by all tasks with the same membership and
 * found in a hash table when a task moves.  Each css_group is linked to its
 * container in every mounted hierarchy, so that the tasks of a container
 * are found by walking its css_groups, without looking at other tasks.
 *
 * Locking, outermost first:
 *
 * container_mutex	the hierarchies (their list, subsystem binding,
 *			flags), the container tree (children, sibling,
 *			nr_containers) and the trees of subsystem states
 *			(written under it, read under RCU too), css_group
 *			creation and the links of a css_group, and every
 *			move of a task.  Subsystem
 *			callbacks other than fork/exit/can_fork run under it.
 *			Taken from kernfs callbacks only after breaking active
 *			protection (container_kn_lock_live()), since rmdir
 *			removes kernfs nodes under it.
 * container_threadgroup_rwsem
 *			percpu rw semaphore, read-held from container_can_fork()
 *			to container_post_fork(), in container_exit(), and
 *			where a thread group changes (de_thread() exchanging
 *			the leader, exit_signals() setting PF_EXITING: see
 *			container_threadgroup_change_begin()); write-held
 *			while tasks move, so that a task's css_group changes
 *			only when no fork or exit of it is in flight, and a
 *			thread group, its leader and its PF_EXITING flags
 *			stay as they are while it moves as a whole.
 * css_group_lock	spinlock: the css_group hash table, css_group.tasks,
 *			container.css_groups and nr_css_groups, the release
 *			list, and the final put of a css_group.
 * task_lock()		the task's css_group pointer, written under it (and
 *			read under RCU).  Taken inside css_group_lock by the
 *			callbacks of container_scan_tasks() (the OOM killer's,
 *			itself under oom_lock); never the other way round.
 * release_agent_lock	spinlock: a hierarchy's release_agent, written under
 *			it and container_mutex, read under either.  Reading
 *			/proc/mounts calls show_options with namespace_sem
 *			held, which must not wait for container_mutex.  A
 *			leaf: taken inside container_mutex or namespace_sem,
 *			nothing is taken under it and nothing sleeps.
 *
 * The kernfs locks nest inside container_mutex (kernfs_remove() and file
 * creation are called with it held); kernfs_rename_lock is taken under
 * css_group_lock when paths are printed.  tasklist_lock and
 * cred_guard_mutex are never taken with any of these held, except
 * tasklist_lock for reading under RCU in find_task_by_vpid().
 *
 * Lifetime: a css_group is freed (RCU) when its last task leaves.  A
 * container is counted by container.refcnt: one reference from its
 * creation until rmdir, one from each child until the child's states are
 * destroyed, plus one for each kernfs callback that dropped active
 * protection.  When it reaches zero the container and its subsystem
 * states are freed from a workqueue after an RCU grace period, so RCU
 * readers of task_subsys_state() never see freed state.
 */

#define pr_fmt(fmt) "container: " fmt

#include <linux/containers.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/hashtable.h>
#include <linux/idr.h>
#include <linux/init.h>
#include <linux/kernfs.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/percpu-rwsem.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/umh.h>
#include <linux/user_namespace.h>

#include "container-internal.h"

#define CONTAINER_SUPER_MAGIC	0x636f6e74	/* "cont" */
#define CSS_GROUP_HASH_BITS	7

/* The locks: see the comment at the top of the file. */
DEFINE_MUTEX(container_mutex);
DEFINE_SPINLOCK(css_group_lock);
static DEFINE_SPINLOCK(release_agent_lock);
DEFINE_PERCPU_RWSEM(container_threadgroup_rwsem);
/* The next state's serial_nr (container_mutex): see container_create(). */
static u64 css_serial_nr_next = 1;

#define SUBSYS(_x)							\
	[_x ## _subsys_id] = &_x ## _subsys,
static struct container_subsys *container_subsys[] = {
#include <linux/container_subsys.h>
};

#undef SUBSYS

#define for_each_subsys(ss, i)						\
	for ((i) = 0; (i) < CONTAINER_SUBSYS_COUNT &&			\
	     (((ss) = container_subsys[i]) || true); (i)++)

/* Each subsystem whose bit is set in @mask (an lvalue). */
#define for_each_subsys_in(ss, i, mask)					\
	for ((i) = find_first_bit(&(mask), CONTAINER_SUBSYS_COUNT);	\
	     (i) < CONTAINER_SUBSYS_COUNT &&				\
	     (((ss) = container_subsys[i]) || true);			\
	     (i) = find_next_bit(&(mask), CONTAINER_SUBSYS_COUNT, (i) + 1))

/* Subsystems that have a callback on the fork and exit paths. */
static unsigned long have_can_fork __read_mostly;
static unsigned long have_fork __read_mostly;
static unsigned long have_exit __read_mostly;

/* Holds the top-level state of every subsystem not bound to a hierarchy. */
static struct container_root dummy_root;

/* The mounted hierarchies; container_mutex. */
static LIST_HEAD(container_roots);
static DEFINE_IDA(hierarchy_ida);

/* css_group_lock */
static DEFINE_HASHTABLE(css_group_table, CSS_GROUP_HASH_BITS);
static int nr_css_groups = 1;
static u64 css_group_next_id = 1;

struct css_group init_css_group = {
	.refcount = REFCOUNT_INIT(1),
	.tasks = LIST_HEAD_INIT(init_css_group.tasks),
	.links = LIST_HEAD_INIT(init_css_group.links),
};

/* Containers waiting for their release agent; css_group_lock. */
static LIST_HEAD(release_list);
static void container_release_agent(struct work_struct *work);
static DECLARE_WORK(release_agent_work, container_release_agent);

static struct container_file core_files[];

static struct css_group *task_css_group(struct task_struct *task)
{
	return rcu_dereference_check(task->containers,
				     lockdep_is_held(&container_mutex) ||
				     lockdep_is_held(&css_group_lock) ||
				     percpu_rwsem_is_held(&container_threadgroup_rwsem));
}

static struct container_root *kf_to_root(struct kernfs_root *kf_root)
{
	struct container *top = kernfs_root_to_node(kf_root)->priv;

	return top->root;
}

/*
 * The container a css_group belongs to in @root.  Caller holds
 * container_mutex or css_group_lock.
 */
static struct container *cg_container(struct css_group *cg,
				      struct container_root *root)
{
	struct cg_link *link;

	if (root->subsys_mask)
		return cg->subsys[__ffs(root->subsys_mask)]->container;
	list_for_each_entry(link, &cg->links, cg_node)
		if (link->cont->root == root)
			return link->cont;
	WARN_ON_ONCE(1);
	return &root->top;
}

/* css_group_lock held */
static void check_for_release(struct container *cont)
{
	lockdep_assert_held(&css_group_lock);
	if (cont->parent && !cont->nr_css_groups &&
	    test_bit(CONT_NOTIFY_ON_RELEASE, &cont->flags) &&
	    !test_bit(CONT_REMOVED, &cont->flags) &&
	    list_empty(&cont->children) && list_empty(&cont->release_node)) {
		list_add_tail(&cont->release_node, &release_list);
		schedule_work(&release_agent_work);
	}
}

/* Unhash and free @cg, whose last reference is gone; css_group_lock held. */
static void free_css_group_locked(struct css_group *cg)
{
	struct cg_link *link, *tmp;

	lockdep_assert_held(&css_group_lock);
	hash_del(&cg->hlist);
	nr_css_groups--;
	list_for_each_entry_safe(link, tmp, &cg->links, cg_node) {
		struct container *cont = link->cont;

		list_del(&link->cont_node);
		list_del(&link->cg_node);
		if (!--cont->nr_css_groups)
			check_for_release(cont);
		kfree(link);
	}
	kfree_rcu(cg, rcu_head);
}

static void put_css_group(struct css_group *cg)
{
	/* Only the last reference takes css_group_lock. */
	if (refcount_dec_not_one(&cg->refcount))
		return;
	spin_lock(&css_group_lock);
	if (refcount_dec_and_test(&cg->refcount))
		free_css_group_locked(cg);
	spin_unlock(&css_group_lock);
}

static unsigned long css_group_key(struct container_subsys_state **subsys)
{
	unsigned long key = 0;
	int i;

	for (i = 0; i < CONTAINER_SUBSYS_COUNT; i++)
		key += (unsigned long)subsys[i];
	return key;
}

/*
 * Is @cg what a task of @oldcg gets by moving to @cont?  Compares the
 * container of every hierarchy; css_group_lock held.
 */
static bool css_group_matches(struct css_group *cg, struct css_group *oldcg,
			      struct container *cont,
			      struct container_subsys_state **tmpl)
{
	struct cg_link *link;

	if (memcmp(cg->subsys, tmpl, sizeof(cg->subsys)))
		return false;
	list_for_each_entry(link, &cg->links, cg_node) {
		struct container_root *root = link->cont->root;
		struct container *want;

		want = root == cont->root ? cont : cg_container(oldcg, root);
		if (link->cont != want)
			return false;
	}
	return true;
}

/**
 * find_css_group - the css_group a task of @oldcg gets by moving to @cont
 * @oldcg: the task's current css_group
 * @cont: the container it moves to
 *
 * Context: container_mutex held; may sleep.
 * Return: a css_group with a reference for the caller, or ERR_PTR(-ENOMEM).
 */
static struct css_group *find_css_group(struct css_group *oldcg,
					struct container *cont)
{
	struct container_subsys_state *tmpl[CONTAINER_SUBSYS_COUNT];
	struct container_root *root = cont->root, *r;
	struct cg_link *link, *tmp;
	struct css_group *cg;
	unsigned long key;
	LIST_HEAD(links);
	int i;

	lockdep_assert_held(&container_mutex);
	for (i = 0; i < CONTAINER_SUBSYS_COUNT; i++)
		tmpl[i] = root->subsys_mask & BIT(i) ? cont->subsys[i] :
						       oldcg->subsys[i];
	key = css_group_key(tmpl);

	spin_lock(&css_group_lock);
	hash_for_each_possible(css_group_table, cg, hlist, key) {
		if (css_group_matches(cg, oldcg, cont, tmpl)) {
			refcount_inc(&cg->refcount);
			spin_unlock(&css_group_lock);
			return cg;
		}
	}
	spin_unlock(&css_group_lock);

	cg = kzalloc(sizeof(*cg), GFP_KERNEL);
	if (!cg)
		return ERR_PTR(-ENOMEM);
	list_for_each_entry(r, &container_roots, list) {
		link = kzalloc(sizeof(*link), GFP_KERNEL);
		if (!link)
			goto err_free;
		link->cont = r == root ? cont : cg_container(oldcg, r);
		link->cg = cg;
		list_add_tail(&link->cg_node, &links);
	}
	refcount_set(&cg->refcount, 1);
	INIT_LIST_HEAD(&cg->tasks);
	INIT_LIST_HEAD(&cg->links);
	memcpy(cg->subsys, tmpl, sizeof(cg->subsys));

	spin_lock(&css_group_lock);
	cg->id = css_group_next_id++;
	list_splice(&links, &cg->links);
	list_for_each_entry(link, &cg->links, cg_node) {
		list_add_tail(&link->cont_node, &link->cont->css_groups);
		link->cont->nr_css_groups++;
	}
	hash_add(css_group_table, &cg->hlist, key);
	nr_css_groups++;
	spin_unlock(&css_group_lock);
	return cg;

err_free:
	list_for_each_entry_safe(link, tmp, &links, cg_node)
		kfree(link);
	kfree(cg);
	return ERR_PTR(-ENOMEM);
}

static void container_put(struct container *cont);

static void container_destroy_work(struct work_struct *work)
{
	struct container *cont = container_of(to_rcu_work(work),
					      struct container, destroy_rwork);
	struct container *parent = cont->parent;
	bool pinned = test_bit(CONT_PINS_PARENT, &cont->flags);
	int i;

	for (i = 0; i < CONTAINER_SUBSYS_COUNT; i++)
		if (cont->subsys[i])
			container_subsys[i]->destroy(cont->subsys[i]);
	kernfs_put(cont->kn);
	kfree(cont);
	/*
	 * Our destroy callbacks may hand things to the parent's states.  The
	 * top is not pinned (its hierarchy may be gone by now: do not even
	 * look at it).
	 */
	if (pinned)
		container_put(parent);
}

static void container_put(struct container *cont)
{
	if (refcount_dec_and_test(&cont->refcnt))
		queue_rcu_work(system_wq, &cont->destroy_rwork);
}

static void init_container(struct container *cont, struct container_root *root,
			   struct container *parent)
{
	refcount_set(&cont->refcnt, 1);
	cont->root = root;
	cont->parent = parent;
	INIT_LIST_HEAD(&cont->sibling);
	INIT_LIST_HEAD(&cont->children);
	INIT_LIST_HEAD(&cont->css_groups);
	INIT_LIST_HEAD(&cont->release_node);
	INIT_RCU_WORK(&cont->destroy_rwork, container_destroy_work);
}

/**
 * container_lock - keep containers from being made or removed
 *
 * For code outside the core that changes something of every subsystem
 * state and must not miss one being made meanwhile (the multi-gen LRU's
 * switch, in mm/vmscan.c, converts each memory container's lruvecs).
 *
 * Context: process context; taken outside cpus_read_lock() and the memory
 * hotplug lock.
 */
void container_lock(void)
{
	mutex_lock(&container_mutex);
}

/**
 * container_unlock - undo container_lock()
 */
void container_unlock(void)
{
	mutex_unlock(&container_mutex);
}

/**
 * container_kn_lock_live - lock container_mutex from a kernfs callback
 * @kn: a container's directory, or one of its files
 *
 * Breaks the active protection of @kn (so that rmdir, which removes kernfs
 * nodes under container_mutex, cannot deadlock against us), takes
 * container_mutex and checks that what the caller relies on is still
 * there: the container was not removed, and for a subsystem's file, the
 * subsystem is still bound to the hierarchy (a remount may have unbound
 * it and removed the file meanwhile; its state is then gone from the
 * container).
 *
 * Context: process context, from a kernfs callback on @kn.
 * Return: the container, locked; NULL if it was removed or the file's
 * subsystem unbound.
 */
struct container *container_kn_lock_live(struct kernfs_node *kn)
{
	bool is_dir = kernfs_type(kn) == KERNFS_DIR;
	struct container *cont = is_dir ? kn->priv : kn->parent->priv;
	struct container_file *cft = is_dir ? NULL : kn->priv;

	refcount_inc(&cont->refcnt);
	kernfs_break_active_protection(kn);
	mutex_lock(&container_mutex);
	if (test_bit(CONT_REMOVED, &cont->flags) ||
	    (cft && cft->ss && !cont->subsys[cft->ss->id])) {
		mutex_unlock(&container_mutex);
		kernfs_unbreak_active_protection(kn);
		container_put(cont);
		return NULL;
	}
	return cont;
}

/**
 * container_kn_unlock - undo container_kn_lock_live()
 * @kn: the node given to container_kn_lock_live()
 */
void container_kn_unlock(struct kernfs_node *kn)
{
	struct container *cont = kernfs_type(kn) == KERNFS_DIR ?
				 kn->priv : kn->parent->priv;

	mutex_unlock(&container_mutex);
	kernfs_unbreak_active_protection(kn);
	container_put(cont);
}

/**
 * container_task_count - number of tasks in a container
 * @cont: the container
 *
 * Return: the count, which may be stale by the time it is used.
 */
int container_task_count(const struct container *cont)
{
	struct cg_link *link;
	struct task_struct *t;
	int n = 0;

	spin_lock(&css_group_lock);
	list_for_each_entry(link, &cont->css_groups, cont_node)
		list_for_each_entry(t, &link->cg->tasks, container_node)
			n++;
	spin_unlock(&css_group_lock);
	return n;
}

/**
 * container_css_group_count - the number of css_groups in the system
 *
 * For the debug subsystem: tests check that it returns to where it was.
 *
 * Return: the count, init_css_group included.
 */
int container_css_group_count(void)
{
	int n;

	spin_lock(&css_group_lock);
	n = nr_css_groups;
	spin_unlock(&css_group_lock);
	return n;
}

/**
 * container_is_releasable - would the release agent run for @cont now?
 * @cont: the container
 *
 * Return: true if @cont has notify_on_release set, no tasks and no children.
 */
bool container_is_releasable(const struct container *cont)
{
	bool ret;

	spin_lock(&css_group_lock);
	ret = test_bit(CONT_NOTIFY_ON_RELEASE, &cont->flags) && cont->parent &&
	      !cont->nr_css_groups && list_empty(&cont->children);
	spin_unlock(&css_group_lock);
	return ret;
}

/*
 * Control files.
 */

static struct container *of_container(struct kernfs_open_file *of)
{
	return of->kn->parent->priv;
}

/**
 * of_subsys_state - the subsystem state behind an open control file
 * @of: the open file
 *
 * Return: the state, or NULL for a file of the core.
 */
struct container_subsys_state *of_subsys_state(struct kernfs_open_file *of)
{
	struct container_file *cft = of->kn->priv;

	return cft->ss ? of_container(of)->subsys[cft->ss->id] : NULL;
}

/**
 * seq_subsys_state - the subsystem state behind a control file being read
 * @sf: the seq_file given to a seq_show callback
 *
 * Return: the state, or NULL for a file of the core.
 */
struct container_subsys_state *seq_subsys_state(struct seq_file *sf)
{
	return of_subsys_state(sf->private);
}

static int container_seqfile_show(struct seq_file *sf, void *v)
{
	struct kernfs_open_file *of = sf->private;
	struct container_file *cft = of->kn->priv;

	if (cft->seq_show)
		return cft->seq_show(sf, v);
	if (cft->read_u64)
		seq_printf(sf, "%llu\n", cft->read_u64(of_subsys_state(of), cft));
	else if (cft->read_s64)
		seq_printf(sf, "%lld\n", cft->read_s64(of_subsys_state(of), cft));
	else
		return -EINVAL;
	return 0;
}

static ssize_t container_file_write(struct kernfs_open_file *of, char *buf,
				    size_t nbytes, loff_t off)
{
	struct container_file *cft = of->kn->priv;
	int ret;

	/*
	 * One value per write(2), as text from the start of the file: a
	 * write at an offset (the rest of a split write) or with a NUL
	 * byte in it is refused rather than half understood.
	 */
	if (off || strnlen(buf, nbytes) != nbytes)
		return -EINVAL;
	if (cft->write)
		return cft->write(of, buf, nbytes, off);

	buf = strstrip(buf);
	if (cft->write_u64) {
		u64 v;

		ret = kstrtoull(buf, 0, &v) ? -EINVAL :
		      cft->write_u64(of_subsys_state(of), cft, v);
	} else if (cft->write_s64) {
		s64 v;

		ret = kstrtoll(buf, 0, &v) ? -EINVAL :
		      cft->write_s64(of_subsys_state(of), cft, v);
	} else {
		ret = -EINVAL;
	}
	return ret ?: nbytes;
}

static void *container_seqfile_start(struct seq_file *sf, loff_t *ppos)
{
	struct kernfs_open_file *of = sf->private;
	struct container_file *cft = of->kn->priv;

	return cft->seq_start(sf, ppos);
}

static void *container_seqfile_next(struct seq_file *sf, void *v, loff_t *ppos)
{
	struct kernfs_open_file *of = sf->private;
	struct container_file *cft = of->kn->priv;

	return cft->seq_next(sf, v, ppos);
}

static void container_seqfile_stop(struct seq_file *sf, void *v)
{
	struct kernfs_open_file *of = sf->private;
	struct container_file *cft = of->kn->priv;

	if (cft->seq_stop)
		cft->seq_stop(sf, v);
}

static void container_file_release(struct kernfs_open_file *of)
{
	struct container_file *cft = of->kn->priv;

	if (cft->release)
		cft->release(of);
}

/* Read-only, write-only and read-write files; iterated files are rw. */
static const struct kernfs_ops container_kf_ro_ops = {
	.seq_show = container_seqfile_show,
};

static const struct kernfs_ops container_kf_wo_ops = {
	.write = container_file_write,
};

static const struct kernfs_ops container_kf_rw_ops = {
	.seq_show = container_seqfile_show,
	.write = container_file_write,
};

static const struct kernfs_ops container_kf_seq_ops = {
	.release = container_file_release,
	.seq_start = container_seqfile_start,
	.seq_next = container_seqfile_next,
	.seq_stop = container_seqfile_stop,
	.seq_show = container_seqfile_show,
	.write = container_file_write,
};

static void container_file_name(struct container *cont,
				const struct container_file *cft, char *buf)
{
	if (cft->ss && !test_bit(ROOT_NOPREFIX, &cont->root->flags))
		snprintf(buf, MAX_CONTAINER_FILE_NAMELEN * 2, "%s.%s",
			 cft->ss->name, cft->name);
	else
		strscpy(buf, cft->name, MAX_CONTAINER_FILE_NAMELEN * 2);
}

static struct kernfs_node *container_add_file(struct container *cont,
					      struct container_file *cft)
{
	char name[MAX_CONTAINER_FILE_NAMELEN * 2];
	bool rd = cft->read_u64 || cft->read_s64 || cft->seq_show;
	bool wr = cft->write_u64 || cft->write_s64 || cft->write;
	const struct kernfs_ops *ops;
	umode_t mode = 0;

	if (cft->seq_start)
		ops = &container_kf_seq_ops;
	else if (rd && wr)
		ops = &container_kf_rw_ops;
	else if (wr)
		ops = &container_kf_wo_ops;
	else
		ops = &container_kf_ro_ops;
	if (rd)
		mode |= 0444;
	if (wr)
		mode |= 0200;

	container_file_name(cont, cft, name);
	return __kernfs_create_file(cont->kn, name, mode, current_fsuid(),
				    current_fsgid(), 0, ops, cft, NULL,
				    IS_ENABLED(CONFIG_DEBUG_LOCK_ALLOC) ?
				    &cft->lockdep_key : NULL);
}

static bool container_file_wanted(struct container *cont,
				  const struct container_file *cft)
{
	if ((cft->flags & CONTAINER_FILE_ONLY_ON_ROOT) && cont->parent)
		return false;
	if ((cft->flags & CONTAINER_FILE_NOT_ON_ROOT) && !cont->parent)
		return false;
	return true;
}

static int container_add_files(struct container *cont,
			       struct container_file *files)
{
	struct container_file *cft;
	struct kernfs_node *kn;

	for (cft = files; cft && cft->name[0]; cft++) {
		if (!container_file_wanted(cont, cft))
			continue;
		kn = container_add_file(cont, cft);
		if (IS_ERR(kn))
			return PTR_ERR(kn);
	}
	return 0;
}

static void container_rm_files(struct container *cont,
			       struct container_file *files)
{
	char name[MAX_CONTAINER_FILE_NAMELEN * 2];
	struct container_file *cft;

	for (cft = files; cft && cft->name[0]; cft++) {
		container_file_name(cont, cft, name);
		kernfs_remove_by_name(cont->kn, name);
	}
}

/* Create the files of @cont: those of the core and of bound subsystems. */
static int container_populate(struct container *cont)
{
	struct container_subsys *ss;
	unsigned long mask = cont->root->subsys_mask;
	int i, ret;

	ret = container_add_files(cont, core_files);
	if (ret)
		return ret;
	for_each_subsys_in(ss, i, mask) {
		ret = container_add_files(cont, ss->files);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Directories: mkdir, rmdir, rename.
 */

/* Fill in the core's part of a state @ss->create() returned for @cont. */
static void init_css(struct container_subsys_state *css,
		     struct container_subsys *ss, struct container *cont,
		     struct container_subsys_state *parent)
{
	css->container = cont;
	css->ss = ss;
	css->parent = parent;
	INIT_LIST_HEAD(&css->sibling);
	INIT_LIST_HEAD(&css->children);
}

static void free_subsys_states(struct container *cont)
{
	int i;

	for (i = 0; i < CONTAINER_SUBSYS_COUNT; i++) {
		if (cont->subsys[i])
			container_subsys[i]->destroy(cont->subsys[i]);
		cont->subsys[i] = NULL;
	}
}

static struct container *container_create(struct container *parent,
					  const char *name)
{
	struct container_root *root = parent->root;
	unsigned long mask = root->subsys_mask;
	struct container_subsys *ss;
	struct container *cont;
	struct kernfs_node *kn;
	int i, ret;

	lockdep_assert_held(&container_mutex);
	cont = kzalloc(sizeof(*cont), GFP_KERNEL);
	if (!cont)
		return ERR_PTR(-ENOMEM);
	init_container(cont, root, parent);

	for_each_subsys_in(ss, i, mask) {
		struct container_subsys_state *css;

		css = ss->create(parent->subsys[i]);
		if (IS_ERR(css)) {
			ret = PTR_ERR(css);
			goto err_free;
		}
		init_css(css, ss, cont, parent->subsys[i]);
		cont->subsys[i] = css;
	}

	kn = kernfs_create_dir_ns(parent->kn, name, 0755, current_fsuid(),
				  current_fsgid(), cont, NULL);
	if (IS_ERR(kn)) {
		ret = PTR_ERR(kn);
		goto err_free;
	}
	cont->kn = kn;
	kernfs_get(kn);

	if (test_bit(CONT_NOTIFY_ON_RELEASE, &parent->flags))
		set_bit(CONT_NOTIFY_ON_RELEASE, &cont->flags);
	if (test_bit(CONT_CLONE_CHILDREN, &parent->flags))
		set_bit(CONT_CLONE_CHILDREN, &cont->flags);

	ret = container_populate(cont);
	if (ret)
		goto err_remove;

	if (test_bit(CONT_CLONE_CHILDREN, &parent->flags)) {
		for_each_subsys_in(ss, i, mask)
			if (ss->post_clone)
				ss->post_clone(cont->subsys[i]);
	}

	list_add_tail(&cont->sibling, &parent->children);
	for_each_subsys_in(ss, i, mask) {
		cont->subsys[i]->serial_nr = css_serial_nr_next++;
		list_add_tail_rcu(&cont->subsys[i]->sibling,
				  &parent->subsys[i]->children);
	}
	root->nr_containers++;
	/*
	 * A child pins its parent until its own states are destroyed: the
	 * memory subsystem moves a removed child's pages to the parent,
	 * which may meanwhile have been removed too.  (The top container
	 * lives as long as its hierarchy.)
	 */
	if (parent->parent) {
		refcount_inc(&parent->refcnt);
		set_bit(CONT_PINS_PARENT, &cont->flags);
	}
	kernfs_activate(kn);
	return cont;

err_remove:
	kernfs_remove(kn);
	kernfs_put(kn);
err_free:
	free_subsys_states(cont);
	kfree(cont);
	return ERR_PTR(ret);
}

/*
 * A container's name is a line of /proc/<pid>/container and an argument of
 * the release agent: no newline, and no longer than a file name.
 */
static int container_valid_name(const char *name)
{
	if (strlen(name) > NAME_MAX)
		return -ENAMETOOLONG;
	if (strchr(name, '\n'))
		return -EINVAL;
	return 0;
}

static int container_mkdir(struct kernfs_node *parent_kn, const char *name,
			   umode_t mode)
{
	struct container *parent, *cont;
	int ret = container_valid_name(name);

	if (ret)
		return ret;
	parent = container_kn_lock_live(parent_kn);
	if (!parent)
		return -ENODEV;
	cont = container_create(parent, name);
	container_kn_unlock(parent_kn);
	return PTR_ERR_OR_ZERO(cont);
}

static int container_destroy_locked(struct container *cont)
{
	struct container *parent = cont->parent;
	bool busy;
	int i;

	lockdep_assert_held(&container_mutex);
	if (!parent || !list_empty(&cont->children))
		return -EBUSY;

	spin_lock(&css_group_lock);
	busy = cont->nr_css_groups;
	if (!busy) {
		set_bit(CONT_REMOVED, &cont->flags);
		list_del_init(&cont->release_node);
	}
	spin_unlock(&css_group_lock);
	if (busy)
		return -EBUSY;

	list_del(&cont->sibling);
	/* RCU walkers may still see them: destroy waits for a grace period. */
	for (i = 0; i < CONTAINER_SUBSYS_COUNT; i++) {
		if (!cont->subsys[i])
			continue;
		/* Before the unlink: see container_css_next_child(). */
		WRITE_ONCE(cont->subsys[i]->removed, true);
		list_del_rcu(&cont->subsys[i]->sibling);
	}
	cont->root->nr_containers--;
	kernfs_remove(cont->kn);

	spin_lock(&css_group_lock);
	check_for_release(parent);
	spin_unlock(&css_group_lock);

	container_put(cont);
	return 0;
}

static int container_rmdir(struct kernfs_node *kn)
{
	struct container *cont;
	int ret;

	cont = container_kn_lock_live(kn);
	if (!cont)
		return -ENODEV;
	ret = container_destroy_locked(cont);
	container_kn_unlock(kn);
	return ret;
}

static int container_rename(struct kernfs_node *kn,
			    struct kernfs_node *new_parent, const char *new_name)
{
	int ret;

	if (kernfs_type(kn) != KERNFS_DIR)
		return -ENOTDIR;
	if (kn->parent != new_parent)
		return -EXDEV;
	ret = container_valid_name(new_name);
	if (ret)
		return ret;

	/* As in container_kn_lock_live(): rmdir waits for active refs. */
	kernfs_break_active_protection(new_parent);
	kernfs_break_active_protection(kn);
	mutex_lock(&container_mutex);
	ret = kernfs_rename(kn, new_parent, new_name);
	mutex_unlock(&container_mutex);
	kernfs_unbreak_active_protection(kn);
	kernfs_unbreak_active_protection(new_parent);
	return ret;
}

static int container_show_options(struct seq_file *sf,
				  struct kernfs_root *kf_root)
{
	struct container_root *root = kf_to_root(kf_root);
	unsigned long mask;
	struct container_subsys *ss;
	int i;

	/*
	 * Called with namespace_sem held (reading /proc/mounts): no
	 * container_mutex here, which is taken before locks that nest
	 * outside namespace_sem (cpu_hotplug_lock, slab_mutex, ...).
	 */
	mask = READ_ONCE(root->subsys_mask);
	for_each_subsys_in(ss, i, mask)
		seq_show_option(sf, ss->name, NULL);
	if (!mask)
		seq_puts(sf, ",none");
	if (test_bit(ROOT_NOPREFIX, &root->flags))
		seq_puts(sf, ",noprefix");
	if (test_bit(CONT_CLONE_CHILDREN, &root->top.flags))
		seq_puts(sf, ",clone_children");
	spin_lock(&release_agent_lock);
	if (root->release_agent[0])
		seq_show_option(sf, "release_agent", root->release_agent);
	spin_unlock(&release_agent_lock);
	if (root->name[0])
		seq_show_option(sf, "name", root->name);
	return 0;
}

static struct kernfs_syscall_ops container_kf_syscall_ops = {
	.show_options = container_show_options,
	.mkdir = container_mkdir,
	.rmdir = container_rmdir,
	.rename = container_rename,
};

/*
 * Moving tasks.
 */

struct attach_entry {
	struct task_struct *task;
	struct css_group *new_cg;
};

/**
 * struct container_migration - a move of tasks into one container
 * @cont: where they go
 * @ents: the tasks (a reference each) and, once prepared, their new
 *	css_groups (a reference each)
 * @nr: entries used in @ents
 *
 * container_attach() moves tasks in four steps: collect the threads to
 * move, prepare (ask every subsystem, find or make every css_group:
 * everything that can fail), commit (nothing can fail any more) and
 * finish (drop the references).  container_mutex and the threadgroup
 * lock are held throughout.
 */
struct container_migration {
	struct container *cont;
	struct attach_entry *ents;
	int nr;
};

/* Is @t a live thread that is not in @cont yet?  RCU read lock held. */
static bool container_attach_wanted(struct task_struct *t,
				    struct container *cont)
{
	return !(t->flags & PF_EXITING) &&
	       cg_container(task_css_group(t), cont->root) != cont;
}

/*
 * Take a reference on each thread of @leader (only @leader unless
 * @threadgroup) that is live and not in the container yet.  0 with
 * @mg->nr == 0 when there is nothing to move; -ESRCH when no thread is
 * live.
 */
static int container_migrate_collect(struct container_migration *mg,
				     struct task_struct *leader,
				     bool threadgroup)
{
	struct task_struct *t;
	bool live = false;
	int n;

	/*
	 * The threadgroup lock keeps threads from being created, from
	 * starting to exit and from exchanging the leader (de_thread()):
	 * the thread list holds at most n live threads while we look.
	 */
	n = threadgroup ? get_nr_threads(leader) : 1;
	mg->ents = kvcalloc(n, sizeof(*mg->ents), GFP_KERNEL);
	if (!mg->ents)
		return -ENOMEM;

	rcu_read_lock();
	if (threadgroup) {
		for_each_thread(leader, t) {
			if (container_attach_wanted(t, mg->cont) && mg->nr < n) {
				get_task_struct(t);
				mg->ents[mg->nr++].task = t;
			}
			if (!(t->flags & PF_EXITING))
				live = true;
		}
	} else {
		live = !(leader->flags & PF_EXITING);
		if (container_attach_wanted(leader, mg->cont)) {
			get_task_struct(leader);
			mg->ents[mg->nr++].task = leader;
		}
	}
	rcu_read_unlock();
	return live ? 0 : -ESRCH;
}

/* Everything that can fail: the subsystems' consent and the css_groups. */
static int container_migrate_prepare(struct container_migration *mg)
{
	struct container *cont = mg->cont;
	struct container_subsys *ss;
	struct css_group *cg;
	int i, j, ret;

	for (i = 0; i < mg->nr; i++) {
		for_each_subsys_in(ss, j, cont->root->subsys_mask) {
			if (!ss->can_attach)
				continue;
			ret = ss->can_attach(cont->subsys[j], mg->ents[i].task);
			if (ret)
				return ret;
		}
	}
	for (i = 0; i < mg->nr; i++) {
		cg = find_css_group(task_css_group(mg->ents[i].task), cont);
		if (IS_ERR(cg))
			return PTR_ERR(cg);
		mg->ents[i].new_cg = cg;
	}
	return 0;
}

/* Switch each task to its new css_group and tell the subsystems. */
static void container_migrate_commit(struct container_migration *mg)
{
	unsigned long mask = mg->cont->root->subsys_mask;
	struct css_group *oldcg, *cg;
	struct container_subsys *ss;
	struct task_struct *t;
	int i, j;

	for (i = 0; i < mg->nr; i++) {
		t = mg->ents[i].task;
		cg = mg->ents[i].new_cg;
		task_lock(t);
		if (t->flags & PF_EXITING) {
			task_unlock(t);
			continue;
		}
		oldcg = task_css_group(t);
		rcu_assign_pointer(t->containers, cg);
		task_unlock(t);
		mg->ents[i].new_cg = NULL;

		spin_lock(&css_group_lock);
		if (!list_empty(&t->container_node))
			list_move_tail(&t->container_node, &cg->tasks);
		spin_unlock(&css_group_lock);

		for_each_subsys_in(ss, j, mask)
			if (ss->attach)
				ss->attach(cg->subsys[j], oldcg->subsys[j], t);
		put_css_group(oldcg);
	}
}

/* Drop the references collect and prepare took (all, after a failure). */
static void container_migrate_finish(struct container_migration *mg)
{
	int i;

	for (i = 0; i < mg->nr; i++) {
		if (mg->ents[i].new_cg)
			put_css_group(mg->ents[i].new_cg);
		put_task_struct(mg->ents[i].task);
	}
	kvfree(mg->ents);
}

/*
 * Move @leader (and its threads when @threadgroup) into @cont: all of them
 * or, when a subsystem refuses or memory runs out, none.  Threads already
 * exiting stay where they are.
 */
static int container_attach(struct container *cont, struct task_struct *leader,
			    bool threadgroup)
{
	struct container_migration mg = { .cont = cont };
	int ret;

	lockdep_assert_held(&container_mutex);
	percpu_rwsem_assert_held(&container_threadgroup_rwsem);

	ret = container_migrate_collect(&mg, leader, threadgroup);
	if (!ret && mg.nr) {
		ret = container_migrate_prepare(&mg);
		if (!ret)
			container_migrate_commit(&mg);
	}
	container_migrate_finish(&mg);
	return ret;
}

/*
 * Walks of the tree of subsystem states.  Writers hold container_mutex; a
 * state is unlinked with list_del_rcu() and destroyed a grace period
 * later, so an RCU walk can go on from a state removed under it.  A walk
 * that dropped the RCU read lock since it visited @pos cannot follow
 * @pos's links if @pos was removed meanwhile (its successor may have been
 * removed and freed since); it finds its place again by @serial_nr.
 */
#define css_tree_walk_held()						\
	RCU_LOCKDEP_WARN(!rcu_read_lock_held() &&			\
			 !lockdep_is_held(&container_mutex),		\
			 "container state tree walked without RCU or container_mutex")

/**
 * container_css_next_child - the next child of a subsystem state
 * @pos: the child visited last, NULL to start
 * @parent: the state whose children are walked
 *
 * @pos need not be linked any more: a walk may drop the RCU read lock
 * between two steps if it keeps @pos and @parent from being freed.
 *
 * Context: rcu_read_lock() or container_mutex held.
 * Return: the next child, or NULL when there is none.
 */
struct container_subsys_state *
container_css_next_child(struct container_subsys_state *pos,
			 struct container_subsys_state *parent)
{
	struct container_subsys_state *next;

	css_tree_walk_held();
	if (!pos)
		return list_first_or_null_rcu(&parent->children,
					      struct container_subsys_state,
					      sibling);
	if (likely(!READ_ONCE(pos->removed)))
		return list_next_or_null_rcu(&parent->children, &pos->sibling,
					     struct container_subsys_state,
					     sibling);
	/* Siblings are linked in @serial_nr order: the first one after. */
	list_for_each_entry_rcu(next, &parent->children, sibling,
				lockdep_is_held(&container_mutex))
		if (next->serial_nr > pos->serial_nr)
			return next;
	return NULL;
}

/**
 * container_css_next_descendant_pre - walk a subtree in pre-order
 * @pos: the state visited last, NULL to start
 * @top: the root of the subtree, visited first
 *
 * Context: rcu_read_lock() or container_mutex held for the whole walk.
 * Return: the next state, or NULL when the walk is over.
 */
struct container_subsys_state *
container_css_next_descendant_pre(struct container_subsys_state *pos,
				  struct container_subsys_state *top)
{
	struct container_subsys_state *next;

	css_tree_walk_held();
	if (!pos)
		return top;
	next = container_css_next_child(NULL, pos);
	if (next)
		return next;
	for (; pos != top; pos = pos->parent) {
		next = container_css_next_child(pos, pos->parent);
		if (next)
			return next;
	}
	return NULL;
}

static struct container_subsys_state *
css_leftmost_descendant(struct container_subsys_state *pos)
{
	struct container_subsys_state *first;

	while ((first = container_css_next_child(NULL, pos)))
		pos = first;
	return pos;
}

/**
 * container_css_next_descendant_post - walk a subtree in post-order
 * @pos: the state visited last, NULL to start
 * @top: the root of the subtree, visited last
 *
 * Context: rcu_read_lock() or container_mutex held for the whole walk.
 * Return: the next state, or NULL when the walk is over.
 */
struct container_subsys_state *
container_css_next_descendant_post(struct container_subsys_state *pos,
				   struct container_subsys_state *top)
{
	struct container_subsys_state *next;

	css_tree_walk_held();
	if (!pos)
		return css_leftmost_descendant(top);
	if (pos == top)
		return NULL;
	next = container_css_next_child(pos, pos->parent);
	if (next)
		return css_leftmost_descendant(next);
	return pos->parent;
}

/**
 * container_get_tasks - take a reference on every task of a container
 * @cont: the container
 * @nr: set to the number of tasks returned
 *
 * Tasks that join @cont afterwards (by fork) are not in the array; a
 * subsystem that must see them also has a fork callback.
 *
 * Context: may sleep.
 * Return: an array for container_put_tasks() (NULL when @cont is empty),
 * or ERR_PTR(-ENOMEM).
 */
struct task_struct **container_get_tasks(struct container *cont, int *nr)
{
	struct task_struct **tasks = NULL, *t;
	struct cg_link *link;
	int n, cap = 0;

	*nr = 0;
	for (;;) {
		n = container_task_count(cont);
		if (!n)
			return NULL;
		if (n > cap) {
			kvfree(tasks);
			cap = n + n / 4 + 8;
			tasks = kvmalloc_array(cap, sizeof(*tasks), GFP_KERNEL);
			if (!tasks)
				return ERR_PTR(-ENOMEM);
		}
		n = 0;
		spin_lock(&css_group_lock);
		list_for_each_entry(link, &cont->css_groups, cont_node) {
			list_for_each_entry(t, &link->cg->tasks, container_node) {
				if (n == cap)
					goto grown;
				get_task_struct(t);
				tasks[n++] = t;
			}
		}
		spin_unlock(&css_group_lock);
		*nr = n;
		return tasks;
grown:
		spin_unlock(&css_group_lock);
		while (n)
			put_task_struct(tasks[--n]);
	}
}

/**
 * container_put_tasks - drop what container_get_tasks() returned
 * @tasks: the array (NULL or an ERR_PTR() are ignored)
 * @nr: its length
 */
void container_put_tasks(struct task_struct **tasks, int nr)
{
	if (IS_ERR_OR_NULL(tasks))
		return;
	while (nr)
		put_task_struct(tasks[--nr]);
	kvfree(tasks);
}

/* Is @css @top or a descendant of it?  css_group_lock held. */
static bool css_in_subtree(struct container_subsys_state *css,
			   struct container_subsys_state *top)
{
	struct container *cont;

	for (cont = css->container; cont; cont = cont->parent)
		if (cont->subsys[top->ss->id] == top)
			return true;
	return false;
}

/**
 * container_scan_tasks - call a function for each task of a subtree
 * @top: a subsystem state
 * @fn: called for each task whose state of @top's subsystem is @top or one
 *	below it; a non-zero return ends the scan
 * @arg: passed to @fn
 *
 * Walks the css_groups, not the containers, so that it needs no
 * container_mutex (the memory subsystem's OOM killer runs where that
 * cannot be taken).  Tasks that fork or move meanwhile may be missed.
 *
 * Context: takes css_group_lock, held while @fn runs: @fn must not sleep,
 * and may take task_lock().
 * Return: the last value @fn returned.
 */
int container_scan_tasks(struct container_subsys_state *top,
			 int (*fn)(struct task_struct *task, void *arg),
			 void *arg)
{
	struct task_struct *t;
	struct css_group *cg;
	int bkt, ret = 0;

	spin_lock(&css_group_lock);
	hash_for_each(css_group_table, bkt, cg, hlist) {
		if (!css_in_subtree(cg->subsys[top->ss->id], top))
			continue;
		list_for_each_entry(t, &cg->tasks, container_node) {
			ret = fn(t, arg);
			if (ret)
				goto out;
		}
	}
out:
	spin_unlock(&css_group_lock);
	return ret;
}

/**
 * container_move_tasks - move every task of one container to another
 * @to: the destination
 * @from: the source, in the same hierarchy
 *
 * Each thread moves on its own; one that a subsystem refuses stays.
 *
 * Context: container_mutex held; takes the threadgroup lock.
 * Return: 0, or the first error met.
 */
int container_move_tasks(struct container *to, struct container *from)
{
	struct task_struct **tasks;
	int nr, i, err, ret = 0;

	lockdep_assert_held(&container_mutex);
	if (WARN_ON_ONCE(to->root != from->root))
		return -EINVAL;
	percpu_down_write(&container_threadgroup_rwsem);
	tasks = container_get_tasks(from, &nr);
	if (IS_ERR(tasks)) {
		ret = PTR_ERR(tasks);
		goto out;
	}
	for (i = 0; i < nr; i++) {
		err = container_attach(to, tasks[i], false);
		if (err && !ret)
			ret = err;
	}
	container_put_tasks(tasks, nr);
out:
	percpu_up_write(&container_threadgroup_rwsem);
	return ret;
}

/* Let the subsystems finish what their attach callbacks queued. */
static void container_post_attach(void)
{
	struct container_subsys *ss;
	int i;

	for_each_subsys(ss, i)
		if (ss->post_attach)
			ss->post_attach();
}

/**
 * container_clone - give a task a new child container
 * @task: the task
 * @ss: a subsystem; the new container is made in its hierarchy
 * @name: the name of the new container; on a clash "-2", "-3", ... is
 *	appended
 *
 * Creates a child of @task's container in the hierarchy @ss is bound to
 * and moves @task (only this thread) into it.  Nothing is done when @ss
 * is not bound to a mounted hierarchy.
 *
 * Context: process context, no container locks held; may sleep.
 * Return: 0 or -errno; on error @task stays where it was.
 */
int container_clone(struct task_struct *task, struct container_subsys *ss,
		    const char *name)
{
	char buf[MAX_CONTAINER_CLONE_NAMELEN];
	struct container *parent, *cont;
	struct container_root *root;
	int i, ret;

	mutex_lock(&container_mutex);
	root = ss->root;
	if (root == &dummy_root) {
		ret = 0;
		goto out;
	}
	rcu_read_lock();
	parent = cg_container(task_css_group(task), root);
	rcu_read_unlock();

	strscpy(buf, name, sizeof(buf));
	for (i = 2; ; i++) {
		cont = container_create(parent, buf);
		if (!IS_ERR(cont) || PTR_ERR(cont) != -EEXIST || i > 1000)
			break;
		snprintf(buf, sizeof(buf), "%s-%d", name, i);
	}
	if (IS_ERR(cont)) {
		ret = PTR_ERR(cont);
		goto out;
	}

	percpu_down_write(&container_threadgroup_rwsem);
	ret = container_attach(cont, task, false);
	percpu_up_write(&container_threadgroup_rwsem);
	if (ret)
		container_destroy_locked(cont);
out:
	mutex_unlock(&container_mutex);
	if (!ret)
		container_post_attach();
	return ret;
}

/*
 * cgroup v1's rule: root, or the owner (uid or suid) of the target.  The
 * credentials are those of whoever opened the file, so that a privileged
 * process handed the descriptor cannot be used to move tasks.
 */
static int container_may_move(struct kernfs_open_file *of,
			      struct task_struct *task)
{
	const struct cred *cred = of->file->f_cred, *tcred;
	int ret = 0;

	if (uid_eq(cred->euid, GLOBAL_ROOT_UID))
		return 0;
	rcu_read_lock();
	tcred = __task_cred(task);
	if (!uid_eq(cred->euid, tcred->uid) && !uid_eq(cred->euid, tcred->suid))
		ret = -EACCES;
	rcu_read_unlock();
	return ret;
}

static ssize_t container_tasks_write(struct kernfs_open_file *of, char *buf,
				     size_t nbytes, loff_t off)
{
	struct container_file *cft = of->kn->priv;
	bool threadgroup = cft->private;
	struct task_struct *task;
	struct container *cont;
	pid_t pid;
	int ret;

	if (kstrtoint(strstrip(buf), 0, &pid) || pid < 0)
		return -EINVAL;

	cont = container_kn_lock_live(of->kn);
	if (!cont)
		return -ENODEV;
	percpu_down_write(&container_threadgroup_rwsem);

	rcu_read_lock();
	task = pid ? find_task_by_vpid(pid) : current;
	if (task && threadgroup)
		task = task->group_leader;
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	if (!task) {
		ret = -ESRCH;
		goto out_unlock;
	}

	/* kthreadd and threads bound to CPUs must stay where they are. */
	if (task == kthreadd_task || (task->flags & PF_NO_SETAFFINITY)) {
		ret = -EINVAL;
		goto out_put;
	}
	ret = container_may_move(of, task);
	if (!ret)
		ret = container_attach(cont, task, threadgroup);
out_put:
	put_task_struct(task);
out_unlock:
	percpu_up_write(&container_threadgroup_rwsem);
	container_kn_unlock(of->kn);
	if (!ret)
		container_post_attach();
	return ret ?: nbytes;
}

/*
 * Reading tasks and container.procs: the ids are collected and sorted when
 * reading starts at offset 0, in a kvmalloc()ed array (no high-order
 * allocation for large containers), and freed when the file is closed.
 */
struct container_pidlist {
	int n;
	pid_t pids[];
};

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

static struct container_pidlist *
container_make_pidlist(struct container *cont, bool threadgroup)
{
	struct pid_namespace *ns = task_active_pid_ns(current);
	struct container_pidlist *l;
	struct cg_link *link;
	struct task_struct *t;
	int cap, n, i;
	bool full;

	for (;;) {
		cap = container_task_count(cont) + 16;
		l = kvmalloc(struct_size(l, pids, cap), GFP_KERNEL);
		if (!l)
			return ERR_PTR(-ENOMEM);
		n = 0;
		full = false;
		spin_lock(&css_group_lock);
		list_for_each_entry(link, &cont->css_groups, cont_node) {
			list_for_each_entry(t, &link->cg->tasks, container_node) {
				pid_t pid;

				if (n == cap) {
					full = true;
					break;
				}
				pid = threadgroup ? task_tgid_nr_ns(t, ns) :
						    task_pid_nr_ns(t, ns);
				if (pid > 0)
					l->pids[n++] = pid;
			}
		}
		spin_unlock(&css_group_lock);
		if (!full)
			break;
		kvfree(l);
	}

	sort(l->pids, n, sizeof(pid_t), cmp_pid, NULL);
	if (threadgroup && n) {
		int j = 0;

		for (i = 1; i < n; i++)
			if (l->pids[i] != l->pids[j])
				l->pids[++j] = l->pids[i];
		n = j + 1;
	}
	l->n = n;
	return l;
}

static void *container_pidlist_start(struct seq_file *sf, loff_t *pos)
{
	struct kernfs_open_file *of = sf->private;
	struct container_file *cft = of->kn->priv;
	struct container_pidlist *l = of->priv;

	if (!l || !*pos) {
		kvfree(l);
		l = container_make_pidlist(of_container(of), cft->private);
		if (IS_ERR(l)) {
			of->priv = NULL;
			return l;
		}
		of->priv = l;
	}
	return *pos < l->n ? &l->pids[*pos] : NULL;
}

static void *container_pidlist_next(struct seq_file *sf, void *v, loff_t *pos)
{
	struct kernfs_open_file *of = sf->private;
	struct container_pidlist *l = of->priv;

	++*pos;
	return *pos < l->n ? &l->pids[*pos] : NULL;
}

static int container_pidlist_show(struct seq_file *sf, void *v)
{
	seq_printf(sf, "%d\n", *(pid_t *)v);
	return 0;
}

static void container_pidlist_release(struct kernfs_open_file *of)
{
	kvfree(of->priv);
}

static int container_flag_show(struct seq_file *sf, void *v)
{
	struct kernfs_open_file *of = sf->private;
	struct container_file *cft = of->kn->priv;

	seq_printf(sf, "%d\n", test_bit(cft->private, &of_container(of)->flags));
	return 0;
}

static ssize_t container_flag_write(struct kernfs_open_file *of, char *buf,
				    size_t nbytes, loff_t off)
{
	struct container_file *cft = of->kn->priv;
	struct container *cont = of_container(of);
	u64 v;

	/* As cgroup v1: any number, and anything but 0 sets the flag. */
	if (kstrtoull(strstrip(buf), 0, &v))
		return -EINVAL;
	if (v)
		set_bit(cft->private, &cont->flags);
	else
		clear_bit(cft->private, &cont->flags);
	/*
	 * As in cgroup v1, setting notify_on_release on a container that is
	 * already empty does not call the agent: only becoming empty does.
	 */
	return nbytes;
}

static int container_release_agent_show(struct seq_file *sf, void *v)
{
	struct kernfs_open_file *of = sf->private;

	mutex_lock(&container_mutex);
	seq_printf(sf, "%s\n", of_container(of)->root->release_agent);
	mutex_unlock(&container_mutex);
	return 0;
}

static ssize_t container_release_agent_write(struct kernfs_open_file *of,
					     char *buf, size_t nbytes,
					     loff_t off)
{
	struct container *cont;

	/* Both the opener and the writer must be fully privileged. */
	if (!file_ns_capable(of->file, &init_user_ns, CAP_SYS_ADMIN) ||
	    !capable(CAP_SYS_ADMIN))
		return -EPERM;
	buf = strstrip(buf);
	if (strlen(buf) >= PATH_MAX)
		return -EINVAL;

	cont = container_kn_lock_live(of->kn);
	if (!cont)
		return -ENODEV;
	spin_lock(&release_agent_lock);
	strscpy(cont->root->release_agent, buf, PATH_MAX);
	spin_unlock(&release_agent_lock);
	container_kn_unlock(of->kn);
	return nbytes;
}

static struct container_file core_files[] = {
	{
		.name = "tasks",
		.seq_start = container_pidlist_start,
		.seq_next = container_pidlist_next,
		.seq_show = container_pidlist_show,
		.release = container_pidlist_release,
		.write = container_tasks_write,
		.private = false,
	},
	{
		.name = "container.procs",
		.seq_start = container_pidlist_start,
		.seq_next = container_pidlist_next,
		.seq_show = container_pidlist_show,
		.release = container_pidlist_release,
		.write = container_tasks_write,
		.private = true,
	},
	{
		.name = "notify_on_release",
		.seq_show = container_flag_show,
		.write = container_flag_write,
		.private = CONT_NOTIFY_ON_RELEASE,
	},
	{
		.name = "container.clone_children",
		.seq_show = container_flag_show,
		.write = container_flag_write,
		.private = CONT_CLONE_CHILDREN,
	},
	{
		.name = "release_agent",
		.flags = CONTAINER_FILE_ONLY_ON_ROOT,
		.seq_show = container_release_agent_show,
		.write = container_release_agent_write,
	},
	{ }	/* terminate */
};

/*
 * The release agent.
 */

static void container_release_agent(struct work_struct *work)
{
	char *argv[3], *envp[3];
	char *path = kmalloc(PATH_MAX, GFP_KERNEL);
	char *agent = kmalloc(PATH_MAX, GFP_KERNEL);

	mutex_lock(&container_mutex);
	spin_lock(&css_group_lock);
	while (!list_empty(&release_list)) {
		struct container *cont;
		bool busy;
		int ret;

		cont = list_first_entry(&release_list, struct container,
					release_node);
		list_del_init(&cont->release_node);
		busy = cont->nr_css_groups || !list_empty(&cont->children);
		spin_unlock(&css_group_lock);

		if (busy || !path || !agent || !cont->root->release_agent[0])
			goto next;
		ret = kernfs_path_from_node(cont->kn, cont->root->top.kn, path,
					    PATH_MAX);
		if (ret < 0 || ret >= PATH_MAX)
			goto next;
		strscpy(agent, cont->root->release_agent, PATH_MAX);

		/* @cont may go away once the mutex is dropped. */
		mutex_unlock(&container_mutex);
		argv[0] = agent;
		argv[1] = path;
		argv[2] = NULL;
		envp[0] = "HOME=/";
		envp[1] = "PATH=/sbin:/bin:/usr/sbin:/usr/bin";
		envp[2] = NULL;
		call_usermodehelper(agent, argv, envp, UMH_WAIT_EXEC);
		mutex_lock(&container_mutex);
next:
		spin_lock(&css_group_lock);
	}
	spin_unlock(&css_group_lock);
	mutex_unlock(&container_mutex);
	kfree(agent);
	kfree(path);
}

/*
 * Hierarchies and the filesystem.
 */

struct container_fs_context {
	struct kernfs_fs_context kfc;	/* must be first */
	unsigned long subsys_mask;
	bool subsys_given;
	bool all;
	bool none;
	bool noprefix;
	bool clone_children;
	char *name;
	char *release_agent;
};

static struct container_fs_context *container_fc(struct fs_context *fc)
{
	return container_of(fc->fs_private, struct container_fs_context, kfc);
}

enum {
	OPT_ALL,
	OPT_NONE,
	OPT_NAME,
	OPT_NOPREFIX,
	OPT_RELEASE_AGENT,
	OPT_CLONE_CHILDREN,
};

static const struct fs_parameter_spec container_fs_parameters[] = {
	fsparam_flag("all", OPT_ALL),
	fsparam_flag("none", OPT_NONE),
	fsparam_string("name", OPT_NAME),
	fsparam_flag("noprefix", OPT_NOPREFIX),
	fsparam_string("release_agent", OPT_RELEASE_AGENT),
	fsparam_flag("clone_children", OPT_CLONE_CHILDREN),
	{}
};

static bool valid_root_name(const char *name)
{
	size_t len = strlen(name);

	if (!len || len >= MAX_CONTAINER_ROOT_NAMELEN)
		return false;
	for (; *name; name++)
		if (!isalnum(*name) && *name != '.' && *name != '-' &&
		    *name != '_')
			return false;
	return true;
}

static int container_parse_param(struct fs_context *fc,
				 struct fs_parameter *param)
{
	struct container_fs_context *ctx = container_fc(fc);
	struct fs_parse_result result;
	struct container_subsys *ss;
	int opt, i;

	opt = fs_parse(fc, container_fs_parameters, param, &result);
	if (opt == -ENOPARAM) {
		int ret = vfs_parse_fs_param_source(fc, param);

		if (ret != -ENOPARAM)
			return ret;
		for_each_subsys(ss, i) {
			if (strcmp(param->key, ss->name))
				continue;
			if (param->type != fs_value_is_flag)
				return invalfc(fc, "%s takes no value", ss->name);
			ctx->subsys_mask |= BIT(i);
			ctx->subsys_given = true;
			return 0;
		}
		return invalfc(fc, "Unknown subsystem or option '%s'",
			       param->key);
	}
	if (opt < 0)
		return opt;

	switch (opt) {
	case OPT_ALL:
		ctx->all = true;
		break;
	case OPT_NONE:
		ctx->none = true;
		break;
	case OPT_NOPREFIX:
		ctx->noprefix = true;
		break;
	case OPT_CLONE_CHILDREN:
		ctx->clone_children = true;
		break;
	case OPT_NAME:
		if (ctx->name)
			return invalfc(fc, "name= given twice");
		if (!valid_root_name(param->string))
			return invalfc(fc, "Invalid name '%s'", param->string);
		ctx->name = param->string;
		param->string = NULL;
		break;
	case OPT_RELEASE_AGENT:
		if (ctx->release_agent)
			return invalfc(fc, "release_agent= given twice");
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		if (strlen(param->string) >= PATH_MAX)
			return invalfc(fc, "release_agent path too long");
		ctx->release_agent = param->string;
		param->string = NULL;
		break;
	}
	return 0;
}

static int container_check_options(struct fs_context *fc)
{
	struct container_fs_context *ctx = container_fc(fc);

	if (ctx->all && (ctx->subsys_given || ctx->none))
		return invalfc(fc, "all cannot be combined with subsystems or none");
	if (ctx->none && ctx->subsys_given)
		return invalfc(fc, "none cannot be combined with subsystems");
	if (ctx->none && !ctx->name)
		return invalfc(fc, "none needs name=");
	return 0;
}

/*
 * Subsystems whose files may go without their prefix: as in cgroup v1,
 * cpuset alone (for the old cpuset filesystem's names), so that no two
 * files can ever want the same name.
 */
#if IS_ENABLED(CONFIG_CONTAINER_CPUSET)
#define NOPREFIX_SUBSYS_MASK	BIT(cpuset_subsys_id)
#else
#define NOPREFIX_SUBSYS_MASK	0UL
#endif

static int container_check_noprefix(struct fs_context *fc, bool noprefix,
				    unsigned long mask)
{
	if (noprefix && (mask & ~NOPREFIX_SUBSYS_MASK))
		return invalfc(fc, "noprefix is allowed with cpuset alone");
	return 0;
}

static unsigned long all_subsys_mask(void)
{
	return CONTAINER_SUBSYS_COUNT ? BIT(CONTAINER_SUBSYS_COUNT) - 1 : 0;
}

static unsigned long bound_subsys_mask(void)
{
	struct container_root *root;
	unsigned long mask = 0;

	list_for_each_entry(root, &container_roots, list)
		mask |= root->subsys_mask;
	return mask;
}

/*
 * Move the top-level states of subsystems between the dummy root and
 * @root, which has no child containers.  The states themselves stay the
 * same objects, so no css_group changes.  Files are the caller's job.
 */
static void rebind_subsystems(struct container_root *root, unsigned long mask)
{
	unsigned long removed = root->subsys_mask & ~mask;
	unsigned long added = mask & ~root->subsys_mask;
	struct container_subsys *ss;
	int i;

	lockdep_assert_held(&container_mutex);
	WARN_ON_ONCE(!list_empty(&root->top.children));

	for_each_subsys_in(ss, i, removed) {
		struct container_subsys_state *css = root->top.subsys[i];

		root->top.subsys[i] = NULL;
		dummy_root.top.subsys[i] = css;
		css->container = &dummy_root.top;
		ss->root = &dummy_root;
		if (ss->bind)
			ss->bind(css);
	}
	for_each_subsys_in(ss, i, added) {
		struct container_subsys_state *css = dummy_root.top.subsys[i];

		dummy_root.top.subsys[i] = NULL;
		root->top.subsys[i] = css;
		css->container = &root->top;
		ss->root = root;
		if (ss->bind)
			ss->bind(css);
	}
	WRITE_ONCE(root->subsys_mask, mask);
}

/* Link every css_group to the top container of a new hierarchy. */
static int link_css_groups(struct container *top)
{
	struct cg_link *link, *tmp;
	struct css_group *cg;
	LIST_HEAD(links);
	int i, n, bkt;

	lockdep_assert_held(&container_mutex);
	/* Only find_css_group() adds css_groups, under container_mutex. */
	spin_lock(&css_group_lock);
	n = nr_css_groups;
	spin_unlock(&css_group_lock);
	for (i = 0; i < n; i++) {
		link = kzalloc(sizeof(*link), GFP_KERNEL);
		if (!link)
			goto err;
		list_add(&link->cg_node, &links);
	}

	spin_lock(&css_group_lock);
	hash_for_each(css_group_table, bkt, cg, hlist) {
		link = list_first_entry(&links, struct cg_link, cg_node);
		list_move_tail(&link->cg_node, &cg->links);
		link->cg = cg;
		link->cont = top;
		list_add_tail(&link->cont_node, &top->css_groups);
		top->nr_css_groups++;
	}
	spin_unlock(&css_group_lock);
err:
	list_for_each_entry_safe(link, tmp, &links, cg_node)
		kfree(link);
	return i < n ? -ENOMEM : 0;
}

static void unlink_css_groups(struct container *top)
{
	struct cg_link *link, *tmp;

	spin_lock(&css_group_lock);
	list_for_each_entry_safe(link, tmp, &top->css_groups, cont_node) {
		list_del(&link->cont_node);
		list_del(&link->cg_node);
		kfree(link);
	}
	top->nr_css_groups = 0;
	spin_unlock(&css_group_lock);
}

static void container_destroy_root(struct container_root *root)
{
	lockdep_assert_held(&container_mutex);
	rebind_subsystems(root, 0);
	unlink_css_groups(&root->top);
	list_del(&root->list);
	kernfs_destroy_root(root->kf_root);
	ida_free(&hierarchy_ida, root->hierarchy_id);
	kfree_rcu(root, rcu);
}

/* Destroy @root if nothing uses it any more. */
static void container_put_root(struct container_root *root)
{
	lockdep_assert_held(&container_mutex);
	if (!root->nr_mounting && !root->sb && list_empty(&root->top.children))
		container_destroy_root(root);
}

static struct container_root *
container_create_root(struct container_fs_context *ctx, unsigned long mask)
{
	struct container_root *root;
	int ret;

	root = kzalloc(sizeof(*root), GFP_KERNEL);
	if (!root)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&root->list);
	init_container(&root->top, root, NULL);
	root->nr_containers = 1;
	if (ctx->noprefix)
		set_bit(ROOT_NOPREFIX, &root->flags);
	if (ctx->clone_children)
		set_bit(CONT_CLONE_CHILDREN, &root->top.flags);
	if (ctx->name)
		strscpy(root->name, ctx->name, sizeof(root->name));
	if (ctx->release_agent)
		strscpy(root->release_agent, ctx->release_agent, PATH_MAX);

	ret = ida_alloc_min(&hierarchy_ida, 1, GFP_KERNEL);
	if (ret < 0)
		goto err_free;
	root->hierarchy_id = ret;

	/*
	 * EXTRA_OPEN_PERM_CHECK: opening a read-only file for writing fails
	 * with EACCES even for root, as in cgroup.
	 */
	root->kf_root = kernfs_create_root(&container_kf_syscall_ops,
					   KERNFS_ROOT_CREATE_DEACTIVATED |
					   KERNFS_ROOT_EXTRA_OPEN_PERM_CHECK,
					   &root->top);
	if (IS_ERR(root->kf_root)) {
		ret = PTR_ERR(root->kf_root);
		goto err_ida;
	}
	root->top.kn = kernfs_root_to_node(root->kf_root);

	ret = link_css_groups(&root->top);
	if (ret)
		goto err_kf;
	rebind_subsystems(root, mask);
	ret = container_populate(&root->top);
	if (ret)
		goto err_unbind;
	list_add_tail(&root->list, &container_roots);
	kernfs_activate(root->top.kn);
	return root;

err_unbind:
	rebind_subsystems(root, 0);
	unlink_css_groups(&root->top);
err_kf:
	kernfs_destroy_root(root->kf_root);
err_ida:
	ida_free(&hierarchy_ida, root->hierarchy_id);
err_free:
	kfree(root);
	return ERR_PTR(ret);
}

/*
 * The hierarchy a mount asks for: an existing one with the same name, or
 * the same set of subsystems, or a new one.
 */
static struct container_root *container_find_root(struct fs_context *fc)
{
	struct container_fs_context *ctx = container_fc(fc);
	unsigned long bound = bound_subsys_mask();
	unsigned long all = all_subsys_mask();
	struct container_root *root;
	unsigned long mask;

	lockdep_assert_held(&container_mutex);
	list_for_each_entry(root, &container_roots, list) {
		if (ctx->name) {
			if (strcmp(ctx->name, root->name))
				continue;
			if ((ctx->subsys_given || ctx->none) &&
			    ctx->subsys_mask != root->subsys_mask) {
				errorfc(fc, "name=%s has other subsystems",
					ctx->name);
				return ERR_PTR(-EBUSY);
			}
			return root;
		}
		if (ctx->subsys_given ? ctx->subsys_mask == root->subsys_mask :
					(all && root->subsys_mask == all))
			return root;
	}

	mask = ctx->subsys_given ? ctx->subsys_mask :
	       ctx->none ? 0 : all & ~bound;
	if (!ctx->none && !mask) {
		errorfc(fc, "every subsystem is bound to another hierarchy");
		return ERR_PTR(-EBUSY);
	}
	if (mask & bound) {
		errorfc(fc, "a subsystem is bound to another hierarchy");
		return ERR_PTR(-EBUSY);
	}
	if (container_check_noprefix(fc, ctx->noprefix, mask))
		return ERR_PTR(-EINVAL);
	return container_create_root(ctx, mask);
}

static int container_get_tree(struct fs_context *fc)
{
	struct container_fs_context *ctx = container_fc(fc);
	struct container_root *root;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = container_check_options(fc);
	if (ret)
		return ret;

	mutex_lock(&container_mutex);
	root = container_find_root(fc);
	if (IS_ERR(root)) {
		mutex_unlock(&container_mutex);
		return PTR_ERR(root);
	}
	/* Keep it while kernfs may wait for a dying superblock of it. */
	root->nr_mounting++;
	mutex_unlock(&container_mutex);

	ctx->kfc.root = root->kf_root;
	ctx->kfc.magic = CONTAINER_SUPER_MAGIC;
	ret = kernfs_get_tree(fc);

	mutex_lock(&container_mutex);
	root->nr_mounting--;
	if (!ret)
		root->sb = fc->root->d_sb;
	else
		container_put_root(root);
	mutex_unlock(&container_mutex);
	return ret;
}

/*
 * Create the files of the subsystems in @mask in @cont, not yet active,
 * and return them in an array for container_put_files(); an
 * ERR_PTR() when one cannot be made, with none of them left behind.
 */
static struct kernfs_node **container_make_files(struct container *cont,
						 unsigned long mask)
{
	struct kernfs_node **kns, *kn;
	struct container_subsys *ss;
	struct container_file *cft;
	int i, n = 0, ret;

	lockdep_assert_held(&container_mutex);
	for_each_subsys_in(ss, i, mask)
		for (cft = ss->files; cft && cft->name[0]; cft++)
			n++;
	kns = kcalloc(n + 1, sizeof(*kns), GFP_KERNEL);
	if (!kns)
		return ERR_PTR(-ENOMEM);
	n = 0;
	for_each_subsys_in(ss, i, mask) {
		for (cft = ss->files; cft && cft->name[0]; cft++) {
			if (!container_file_wanted(cont, cft))
				continue;
			kn = container_add_file(cont, cft);
			if (IS_ERR(kn)) {
				ret = PTR_ERR(kn);
				goto err;
			}
			kernfs_get(kn);
			kns[n++] = kn;
		}
	}
	return kns;

err:
	while (n--) {
		kernfs_remove(kns[n]);
		kernfs_put(kns[n]);
	}
	kfree(kns);
	return ERR_PTR(ret);
}

/* Drop the array of container_make_files(), the files staying. */
static void container_put_files(struct kernfs_node **kns)
{
	struct kernfs_node **kn;

	for (kn = kns; *kn; kn++)
		kernfs_put(*kn);
	kfree(kns);
}

/*
 * Remount: bind and unbind subsystems (only while the hierarchy has no
 * child containers), set a new release agent.  All or nothing: the files
 * of added subsystems are made, inactive, before anything changes, so a
 * failure leaves the hierarchy exactly as it was.
 */
static int container_reconfigure(struct fs_context *fc)
{
	struct container_fs_context *ctx = container_fc(fc);
	struct kernfs_root *kf_root = kernfs_root_from_sb(fc->root->d_sb);
	struct container_root *root = kf_to_root(kf_root);
	unsigned long mask, added, removed;
	struct kernfs_node **kns = NULL;
	struct container_subsys *ss;
	int i, ret;

	ret = container_check_options(fc);
	if (ret)
		return ret;

	mutex_lock(&container_mutex);
	mask = ctx->subsys_given ? ctx->subsys_mask :
	       ctx->none ? 0 : root->subsys_mask;
	if (ctx->name && strcmp(ctx->name, root->name)) {
		ret = invalfc(fc, "name cannot be changed");
		goto out;
	}
	ret = container_check_noprefix(fc, ctx->noprefix ||
				       test_bit(ROOT_NOPREFIX, &root->flags),
				       mask);
	if (ret)
		goto out;
	added = mask & ~root->subsys_mask;
	removed = root->subsys_mask & ~mask;
	if (mask != root->subsys_mask) {
		if (!list_empty(&root->top.children)) {
			errorfc(fc, "the hierarchy has child containers");
			ret = -EBUSY;
			goto out;
		}
		if (added & bound_subsys_mask()) {
			errorfc(fc, "a subsystem is bound to another hierarchy");
			ret = -EBUSY;
			goto out;
		}
		kns = container_make_files(&root->top, added);
		if (IS_ERR(kns)) {
			ret = PTR_ERR(kns);
			goto out;
		}
	}
	/* Nothing below fails. */
	if (ctx->release_agent) {
		spin_lock(&release_agent_lock);
		strscpy(root->release_agent, ctx->release_agent, PATH_MAX);
		spin_unlock(&release_agent_lock);
	}
	if (mask != root->subsys_mask) {
		for_each_subsys_in(ss, i, removed)
			container_rm_files(&root->top, ss->files);
		rebind_subsystems(root, mask);
		kernfs_activate(root->top.kn);
		container_put_files(kns);
	}
out:
	mutex_unlock(&container_mutex);
	return ret;
}

static void container_fs_context_free(struct fs_context *fc)
{
	struct container_fs_context *ctx = container_fc(fc);

	kfree(ctx->name);
	kfree(ctx->release_agent);
	kernfs_free_fs_context(fc);
	kfree(ctx);
}

static const struct fs_context_operations container_fs_context_ops = {
	.free = container_fs_context_free,
	.parse_param = container_parse_param,
	.get_tree = container_get_tree,
	.reconfigure = container_reconfigure,
};

static int container_init_fs_context(struct fs_context *fc)
{
	struct container_fs_context *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	fc->fs_private = &ctx->kfc;
	fc->ops = &container_fs_context_ops;
	fc->global = true;
	return 0;
}

static void container_kill_sb(struct super_block *sb)
{
	struct kernfs_root *kf_root = kernfs_root_from_sb(sb);
	struct container_root *root = kf_to_root(kf_root);

	kernfs_kill_sb(sb);
	mutex_lock(&container_mutex);
	if (root->sb == sb)
		root->sb = NULL;
	container_put_root(root);
	mutex_unlock(&container_mutex);
}

static struct file_system_type container_fs_type = {
	.name = "container",
	.init_fs_context = container_init_fs_context,
	.parameters = container_fs_parameters,
	.kill_sb = container_kill_sb,
};

/*
 * Fork and exit.
 */

/**
 * container_fork - initialize the container fields of a new task
 * @child: the task being created
 *
 * Context: copy_process(), before anything can fail.
 */
void container_fork(struct task_struct *child)
{
	RCU_INIT_POINTER(child->containers, &init_css_group);
	INIT_LIST_HEAD(&child->container_node);
}

/**
 * container_can_fork - pin the parent's containers for a new task
 * @child: the task being created
 *
 * Takes the threadgroup lock for reading until container_post_fork() or
 * container_cancel_fork(), gives @child a reference to the parent's
 * css_group and asks the subsystems that care whether the fork may go on.
 *
 * Context: copy_process(); may sleep.
 * Return: 0, or the -errno of the subsystem that refused.
 */
int container_can_fork(struct task_struct *child)
{
	struct container_subsys *ss;
	struct css_group *cg;
	int i, j, ret;

	percpu_down_read(&container_threadgroup_rwsem);
	cg = task_css_group(current);
	refcount_inc(&cg->refcount);
	RCU_INIT_POINTER(child->containers, cg);

	for_each_subsys_in(ss, i, have_can_fork) {
		ret = ss->can_fork(cg->subsys[i], child);
		if (ret)
			goto err;
	}
	return 0;

err:
	for_each_subsys_in(ss, j, have_can_fork) {
		if (j >= i)
			break;
		if (ss->cancel_fork)
			ss->cancel_fork(cg->subsys[j], child);
	}
	RCU_INIT_POINTER(child->containers, &init_css_group);
	percpu_up_read(&container_threadgroup_rwsem);
	put_css_group(cg);
	return ret;
}

/**
 * container_cancel_fork - undo container_can_fork() for a failed fork
 * @child: the task that will not be
 */
void container_cancel_fork(struct task_struct *child)
{
	struct css_group *cg = task_css_group(child);
	struct container_subsys *ss;
	int i;

	for_each_subsys_in(ss, i, have_can_fork)
		if (ss->cancel_fork)
			ss->cancel_fork(cg->subsys[i], child);
	RCU_INIT_POINTER(child->containers, &init_css_group);
	percpu_up_read(&container_threadgroup_rwsem);
	put_css_group(cg);
}

/**
 * container_post_fork - make a new task a member of its containers
 * @child: the new task, now visible
 */
void container_post_fork(struct task_struct *child)
{
	struct css_group *cg = task_css_group(child);
	struct container_subsys *ss;
	int i;

	spin_lock(&css_group_lock);
	list_add_tail(&child->container_node, &cg->tasks);
	spin_unlock(&css_group_lock);

	for_each_subsys_in(ss, i, have_fork)
		ss->fork(child);
	percpu_up_read(&container_threadgroup_rwsem);
}

/**
 * container_exit - take an exiting task out of its containers
 * @task: the exiting task (current)
 *
 * The task is left pointing at init_css_group without a reference.
 */
void container_exit(struct task_struct *task)
{
	struct container_subsys *ss;
	struct css_group *cg;
	int i;

	percpu_down_read(&container_threadgroup_rwsem);
	cg = task_css_group(task);
	for_each_subsys_in(ss, i, have_exit)
		ss->exit(task);
	if (!list_empty(&task->container_node)) {
		spin_lock(&css_group_lock);
		list_del_init(&task->container_node);
		spin_unlock(&css_group_lock);
	}
	task_lock(task);
	rcu_assign_pointer(task->containers, &init_css_group);
	task_unlock(task);
	percpu_up_read(&container_threadgroup_rwsem);
	put_css_group(cg);
}

/*
 * /proc/<pid>/container and /proc/containers
 */

static void show_root_subsys(struct seq_file *m, struct container_root *root)
{
	unsigned long mask = root->subsys_mask;
	struct container_subsys *ss;
	const char *sep = "";
	int i;

	for_each_subsys_in(ss, i, mask) {
		seq_printf(m, "%s%s", sep, ss->name);
		sep = ",";
	}
	if (root->name[0])
		seq_printf(m, "%sname=%s", sep, root->name);
}

/*
 * The task whose containers /proc/<pid>/container shows for @task: itself,
 * unless it is a thread group leader that has exited while other threads
 * live on.  It then left its containers, but its pid still names the
 * process, which is where its live threads are (and is listed in their
 * container.procs).  RCU read lock held.
 */
static struct task_struct *proc_container_task(struct task_struct *task)
{
	struct task_struct *t;

	if (!(task->flags & PF_EXITING) || !thread_group_leader(task))
		return task;
	for_each_thread(task, t)
		if (!(t->flags & PF_EXITING))
			return t;
	return task;
}

/**
 * proc_container_show - print /proc/<pid>/container
 * @m: the seq_file
 * @ns: the pid namespace of the proc mount
 * @pid: the pid of @task
 * @task: the task
 *
 * One line per mounted hierarchy, "ID:SUBSYSTEMS:PATH", as cgroup v1's
 * /proc/<pid>/cgroup.
 *
 * Return: 0 or -ENOMEM.
 */
int proc_container_show(struct seq_file *m, struct pid_namespace *ns,
			struct pid *pid, struct task_struct *task)
{
	struct container_root *root;
	struct css_group *cg;
	char *buf;

	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;

	mutex_lock(&container_mutex);
	spin_lock(&css_group_lock);
	rcu_read_lock();
	cg = task_css_group(proc_container_task(task));
	list_for_each_entry(root, &container_roots, list) {
		struct container *cont = cg_container(cg, root);
		int ret;

		seq_printf(m, "%d:", root->hierarchy_id);
		show_root_subsys(m, root);
		ret = kernfs_path_from_node(cont->kn, root->top.kn, buf,
					    PATH_MAX);
		seq_printf(m, ":%s\n", ret < 0 || ret >= PATH_MAX ? "?" : buf);
	}
	rcu_read_unlock();
	spin_unlock(&css_group_lock);
	mutex_unlock(&container_mutex);
	kfree(buf);
	return 0;
}

static int proc_containers_show(struct seq_file *m, void *v)
{
	struct container_subsys *ss;
	int i;

	seq_puts(m, "#subsys_name\thierarchy\tnum_containers\tenabled\n");
	mutex_lock(&container_mutex);
	for_each_subsys(ss, i)
		seq_printf(m, "%s\t%d\t%d\t1\n", ss->name,
			   ss->root->hierarchy_id, ss->root->nr_containers);
	mutex_unlock(&container_mutex);
	return 0;
}

/**
 * container_init - set up the subsystems and register the filesystem
 *
 * Context: start_kernel(), before the first fork.
 */
void __init container_init(void)
{
	struct container_subsys *ss;
	struct container_file *cft;
	int i;

	init_container(&dummy_root.top, &dummy_root, NULL);
	dummy_root.nr_containers = 1;
	INIT_LIST_HEAD(&dummy_root.list);

	for_each_subsys(ss, i) {
		struct container_subsys_state *css;

		ss->id = i;
		ss->root = &dummy_root;
		css = ss->create(NULL);
		if (IS_ERR(css))
			panic("container: no memory for the top state of %s\n",
			      ss->name);
		init_css(css, ss, &dummy_root.top, NULL);
		dummy_root.top.subsys[i] = css;
		init_css_group.subsys[i] = css;
		for (cft = ss->files; cft && cft->name[0]; cft++)
			cft->ss = ss;
		if (ss->can_fork)
			have_can_fork |= BIT(i);
		if (ss->fork)
			have_fork |= BIT(i);
		if (ss->exit)
			have_exit |= BIT(i);
	}
	hash_add(css_group_table, &init_css_group.hlist,
		 css_group_key(init_css_group.subsys));

	WARN_ON(register_filesystem(&container_fs_type));
	proc_create_single("containers", 0444, NULL, proc_containers_show);
}
