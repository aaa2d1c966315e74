// SPDX-License-Identifier: GPL-2.0
/*
 * The cpuset subsystem: bind the tasks of a container to a set of CPUs and
 * memory nodes.
 *
 * Each container has a configured set (cpuset.cpus, cpuset.mems) and an
 * effective set: the configured one restricted to its parent's effective
 * set, which at the top is every active CPU and every node with memory.
 * Tasks run on the effective CPUs and allocate from the effective nodes.
 * A CPU going offline leaves the configured set of every container but
 * the top, as in cgroup v1, and so the effective ones; a container left
 * without CPUs or nodes hands its tasks to the nearest ancestor that has
 * some.  When the CPU comes back, only the top gets it again.
 *
 * The rules for changing the configured sets are those of cgroup v1's
 * cpusets, error codes included, so that existing tools keep working;
 * so are v1's other files: mem_hardwall, memory_migrate (pages follow a
 * task that moves in and the tasks' nodes when mems change),
 * memory_spread_page/_slab (task flags read by the page cache) and
 * memory_pressure (a filtered rate of direct reclaims).
 *
 * This subsystem provides the <linux/cpuset.h> interface the scheduler and
 * the page allocator use, so it cannot be built together with the cgroup
 * cpuset controller (CONFIG_CPUSETS).
 *
 * Locking, outermost first:
 *
 * container_mutex	the container tree and every configured set; held
 *			by writes to the control files, by attach and by the
 *			hotplug work.
 * cpus_read_lock()	the active CPUs stay put while sets are computed.
 * cpuset_mutex		serialises changes of tasks' CPU and node masks, so
 *			that a fork and a concurrent change of its
 *			container's sets cannot leave it with the old ones;
 *			also the count behind the allocator's static key
 *			(cpuset_note_mems()), switched under it, so the
 *			jump label lock nests inside.
 * callback_lock	spinlock (irq-safe): the sets, for readers that
 *			cannot sleep (the page allocator, the scheduler).
 * pressure.lock	spinlock (irq-safe), per cpuset, innermost: the
 *			memory_pressure filter; taken by direct reclaim under
 *			rcu_read_lock() only.
 *
 * partition_sched_domains() (sched_domains_mutex) is called with
 * container_mutex, cpus_read_lock() and, from the file writes, cpuset_mutex
 * held.  Page migration for memory_migrate runs from cpuset_migrate_wq with
 * none of these held; writers flush it after dropping them.
 *
 * Attach runs under container_mutex and the threadgroup lock; fork
 * callbacks run under the threadgroup lock only, and take cpuset_mutex.
 */

#define pr_fmt(fmt) "cpuset: " fmt

#include <linux/containers.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/cpuset.h>
#include <linux/err.h>
#include <linux/kernfs.h>
#include <linux/mempolicy.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/oom.h>
#include <linux/sched/isolation.h>
#include <linux/sched/mm.h>
#include <linux/sched/topology.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "container-internal.h"

DEFINE_STATIC_KEY_FALSE(cpusets_pre_enable_key);
DEFINE_STATIC_KEY_FALSE(cpusets_enabled_key);
DEFINE_STATIC_KEY_FALSE(cpusets_insane_config_key);

/* cpuset.flags */
enum {
	CS_CPU_EXCLUSIVE,
	CS_MEM_EXCLUSIVE,
	CS_MEM_HARDWALL,
	CS_MEMORY_MIGRATE,
	CS_SPREAD_PAGE,
	CS_SPREAD_SLAB,
	CS_SCHED_LOAD_BALANCE,
};

/*
 * cpuset.memory_pressure: the rate of direct reclaims by the tasks of a
 * cpuset, in reclaims per second times MP_SCALE, through a single-pole
 * low-pass filter with a half-life of 10 seconds (cgroup v1's units and
 * filter, so that batch schedulers read the numbers they expect).  Each
 * reclaim adds MP_SCALE to @pending; each second that passes keeps
 * MP_DECAY / MP_SCALE of @rate and then adds the rest of the weight to
 * the events of that second.
 */
#define MP_SCALE	1000
#define MP_DECAY	933	/* 0.933^10 ~= 0.5 */
#define MP_MAX_SECS	99	/* after this long the rate is 0 anyway */
#define MP_MAX_PENDING	(1000 * MP_SCALE)

struct cpuset_pressure {
	spinlock_t lock;	/* the other fields; irq-safe */
	int pending;
	int rate;
	time64_t stamp;
};

/**
 * struct cpuset - the cpuset state of one container
 * @css: the subsystem state
 * @flags: CS_* bits
 * @cpus: configured CPUs (cpuset.cpus)
 * @effective_cpus: @cpus within the parent's effective CPUs
 * @mems: configured memory nodes (cpuset.mems)
 * @effective_mems: @mems within the parent's effective nodes
 * @mems_restricted: @effective_mems is neither empty nor the top's
 *	(cpuset_mutex)
 * @relax_domain_level: cpuset.sched_relax_domain_level, -1 for the
 *	system's default
 * @pressure: cpuset.memory_pressure
 *
 * The sets are written under container_mutex, cpuset_mutex and
 * callback_lock; read under any of them (callback_lock from atomic
 * context).
 */
struct cpuset {
	struct container_subsys_state css;
	unsigned long flags;
	cpumask_var_t cpus;
	cpumask_var_t effective_cpus;
	nodemask_t mems;
	nodemask_t effective_mems;
	bool mems_restricted;
	int relax_domain_level;
	struct cpuset_pressure pressure;
};

static struct cpuset top_cpuset = {
	.flags = BIT(CS_CPU_EXCLUSIVE) | BIT(CS_MEM_EXCLUSIVE) |
		 BIT(CS_SCHED_LOAD_BALANCE),
	.relax_domain_level = -1,
};

static DEFINE_MUTEX(cpuset_mutex);
static DEFINE_SPINLOCK(callback_lock);

/*
 * cpuset.memory_migrate moves the pages of an mm from a work item of this
 * ordered queue: migrating takes the mm's lock and may wait for work that
 * forks kernel threads, which the threadgroup lock held by attach would
 * block.  Writers of tasks and of cpuset.mems wait for it (flush) once
 * they have dropped their locks.
 */
static struct workqueue_struct *cpuset_migrate_wq;

/*
 * cpuset.memory_pressure_enabled: read without a lock by the page
 * allocator's direct reclaim (cpuset_memory_pressure_bump()).
 */
int cpuset_memory_pressure_enabled __read_mostly;
/* Cpusets with mems_restricted set (cpuset_mutex). */
static unsigned int cpuset_nr_restricted;

static void cpuset_hotplug_workfn(struct work_struct *work);
static void cpuset_rebuild_domains(void);
static DECLARE_WORK(cpuset_hotplug_work, cpuset_hotplug_workfn);

static inline struct cpuset *css_cs(struct container_subsys_state *css)
{
	return css ? container_of(css, struct cpuset, css) : NULL;
}

static inline struct cpuset *task_cs(struct task_struct *task)
{
	return css_cs(task_subsys_state(task, cpuset_subsys_id));
}

static inline struct cpuset *parent_cs(struct cpuset *cs)
{
	return css_cs(css_parent(&cs->css));
}

static inline struct cpuset *cont_cs(struct container *cont)
{
	return css_cs(cont->subsys[cpuset_subsys_id]);
}

static inline bool is_cpu_exclusive(const struct cpuset *cs)
{
	return test_bit(CS_CPU_EXCLUSIVE, &cs->flags);
}

static inline bool is_mem_exclusive(const struct cpuset *cs)
{
	return test_bit(CS_MEM_EXCLUSIVE, &cs->flags);
}

static inline bool is_mem_hardwall(const struct cpuset *cs)
{
	return test_bit(CS_MEM_HARDWALL, &cs->flags);
}

static inline bool is_memory_migrate(const struct cpuset *cs)
{
	return test_bit(CS_MEMORY_MIGRATE, &cs->flags);
}

static inline bool is_sched_load_balance(const struct cpuset *cs)
{
	return test_bit(CS_SCHED_LOAD_BALANCE, &cs->flags);
}

/*
 * The page cache allocator reads these task flags (the slab one is kept
 * for cgroup v1's file; no slab allocator of 6.12 spreads).  Written only
 * when they differ: fork calls this for every child.
 */
static void cpuset_update_spread(const struct cpuset *cs,
				 struct task_struct *tsk)
{
	bool page = test_bit(CS_SPREAD_PAGE, &cs->flags);
	bool slab = test_bit(CS_SPREAD_SLAB, &cs->flags);

	if (page != task_spread_page(tsk)) {
		if (page)
			task_set_spread_page(tsk);
		else
			task_clear_spread_page(tsk);
	}
	if (slab != task_spread_slab(tsk)) {
		if (slab)
			task_set_spread_slab(tsk);
		else
			task_clear_spread_slab(tsk);
	}
}

/*
 * Setting the masks of a task.
 */

static void cpuset_change_task_nodemask(struct task_struct *tsk,
					const nodemask_t *newmems)
{
	task_lock(tsk);
	local_irq_disable();
	write_seqcount_begin(&tsk->mems_allowed_seq);
	/* Allocations in flight see the union, never an empty set. */
	nodes_or(tsk->mems_allowed, tsk->mems_allowed, *newmems);
	mpol_rebind_task(tsk, newmems);
	tsk->mems_allowed = *newmems;
	write_seqcount_end(&tsk->mems_allowed_seq);
	local_irq_enable();
	task_unlock(tsk);
}

/*
 * Give @tsk the effective sets of @cs.  Tasks of the top cpuset may run
 * anywhere, as without cpusets.  cpuset_mutex held.
 */
static void cpuset_update_task(struct cpuset *cs, struct task_struct *tsk)
{
	const struct cpumask *cpus;
	nodemask_t mems;

	lockdep_assert_held(&cpuset_mutex);
	if (cs == &top_cpuset) {
		cpus = task_cpu_possible_mask(tsk);
		mems = node_states[N_MEMORY];
	} else {
		cpus = cs->effective_cpus;
		mems = cs->effective_mems;
	}
	if (!cpumask_empty(cpus))
		set_cpus_allowed_ptr(tsk, cpus);
	if (!nodes_empty(mems))
		cpuset_change_task_nodemask(tsk, &mems);
}

struct cpuset_migrate_work {
	struct work_struct work;
	struct mm_struct *mm;
	nodemask_t from;
	nodemask_t to;
};

static void cpuset_migrate_workfn(struct work_struct *work)
{
	struct cpuset_migrate_work *mw =
		container_of(work, struct cpuset_migrate_work, work);

	/* Pages that cannot move stay where they are, as in cgroup v1. */
	do_migrate_pages(mw->mm, &mw->from, &mw->to, MPOL_MF_MOVE_ALL);
	mmput(mw->mm);
	kfree(mw);
}

/* Queue the move of @mm's pages from @from to @to; takes @mm's reference. */
static void cpuset_migrate_mm(struct mm_struct *mm, const nodemask_t *from,
			      const nodemask_t *to)
{
	struct cpuset_migrate_work *mw;

	if (nodes_equal(*from, *to) || nodes_empty(*to)) {
		mmput(mm);
		return;
	}
	mw = kmalloc(sizeof(*mw), GFP_KERNEL);
	if (!mw) {
		mmput(mm);
		return;
	}
	mw->mm = mm;
	mw->from = *from;
	mw->to = *to;
	INIT_WORK(&mw->work, cpuset_migrate_workfn);
	queue_work(cpuset_migrate_wq, &mw->work);
}

/* Wait for the migrations queued so far.  No container lock held. */
static void cpuset_flush_migrations(void)
{
	flush_workqueue(cpuset_migrate_wq);
}

/*
 * Rebind the memory policies of @tsk's mm to @cs's nodes, for a thread
 * group leader, and with cpuset.memory_migrate move its pages from @from.
 */
static void cpuset_rebind_mm(struct cpuset *cs, struct task_struct *tsk,
			     const nodemask_t *from)
{
	struct mm_struct *mm;
	nodemask_t mems;

	if (!thread_group_leader(tsk))
		return;
	mm = get_task_mm(tsk);
	if (!mm)
		return;
	mems = cs == &top_cpuset ? node_states[N_MEMORY] : cs->effective_mems;
	mpol_rebind_mm(mm, &mems);
	if (is_memory_migrate(cs))
		cpuset_migrate_mm(mm, from, &mems);
	else
		mmput(mm);
}

/*
 * Effective sets.
 */

/*
 * The page allocator filters nodes by current->mems_allowed only while
 * cpusets_enabled().  That matters only while some task may be confined
 * to fewer nodes than the top cpuset has: so the key is on while a cpuset
 * has effective nodes other than the top's.  A cpuset without nodes has
 * no tasks (attach fails with ENOSPC, hotplug moves them out) and does
 * not count.  Called whenever @cs's or the top's effective nodes change;
 * a cpuset becoming restricted turns the key on before its tasks get the
 * smaller set.  cpus_read_lock() and cpuset_mutex held.
 */
static void cpuset_note_mems(struct cpuset *cs)
{
	bool restricted = cs != &top_cpuset &&
			  !nodes_empty(cs->effective_mems) &&
			  !nodes_equal(cs->effective_mems,
				       top_cpuset.effective_mems);

	lockdep_assert_held(&cpuset_mutex);
	if (restricted == cs->mems_restricted)
		return;
	cs->mems_restricted = restricted;
	if (restricted) {
		if (!cpuset_nr_restricted++)
			cpuset_inc();
	} else {
		if (!--cpuset_nr_restricted)
			cpuset_dec();
	}
}

/*
 * Recompute the effective sets of @top's subtree and give the tasks of
 * every container whose sets changed their new masks.  Tasks of the top
 * cpuset keep theirs.  container_mutex, cpus_read_lock() and
 * cpuset_mutex held.
 */
static void cpuset_propagate(struct cpuset *top)
{
	struct container_subsys_state *pos;
	nodemask_t mems, old_mems;
	cpumask_var_t cpus;

	lockdep_assert_held(&container_mutex);
	lockdep_assert_held(&cpuset_mutex);
	if (!alloc_cpumask_var(&cpus, GFP_KERNEL)) {
		pr_warn_ratelimited("no memory to update effective sets\n");
		return;
	}
	container_for_each_descendant_pre(pos, &top->css) {
		struct cpuset *cs = css_cs(pos), *parent = parent_cs(cs);
		struct task_struct **tasks;
		int nr, i;

		if (parent) {
			cpumask_and(cpus, cs->cpus, parent->effective_cpus);
			nodes_and(mems, cs->mems, parent->effective_mems);
		} else {
			cpumask_copy(cpus, cs->cpus);
			mems = cs->mems;
		}
		if (cpumask_equal(cpus, cs->effective_cpus) &&
		    nodes_equal(mems, cs->effective_mems)) {
			/* The top's nodes may have changed under it. */
			cpuset_note_mems(cs);
			continue;
		}

		old_mems = cs->effective_mems;
		spin_lock_irq(&callback_lock);
		cpumask_copy(cs->effective_cpus, cpus);
		cs->effective_mems = mems;
		spin_unlock_irq(&callback_lock);
		cpuset_note_mems(cs);

		if (cs == &top_cpuset)
			continue;
		tasks = container_get_tasks(pos->container, &nr);
		if (IS_ERR(tasks)) {
			pr_warn_ratelimited("no memory to update tasks\n");
			continue;
		}
		for (i = 0; i < nr; i++) {
			cpuset_update_task(cs, tasks[i]);
			cpuset_rebind_mm(cs, tasks[i], &old_mems);
		}
		container_put_tasks(tasks, nr);
	}
	free_cpumask_var(cpus);
}

/*
 * Move the tasks of every container under @top that has no effective CPU
 * or node to its nearest ancestor that has both.  container_mutex held,
 * cpuset_mutex not.
 */
static void cpuset_rescue_tasks(struct cpuset *top)
{
	struct container_subsys_state *pos;

	lockdep_assert_held(&container_mutex);
	container_for_each_descendant_pre(pos, &top->css) {
		struct cpuset *cs = css_cs(pos), *to;

		if (!cpumask_empty(cs->effective_cpus) &&
		    !nodes_empty(cs->effective_mems))
			continue;
		if (!container_task_count(pos->container))
			continue;
		for (to = parent_cs(cs); to; to = parent_cs(to))
			if (!cpumask_empty(to->effective_cpus) &&
			    !nodes_empty(to->effective_mems))
				break;
		if (WARN_ON_ONCE(!to))
			continue;
		pr_info("moving the tasks of a container without CPUs or memory nodes to an ancestor\n");
		if (container_move_tasks(to->css.container, pos->container))
			pr_warn("could not move every task out of a container without CPUs or memory nodes\n");
	}
}

/*
 * CPUs that went inactive since the hotplug work last ran, whether or not
 * they are back: written by cpuset_update_active_cpus() under the hotplug
 * lock held for writing, read and cleared by the work under it held for
 * reading.
 */
static cpumask_var_t cpuset_gone_cpus;

static void cpuset_hotplug_workfn(struct work_struct *work)
{
	struct container_subsys_state *pos;

	mutex_lock(&container_mutex);
	cpus_read_lock();
	mutex_lock(&cpuset_mutex);
	spin_lock_irq(&callback_lock);
	cpumask_copy(top_cpuset.cpus, cpu_active_mask);
	top_cpuset.mems = node_states[N_MEMORY];
	/* cgroup v1: a CPU that went away leaves the other cpusets for good. */
	container_for_each_descendant_pre(pos, &top_cpuset.css) {
		struct cpuset *cs = css_cs(pos);

		if (cs != &top_cpuset)
			cpumask_andnot(cs->cpus, cs->cpus, cpuset_gone_cpus);
	}
	cpumask_clear(cpuset_gone_cpus);
	spin_unlock_irq(&callback_lock);
	cpuset_propagate(&top_cpuset);
	/* cpuset_update_active_cpus() set one domain meanwhile. */
	if (!is_sched_load_balance(&top_cpuset))
		cpuset_rebuild_domains();
	mutex_unlock(&cpuset_mutex);
	cpus_read_unlock();
	cpuset_rescue_tasks(&top_cpuset);
	mutex_unlock(&container_mutex);
}

/*
 * Scheduling domains.
 */

/* The highest sched_relax_domain_level in @cs's subtree, into @attr. */
static void cpuset_domain_attr(struct cpuset *cs, struct sched_domain_attr *attr)
{
	struct container_subsys_state *pos;

	container_for_each_descendant_pre(pos, &cs->css) {
		struct cpuset *d = css_cs(pos);

		if (!cpumask_empty(d->effective_cpus) &&
		    d->relax_domain_level > attr->relax_domain_level)
			attr->relax_domain_level = d->relax_domain_level;
	}
}

/* Does an ancestor of @cs below the top balance (and so cover it)? */
static bool cpuset_balanced_above(struct cpuset *cs)
{
	for (cs = parent_cs(cs); cs && cs != &top_cpuset; cs = parent_cs(cs))
		if (is_sched_load_balance(cs))
			return true;
	return false;
}

/*
 * The scheduling domains the cpusets ask for, as cgroup v1 builds them.
 * While the top cpuset balances, one domain spans every active CPU.
 * Otherwise each balancing cpuset with CPUs whose ancestors do not
 * balance (their domain would cover it) is a candidate, candidates whose
 * CPUs overlap are merged, and each group is a domain; CPUs of no
 * balancing cpuset are in no domain (not balanced at all).  A domain's
 * relax level is the highest one set in its cpusets and their
 * descendants.  Returns the number of domains and fills @domsp and
 * @attrsp (for partition_sched_domains(), which takes them), or -ENOMEM.
 * container_mutex and cpus_read_lock() held.
 */
static int cpuset_sched_domains(cpumask_var_t **domsp,
				struct sched_domain_attr **attrsp)
{
	const struct cpumask *hk = housekeeping_cpumask(HK_TYPE_DOMAIN);
	struct container_subsys_state *pos;
	int nr = 0, ndoms = 0, nalloc = 0, i, j;
	struct sched_domain_attr *attrs = NULL;
	struct cpuset **cand = NULL;
	cpumask_var_t *doms = NULL;
	int *group = NULL;
	bool merged;

	lockdep_assert_held(&container_mutex);
	lockdep_assert_cpus_held();

	if (is_sched_load_balance(&top_cpuset)) {
		doms = alloc_sched_domains(1);
		nalloc = 1;
		attrs = kmalloc(sizeof(*attrs), GFP_KERNEL);
		if (!doms || !attrs)
			goto nomem;
		cpumask_and(doms[0], top_cpuset.effective_cpus, hk);
		*attrs = SD_ATTR_INIT;
		cpuset_domain_attr(&top_cpuset, attrs);
		*domsp = doms;
		*attrsp = attrs;
		return 1;
	}

	container_for_each_descendant_pre(pos, &top_cpuset.css)
		nr++;
	cand = kcalloc(nr, sizeof(*cand), GFP_KERNEL);
	group = kcalloc(nr, sizeof(*group), GFP_KERNEL);
	if (!cand || !group)
		goto nomem;
	nr = 0;
	container_for_each_descendant_pre(pos, &top_cpuset.css) {
		struct cpuset *cs = css_cs(pos);

		if (cs == &top_cpuset || !is_sched_load_balance(cs) ||
		    !cpumask_intersects(cs->effective_cpus, hk) ||
		    cpuset_balanced_above(cs))
			continue;
		group[nr] = nr;
		cand[nr++] = cs;
	}

	/* Merge the groups of overlapping candidates until none overlap. */
	do {
		merged = false;
		for (i = 0; i < nr; i++)
			for (j = i + 1; j < nr; j++) {
				int k, from = group[j], to = group[i];

				if (from == to ||
				    !cpumask_intersects(cand[i]->effective_cpus,
							cand[j]->effective_cpus))
					continue;
				for (k = 0; k < nr; k++)
					if (group[k] == from)
						group[k] = to;
				merged = true;
			}
	} while (merged);

	for (i = 0; i < nr; i++)
		if (group[i] == i)
			ndoms++;
	doms = alloc_sched_domains(ndoms);
	nalloc = ndoms;
	attrs = kmalloc_array(ndoms, sizeof(*attrs), GFP_KERNEL);
	if (ndoms && (!doms || !attrs))
		goto nomem;
	for (i = 0, j = 0; i < nr; i++) {
		int k;

		if (group[i] != i)
			continue;
		cpumask_clear(doms[j]);
		attrs[j] = SD_ATTR_INIT;
		for (k = 0; k < nr; k++) {
			if (group[k] != i)
				continue;
			cpumask_or(doms[j], doms[j], cand[k]->effective_cpus);
			cpuset_domain_attr(cand[k], &attrs[j]);
		}
		cpumask_and(doms[j], doms[j], hk);
		j++;
	}
	kfree(cand);
	kfree(group);
	*domsp = doms;
	*attrsp = attrs;
	return ndoms;

nomem:
	if (doms)
		free_sched_domains(doms, nalloc);
	kfree(attrs);
	kfree(cand);
	kfree(group);
	return -ENOMEM;
}

/*
 * Give the scheduler the domains of cpuset_sched_domains(), or the one
 * default domain if they cannot be computed.  container_mutex and
 * cpus_read_lock() held.
 */
static void cpuset_rebuild_domains(void)
{
	struct sched_domain_attr *attrs = NULL;
	cpumask_var_t *doms = NULL;
	int ndoms;

	/*
	 * A CPU went on- or offline and the hotplug work has not updated
	 * the sets yet: it rebuilds when it has, and no domain may have an
	 * inactive CPU.
	 */
	if (!cpumask_equal(top_cpuset.effective_cpus, cpu_active_mask))
		return;
	ndoms = cpuset_sched_domains(&doms, &attrs);
	if (ndoms < 0) {
		pr_warn_ratelimited("no memory for the scheduling domains; using one\n");
		partition_sched_domains(1, NULL, NULL);
		return;
	}
	partition_sched_domains(ndoms, doms, attrs);
}

/* A cpuset went away: its domain goes too, unless the top spans all. */
static void cpuset_rebuild_workfn(struct work_struct *work)
{
	mutex_lock(&container_mutex);
	cpus_read_lock();
	if (!is_sched_load_balance(&top_cpuset))
		cpuset_rebuild_domains();
	cpus_read_unlock();
	mutex_unlock(&container_mutex);
}

static DECLARE_WORK(cpuset_rebuild_work, cpuset_rebuild_workfn);

/*
 * Changing the configured sets.
 */

/*
 * May @cs take @cpus, @mems and @flags?  cgroup v1's rules and errors:
 * children must stay within it (EBUSY), it must stay within its parent
 * (EACCES), exclusive siblings must not overlap (EINVAL), and a container
 * with tasks cannot be emptied (ENOSPC).  container_mutex held.
 */
static int cpuset_validate(struct cpuset *cs, const struct cpumask *cpus,
			   const nodemask_t *mems, unsigned long flags)
{
	bool cpu_excl = flags & BIT(CS_CPU_EXCLUSIVE);
	bool mem_excl = flags & BIT(CS_MEM_EXCLUSIVE);
	struct cpuset *parent = parent_cs(cs);
	struct container_subsys_state *pos;

	lockdep_assert_held(&container_mutex);
	container_for_each_child(pos, &cs->css) {
		struct cpuset *child = css_cs(pos);

		if (!cpumask_subset(child->cpus, cpus) ||
		    !nodes_subset(child->mems, *mems) ||
		    (is_cpu_exclusive(child) && !cpu_excl) ||
		    (is_mem_exclusive(child) && !mem_excl))
			return -EBUSY;
	}
	if (!parent)
		return 0;

	if (!cpumask_subset(cpus, parent->cpus) ||
	    !nodes_subset(*mems, parent->mems) ||
	    (cpu_excl && !is_cpu_exclusive(parent)) ||
	    (mem_excl && !is_mem_exclusive(parent)))
		return -EACCES;

	container_for_each_child(pos, &parent->css) {
		struct cpuset *sib = css_cs(pos);

		if (sib == cs)
			continue;
		if ((cpu_excl || is_cpu_exclusive(sib)) &&
		    cpumask_intersects(cpus, sib->cpus))
			return -EINVAL;
		if ((mem_excl || is_mem_exclusive(sib)) &&
		    nodes_intersects(*mems, sib->mems))
			return -EINVAL;
	}

	if ((cpumask_empty(cpus) || nodes_empty(*mems)) &&
	    container_task_count(cs->css.container))
		return -ENOSPC;
	return 0;
}

/* The control files. */
enum {
	FILE_CPUS,
	FILE_MEMS,
	FILE_EFFECTIVE_CPUS,
	FILE_EFFECTIVE_MEMS,
};

static struct container_file *of_cft(struct kernfs_open_file *of)
{
	return of->kn->priv;
}

static int cpuset_show(struct seq_file *sf, void *v)
{
	struct cpuset *cs = css_cs(seq_subsys_state(sf));

	spin_lock_irq(&callback_lock);
	switch (of_cft(sf->private)->private) {
	case FILE_CPUS:
		seq_printf(sf, "%*pbl\n", cpumask_pr_args(cs->cpus));
		break;
	case FILE_MEMS:
		seq_printf(sf, "%*pbl\n", nodemask_pr_args(&cs->mems));
		break;
	case FILE_EFFECTIVE_CPUS:
		seq_printf(sf, "%*pbl\n", cpumask_pr_args(cs->effective_cpus));
		break;
	case FILE_EFFECTIVE_MEMS:
		seq_printf(sf, "%*pbl\n",
			   nodemask_pr_args(&cs->effective_mems));
		break;
	}
	spin_unlock_irq(&callback_lock);
	return 0;
}

/*
 * Apply new configured sets to @cs and to its tasks.  container_mutex,
 * cpus_read_lock() and cpuset_mutex held; validated by the caller.
 */
static void cpuset_commit(struct cpuset *cs, const struct cpumask *cpus,
			  const nodemask_t *mems)
{
	spin_lock_irq(&callback_lock);
	cpumask_copy(cs->cpus, cpus);
	cs->mems = *mems;
	spin_unlock_irq(&callback_lock);
	cpuset_propagate(cs);
}

static ssize_t cpuset_write_set(struct kernfs_open_file *of, char *buf,
				size_t nbytes, loff_t off)
{
	bool is_cpus = of_cft(of)->private == FILE_CPUS;
	struct container *cont;
	cpumask_var_t cpus;
	struct cpuset *cs;
	nodemask_t mems;
	int ret = 0;

	if (!zalloc_cpumask_var(&cpus, GFP_KERNEL))
		return -ENOMEM;
	buf = strstrip(buf);
	nodes_clear(mems);
	/* bitmap_parselist() lets a space through: "1 2" would be "1-2". */
	if (buf[strspn(buf, "0123456789,-:/")]) {
		ret = -EINVAL;
		goto out_free;
	}
	if (*buf) {
		if (is_cpus)
			ret = cpulist_parse(buf, cpus);
		else
			ret = nodelist_parse(buf, mems);
		if (ret) {
			ret = -EINVAL;
			goto out_free;
		}
	}

	cont = container_kn_lock_live(of->kn);
	if (!cont) {
		ret = -ENODEV;
		goto out_free;
	}
	cs = cont_cs(cont);
	cpus_read_lock();
	mutex_lock(&cpuset_mutex);

	/* The top cpuset follows the hardware; cgroup v1 refuses too. */
	if (cs == &top_cpuset) {
		ret = -EACCES;
		goto out_unlock;
	}
	if (is_cpus) {
		mems = cs->mems;
		if (!cpumask_subset(cpus, top_cpuset.cpus))
			ret = -EINVAL;
	} else {
		cpumask_copy(cpus, cs->cpus);
		if (!nodes_subset(mems, top_cpuset.mems))
			ret = -EINVAL;
	}
	if (!ret)
		ret = cpuset_validate(cs, cpus, &mems, cs->flags);
	if (!ret) {
		cpuset_commit(cs, cpus, &mems);
		/* Only the top's CPUs matter while it balances. */
		if (is_cpus && !is_sched_load_balance(&top_cpuset))
			cpuset_rebuild_domains();
	}
out_unlock:
	mutex_unlock(&cpuset_mutex);
	cpus_read_unlock();
	container_kn_unlock(of->kn);
	/* With memory_migrate, the pages have moved when the write returns. */
	if (!ret && !is_cpus)
		cpuset_flush_migrations();
out_free:
	free_cpumask_var(cpus);
	return ret ?: nbytes;
}

static u64 cpuset_read_flag(struct container_subsys_state *css,
			    struct container_file *cft)
{
	return test_bit(cft->private, &css_cs(css)->flags);
}

static ssize_t cpuset_write_flag(struct kernfs_open_file *of, char *buf,
				 size_t nbytes, loff_t off)
{
	struct container_file *cft = of_cft(of);
	struct container *cont;
	unsigned long flags;
	struct cpuset *cs;
	int ret;
	u64 v;

	/* As cgroup v1: any number, and anything but 0 sets the flag. */
	if (kstrtoull(strstrip(buf), 0, &v))
		return -EINVAL;

	cont = container_kn_lock_live(of->kn);
	if (!cont)
		return -ENODEV;
	cs = cont_cs(cont);
	flags = cs->flags;
	if (v)
		flags |= BIT(cft->private);
	else
		flags &= ~BIT(cft->private);
	ret = cpuset_validate(cs, cs->cpus, &cs->mems, flags);
	if (ret || flags == cs->flags)
		goto out_unlock;

	cpus_read_lock();
	mutex_lock(&cpuset_mutex);
	spin_lock_irq(&callback_lock);
	cs->flags = flags;
	spin_unlock_irq(&callback_lock);
	if (cft->private == CS_SCHED_LOAD_BALANCE &&
	    (cs == &top_cpuset || !is_sched_load_balance(&top_cpuset)))
		cpuset_rebuild_domains();
	if (cft->private == CS_SPREAD_PAGE || cft->private == CS_SPREAD_SLAB) {
		struct task_struct **tasks;
		int nr, i;

		/* Forks after this read the new flags in cpuset_fork(). */
		tasks = container_get_tasks(cont, &nr);
		if (IS_ERR(tasks)) {
			ret = PTR_ERR(tasks);
		} else {
			for (i = 0; i < nr; i++)
				cpuset_update_spread(cs, tasks[i]);
			container_put_tasks(tasks, nr);
		}
	}
	mutex_unlock(&cpuset_mutex);
	cpus_read_unlock();
out_unlock:
	container_kn_unlock(of->kn);
	return ret ?: nbytes;
}

static s64 cpuset_read_relax(struct container_subsys_state *css,
			     struct container_file *cft)
{
	return css_cs(css)->relax_domain_level;
}

/*
 * cpuset.sched_relax_domain_level: -1 (the system's default) up to one
 * above the highest domain level the scheduler has built, as in cgroup
 * v1; domains are rebuilt when the cpuset is part of one.
 */
static ssize_t cpuset_write_relax(struct kernfs_open_file *of, char *buf,
				  size_t nbytes, loff_t off)
{
	struct container *cont;
	struct cpuset *cs;
	s64 v;

	if (kstrtoll(strstrip(buf), 0, &v))
		return -EINVAL;
	if (v < -1 || v > sched_domain_level_max + 1)
		return -EINVAL;

	cont = container_kn_lock_live(of->kn);
	if (!cont)
		return -ENODEV;
	cs = cont_cs(cont);
	if (cs->relax_domain_level != v) {
		cpus_read_lock();
		mutex_lock(&cpuset_mutex);
		cs->relax_domain_level = v;
		if (!cpumask_empty(cs->effective_cpus) &&
		    (is_sched_load_balance(cs) ||
		     is_sched_load_balance(&top_cpuset) ||
		     cpuset_balanced_above(cs)))
			cpuset_rebuild_domains();
		mutex_unlock(&cpuset_mutex);
		cpus_read_unlock();
	}
	container_kn_unlock(of->kn);
	return nbytes;
}

/*
 * cpuset.memory_pressure.
 */

static void cpuset_pressure_init(struct cpuset_pressure *mp)
{
	spin_lock_init(&mp->lock);
	mp->pending = 0;
	mp->rate = 0;
	mp->stamp = ktime_get_seconds();
}

/* Bring @mp up to now.  mp->lock held. */
static void cpuset_pressure_update(struct cpuset_pressure *mp)
{
	time64_t now = ktime_get_seconds();
	time64_t secs = now - mp->stamp;

	lockdep_assert_held(&mp->lock);
	if (!secs)
		return;
	secs = min_t(time64_t, secs, MP_MAX_SECS);
	while (secs--)
		mp->rate = mp->rate * MP_DECAY / MP_SCALE;
	mp->rate += (MP_SCALE - MP_DECAY) * mp->pending / MP_SCALE;
	mp->pending = 0;
	mp->stamp = now;
}

/**
 * __cpuset_memory_pressure_bump - count a direct reclaim of current
 *
 * Called by the page allocator, through cpuset_memory_pressure_bump(),
 * when cpuset.memory_pressure_enabled is set and current is about to
 * reclaim memory itself.  The reclaim counts for current's cpuset.
 */
void __cpuset_memory_pressure_bump(void)
{
	struct cpuset_pressure *mp;
	unsigned long flags;

	rcu_read_lock();
	mp = &task_cs(current)->pressure;
	spin_lock_irqsave(&mp->lock, flags);
	cpuset_pressure_update(mp);
	mp->pending = min(MP_MAX_PENDING, mp->pending + MP_SCALE);
	spin_unlock_irqrestore(&mp->lock, flags);
	rcu_read_unlock();
}

static u64 cpuset_read_pressure(struct container_subsys_state *css,
				struct container_file *cft)
{
	struct cpuset_pressure *mp = &css_cs(css)->pressure;
	unsigned long flags;
	int rate;

	spin_lock_irqsave(&mp->lock, flags);
	cpuset_pressure_update(mp);
	rate = mp->rate;
	spin_unlock_irqrestore(&mp->lock, flags);
	return rate;
}

static u64 cpuset_read_pressure_enabled(struct container_subsys_state *css,
					struct container_file *cft)
{
	return READ_ONCE(cpuset_memory_pressure_enabled);
}

static int cpuset_write_pressure_enabled(struct container_subsys_state *css,
					 struct container_file *cft, u64 val)
{
	WRITE_ONCE(cpuset_memory_pressure_enabled, !!val);
	return 0;
}

static struct container_file cpuset_files[] = {
	{
		.name = "cpus",
		.seq_show = cpuset_show,
		.write = cpuset_write_set,
		.private = FILE_CPUS,
	},
	{
		.name = "mems",
		.seq_show = cpuset_show,
		.write = cpuset_write_set,
		.private = FILE_MEMS,
	},
	{
		.name = "effective_cpus",
		.seq_show = cpuset_show,
		.private = FILE_EFFECTIVE_CPUS,
	},
	{
		.name = "effective_mems",
		.seq_show = cpuset_show,
		.private = FILE_EFFECTIVE_MEMS,
	},
	{
		.name = "cpu_exclusive",
		.read_u64 = cpuset_read_flag,
		.write = cpuset_write_flag,
		.private = CS_CPU_EXCLUSIVE,
	},
	{
		.name = "mem_exclusive",
		.read_u64 = cpuset_read_flag,
		.write = cpuset_write_flag,
		.private = CS_MEM_EXCLUSIVE,
	},
	{
		.name = "mem_hardwall",
		.read_u64 = cpuset_read_flag,
		.write = cpuset_write_flag,
		.private = CS_MEM_HARDWALL,
	},
	{
		.name = "memory_migrate",
		.read_u64 = cpuset_read_flag,
		.write = cpuset_write_flag,
		.private = CS_MEMORY_MIGRATE,
	},
	{
		.name = "memory_spread_page",
		.read_u64 = cpuset_read_flag,
		.write = cpuset_write_flag,
		.private = CS_SPREAD_PAGE,
	},
	{
		.name = "memory_spread_slab",
		.read_u64 = cpuset_read_flag,
		.write = cpuset_write_flag,
		.private = CS_SPREAD_SLAB,
	},
	{
		.name = "memory_pressure",
		.read_u64 = cpuset_read_pressure,
	},
	{
		.name = "sched_load_balance",
		.read_u64 = cpuset_read_flag,
		.write = cpuset_write_flag,
		.private = CS_SCHED_LOAD_BALANCE,
	},
	{
		.name = "sched_relax_domain_level",
		.read_s64 = cpuset_read_relax,
		.write = cpuset_write_relax,
	},
	{
		.name = "memory_pressure_enabled",
		.flags = CONTAINER_FILE_ONLY_ON_ROOT,
		.read_u64 = cpuset_read_pressure_enabled,
		.write_u64 = cpuset_write_pressure_enabled,
	},
	{ }	/* terminator */
};

/*
 * Subsystem callbacks.
 */

static struct container_subsys_state *
cpuset_create(struct container_subsys_state *parent_css)
{
	struct cpuset *cs;

	if (!parent_css)
		return &top_cpuset.css;

	cs = kzalloc(sizeof(*cs), GFP_KERNEL);
	if (!cs)
		return ERR_PTR(-ENOMEM);
	if (!zalloc_cpumask_var(&cs->cpus, GFP_KERNEL))
		goto err_cs;
	if (!zalloc_cpumask_var(&cs->effective_cpus, GFP_KERNEL))
		goto err_cpus;
	cpuset_pressure_init(&cs->pressure);
	/* cgroup v1: a child starts with its parent's spread flags. */
	cs->flags = css_cs(parent_css)->flags &
		    (BIT(CS_SPREAD_PAGE) | BIT(CS_SPREAD_SLAB));
	cs->flags |= BIT(CS_SCHED_LOAD_BALANCE);
	cs->relax_domain_level = -1;
	return &cs->css;

err_cpus:
	free_cpumask_var(cs->cpus);
err_cs:
	kfree(cs);
	return ERR_PTR(-ENOMEM);
}

static void cpuset_destroy(struct container_subsys_state *css)
{
	struct cpuset *cs = css_cs(css);

	if (WARN_ON_ONCE(cs == &top_cpuset))
		return;
	cpus_read_lock();
	mutex_lock(&cpuset_mutex);
	if (cs->mems_restricted && !--cpuset_nr_restricted)
		cpuset_dec();
	mutex_unlock(&cpuset_mutex);
	cpus_read_unlock();
	/* Its domain, if it had one, goes (it is out of the tree now). */
	if (is_sched_load_balance(cs) && !cpumask_empty(cs->effective_cpus) &&
	    !is_sched_load_balance(&top_cpuset))
		schedule_work(&cpuset_rebuild_work);
	free_cpumask_var(cs->effective_cpus);
	free_cpumask_var(cs->cpus);
	kfree(cs);
}

/*
 * clone_children: start with the parent's sets, unless a sibling is
 * exclusive (the copy would overlap it), as cgroup v1 does.
 */
static void cpuset_post_clone(struct container_subsys_state *css)
{
	struct cpuset *cs = css_cs(css), *parent = parent_cs(cs);
	struct container_subsys_state *pos;

	lockdep_assert_held(&container_mutex);
	container_for_each_child(pos, &parent->css) {
		struct cpuset *sib = css_cs(pos);

		if (is_cpu_exclusive(sib) || is_mem_exclusive(sib))
			return;
	}
	cpus_read_lock();
	mutex_lock(&cpuset_mutex);
	spin_lock_irq(&callback_lock);
	cpumask_copy(cs->cpus, parent->cpus);
	cs->mems = parent->mems;
	cpumask_copy(cs->effective_cpus, parent->effective_cpus);
	cs->effective_mems = parent->effective_mems;
	spin_unlock_irq(&callback_lock);
	cpuset_note_mems(cs);
	mutex_unlock(&cpuset_mutex);
	cpus_read_unlock();
}

static int cpuset_can_attach(const struct container_subsys_state *css,
			     struct task_struct *task)
{
	const struct cpuset *cs = container_of_const(css, struct cpuset, css);

	if (cpumask_empty(cs->effective_cpus) ||
	    nodes_empty(cs->effective_mems))
		return -ENOSPC;
	return 0;
}

static void cpuset_attach(struct container_subsys_state *css,
			  struct container_subsys_state *old_css,
			  struct task_struct *task)
{
	struct cpuset *cs = css_cs(css);
	nodemask_t from;

	mutex_lock(&cpuset_mutex);
	from = task->mems_allowed;
	cpuset_update_task(cs, task);
	cpuset_update_spread(cs, task);
	mutex_unlock(&cpuset_mutex);
	cpuset_rebind_mm(cs, task, &from);
}

/* The pages of the moved tasks are where they belong on return. */
static void cpuset_post_attach(void)
{
	cpuset_flush_migrations();
}

/*
 * The child copied its parent's CPUs and nodes, which are right unless the
 * sets of its cpuset changed meanwhile.  A change either came before the
 * child was linked into its container, and is seen here, or its walk of
 * the container's tasks comes after and updates the child too: so only a
 * mismatch needs cpuset_mutex.  A subset of the CPUs is kept, so that the
 * parent's sched_setaffinity() is inherited as it is without cpusets.
 */
static void cpuset_fork(struct task_struct *child)
{
	struct cpuset *cs;
	bool fits;

	rcu_read_lock();
	cs = task_cs(child);
	rcu_read_unlock();
	cpuset_update_spread(cs, child);
	if (cs == &top_cpuset)
		return;
	spin_lock_irq(&callback_lock);
	fits = cpumask_subset(child->cpus_ptr, cs->effective_cpus) &&
	       nodes_equal(child->mems_allowed, cs->effective_mems);
	spin_unlock_irq(&callback_lock);
	if (fits)
		return;
	mutex_lock(&cpuset_mutex);
	cpuset_update_task(cs, child);
	mutex_unlock(&cpuset_mutex);
}

struct container_subsys cpuset_subsys = {
	.name = "cpuset",
	.create = cpuset_create,
	.destroy = cpuset_destroy,
	.post_clone = cpuset_post_clone,
	.can_attach = cpuset_can_attach,
	.attach = cpuset_attach,
	.post_attach = cpuset_post_attach,
	.fork = cpuset_fork,
	.files = cpuset_files,
};

/*
 * The <linux/cpuset.h> interface.
 */

/**
 * cpuset_init - set up the top cpuset at boot
 *
 * Called from start_kernel() before the container core, which takes the
 * top cpuset as the root state of the subsystem.
 *
 * Return: 0.
 */
int __init cpuset_init(void)
{
	if (!alloc_cpumask_var(&top_cpuset.cpus, GFP_KERNEL) ||
	    !alloc_cpumask_var(&top_cpuset.effective_cpus, GFP_KERNEL) ||
	    !zalloc_cpumask_var(&cpuset_gone_cpus, GFP_KERNEL))
		panic("cpuset: no memory for the top cpuset\n");
	cpumask_setall(top_cpuset.cpus);
	cpumask_setall(top_cpuset.effective_cpus);
	cpuset_pressure_init(&top_cpuset.pressure);
	nodes_setall(top_cpuset.mems);
	nodes_setall(top_cpuset.effective_mems);
	return 0;
}

/**
 * cpuset_init_smp - the top cpuset takes the CPUs and nodes that came up
 */
void __init cpuset_init_smp(void)
{
	spin_lock_irq(&callback_lock);
	cpumask_copy(top_cpuset.cpus, cpu_active_mask);
	cpumask_copy(top_cpuset.effective_cpus, cpu_active_mask);
	top_cpuset.mems = node_states[N_MEMORY];
	top_cpuset.effective_mems = node_states[N_MEMORY];
	spin_unlock_irq(&callback_lock);

	cpuset_migrate_wq = alloc_ordered_workqueue("cpuset_migrate_mm", 0);
	if (!cpuset_migrate_wq)
		panic("cpuset: no memory for the migration workqueue\n");
}

/**
 * cpuset_update_active_cpus - a CPU went online or offline
 *
 * The scheduler gets one domain of every active CPU at once; the
 * effective sets, and the domains the cpusets ask for when the top does
 * not balance, follow from a work item, which takes container_mutex.
 *
 * Context: CPU hotplug, hotplug lock held for writing.
 */
void cpuset_update_active_cpus(void)
{
	/* The top's CPUs are those active when the work last ran. */
	cpumask_or(cpuset_gone_cpus, cpuset_gone_cpus, top_cpuset.cpus);
	cpumask_andnot(cpuset_gone_cpus, cpuset_gone_cpus, cpu_active_mask);
	partition_sched_domains(1, NULL, NULL);
	schedule_work(&cpuset_hotplug_work);
}

/**
 * cpuset_force_rebuild - nothing to do: the hotplug work always rebuilds
 */
void cpuset_force_rebuild(void)
{
}

/**
 * rebuild_sched_domains - rebuild the scheduling domains from the cpusets
 *
 * For the scheduler's callers (energy-aware scheduling, asymmetric CPU
 * capacities), when the domains must be built again with the same CPUs.
 *
 * Context: process context; takes container_mutex and cpus_read_lock(),
 * so neither may be held.
 */
void rebuild_sched_domains(void)
{
	mutex_lock(&container_mutex);
	cpus_read_lock();
	cpuset_rebuild_domains();
	cpus_read_unlock();
	mutex_unlock(&container_mutex);
}

/* Deadline bandwidth is not tracked per container. */
void inc_dl_tasks_cs(struct task_struct *task)
{
}

void dec_dl_tasks_cs(struct task_struct *task)
{
}

void cpuset_lock(void)
{
}

void cpuset_unlock(void)
{
}

bool cpuset_cpu_is_isolated(int cpu)
{
	return false;
}

bool current_cpuset_is_being_rebound(void)
{
	return false;
}

/**
 * cpuset_cpus_allowed - the CPUs a task may run on
 * @p: the task
 * @mask: set to the effective CPUs of @p's cpuset that @p can use, or to
 *	every CPU @p can use when that would be empty
 *
 * sched_setaffinity() intersects what user space asks for with this.
 */
void cpuset_cpus_allowed(struct task_struct *p, struct cpumask *mask)
{
	const struct cpumask *possible = task_cpu_possible_mask(p);
	unsigned long flags;
	struct cpuset *cs;

	spin_lock_irqsave(&callback_lock, flags);
	rcu_read_lock();
	cs = task_cs(p);
	if (cs == &top_cpuset || !cpumask_and(mask, cs->effective_cpus,
					      possible))
		cpumask_copy(mask, possible);
	rcu_read_unlock();
	spin_unlock_irqrestore(&callback_lock, flags);
}

/**
 * cpuset_cpus_allowed_fallback - CPUs for a task whose CPUs all went away
 * @tsk: the task
 *
 * Called by the scheduler with its locks held, so only RCU is used: the
 * task gets the effective CPUs of the nearest cpuset, itself or an
 * ancestor, that still has an active one.
 *
 * Return: true if @tsk's allowed CPUs were changed.
 */
bool cpuset_cpus_allowed_fallback(struct task_struct *tsk)
{
	const struct cpumask *possible = task_cpu_possible_mask(tsk);
	struct cpuset *cs;
	bool changed = false;

	rcu_read_lock();
	for (cs = task_cs(tsk); cs && cs != &top_cpuset; cs = parent_cs(cs)) {
		if (cpumask_intersects(cs->effective_cpus, cpu_active_mask) &&
		    cpumask_subset(cs->effective_cpus, possible)) {
			do_set_cpus_allowed(tsk, cs->effective_cpus);
			changed = true;
			break;
		}
	}
	rcu_read_unlock();
	return changed;
}

/**
 * cpuset_mems_allowed - the memory nodes a task may allocate from
 * @p: the task
 *
 * Return: the effective nodes of @p's cpuset that have memory, or every
 * node with memory when that would be empty.
 */
nodemask_t cpuset_mems_allowed(struct task_struct *p)
{
	unsigned long flags;
	nodemask_t mask;

	spin_lock_irqsave(&callback_lock, flags);
	rcu_read_lock();
	nodes_and(mask, task_cs(p)->effective_mems, node_states[N_MEMORY]);
	if (nodes_empty(mask))
		mask = node_states[N_MEMORY];
	rcu_read_unlock();
	spin_unlock_irqrestore(&callback_lock, flags);
	return mask;
}

/**
 * cpuset_init_current_mems_allowed - let the boot task use every node
 */
void cpuset_init_current_mems_allowed(void)
{
	nodes_setall(current->mems_allowed);
}

/**
 * cpuset_nodemask_valid_mems_allowed - does a nodemask meet current's nodes?
 * @nodemask: the nodemask
 *
 * Return: non-zero if @nodemask and current's allowed nodes intersect.
 */
int cpuset_nodemask_valid_mems_allowed(nodemask_t *nodemask)
{
	return nodes_intersects(*nodemask, current->mems_allowed);
}

/**
 * cpuset_node_allowed - may current allocate from a node?
 * @node: the node
 * @gfp_mask: the allocation flags
 *
 * Interrupts, current's own nodes and OOM victims may use any node.  A
 * __GFP_HARDWALL allocation (user memory) is confined to current's nodes;
 * a kernel allocation may also use the nodes of the nearest mem_exclusive
 * ancestor, as with cgroup v1's cpusets.
 *
 * Return: true if the allocation may use @node.
 */
bool cpuset_node_allowed(int node, gfp_t gfp_mask)
{
	unsigned long flags;
	struct cpuset *cs;
	bool allowed;

	if (in_interrupt())
		return true;
	if (node_isset(node, current->mems_allowed))
		return true;
	if (unlikely(tsk_is_oom_victim(current)))
		return true;
	if (gfp_mask & __GFP_HARDWALL)
		return false;
	if (current->flags & PF_EXITING)
		return true;

	spin_lock_irqsave(&callback_lock, flags);
	rcu_read_lock();
	cs = task_cs(current);
	while (!is_mem_exclusive(cs) && !is_mem_hardwall(cs) && parent_cs(cs))
		cs = parent_cs(cs);
	allowed = node_isset(node, cs->mems);
	rcu_read_unlock();
	spin_unlock_irqrestore(&callback_lock, flags);
	return allowed;
}

/**
 * cpuset_mems_allowed_intersects - may two tasks share a memory node?
 * @tsk1: a task
 * @tsk2: another task
 *
 * Return: non-zero if their allowed nodes intersect (the OOM killer's test).
 */
int cpuset_mems_allowed_intersects(const struct task_struct *tsk1,
				   const struct task_struct *tsk2)
{
	return nodes_intersects(tsk1->mems_allowed, tsk2->mems_allowed);
}

/**
 * cpuset_print_current_mems_allowed - for OOM reports
 */
void cpuset_print_current_mems_allowed(void)
{
	pr_cont(",mems_allowed=%*pbl",
		nodemask_pr_args(&current->mems_allowed));
}

/**
 * cpuset_task_status_allowed - the Mems_allowed lines of /proc/<pid>/status
 * @m: the seq_file
 * @task: the task
 */
void cpuset_task_status_allowed(struct seq_file *m, struct task_struct *task)
{
	seq_printf(m, "Mems_allowed:\t%*pb\n",
		   nodemask_pr_args(&task->mems_allowed));
	seq_printf(m, "Mems_allowed_list:\t%*pbl\n",
		   nodemask_pr_args(&task->mems_allowed));
}

/**
 * cpuset_mem_spread_node - the next node for a spread page cache page
 *
 * Return: current's allowed nodes in turn.
 */
int cpuset_mem_spread_node(void)
{
	int node = current->cpuset_mem_spread_rotor;

	if (node == NUMA_NO_NODE)
		node = node_random(&current->mems_allowed);
	else
		node = next_node_in(node, current->mems_allowed);
	current->cpuset_mem_spread_rotor = node;
	return node;
}
