// SPDX-License-Identifier: GPL-2.0
/*
 * The cpuacct container subsystem: the CPU time used by the tasks of each
 * container and of its descendants.
 *
 * The scheduler charges time from two places:
 *
 *  - container_account_cputime(), from update_curr_task() each time it
 *    updates the runtime of a running task, with the nanoseconds the task
 *    ran.  This is cpuacct.usage, as exact as the task's own runtime.
 *  - container_account_cputime_field(), from task_group_account_field()
 *    when the tick (or vtime) accounting tells user from system time.
 *    This is cpuacct.stat, with that accounting's precision: a tick
 *    without CONFIG_VIRT_CPU_ACCOUNTING.
 *
 * A charge goes to the task's container and to every ancestor up to the
 * top of the hierarchy, so a container's numbers include those of its
 * descendants.  Charges stay where they were made: a task that moves away
 * takes no time with it, and a removed container's time stays counted in
 * its ancestors.
 *
 * The counters are per container and per CPU, so the charging paths take
 * no lock and no atomic operation shared between CPUs:
 *
 * cpuacct_cpu.usage	the time run on that CPU.  Written by the charging
 *			path and by a reset, both under the rq lock of that
 *			CPU: the charge is for the rq's current task, and may
 *			be made from another CPU that holds its rq lock.  A
 *			64-bit load cannot tear, so 64-bit kernels read it
 *			with READ_ONCE() and no lock; 32-bit kernels read it
 *			under the rq lock.
 * cpuacct_cpu.stat[]	user and system time on that CPU.  Written only on
 *			that CPU, by the accounting of its running task with
 *			interrupts off (like kernel_cpustat next to the hook);
 *			read under stat_sync, a no-op on 64-bit kernels.
 *			Never reset.
 *
 * The charging paths find a task's state with task_subsys_state() under RCU and
 * walk up the parent pointers of the states.  A container can only be removed once it
 * has no tasks and no children, and its state is freed after a grace
 * period, so every state on the way up outlives the read-side section
 * that found the task's.  The top state is never freed.
 */

#define pr_fmt(fmt) "container_cpuacct: " fmt

#include <linux/container_cpuacct.h>
#include <linux/containers.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/kernel_stat.h>
#include <linux/mmu_context.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/u64_stats_sync.h>

#include "sched.h"

/* The buckets of cpuacct.stat. */
enum cpuacct_stat_index {
	CPUACCT_STAT_USER,	/* user and nice time */
	CPUACCT_STAT_SYSTEM,	/* system, hardirq and softirq time */
	CPUACCT_STAT_NSTATS,
};

static const char * const cpuacct_stat_names[CPUACCT_STAT_NSTATS] = {
	[CPUACCT_STAT_USER] = "user",
	[CPUACCT_STAT_SYSTEM] = "system",
};

/**
 * struct cpuacct_cpu - the counters of one container on one CPU
 * @usage: nanoseconds run; the rq lock of the CPU
 * @stat: nanoseconds of user and system time; written only by the CPU
 * @stat_sync: for 64-bit reads of @stat on 32-bit kernels
 */
struct cpuacct_cpu {
	u64 usage;
	u64 stat[CPUACCT_STAT_NSTATS];
	struct u64_stats_sync stat_sync;
};

/**
 * struct cpuacct - the cpuacct state of one container
 * @css: the generic state, embedded; its parent is the parent container's
 * @cpu: the per-CPU counters
 */
struct cpuacct {
	struct container_subsys_state css;
	struct cpuacct_cpu __percpu *cpu;
};

static struct cpuacct *css_cpuacct(struct container_subsys_state *css)
{
	return container_of(css, struct cpuacct, css);
}

/* The parent container's state, NULL at the top. */
static struct cpuacct *cpuacct_parent(struct cpuacct *ca)
{
	struct container_subsys_state *parent = ca->css.parent;

	return parent ? css_cpuacct(parent) : NULL;
}

/*
 * The state of @p's container, NULL before container_init() has created
 * the top state (the scheduler runs, and charges, before that).
 * Context: rcu_read_lock().
 */
static struct cpuacct *task_cpuacct(struct task_struct *p)
{
	struct container_subsys_state *css = task_subsys_state(p, cpuacct_subsys_id);

	return css ? css_cpuacct(css) : NULL;
}

static struct container_subsys_state *
cpuacct_create(struct container_subsys_state *parent_css)
{
	struct cpuacct *ca;
	int cpu;

	ca = kzalloc(sizeof(*ca), GFP_KERNEL);
	if (!ca)
		goto err;
	ca->cpu = alloc_percpu(struct cpuacct_cpu);
	if (!ca->cpu)
		goto err_free;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(ca->cpu, cpu)->stat_sync);
	return &ca->css;

err_free:
	kfree(ca);
err:
	return ERR_PTR(-ENOMEM);
}

static void cpuacct_destroy(struct container_subsys_state *css)
{
	struct cpuacct *ca = css_cpuacct(css);

	free_percpu(ca->cpu);
	kfree(ca);
}

/**
 * container_account_cputime - charge run time to a task's containers
 * @p: the task that ran, the current task of its CPU's runqueue
 * @delta_ns: how long it ran, in nanoseconds
 *
 * Adds @delta_ns to the usage of @p's cpuacct container and of each of its
 * ancestors, on @p's CPU.
 *
 * Context: the rq lock of task_cpu(@p) held, interrupts off.
 */
void container_account_cputime(struct task_struct *p, u64 delta_ns)
{
	int cpu = task_cpu(p);
	struct cpuacct *ca;

	lockdep_assert_rq_held(cpu_rq(cpu));

	rcu_read_lock();
	for (ca = task_cpuacct(p); ca; ca = cpuacct_parent(ca)) {
		struct cpuacct_cpu *pc = per_cpu_ptr(ca->cpu, cpu);

		WRITE_ONCE(pc->usage, pc->usage + delta_ns);
	}
	rcu_read_unlock();
}

/**
 * container_account_cputime_field - charge user or system time
 * @p: the task the time is accounted to, running on this CPU
 * @index: the enum cpu_usage_stat bucket of kernel_cpustat
 * @delta_ns: the time, in nanoseconds
 *
 * User and nice time count as user time; system, hardirq and softirq time
 * as system time.  Other buckets are ignored: guest time, the only other
 * one charged to tasks, is also charged as user or nice time.
 *
 * Context: on @p's CPU with interrupts off, where the kernel_cpustat of
 * this CPU is updated.
 */
void container_account_cputime_field(struct task_struct *p, int index,
				     u64 delta_ns)
{
	enum cpuacct_stat_index i;
	struct cpuacct *ca;

	switch (index) {
	case CPUTIME_USER:
	case CPUTIME_NICE:
		i = CPUACCT_STAT_USER;
		break;
	case CPUTIME_SYSTEM:
	case CPUTIME_IRQ:
	case CPUTIME_SOFTIRQ:
		i = CPUACCT_STAT_SYSTEM;
		break;
	default:
		return;
	}

	rcu_read_lock();
	for (ca = task_cpuacct(p); ca; ca = cpuacct_parent(ca)) {
		struct cpuacct_cpu *pc = this_cpu_ptr(ca->cpu);

		u64_stats_update_begin(&pc->stat_sync);
		WRITE_ONCE(pc->stat[i], pc->stat[i] + delta_ns);
		u64_stats_update_end(&pc->stat_sync);
	}
	rcu_read_unlock();
}

/* The usage of @ca on @cpu; see the locking rules at the top. */
static u64 cpuacct_cpu_usage(struct cpuacct *ca, int cpu)
{
	struct cpuacct_cpu *pc = per_cpu_ptr(ca->cpu, cpu);
	struct rq *rq = cpu_rq(cpu);
	u64 val;

	if (IS_ENABLED(CONFIG_64BIT))
		return READ_ONCE(pc->usage);

	raw_spin_rq_lock_irq(rq);
	val = pc->usage;
	raw_spin_rq_unlock_irq(rq);
	return val;
}

static u64 cpuacct_usage_read(struct container_subsys_state *css,
			      struct container_file *cft)
{
	struct cpuacct *ca = css_cpuacct(css);
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += cpuacct_cpu_usage(ca, cpu);
	return sum;
}

/* Only 0 may be written: it resets the usage on every CPU. */
static int cpuacct_usage_write(struct container_subsys_state *css,
			       struct container_file *cft, u64 val)
{
	struct cpuacct *ca = css_cpuacct(css);
	int cpu;

	if (val)
		return -EINVAL;

	for_each_possible_cpu(cpu) {
		struct rq *rq = cpu_rq(cpu);

		raw_spin_rq_lock_irq(rq);
		WRITE_ONCE(per_cpu_ptr(ca->cpu, cpu)->usage, 0);
		raw_spin_rq_unlock_irq(rq);
	}
	return 0;
}

static int cpuacct_usage_percpu_show(struct seq_file *sf, void *v)
{
	struct cpuacct *ca = css_cpuacct(seq_subsys_state(sf));
	const char *sep = "";
	int cpu;

	for_each_possible_cpu(cpu) {
		seq_printf(sf, "%s%llu", sep, cpuacct_cpu_usage(ca, cpu));
		sep = " ";
	}
	seq_putc(sf, '\n');
	return 0;
}

static u64 cpuacct_cpu_stat(struct cpuacct *ca, int cpu,
			    enum cpuacct_stat_index i)
{
	struct cpuacct_cpu *pc = per_cpu_ptr(ca->cpu, cpu);
	unsigned int seq;
	u64 val;

	do {
		seq = u64_stats_fetch_begin(&pc->stat_sync);
		val = READ_ONCE(pc->stat[i]);
	} while (u64_stats_fetch_retry(&pc->stat_sync, seq));
	return val;
}

static int cpuacct_stat_show(struct seq_file *sf, void *v)
{
	struct cpuacct *ca = css_cpuacct(seq_subsys_state(sf));
	enum cpuacct_stat_index i;
	int cpu;

	for (i = 0; i < CPUACCT_STAT_NSTATS; i++) {
		u64 sum = 0;

		for_each_possible_cpu(cpu)
			sum += cpuacct_cpu_stat(ca, cpu, i);
		seq_printf(sf, "%s %llu\n", cpuacct_stat_names[i],
			   nsec_to_clock_t(sum));
	}
	return 0;
}

static struct container_file cpuacct_files[] = {
	{
		.name = "usage",
		.read_u64 = cpuacct_usage_read,
		.write_u64 = cpuacct_usage_write,
	},
	{
		.name = "usage_percpu",
		.seq_show = cpuacct_usage_percpu_show,
	},
	{
		.name = "stat",
		.seq_show = cpuacct_stat_show,
	},
	{ }	/* terminate */
};

struct container_subsys cpuacct_subsys = {
	.name = "cpuacct",
	.create = cpuacct_create,
	.destroy = cpuacct_destroy,
	.files = cpuacct_files,
};
