/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Generic process containers: group tasks into hierarchies of containers,
 * each hierarchy a mount of the "container" filesystem with a set of
 * subsystems bound to it.  See Documentation/admin-guide/containers.rst.
 *
 * (Not to be confused with <linux/container.h>, the ACPI container bus.)
 */
#ifndef _LINUX_CONTAINERS_H
#define _LINUX_CONTAINERS_H

#include <linux/bits.h>
#include <linux/types.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/workqueue.h>
#include <linux/lockdep_types.h>
#include <linux/percpu-rwsem.h>

struct container;
struct container_root;
struct container_subsys;
struct kernfs_open_file;
struct seq_file;
struct pid_namespace;
struct pid;

#ifdef CONFIG_CONTAINERS

/* Subsystem ids: one per SUBSYS() line of <linux/container_subsys.h>. */
#define SUBSYS(_x) _x ## _subsys_id,
enum container_subsys_id {
#include <linux/container_subsys.h>
	CONTAINER_SUBSYS_COUNT,
};

#undef SUBSYS

/**
 * struct container_subsys_state - a subsystem's state in one container
 * @container: the container this state belongs to
 * @ss: the subsystem this is a state of
 * @parent: the state of the parent container, NULL at the top
 * @sibling: entry in @parent's @children
 * @children: the states of the child containers, oldest first
 * @serial_nr: when the state was linked into the tree (container_mutex);
 *	orders siblings, so that a walk can go on from a removed one
 * @removed: set when the state is unlinked from the tree
 *
 * Subsystems embed this in their own per-container structure and get back
 * to it with container_of().  The state of a hierarchy's root container is
 * created once at boot and moves between the root of the hierarchy the
 * subsystem is bound to and the dummy root that holds unbound subsystems.
 *
 * The core maintains the tree of states: a state is linked into its
 * parent's @children once its container is complete, and unlinked when the
 * container is removed; the subsystem's destroy callback runs an RCU grace
 * period later.  @children is an RCU list changed under container_mutex,
 * so the walks below need only rcu_read_lock() (or container_mutex, to
 * sleep inside them).  @parent never changes.  A walk may also drop the
 * RCU read lock between two steps, if it keeps the state it visited last
 * from being freed (the subsystem's own reference): a step from a state
 * removed meanwhile goes on with the first sibling linked after it.
 */
struct container_subsys_state {
	struct container *container;
	struct container_subsys *ss;
	struct container_subsys_state *parent;
	struct list_head sibling;
	struct list_head children;
	u64 serial_nr;
	bool removed;
};

/* bits in container.flags */
enum {
	CONT_REMOVED,		/* rmdir'ed, waiting for its RCU grace period */
	CONT_NOTIFY_ON_RELEASE,	/* run the release agent when it empties */
	CONT_CLONE_CHILDREN,	/* new children copy their parent's config */
	CONT_PINS_PARENT,	/* holds its parent (not the top) until freed */
};

/**
 * struct container - one node of a hierarchy
 * @flags: CONT_* bits, changed with atomic bitops
 * @refcnt: one reference until rmdir, plus those of kernfs callbacks that
 *	dropped active protection; the container is freed at zero
 * @kn: the directory of this container
 * @root: the hierarchy this container belongs to
 * @parent: the parent container, NULL for a hierarchy's top container
 * @sibling: entry in @parent's @children, protected by container_mutex
 * @children: child containers, protected by container_mutex
 * @subsys: the state of each subsystem bound to @root, NULL for the others
 * @css_groups: links to the css_groups that use this container, protected
 *	by css_group_lock
 * @nr_css_groups: number of entries in @css_groups; a container with none
 *	has no tasks
 * @release_node: entry in the release agent's work list (css_group_lock)
 * @destroy_rwork: frees the container after an RCU grace period
 */
struct container {
	unsigned long flags;
	refcount_t refcnt;
	struct kernfs_node *kn;
	struct container_root *root;
	struct container *parent;
	struct list_head sibling;
	struct list_head children;
	struct container_subsys_state *subsys[CONTAINER_SUBSYS_COUNT];
	struct list_head css_groups;
	int nr_css_groups;
	struct list_head release_node;
	struct rcu_work destroy_rwork;
};

/**
 * struct css_group - the subsystem states a set of tasks belongs to
 * @refcount: one per task using it, plus temporary references
 * @hlist: entry in the css_group hash table, keyed by @subsys
 * @tasks: the tasks using this css_group (css_group_lock)
 * @links: one link per mounted hierarchy to the container this css_group
 *	belongs to there; changed only under container_mutex
 * @subsys: the state of every subsystem; never changes once published
 * @id: a unique number, for the debug subsystem
 * @rcu_head: for freeing after a grace period
 *
 * Tasks with the same membership in every hierarchy share one css_group,
 * so fork only takes a reference.  A task's pointer to its css_group
 * (task_struct.containers) is RCU protected.
 */
struct css_group {
	refcount_t refcount;
	struct hlist_node hlist;
	struct list_head tasks;
	struct list_head links;
	struct container_subsys_state *subsys[CONTAINER_SUBSYS_COUNT];
	u64 id;
	struct rcu_head rcu_head;
};

extern struct css_group init_css_group;

/* container_file.flags */
#define CONTAINER_FILE_ONLY_ON_ROOT	BIT(0)
#define CONTAINER_FILE_NOT_ON_ROOT	BIT(1)

#define MAX_CONTAINER_FILE_NAMELEN	64

/**
 * struct container_file - a control file of a subsystem (or of the core)
 * @name: file name without the subsystem prefix
 * @flags: CONTAINER_FILE_* flags
 * @private: free for the subsystem
 * @read_u64: read a number; the core prints it
 * @read_s64: read a signed number; the core prints it
 * @seq_show: print the file with seq_file; get the state with seq_subsys_state()
 * @write_u64: the core parses a number (decimal, 0x hex, 0 octal) for it
 * @write_s64: the core parses a signed number for it
 * @write: take the raw buffer (NUL-terminated); return bytes used or -errno
 * @seq_start: with @seq_next/@seq_stop, iterate for @seq_show
 * @seq_next: see @seq_start
 * @seq_stop: see @seq_start
 * @release: called when an open file is released
 * @ss: the owning subsystem, set by the core (NULL for core files)
 * @lockdep_key: lockdep class of the file's active references
 *
 * A subsystem lists its files in a { }-terminated array.  The file mode is
 * derived from which callbacks exist.  Handlers run with the container's
 * directory alive; those that need container_mutex take it with
 * container_kn_lock_live().
 */
struct container_file {
	char name[MAX_CONTAINER_FILE_NAMELEN];
	unsigned int flags;
	unsigned long private;

	u64 (*read_u64)(struct container_subsys_state *css,
			struct container_file *cft);
	s64 (*read_s64)(struct container_subsys_state *css,
			struct container_file *cft);
	int (*seq_show)(struct seq_file *sf, void *v);
	int (*write_u64)(struct container_subsys_state *css,
			 struct container_file *cft, u64 val);
	int (*write_s64)(struct container_subsys_state *css,
			 struct container_file *cft, s64 val);
	ssize_t (*write)(struct kernfs_open_file *of, char *buf, size_t nbytes,
			 loff_t off);
	void *(*seq_start)(struct seq_file *sf, loff_t *ppos);
	void *(*seq_next)(struct seq_file *sf, void *v, loff_t *ppos);
	void (*seq_stop)(struct seq_file *sf, void *v);
	void (*release)(struct kernfs_open_file *of);

	struct container_subsys *ss;
	struct lock_class_key lockdep_key;
};

/**
 * struct container_subsys - a resource controller or other client
 * @create: allocate the state for a new container whose parent has
 *	@parent_css (NULL for the root state, created once at boot).
 *	Return the state or an ERR_PTR().  Called under container_mutex.
 * @destroy: free a state; called from a workqueue after an RCU grace
 *	period once its container is gone.
 * @post_clone: a new container of a clone_children parent: copy the
 *	parent's configuration.  container_mutex held.
 * @can_attach: may @task move into @css?  Return 0 or -errno.
 *	container_mutex and the threadgroup lock held.  Must change
 *	nothing (hence the const state): when a later check fails, the
 *	move is abandoned without any callback.
 * @attach: @task moved from @old_css to @css.  Same locks.
 * @post_attach: a write to tasks or container.procs (or a clone) that
 *	moved tasks is done; no container lock held, so it may wait for
 *	work that @attach queued (cpuset's page migration).
 * @can_fork: the forking task's @css is about to get @child; return 0 or
 *	-errno (the fork then fails).  Called without container_mutex.
 * @cancel_fork: undo @can_fork after a later fork failure.
 * @fork: @child is now visible in its containers.
 * @exit: @task is exiting; its states are still those of @task.
 * @bind: @root_css moved between the dummy root and a real hierarchy.
 *	container_mutex held.
 * @name: name in mount options and file prefixes
 * @files: the control files, { }-terminated
 * @id: index in css_group.subsys (set by the core)
 * @root: the hierarchy it is bound to, the dummy root when unbound
 *	(container_mutex)
 *
 * Callbacks not needed may be left NULL; fork and exit callbacks cost
 * nothing on those paths unless defined.
 */
struct container_subsys {
	struct container_subsys_state *(*create)(struct container_subsys_state *parent_css);
	void (*destroy)(struct container_subsys_state *css);
	void (*post_clone)(struct container_subsys_state *css);
	int (*can_attach)(const struct container_subsys_state *css,
			  struct task_struct *task);
	void (*attach)(struct container_subsys_state *css,
		       struct container_subsys_state *old_css,
		       struct task_struct *task);
	void (*post_attach)(void);
	int (*can_fork)(struct container_subsys_state *css,
			struct task_struct *child);
	void (*cancel_fork)(struct container_subsys_state *css,
			    struct task_struct *child);
	void (*fork)(struct task_struct *child);
	void (*exit)(struct task_struct *task);
	void (*bind)(struct container_subsys_state *root_css);

	const char *name;
	struct container_file *files;

	int id;
	struct container_root *root;
};

/*
 * Declares every subsystem in one declaration,
 * "extern struct container_subsys cpuset_subsys, ..., container_subsys_end;"
 * (container_subsys_end only ends the list: it is never defined).
 */
#define SUBSYS(_x) _x ## _subsys,
extern struct container_subsys
#include <linux/container_subsys.h>
	container_subsys_end;
#undef SUBSYS

/**
 * task_subsys_state - a task's state for one subsystem
 * @task: the task
 * @id: the subsystem's id (x_subsys_id)
 *
 * Context: under rcu_read_lock(), or with @task == current in a fork or
 * exit callback, or with container_mutex held.
 * Return: the state; stays valid until the RCU read section ends.
 */
static inline struct container_subsys_state *
task_subsys_state(struct task_struct *task, int id)
{
	return rcu_dereference_check(task->containers,
				     lockdep_is_held(&task->alloc_lock))->subsys[id];
}

/**
 * css_parent - the state of the parent container
 * @css: a subsystem state
 *
 * Return: the parent's state for the same subsystem, NULL at the top.
 */
static inline struct container_subsys_state *
css_parent(struct container_subsys_state *css)
{
	return css->parent;
}

/**
 * container_css_is_descendant - is a state in a subtree?
 * @css: a subsystem state
 * @top: the root of the subtree (a state of the same subsystem)
 *
 * Context: the caller keeps @css alive (RCU, or a reference).
 * Return: true if @css is @top or one of its descendants.
 */
static inline bool
container_css_is_descendant(struct container_subsys_state *css,
			    struct container_subsys_state *top)
{
	for (; css; css = css->parent)
		if (css == top)
			return true;
	return false;
}

void container_lock(void);
void container_unlock(void);
struct container_subsys_state *seq_subsys_state(struct seq_file *sf);
struct container_subsys_state *of_subsys_state(struct kernfs_open_file *of);
struct container *container_kn_lock_live(struct kernfs_node *kn);
void container_kn_unlock(struct kernfs_node *kn);
int container_task_count(const struct container *cont);
bool container_is_releasable(const struct container *cont);
int container_css_group_count(void);
struct container_subsys_state *
container_css_next_child(struct container_subsys_state *pos,
			 struct container_subsys_state *parent);
struct container_subsys_state *
container_css_next_descendant_pre(struct container_subsys_state *pos,
				  struct container_subsys_state *top);
struct container_subsys_state *
container_css_next_descendant_post(struct container_subsys_state *pos,
				   struct container_subsys_state *top);
struct task_struct **container_get_tasks(struct container *cont, int *nr);
void container_put_tasks(struct task_struct **tasks, int nr);
int container_move_tasks(struct container *to, struct container *from);

#define MAX_CONTAINER_CLONE_NAMELEN	32
int container_clone(struct task_struct *task, struct container_subsys *ss,
		    const char *name);

/**
 * container_for_each_child - visit the children of a subsystem state
 * @pos: the cursor, a pointer to struct container_subsys_state
 * @parent: the state whose children are visited
 *
 * Context: rcu_read_lock() or container_mutex held for the whole walk.  A
 * child removed during an RCU walk may still be visited; one created
 * during it may be missed.
 */
#define container_for_each_child(pos, parent)				\
	for ((pos) = container_css_next_child(NULL, (parent)); (pos);	\
	     (pos) = container_css_next_child((pos), (parent)))

/**
 * container_for_each_descendant_pre - visit a subtree, parents first
 * @pos: the cursor, a pointer to struct container_subsys_state
 * @top: the root of the subtree, visited first
 *
 * Context: as container_for_each_child().
 */
#define container_for_each_descendant_pre(pos, top)			\
	for ((pos) = container_css_next_descendant_pre(NULL, (top));	\
	     (pos);							\
	     (pos) = container_css_next_descendant_pre((pos), (top)))

/**
 * container_for_each_descendant_post - visit a subtree, children first
 * @pos: the cursor, a pointer to struct container_subsys_state
 * @top: the root of the subtree, visited last
 *
 * Context: as container_for_each_child().
 */
#define container_for_each_descendant_post(pos, top)			\
	for ((pos) = container_css_next_descendant_post(NULL, (top));	\
	     (pos);							\
	     (pos) = container_css_next_descendant_post((pos), (top)))

int container_scan_tasks(struct container_subsys_state *top,
			 int (*fn)(struct task_struct *task, void *arg),
			 void *arg);

extern struct percpu_rw_semaphore container_threadgroup_rwsem;

/**
 * container_threadgroup_change_begin - keep task moves out of a thread group
 * @tsk: the task about to change its thread group (current)
 *
 * A thread group moves between containers as a whole, found through its
 * group_leader and its thread list.  A change of either (de_thread() making
 * an exec'ing thread the leader, exit_signals() setting PF_EXITING) must
 * not happen while tasks move: this takes the threadgroup lock for reading
 * until container_threadgroup_change_end().
 *
 * Context: process context; may sleep.
 */
static inline void container_threadgroup_change_begin(struct task_struct *tsk)
{
	percpu_down_read(&container_threadgroup_rwsem);
}

/**
 * container_threadgroup_change_end - undo container_threadgroup_change_begin()
 * @tsk: the task given to container_threadgroup_change_begin()
 */
static inline void container_threadgroup_change_end(struct task_struct *tsk)
{
	percpu_up_read(&container_threadgroup_rwsem);
}

void container_fork(struct task_struct *child);
int container_can_fork(struct task_struct *child);
void container_cancel_fork(struct task_struct *child);
void container_post_fork(struct task_struct *child);
void container_exit(struct task_struct *task);
void __init container_init(void);

/* Creating one of these namespaces gives a task a new ns container. */
#define CONTAINER_NS_CLONE_FLAGS	(CLONE_NEWNS | CLONE_NEWUTS |	\
					 CLONE_NEWIPC | CLONE_NEWPID |	\
					 CLONE_NEWNET)
#ifdef CONFIG_CONTAINER_NS
void container_ns_clone(struct task_struct *task);
#else
static inline void container_ns_clone(struct task_struct *task) {}
#endif

int proc_container_show(struct seq_file *m, struct pid_namespace *ns,
			struct pid *pid, struct task_struct *task);

#else /* !CONFIG_CONTAINERS */

static inline void container_lock(void) {}
static inline void container_unlock(void) {}
static inline void container_threadgroup_change_begin(struct task_struct *tsk) {}
static inline void container_threadgroup_change_end(struct task_struct *tsk) {}
static inline void container_fork(struct task_struct *child) {}
static inline int container_can_fork(struct task_struct *child) { return 0; }
static inline void container_cancel_fork(struct task_struct *child) {}
static inline void container_post_fork(struct task_struct *child) {}
static inline void container_exit(struct task_struct *task) {}
static inline void container_init(void) {}
static inline void container_ns_clone(struct task_struct *task) {}
#define CONTAINER_NS_CLONE_FLAGS	0

#endif /* CONFIG_CONTAINERS */
#endif /* _LINUX_CONTAINERS_H */
