/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduler's hooks into the cpuacct container subsystem
 * (kernel/sched/container_cpuacct.c).  Without CONFIG_CONTAINER_CPUACCT
 * they are empty inlines that compile away.
 */
#ifndef _LINUX_CONTAINER_CPUACCT_H
#define _LINUX_CONTAINER_CPUACCT_H

#include <linux/types.h>

struct task_struct;

#ifdef CONFIG_CONTAINER_CPUACCT

void container_account_cputime(struct task_struct *p, u64 delta_ns);
void container_account_cputime_field(struct task_struct *p, int index,
				     u64 delta_ns);

#else /* !CONFIG_CONTAINER_CPUACCT */

static inline void container_account_cputime(struct task_struct *p,
					     u64 delta_ns) {}
static inline void container_account_cputime_field(struct task_struct *p,
						   int index, u64 delta_ns) {}

#endif /* CONFIG_CONTAINER_CPUACCT */
#endif /* _LINUX_CONTAINER_CPUACCT_H */
