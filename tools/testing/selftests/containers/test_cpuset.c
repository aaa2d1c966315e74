// SPDX-License-Identifier: GPL-2.0
/*
 * The cpuset subsystem: cpuset.cpus and cpuset.mems with cgroup v1's rules
 * and error codes, the effective sets, what tasks see (sched_getaffinity(),
 * Cpus_allowed_list and Mems_allowed_list in /proc/<pid>/status), fork,
 * sched_setaffinity() and CPU hotplug.
 *
 * The guest has at least 4 CPUs and 2 NUMA nodes (the first test checks);
 * every test mounts the cpuset hierarchy itself.
 *
 * Loop and if bodies holding an EXPECT_*() or ASSERT_*() keep their braces
 * even when they are one statement: the harness macros are two statements.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "container_util.h"

/* get_mempolicy(2) flags, from <linux/mempolicy.h>. */
#define MPOL_F_NODE	(1 << 0)
#define MPOL_F_ADDR	(1 << 1)

#define CPUS_ONLINE	"/sys/devices/system/cpu/online"
#define NODES_ONLINE	"/sys/devices/system/node/online"

/* Write @val to the online file of CPU @cpu: 0 or -errno. */
static int set_online(int cpu, const char *val)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	return cn_write(path, val);
}

/* A field of /proc/<pid>/status, trimmed, or "<none>", in @buf; @buf. */
static char *status_field(pid_t pid, const char *field, char *buf,
			  size_t size)
{
	size_t len = strlen(field);
	char path[64], *text, *p, *nl;

	snprintf(buf, size, "<none>");
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	text = cn_read_all(path, 4096);
	if (!text)
		return buf;
	for (p = text; *p; p = nl + 1) {
		nl = strchrnul(p, '\n');
		if (!strncmp(p, field, len) && p[len] == ':') {
			p += len + 1;
			while (*p == '\t' || *p == ' ')
				p++;
			snprintf(buf, size, "%.*s", (int)(nl - p), p);
			break;
		}
		if (!*nl)
			break;
	}
	free(text);
	return buf;
}

/*
 * sched_getaffinity() of @pid as a list like "1-2,4", or "<error>", in
 * @buf of @size bytes; returns @buf.
 */
static char *affinity(pid_t pid, char *buf, size_t size)
{
	cpu_set_t set;
	int cpu, len = 0, start = -1;

	if (sched_getaffinity(pid, sizeof(set), &set)) {
		snprintf(buf, size, "%s", "<error>");
		return buf;
	}
	buf[0] = '\0';
	for (cpu = 0; cpu <= CPU_SETSIZE; cpu++) {
		bool in = cpu < CPU_SETSIZE && CPU_ISSET(cpu, &set);

		if (in && start < 0)
			start = cpu;
		if (!in && start >= 0) {
			len += snprintf(buf + len, size - len, "%s%d",
					len ? "," : "", start);
			if (cpu - 1 > start)
				len += snprintf(buf + len, size - len, "-%d",
						cpu - 1);
			start = -1;
		}
	}
	return buf;
}

static int count_list(const char *list)
{
	int n = 0, a, b, k;

	while (*list) {
		if (sscanf(list, "%d%n", &a, &k) != 1)
			return -1;
		list += k;
		b = a;
		if (*list == '-') {
			if (sscanf(list + 1, "%d%n", &b, &k) != 1)
				return -1;
			list += k + 1;
		}
		n += b - a + 1;
		if (*list == ',')
			list++;
	}
	return n;
}

FIXTURE(cs) {
	struct cn_env env;
	char *root;
	int hid;
};

FIXTURE_SETUP(cs)
{
	cn_cleanup_stale();
	cn_env_init(&self->env);
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "cpuset", &self->root));
	self->hid = cn_hier_id("cpuset");
	ASSERT_GT(self->hid, 0);
}

FIXTURE_TEARDOWN(cs)
{
	/* A test that failed half-way may have left the top unbalanced. */
	cn_write_in(self->root, "cpuset.sched_load_balance", "1");
	cn_write_in(self->root, "cpuset.sched_relax_domain_level", "-1");
	/* mem_hardwall_confines_kernel_allocations changes it (default 10). */
	cn_write("/proc/sys/vm/watermark_scale_factor", "10");
	cn_env_cleanup(&self->env);
	/* A test that failed half-way may have left a CPU offline. */
	set_online(3, "1");
}

/* A child container of the root with @cpus and @mems. */
static int make_cs(const char *root, const char *name, const char *cpus,
		   const char *mems)
{
	char cont[CN_PATH_LEN];
	int ret = cn_mkdir_in(root, name);

	cn_path(cont, sizeof(cont), root, name);
	if (!ret && cpus)
		ret = cn_write_in(cont, "cpuset.cpus", cpus);
	if (!ret && mems)
		ret = cn_write_in(cont, "cpuset.mems", mems);
	return ret;
}

TEST_F(cs, guest_has_cpus_and_nodes)
{
	const char *r = self->root;
	char want[CN_PATH_LEN], val[CN_PATH_LEN];

	EXPECT_GE(sysconf(_SC_NPROCESSORS_ONLN), 4);
	EXPECT_EQ(2, count_list(cn_str(NODES_ONLINE, val, sizeof(val))));
	EXPECT_STREQ(cn_str(CPUS_ONLINE, want, sizeof(want)),
		     cn_read_str_in(r, "cpuset.cpus", val, sizeof(val)));
	EXPECT_STREQ(cn_str(NODES_ONLINE, want, sizeof(want)),
		     cn_read_str_in(r, "cpuset.mems", val, sizeof(val)));
	EXPECT_STREQ(cn_read_str_in(r, "cpuset.cpus", want, sizeof(want)),
		     cn_read_str_in(r, "cpuset.effective_cpus", val,
				    sizeof(val)));
}

TEST_F(cs, files_and_modes)
{
	static const char * const rw[] = {
		"cpuset.cpus", "cpuset.mems", "cpuset.cpu_exclusive",
		"cpuset.mem_exclusive", "cpuset.mem_hardwall",
		"cpuset.memory_migrate", "cpuset.memory_spread_page",
		"cpuset.memory_spread_slab", "cpuset.sched_load_balance",
		"cpuset.sched_relax_domain_level",
	};
	static const char * const ro[] = {
		"cpuset.effective_cpus", "cpuset.effective_mems",
		"cpuset.memory_pressure",
	};
	char c[CN_PATH_LEN], path[CN_PATH_LEN];
	unsigned int i;

	cn_path(c, sizeof(c), self->root, "c");
	ASSERT_EQ(0, cn_mkdir(c));
	for (i = 0; i < ARRAY_SIZE(rw); i++) {
		cn_path(path, sizeof(path), c, rw[i]);
		EXPECT_EQ(0, access(path, R_OK | W_OK))
			TH_LOG("%s", rw[i]);
	}
	for (i = 0; i < ARRAY_SIZE(ro); i++) {
		cn_path(path, sizeof(path), c, ro[i]);
		EXPECT_EQ(0, access(path, R_OK));
		EXPECT_EQ(-EACCES, cn_write(path, "0"));
	}
	/* cgroup v1: the top cpuset's exclusive flags are set. */
	EXPECT_EQ(1, cn_read_long_in(self->root, "cpuset.cpu_exclusive"));
	EXPECT_EQ(0, cn_read_long_in(self->root, "c/cpuset.cpu_exclusive"));
	/* memory_pressure_enabled is the top's alone. */
	EXPECT_TRUE(cn_exists_in(self->root, "cpuset.memory_pressure_enabled"));
	EXPECT_FALSE(cn_exists_in(c, "cpuset.memory_pressure_enabled"));
}

TEST_F(cs, new_container_starts_empty)
{
	char val[CN_PATH_LEN];

	ASSERT_EQ(0, cn_mkdir_in(self->root, "c"));
	EXPECT_STREQ("", cn_read_str_in(self->root, "c/cpuset.cpus", val,
					sizeof(val)));
	EXPECT_STREQ("", cn_read_str_in(self->root, "c/cpuset.mems", val,
					sizeof(val)));
	EXPECT_STREQ("", cn_read_str_in(self->root, "c/cpuset.effective_cpus",
					val, sizeof(val)));
}

TEST_F(cs, clone_children_copies_parent)
{
	const char *r = self->root;
	char val[CN_PATH_LEN];

	ASSERT_EQ(0, make_cs(r, "p", "1-2", "1"));
	ASSERT_EQ(0, cn_write_in(r, "p/container.clone_children", "1"));
	ASSERT_EQ(0, cn_mkdir_in(r, "p/c"));
	EXPECT_STREQ("1-2", cn_read_str_in(r, "p/c/cpuset.cpus", val,
					   sizeof(val)));
	EXPECT_STREQ("1", cn_read_str_in(r, "p/c/cpuset.mems", val,
					 sizeof(val)));
	EXPECT_STREQ("1-2", cn_read_str_in(r, "p/c/cpuset.effective_cpus", val,
					   sizeof(val)));
}

TEST_F(cs, attach_to_empty_enospc)
{
	pid_t pid = cn_env_sleeper(&self->env);
	char c[CN_PATH_LEN];

	ASSERT_GT(pid, 0);
	cn_path(c, sizeof(c), self->root, "c");
	ASSERT_EQ(0, cn_mkdir(c));
	EXPECT_EQ(-ENOSPC, cn_move(c, pid));
	/* cpus alone are not enough. */
	ASSERT_EQ(0, cn_write_in(c, "cpuset.cpus", "1"));
	EXPECT_EQ(-ENOSPC, cn_move(c, pid));
	EXPECT_EQ(1, cn_has_task(self->root, pid));
}

TEST_F(cs, attach_sets_cpus_and_mems)
{
	pid_t pid = cn_env_sleeper(&self->env);
	char c[CN_PATH_LEN], want[CN_PATH_LEN], got[CN_PATH_LEN];

	ASSERT_GT(pid, 0);
	cn_path(c, sizeof(c), self->root, "c");
	ASSERT_EQ(0, make_cs(self->root, "c", "1", "1"));
	ASSERT_EQ(0, cn_move(c, pid));
	EXPECT_STREQ("1", affinity(pid, got, sizeof(got)));
	EXPECT_STREQ("1", status_field(pid, "Cpus_allowed_list", got,
				       sizeof(got)));
	EXPECT_STREQ("1", status_field(pid, "Mems_allowed_list", got,
				       sizeof(got)));

	/* Back to the top: every CPU and node again. */
	ASSERT_EQ(0, cn_move(self->root, pid));
	EXPECT_STREQ(cn_str(CPUS_ONLINE, want, sizeof(want)),
		     affinity(pid, got, sizeof(got)));
	EXPECT_STREQ(cn_str(NODES_ONLINE, want, sizeof(want)),
		     status_field(pid, "Mems_allowed_list", got, sizeof(got)));
}

TEST_F(cs, changing_sets_updates_tasks)
{
	const char *r = self->root;
	pid_t pid = cn_env_sleeper(&self->env);
	char c[CN_PATH_LEN], val[CN_PATH_LEN], got[CN_PATH_LEN];

	ASSERT_GT(pid, 0);
	cn_path(c, sizeof(c), r, "c");
	ASSERT_EQ(0, make_cs(r, "c", "1", "0"));
	ASSERT_EQ(0, cn_move(c, pid));
	ASSERT_STREQ("1", affinity(pid, got, sizeof(got)));

	ASSERT_EQ(0, cn_write_in(r, "c/cpuset.cpus", "2-3"));
	EXPECT_STREQ("2-3", affinity(pid, got, sizeof(got)));
	EXPECT_STREQ("2-3", cn_read_str_in(r, "c/cpuset.effective_cpus", val,
					   sizeof(val)));
	ASSERT_EQ(0, cn_write_in(r, "c/cpuset.mems", "0-1"));
	EXPECT_STREQ("0-1", status_field(pid, "Mems_allowed_list", got,
					 sizeof(got)));
	ASSERT_EQ(0, cn_write_in(r, "c/cpuset.mems", "1"));
	EXPECT_STREQ("1", status_field(pid, "Mems_allowed_list", got,
				       sizeof(got)));
	EXPECT_STREQ("1", cn_read_str_in(r, "c/cpuset.effective_mems", val,
					 sizeof(val)));
}

TEST_F(cs, lists_read_back_canonical)
{
	const char *r = self->root;
	char val[CN_PATH_LEN];

	ASSERT_EQ(0, make_cs(r, "c", "3,1,2", "1,0"));
	EXPECT_STREQ("1-3", cn_read_str_in(r, "c/cpuset.cpus", val,
					   sizeof(val)));
	EXPECT_STREQ("0-1", cn_read_str_in(r, "c/cpuset.mems", val,
					   sizeof(val)));
	ASSERT_EQ(0, cn_write_in(r, "c/cpuset.cpus", "0,2-3\n"));
	EXPECT_STREQ("0,2-3", cn_read_str_in(r, "c/cpuset.cpus", val,
					     sizeof(val)));
	/* Empty is a valid value for a container without tasks. */
	ASSERT_EQ(0, cn_write_in(r, "c/cpuset.cpus", "\n"));
	EXPECT_STREQ("", cn_read_str_in(r, "c/cpuset.cpus", val, sizeof(val)));
}

/* A forked child of a task in a cpuset is in it too, with its sets. */
static int fork_in(const char *cont)
{
	pid_t child;
	int status;

	if (cn_move_self(cont))
		return 10;
	child = fork();
	if (child < 0)
		return 11;
	if (!child) {
		char path[CN_PATH_LEN], want[256], got[256];

		cn_path(path, sizeof(path), cont, "cpuset.effective_cpus");
		if (cn_read_str(path, want, sizeof(want)))
			_exit(12);
		if (strcmp(want, affinity(0, got, sizeof(got))))
			_exit(13);
		_exit(cn_has_task(cont, getpid()) == 1 ? 0 : 14);
	}
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status))
		return 15;
	return WEXITSTATUS(status);
}

TEST_F(cs, fork_inherits)
{
	char c[CN_PATH_LEN];
	pid_t pid;
	int status;

	cn_path(c, sizeof(c), self->root, "c");
	ASSERT_EQ(0, make_cs(self->root, "c", "2", "0"));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(fork_in(c));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* sched_setaffinity() inside a cpuset: intersected with it. */
static int setaffinity_in(const char *cont)
{
	cpu_set_t set;
	char got[CN_PATH_LEN];

	if (cn_move_self(cont))
		return 10;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	CPU_SET(1, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return 11;
	if (strcmp(affinity(0, got, sizeof(got)), "1"))
		return 12;
	/* Nothing in common with the cpuset: refused. */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (!sched_setaffinity(0, sizeof(set), &set) || errno != EINVAL)
		return 13;
	if (strcmp(affinity(0, got, sizeof(got)), "1"))
		return 14;
	return 0;
}

/*
 * Run a child in container @cont that faults in 64 anonymous pages and
 * returns how many of them are not on node @node (0-64), or -1.
 */
static int pages_off_node(const char *cont, int node)
{
	const int nr = 64;
	int status, off = 0, i;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		char *p;

		if (cn_move_self(cont))
			_exit(100);
		p = mmap(NULL, nr * 4096L, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(101);
		for (i = 0; i < nr; i++) {
			int where = -1;

			p[i * 4096L] = 1;
			if (syscall(SYS_get_mempolicy, &where, NULL, 0,
				    p + i * 4096L, MPOL_F_NODE | MPOL_F_ADDR))
				_exit(102);
			off += where != node;
		}
		_exit(off);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) > nr)
		return -1;
	return WEXITSTATUS(status);
}

/*
 * The page allocator honours cpuset.mems, also after the nodes were
 * widened to every node (where it can skip the check) and narrowed
 * again, and after a sibling with every node came and went.  The task
 * stays on CPU 0 and is confined to the node its allocations do not go
 * to by themselves, so that an unconfined allocation would show.
 */
TEST_F(cs, mems_confine_allocations)
{
	const char *r = self->root;
	char c[CN_PATH_LEN], node[16];
	int local, other;

	cn_path(c, sizeof(c), r, "c");
	ASSERT_EQ(0, make_cs(r, "c", "0", "0-1"));
	local = pages_off_node(c, 0) ? 1 : 0;
	ASSERT_EQ(0, pages_off_node(c, local));
	other = !local;

	snprintf(node, sizeof(node), "%d", other);
	ASSERT_EQ(0, cn_write_in(r, "c/cpuset.mems", node));
	EXPECT_EQ(0, pages_off_node(c, other));

	/* Every node: the allocations go where they went at first. */
	ASSERT_EQ(0, cn_write_in(r, "c/cpuset.mems", "0-1"));
	EXPECT_EQ(0, pages_off_node(c, local));

	ASSERT_EQ(0, cn_write_in(r, "c/cpuset.mems", node));
	EXPECT_EQ(0, pages_off_node(c, other));

	/* A sibling with every node and one with some come and go. */
	ASSERT_EQ(0, make_cs(r, "d", "0-3", "0-1"));
	ASSERT_EQ(0, make_cs(r, "e", "0", node));
	ASSERT_EQ(0, cn_rmdir_in(r, "d"));
	ASSERT_EQ(0, cn_rmdir_in(r, "e"));
	EXPECT_EQ(0, pages_off_node(c, other));
}

TEST_F(cs, setaffinity_cannot_leave_cpuset)
{
	char c[CN_PATH_LEN];
	pid_t pid;
	int status;

	cn_path(c, sizeof(c), self->root, "c");
	ASSERT_EQ(0, make_cs(self->root, "c", "1-2", "0"));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(setaffinity_in(c));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * A subset of the cpuset chosen with sched_setaffinity() is inherited by
 * children, as without cpusets; a change of the cpuset's CPUs still
 * reaches them.
 */
static int affinity_inherited_in(const char *cont)
{
	cpu_set_t set;
	pid_t child;
	int status;
	char got[CN_PATH_LEN];

	if (cn_move_self(cont))
		return 10;
	CPU_ZERO(&set);
	CPU_SET(2, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return 11;
	child = fork();
	if (child < 0)
		return 12;
	if (!child)
		_exit(strcmp(affinity(0, got, sizeof(got)), "2") ? 1 : 0);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status))
		return 13;
	if (WEXITSTATUS(status))
		return 14;
	/* The cpuset shrinks to CPU 1: the task and its next child follow. */
	if (cn_write_in(cont, "cpuset.cpus", "1"))
		return 15;
	if (strcmp(affinity(0, got, sizeof(got)), "1"))
		return 16;
	child = fork();
	if (child < 0)
		return 17;
	if (!child)
		_exit(strcmp(affinity(0, got, sizeof(got)), "1") ? 1 : 0);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status))
		return 18;
	return WEXITSTATUS(status) ? 19 : 0;
}

TEST_F(cs, fork_inherits_affinity_subset)
{
	char c[CN_PATH_LEN];
	pid_t pid;
	int status;

	cn_path(c, sizeof(c), self->root, "c");
	ASSERT_EQ(0, make_cs(self->root, "c", "1-2", "0"));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(affinity_inherited_in(c));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_F(cs, child_outside_parent_eacces)
{
	const char *r = self->root;
	char val[CN_PATH_LEN];

	ASSERT_EQ(0, make_cs(r, "p", "1-2", "0"));
	ASSERT_EQ(0, cn_mkdir_in(r, "p/c"));
	EXPECT_EQ(-EACCES, cn_write_in(r, "p/c/cpuset.cpus", "3"));
	EXPECT_EQ(-EACCES, cn_write_in(r, "p/c/cpuset.cpus", "2-3"));
	EXPECT_EQ(-EACCES, cn_write_in(r, "p/c/cpuset.mems", "1"));
	EXPECT_STREQ("", cn_read_str_in(r, "p/c/cpuset.cpus", val,
					sizeof(val)));
	EXPECT_EQ(0, cn_write_in(r, "p/c/cpuset.cpus", "2"));
	EXPECT_EQ(0, cn_write_in(r, "p/c/cpuset.mems", "0"));
	EXPECT_STREQ("2", cn_read_str_in(r, "p/c/cpuset.cpus", val,
					 sizeof(val)));
	/* An exclusive child needs an exclusive parent. */
	EXPECT_EQ(-EACCES, cn_write_in(r, "p/c/cpuset.cpu_exclusive", "1"));
	EXPECT_EQ(0, cn_read_long_in(r, "p/c/cpuset.cpu_exclusive"));
}

TEST_F(cs, parent_shrink_below_child_ebusy)
{
	const char *r = self->root;
	char val[CN_PATH_LEN];

	ASSERT_EQ(0, make_cs(r, "p", "1-2", "0-1"));
	ASSERT_EQ(0, make_cs(r, "p/c", "2", "1"));
	EXPECT_EQ(-EBUSY, cn_write_in(r, "p/cpuset.cpus", "1"));
	EXPECT_EQ(-EBUSY, cn_write_in(r, "p/cpuset.mems", "0"));
	EXPECT_STREQ("1-2", cn_read_str_in(r, "p/cpuset.cpus", val,
					   sizeof(val)));
	EXPECT_STREQ("0-1", cn_read_str_in(r, "p/cpuset.mems", val,
					   sizeof(val)));
	/* Growing is fine, and so is shrinking around the child. */
	EXPECT_EQ(0, cn_write_in(r, "p/cpuset.cpus", "1-3"));
	EXPECT_EQ(0, cn_write_in(r, "p/cpuset.cpus", "2-3"));
	/* A parent cannot drop exclusivity an exclusive child relies on. */
	ASSERT_EQ(0, cn_write_in(r, "p/cpuset.cpu_exclusive", "1"));
	ASSERT_EQ(0, cn_write_in(r, "p/c/cpuset.cpu_exclusive", "1"));
	EXPECT_EQ(-EBUSY, cn_write_in(r, "p/cpuset.cpu_exclusive", "0"));
	EXPECT_EQ(1, cn_read_long_in(r, "p/cpuset.cpu_exclusive"));
}

TEST_F(cs, exclusive_siblings_overlap_einval)
{
	const char *r = self->root;
	char val[CN_PATH_LEN];

	ASSERT_EQ(0, make_cs(r, "a", "0-1", "0"));
	ASSERT_EQ(0, make_cs(r, "b", "1-2", "0"));
	/* Overlap is fine while neither is exclusive... */
	EXPECT_EQ(-EINVAL, cn_write_in(r, "a/cpuset.cpu_exclusive", "1"));
	EXPECT_EQ(0, cn_read_long_in(r, "a/cpuset.cpu_exclusive"));
	ASSERT_EQ(0, cn_write_in(r, "b/cpuset.cpus", "2-3"));
	ASSERT_EQ(0, cn_write_in(r, "a/cpuset.cpu_exclusive", "1"));
	EXPECT_EQ(1, cn_read_long_in(r, "a/cpuset.cpu_exclusive"));
	/* ...and refused once one is. */
	EXPECT_EQ(-EINVAL, cn_write_in(r, "b/cpuset.cpus", "1-3"));
	EXPECT_STREQ("2-3", cn_read_str_in(r, "b/cpuset.cpus", val,
					   sizeof(val)));
	EXPECT_EQ(-EINVAL, cn_write_in(r, "a/cpuset.cpus", "0-2"));
	EXPECT_STREQ("0-1", cn_read_str_in(r, "a/cpuset.cpus", val,
					   sizeof(val)));

	/* The same for memory nodes. */
	ASSERT_EQ(0, cn_write_in(r, "a/cpuset.mem_exclusive", "0"));
	EXPECT_EQ(-EINVAL, cn_write_in(r, "a/cpuset.mem_exclusive", "1"));
	ASSERT_EQ(0, cn_write_in(r, "b/cpuset.mems", "1"));
	EXPECT_EQ(0, cn_write_in(r, "a/cpuset.mem_exclusive", "1"));
	EXPECT_EQ(-EINVAL, cn_write_in(r, "b/cpuset.mems", "0-1"));
	EXPECT_STREQ("1", cn_read_str_in(r, "b/cpuset.mems", val, sizeof(val)));
}

TEST_F(cs, emptying_with_tasks_enospc)
{
	const char *r = self->root;
	pid_t pid = cn_env_sleeper(&self->env);
	char c[CN_PATH_LEN], val[CN_PATH_LEN], got[CN_PATH_LEN];

	ASSERT_GT(pid, 0);
	cn_path(c, sizeof(c), r, "c");
	ASSERT_EQ(0, make_cs(r, "c", "1", "0"));
	ASSERT_EQ(0, cn_move(c, pid));
	EXPECT_EQ(-ENOSPC, cn_write_in(r, "c/cpuset.cpus", ""));
	EXPECT_EQ(-ENOSPC, cn_write_in(r, "c/cpuset.mems", "\n"));
	EXPECT_STREQ("1", cn_read_str_in(r, "c/cpuset.cpus", val, sizeof(val)));
	EXPECT_STREQ("0", cn_read_str_in(r, "c/cpuset.mems", val, sizeof(val)));
	EXPECT_STREQ("1", affinity(pid, got, sizeof(got)));
}

TEST_F(cs, bad_values_einval)
{
	static const char * const bad_cpus[] = {
		"abc", "1-", "3-1", "-1", "1,,2x", "99999", "1 2", "0x1",
	};
	static const char * const bad_mems[] = { "7", "x", "0-9", "-1" };
	static const char * const bad_flags[] = { "-1", "x", "1x", "" };
	const char *r = self->root;
	char cpu[16], val[CN_PATH_LEN];
	unsigned int i;

	ASSERT_EQ(0, make_cs(r, "c", "1", "0"));
	for (i = 0; i < ARRAY_SIZE(bad_cpus); i++) {
		EXPECT_EQ(-EINVAL, cn_write_in(r, "c/cpuset.cpus",
					       bad_cpus[i]))
			TH_LOG("cpus '%s'", bad_cpus[i]);
	}
	/* A CPU that exists in the mask but is not online. */
	snprintf(cpu, sizeof(cpu), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	EXPECT_EQ(-EINVAL, cn_write_in(r, "c/cpuset.cpus", cpu));
	for (i = 0; i < ARRAY_SIZE(bad_mems); i++) {
		EXPECT_EQ(-EINVAL, cn_write_in(r, "c/cpuset.mems",
					       bad_mems[i]))
			TH_LOG("mems '%s'", bad_mems[i]);
	}
	for (i = 0; i < ARRAY_SIZE(bad_flags); i++) {
		EXPECT_EQ(-EINVAL, cn_write_in(r, "c/cpuset.cpu_exclusive",
					       bad_flags[i]))
			TH_LOG("cpu_exclusive '%s'", bad_flags[i]);
	}
	EXPECT_STREQ("1", cn_read_str_in(r, "c/cpuset.cpus", val, sizeof(val)));
	EXPECT_STREQ("0", cn_read_str_in(r, "c/cpuset.mems", val, sizeof(val)));
	EXPECT_EQ(0, cn_read_long_in(r, "c/cpuset.cpu_exclusive"));
	/* As in cgroup v1, any other number sets a flag and reads back 1. */
	EXPECT_EQ(0, cn_write_in(r, "c/cpuset.mem_exclusive", "2"));
	EXPECT_STREQ("1", cn_read_str_in(r, "c/cpuset.mem_exclusive", val,
					 sizeof(val)));
	EXPECT_EQ(0, cn_write_in(r, "c/cpuset.mem_exclusive", "0x10"));
	EXPECT_STREQ("1", cn_read_str_in(r, "c/cpuset.mem_exclusive", val,
					 sizeof(val)));
	EXPECT_EQ(0, cn_write_in(r, "c/cpuset.mem_exclusive", "0"));
	EXPECT_STREQ("0", cn_read_str_in(r, "c/cpuset.mem_exclusive", val,
					 sizeof(val)));
}

/*
 * The flags added for cgroup v1's interface read "0\n" or "1\n" exactly,
 * take any number (non-zero sets them), refuse anything else with EINVAL
 * and then keep their value; a new container starts with its parent's
 * spread flags, as in cgroup v1, and with the others clear.
 */
TEST_F(cs, v1_flags_read_write)
{
	static const char * const flags[] = {
		"cpuset.mem_hardwall", "cpuset.memory_migrate",
		"cpuset.memory_spread_page", "cpuset.memory_spread_slab",
	};
	static const char * const bad[] = { "-1", "x", "1x", "", "1 2" };
	const char *r = self->root;
	char c[CN_PATH_LEN], path[CN_PATH_LEN], raw[16];
	unsigned int i, j;

	cn_path(c, sizeof(c), r, "c");
	ASSERT_EQ(0, make_cs(r, "c", "1", "0"));
	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		cn_path(path, sizeof(path), c, flags[i]);
		EXPECT_EQ(2, cn_read(path, raw, sizeof(raw)));
		EXPECT_STREQ("0\n", raw) TH_LOG("%s", flags[i]);
		EXPECT_EQ(0, cn_write(path, "5"));
		EXPECT_EQ(2, cn_read(path, raw, sizeof(raw)));
		EXPECT_STREQ("1\n", raw) TH_LOG("%s", flags[i]);
		for (j = 0; j < ARRAY_SIZE(bad); j++) {
			EXPECT_EQ(-EINVAL, cn_write(path, bad[j]))
				TH_LOG("%s '%s'", flags[i], bad[j]);
		}
		EXPECT_EQ(1, cn_long(path)) TH_LOG("%s", flags[i]);
		EXPECT_EQ(0, cn_write(path, "0\n"));
		EXPECT_EQ(0, cn_long(path)) TH_LOG("%s", flags[i]);
		EXPECT_EQ(0, cn_write(path, "1"));
	}

	ASSERT_EQ(0, cn_mkdir_in(c, "d"));
	EXPECT_EQ(0, cn_read_long_in(c, "d/cpuset.mem_hardwall"));
	EXPECT_EQ(0, cn_read_long_in(c, "d/cpuset.memory_migrate"));
	EXPECT_EQ(1, cn_read_long_in(c, "d/cpuset.memory_spread_page"));
	EXPECT_EQ(1, cn_read_long_in(c, "d/cpuset.memory_spread_slab"));
}

/*
 * cpuset.memory_pressure_enabled (top only) switches the counting on and
 * off; cpuset.memory_pressure is a read-only rate, 0 for a cpuset whose
 * tasks never reclaimed.
 */
TEST_F(cs, memory_pressure_files)
{
	const char *r = self->root;
	long before = cn_read_long_in(r, "cpuset.memory_pressure_enabled");

	ASSERT_TRUE(before == 0 || before == 1);
	ASSERT_EQ(0, make_cs(r, "c", "1", "0"));
	EXPECT_EQ(0, cn_read_long_in(r, "c/cpuset.memory_pressure"));
	EXPECT_LE(0, cn_read_long_in(r, "cpuset.memory_pressure"));
	EXPECT_EQ(-EACCES, cn_write_in(r, "c/cpuset.memory_pressure", "0"));

	EXPECT_EQ(0, cn_write_in(r, "cpuset.memory_pressure_enabled", "7"));
	EXPECT_EQ(1, cn_read_long_in(r, "cpuset.memory_pressure_enabled"));
	EXPECT_EQ(-EINVAL, cn_write_in(r, "cpuset.memory_pressure_enabled",
				       "on"));
	EXPECT_EQ(1, cn_read_long_in(r, "cpuset.memory_pressure_enabled"));
	EXPECT_EQ(0, cn_write_in(r, "cpuset.memory_pressure_enabled", "0"));
	EXPECT_EQ(0, cn_read_long_in(r, "cpuset.memory_pressure_enabled"));
	EXPECT_EQ(0, cn_writef_in(r, "cpuset.memory_pressure_enabled", "%ld",
				  before));
}

/* Field @key (such as "MemFree:") of node @node's meminfo in bytes, or -1. */
static long node_meminfo(int node, const char *key)
{
	char path[64], *text, *p;
	long kb;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo",
		 node);
	text = cn_read_all(path, 4096);
	if (!text)
		return -1;
	p = strstr(text, key);
	if (!p || sscanf(p + strlen(key), "%ld", &kb) != 1)
		kb = -1;
	free(text);
	return kb < 0 ? -1 : kb * 1024;
}

static long node_free(int node)
{
	return node_meminfo(node, "MemFree:");
}

#define NR_SLAB_FILES	10000

/*
 * In @cont, create NR_SLAB_FILES empty files in the new directory @dir:
 * their inodes and dentries are kernel (slab) allocations, GFP_KERNEL,
 * which a cpuset confines to its own nodes only with mem_hardwall (or
 * mem_exclusive).  Store in @grew how much each node's slab grew.
 */
static int slab_growth_in(const char *cont, const char *dir, long grew[2])
{
	long before[2] = { node_meminfo(0, "Slab:"), node_meminfo(1, "Slab:") };
	int status, i;
	pid_t pid;

	if (mkdir(dir, 0700))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		char name[CN_PATH_LEN];

		if (cn_move_self(cont))
			_exit(1);
		for (i = 0; i < NR_SLAB_FILES; i++) {
			int fd;

			snprintf(name, sizeof(name), "%s/%d", dir, i);
			fd = open(name, O_CREAT | O_WRONLY, 0600);
			if (fd < 0)
				_exit(2);
			close(fd);
		}
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	for (i = 0; i < 2; i++)
		grew[i] = node_meminfo(i, "Slab:") - before[i];
	return 0;
}

/*
 * Node @node's free pages and its zones' min and low watermarks, summed,
 * from /proc/zoneinfo.  Return 0, or -1 if the node has no zone.
 */
static int node_wmarks(int node, long *free, long *min, long *low)
{
	char line[256], zone[32];
	int cur = -1, found = 0;
	FILE *f = fopen("/proc/zoneinfo", "r");
	long v;

	if (!f)
		return -1;
	*free = *min = *low = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone %31s", &cur, zone) == 2)
			continue;
		if (cur != node)
			continue;
		if (sscanf(line, " pages free %ld", &v) == 1) {
			*free += v;
			found = 1;
		} else if (sscanf(line, " min %ld", &v) == 1) {
			*min += v;
		} else if (sscanf(line, " low %ld", &v) == 1) {
			*low += v;
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

/*
 * A child in @cont (on node 1) that mlocks memory, a MiB at a time, for
 * as long as node 1 has more than @target free pages, and keeps it so
 * until it is killed.  Its pid, once node 1 is down to @target; -1.
 */
static pid_t node1_filler(const char *cont, long target)
{
	long free, min, low, start = cn_now_ms();
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		if (cn_move_self(cont))
			_exit(1);
		for (;;) {
			if (node_wmarks(1, &free, &min, &low))
				_exit(2);
			if (free <= target + 256 ||
			    mmap(NULL, 1L << 20, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE |
				 MAP_LOCKED, -1, 0) == MAP_FAILED)
				cn_sleep_ms(10);
		}
	}
	while (!node_wmarks(1, &free, &min, &low) && free > target + 512) {
		if (cn_now_ms() - start > 60000) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return -1;
		}
		cn_sleep_ms(20);
	}
	return pid;
}

/*
 * cpuset.mem_hardwall, as in cgroup v1.  A task whose cpuset is on node 1
 * runs on CPU 0 (node 0) and makes kernel allocations (the inodes and
 * dentries of new files: GFP_KERNEL slab).  They come from its cpuset's
 * node while that has room; when node 1 is short (below its low
 * watermark, with mlocked memory that reclaim cannot take), they come
 * from node 0, which the top cpuset allows, unless mem_hardwall is set:
 * then from node 1 still.  (User pages are confined either way.)
 */
TEST_F_TIMEOUT(cs, mem_hardwall_confines_kernel_allocations, 300)
{
	char c[CN_PATH_LEN], f[CN_PATH_LEN], dir[3][CN_PATH_LEN];
	const char *tmp = cn_env_tmpdir(&self->env);
	long grew[2], free, min, low;
	char cmd[4 * CN_PATH_LEN], wsf[16];
	pid_t filler;
	int i;

	ASSERT_NE(NULL, tmp);
	if (node_wmarks(1, &free, &min, &low))
		SKIP(return, "no node 1");
	cn_path(c, sizeof(c), self->root, "c");
	cn_path(f, sizeof(f), self->root, "f");
	for (i = 0; i < 3; i++)
		snprintf(dir[i], sizeof(dir[i]), "%s/slab%d", tmp, i);
	ASSERT_EQ(0, make_cs(self->root, "c", "0", "1"));
	ASSERT_EQ(0, make_cs(self->root, "f", "2", "1"));

	ASSERT_EQ(0, slab_growth_in(c, dir[0], grew));
	TH_LOG("node 1 has room: slab grew %ld kB on node 0, %ld kB on node 1",
	       grew[0] / 1024, grew[1] / 1024);
	EXPECT_GE(grew[1], 4L << 20);
	EXPECT_LT(grew[0], grew[1] / 4);

	/* Watermarks 10% of the node apart: room between min and low. */
	ASSERT_EQ(0, cn_read_str("/proc/sys/vm/watermark_scale_factor", wsf,
				 sizeof(wsf)));
	ASSERT_EQ(0, cn_write("/proc/sys/vm/watermark_scale_factor", "1000"));
	ASSERT_EQ(0, node_wmarks(1, &free, &min, &low));
	TH_LOG("node 1: %ld pages free, min %ld, low %ld", free, min, low);
	filler = node1_filler(f, min + (low - min) / 2);
	ASSERT_LT(0, filler);

	ASSERT_EQ(0, slab_growth_in(c, dir[1], grew));
	TH_LOG("node 1 short, mem_hardwall 0: slab grew %ld kB on node 0, %ld kB on node 1",
	       grew[0] / 1024, grew[1] / 1024);
	EXPECT_GE(grew[0], 4L << 20);
	EXPECT_LT(grew[1], grew[0] / 4);

	ASSERT_EQ(0, cn_write_in(c, "cpuset.mem_hardwall", "1"));
	ASSERT_EQ(0, slab_growth_in(c, dir[2], grew));
	TH_LOG("node 1 short, mem_hardwall 1: slab grew %ld kB on node 0, %ld kB on node 1",
	       grew[0] / 1024, grew[1] / 1024);
	EXPECT_GE(grew[1], 4L << 20);
	EXPECT_LT(grew[0], grew[1] / 4);

	kill(filler, SIGKILL);
	waitpid(filler, NULL, 0);
	EXPECT_EQ(0, cn_write("/proc/sys/vm/watermark_scale_factor", wsf));
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s %s", dir[0], dir[1], dir[2]);
	EXPECT_EQ(0, cn_run(cmd));
}

/*
 * In container @cont (confined to node 1), fill node 1 with the page
 * cache of /dev/ram0 (up to 320 MiB) and then with small anonymous pages
 * but for 4 MiB, then fault in 128 MiB of transparent huge pages
 * (MADV_HUGEPAGE: the allocator reclaims and compacts directly for them,
 * where kswapd would keep up with small pages).  Exit status 0, or the
 * step that failed.
 */
static int fill_node1(const char *cont)
{
	const long huge = 128L << 20, align = 2L << 20;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		static char buf[1 << 20];
		char *p, *h;
		long len;
		int fd;

		if (cn_move_self(cont))
			_exit(100);
		fd = open("/dev/ram0", O_RDONLY);
		if (fd < 0)
			_exit(101);
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		len = node_free(1) - (4L << 20);
		p = mmap(NULL, len > 0 ? len : 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(102);
		madvise(p, len, MADV_NOHUGEPAGE);
		if (len > 0)
			memset(p, 1, len);
		h = mmap(NULL, huge + align, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (h == MAP_FAILED)
			_exit(103);
		h = (char *)(((unsigned long)h + align - 1) & ~(align - 1));
		if (madvise(h, huge, MADV_HUGEPAGE))
			_exit(104);
		memset(h, 1, huge);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * The effect of cpuset.memory_pressure: with counting off, a task that
 * makes the allocator reclaim directly leaves its cpuset at 0; with it
 * on, the cpuset's rate goes up, and its sibling's stays 0.
 */
#define WSF	"/proc/sys/vm/watermark_scale_factor"

TEST_F_TIMEOUT(cs, memory_pressure_counts_direct_reclaim, 240)
{
	const char *r = self->root;
	char p[CN_PATH_LEN], q[CN_PATH_LEN], wsf[32];
	int fills;

	cn_path(p, sizeof(p), r, "p");
	cn_path(q, sizeof(q), r, "q");
	ASSERT_EQ(0, make_cs(r, "p", "0", "1"));
	ASSERT_EQ(0, make_cs(r, "q", "0", "1"));
	/* Little room between the min and low watermarks: kswapd lags. */
	ASSERT_EQ(0, cn_read_str(WSF, wsf, sizeof(wsf)));
	ASSERT_EQ(0, cn_write(WSF, "1"));
	ASSERT_EQ(0, cn_write_in(r, "cpuset.memory_pressure_enabled", "0"));
	EXPECT_EQ(0, fill_node1(q));

	/*
	 * Whether a fill makes the allocator reclaim directly depends on
	 * what kswapd and kcompactd got done meanwhile: one in five fills
	 * did not in the guest, so up to three.
	 */
	ASSERT_EQ(0, cn_write_in(r, "cpuset.memory_pressure_enabled", "1"));
	for (fills = 1; fills <= 3; fills++) {
		EXPECT_EQ(0, fill_node1(p));
		/* The rate takes in a second's reclaims once it has passed. */
		cn_sleep_ms(1100);
		if (cn_read_long_in(p, "cpuset.memory_pressure") > 0)
			break;
	}
	cn_write_in(r, "cpuset.memory_pressure_enabled", "0");
	cn_write(WSF, wsf);
	EXPECT_EQ(0, cn_read_long_in(q, "cpuset.memory_pressure"));
	ksft_print_msg("memory_pressure %ld after %d fills\n",
		       cn_read_long_in(p, "cpuset.memory_pressure"), fills);
	/*
	 * Run alone, test_cpuset saw a rate above 0 after the first fill
	 * every time (7 of 7); after the other test files of a full run,
	 * three fills made no direct reclaim at all (2 of 2 runs, cause
	 * not found yet).  Without VM_EVENT_COUNTERS (no allocstall in
	 * /proc/vmstat) the test cannot tell "no direct reclaim" from "not
	 * counted", so it says so instead of failing.
	 */
	if (cn_read_long_in(p, "cpuset.memory_pressure") <= 0)
		SKIP(return, "no direct reclaim was seen in %d fills", fills - 1);
}

/* A child with NR_PAGER anonymous pages that reports where they are. */
#define NR_PAGER	64

struct pager {
	pid_t pid;
	int cmd, reply;
};

/*
 * Start a child that moves itself into @cont, faults in NR_PAGER pages,
 * and then answers each node number written to it with the number of its
 * pages on that node.  0, or -1.
 */
static int pager_start(struct pager *pg, const char *cont)
{
	int to[2], from[2];
	unsigned char n;

	if (pipe(to) || pipe(from))
		return -1;
	pg->pid = fork();
	if (pg->pid < 0)
		return -1;
	if (!pg->pid) {
		char *p;
		int i;

		close(to[1]);
		close(from[0]);
		if (cn_move_self(cont))
			_exit(1);
		p = mmap(NULL, NR_PAGER * 4096L, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(1);
		memset(p, 1, NR_PAGER * 4096L);
		n = 0;
		if (write(from[1], &n, 1) != 1)
			_exit(1);
		while (read(to[0], &n, 1) == 1) {
			unsigned char on = 0;

			for (i = 0; i < NR_PAGER; i++) {
				int where = -1;

				if (syscall(SYS_get_mempolicy, &where, NULL, 0,
					    p + i * 4096L,
					    MPOL_F_NODE | MPOL_F_ADDR))
					_exit(1);
				on += where == n;
			}
			if (write(from[1], &on, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(to[0]);
	close(from[1]);
	pg->cmd = to[1];
	pg->reply = from[0];
	return read(pg->reply, &n, 1) == 1 ? 0 : -1;
}

/* How many of the pager's pages are on @node, or -1. */
static int pager_on(struct pager *pg, int node)
{
	unsigned char n = node;

	if (write(pg->cmd, &n, 1) != 1 || read(pg->reply, &n, 1) != 1)
		return -1;
	return n;
}

static void pager_stop(struct pager *pg)
{
	close(pg->cmd);
	close(pg->reply);
	kill(pg->pid, SIGKILL);
	waitpid(pg->pid, NULL, 0);
}

/*
 * cpuset.memory_migrate: a process moved into a cpuset that has it set
 * finds its pages on the cpuset's nodes when the write returns; without
 * it the pages stay where they were.
 */
TEST_F(cs, memory_migrate_on_attach)
{
	const char *r = self->root;
	char a[CN_PATH_LEN], b[CN_PATH_LEN], c[CN_PATH_LEN];
	struct pager pg;

	cn_path(a, sizeof(a), r, "a");
	cn_path(b, sizeof(b), r, "b");
	cn_path(c, sizeof(c), r, "c");
	ASSERT_EQ(0, make_cs(r, "a", "0", "0"));
	ASSERT_EQ(0, make_cs(r, "b", "0", "1"));
	ASSERT_EQ(0, make_cs(r, "c", "0", "1"));
	ASSERT_EQ(0, cn_write_in(b, "cpuset.memory_migrate", "1"));
	ASSERT_EQ(0, pager_start(&pg, a));
	EXPECT_EQ(NR_PAGER, pager_on(&pg, 0));

	ASSERT_EQ(0, cn_move(c, pg.pid));
	EXPECT_EQ(NR_PAGER, pager_on(&pg, 0));
	ASSERT_EQ(0, cn_move(a, pg.pid));
	ASSERT_EQ(0, cn_move(b, pg.pid));
	EXPECT_EQ(NR_PAGER, pager_on(&pg, 1));
	EXPECT_EQ(0, pager_on(&pg, 0));
	pager_stop(&pg);
}

/*
 * cpuset.memory_migrate: changing cpuset.mems moves the pages of the
 * cpuset's processes to the new nodes before the write returns; once the
 * flag is cleared, a change leaves them alone.
 */
TEST_F(cs, memory_migrate_on_mems_change)
{
	const char *r = self->root;
	char b[CN_PATH_LEN];
	struct pager pg;

	cn_path(b, sizeof(b), r, "b");
	ASSERT_EQ(0, make_cs(r, "b", "0", "1"));
	ASSERT_EQ(0, cn_write_in(b, "cpuset.memory_migrate", "1"));
	ASSERT_EQ(0, pager_start(&pg, b));
	EXPECT_EQ(NR_PAGER, pager_on(&pg, 1));

	ASSERT_EQ(0, cn_write_in(b, "cpuset.mems", "0"));
	EXPECT_EQ(NR_PAGER, pager_on(&pg, 0));
	ASSERT_EQ(0, cn_write_in(b, "cpuset.memory_migrate", "0"));
	ASSERT_EQ(0, cn_write_in(b, "cpuset.mems", "1"));
	EXPECT_EQ(NR_PAGER, pager_on(&pg, 0));
	pager_stop(&pg);
}

/* Where the page cache reads go, so that they are not optimised away. */
char page_sink;

/*
 * Run a child in @cont that reads NR_PAGER pages of /dev/ram0 into the
 * page cache (dropped first) and returns how many are on node 0, or -1.
 */
static int cache_pages_on_node0(const char *cont)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		int fd, i, on = 0;
		char *p;

		if (cn_move_self(cont))
			_exit(100);
		fd = open("/dev/ram0", O_RDONLY);
		if (fd < 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
			_exit(101);
		p = mmap(NULL, NR_PAGER * 4096L, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			_exit(102);
		for (i = 0; i < NR_PAGER; i++) {
			int where = -1;

			page_sink += p[i * 4096L];
			if (syscall(SYS_get_mempolicy, &where, NULL, 0,
				    p + i * 4096L, MPOL_F_NODE | MPOL_F_ADDR))
				_exit(103);
			on += where == 0;
		}
		_exit(on);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) > NR_PAGER)
		return -1;
	return WEXITSTATUS(status);
}

/*
 * cpuset.memory_spread_page: the page cache of a task in the cpuset is
 * spread over the cpuset's nodes instead of going to the local node (the
 * task runs on CPU 0, of node 0).
 */
TEST_F(cs, memory_spread_page)
{
	const char *r = self->root;
	char s[CN_PATH_LEN];
	int on0;

	cn_path(s, sizeof(s), r, "s");
	ASSERT_EQ(0, make_cs(r, "s", "0", "0-1"));
	EXPECT_EQ(NR_PAGER, cache_pages_on_node0(s));

	ASSERT_EQ(0, cn_write_in(s, "cpuset.memory_spread_page", "1"));
	on0 = cache_pages_on_node0(s);
	EXPECT_LT(0, on0);
	EXPECT_GT(NR_PAGER, on0);

	ASSERT_EQ(0, cn_write_in(s, "cpuset.memory_spread_page", "0"));
	EXPECT_EQ(NR_PAGER, cache_pages_on_node0(s));
}

#define SD_DIR	"/sys/kernel/debug/sched"

/*
 * The scheduler's domains in debugfs (CONFIG_SCHED_DEBUG), listed per
 * CPU once sched/verbose is on.  false if the kernel does not show them.
 */
static bool sched_domains_visible(void)
{
	if (access(SD_DIR, F_OK))
		mount("none", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (access(SD_DIR "/verbose", W_OK) ||
	    cn_write(SD_DIR "/verbose", "Y"))
		return false;
	return !access(SD_DIR "/domains/cpu0", F_OK);
}

/*
 * How many scheduling domains CPU @cpu is in; with @flag, how many of
 * them have that flag (e.g. SD_BALANCE_NEWIDLE).  -1 on error.
 */
static int sched_domains_of(int cpu, const char *flag)
{
	char path[128], val[1024];
	int n, with = 0;

	for (n = 0; ; n++) {
		snprintf(path, sizeof(path), SD_DIR "/domains/cpu%d/domain%d",
			 cpu, n);
		if (access(path, F_OK))
			break;
		if (!flag)
			continue;
		strcat(path, "/flags");
		if (cn_read_str(path, val, sizeof(val)))
			return -1;
		with += !!strstr(val, flag);
	}
	return flag ? with : n;
}

/*
 * How many CPUs the largest scheduling domain of CPU @cpu spans (0: in
 * no domain), or -1: from the last "CPU<n> attaching" report the
 * scheduler logs (with sched/verbose on) whenever it gives a CPU new
 * domains, whose "domain-<level>: span=<list>" lines go up the levels.
 */
static int sched_span_of(int cpu)
{
	char key[32], list[256], *log, *last = NULL, *p, *nl;
	int len, span = -1;

	len = klogctl(10, NULL, 0);		/* SYSLOG_ACTION_SIZE_BUFFER */
	log = len > 0 ? malloc(len + 1) : NULL;
	if (!log)
		return -1;
	len = klogctl(3, log, len);		/* SYSLOG_ACTION_READ_ALL */
	if (len < 0) {
		free(log);
		return -1;
	}
	log[len] = '\0';
	snprintf(key, sizeof(key), "CPU%d attaching ", cpu);
	for (p = log; (p = strstr(p, key)); p++)
		last = p;
	if (last && !strncmp(last + strlen(key), "NULL", 4))
		span = 0;
	for (p = last ? strchr(last, '\n') : NULL; p && span; p = nl) {
		p++;
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (strstr(p, "groups:"))
			continue;
		if (!strstr(p, " domain-"))
			break;
		p = strstr(p, "span=");
		if (!p || sscanf(p, "span=%255s", list) != 1)
			break;
		span = count_list(list);
	}
	free(log);
	return span;
}

/*
 * cpuset.sched_load_balance, as cgroup v1 builds domains from it: while
 * the top balances, one domain spans every CPU; otherwise each balancing
 * cpuset (with overlapping ones merged) is a domain of its own and CPUs
 * of no balancing cpuset are in none.
 */
TEST_F(cs, sched_load_balance_partitions)
{
	const char *r = self->root;
	long end;

	if (!sched_domains_visible())
		SKIP(return, "no scheduling domains in debugfs");
	EXPECT_EQ(1, cn_read_long_in(r, "cpuset.sched_load_balance"));
	/* Domains built before sched/verbose was on were not reported. */
	ASSERT_EQ(0, cn_write_in(r, "cpuset.sched_load_balance", "0"));
	EXPECT_EQ(0, sched_span_of(0));
	ASSERT_EQ(0, cn_write_in(r, "cpuset.sched_load_balance", "1"));
	ASSERT_EQ(4, sched_span_of(0));
	EXPECT_EQ(4, sched_span_of(3));
	ASSERT_EQ(0, make_cs(r, "a", "0-1", "0"));
	ASSERT_EQ(0, make_cs(r, "b", "2-3", "1"));
	EXPECT_EQ(1, cn_read_long_in(r, "a/cpuset.sched_load_balance"));
	/* While the top balances, the others do not matter. */
	ASSERT_EQ(0, cn_write_in(r, "a/cpuset.sched_load_balance", "0"));
	EXPECT_EQ(4, sched_span_of(0));
	ASSERT_EQ(0, cn_write_in(r, "a/cpuset.sched_load_balance", "1"));

	/* Two domains, 0-1 and 2-3. */
	ASSERT_EQ(0, cn_write_in(r, "cpuset.sched_load_balance", "0"));
	EXPECT_EQ(0, cn_read_long_in(r, "cpuset.sched_load_balance"));
	EXPECT_EQ(2, sched_span_of(0));
	EXPECT_EQ(2, sched_span_of(1));
	EXPECT_EQ(2, sched_span_of(2));
	EXPECT_EQ(2, sched_span_of(3));

	/* a no longer balances: its CPUs are in no domain. */
	ASSERT_EQ(0, cn_write_in(r, "a/cpuset.sched_load_balance", "0"));
	EXPECT_EQ(0, sched_span_of(0));
	EXPECT_EQ(0, sched_span_of(1));
	EXPECT_EQ(2, sched_span_of(2));

	/* b over CPUs 1-3 takes CPU 1; a balancing again overlaps: merged. */
	ASSERT_EQ(0, cn_write_in(r, "b/cpuset.cpus", "1-3"));
	EXPECT_EQ(0, sched_span_of(0));
	EXPECT_EQ(3, sched_span_of(1));
	EXPECT_EQ(3, sched_span_of(3));
	ASSERT_EQ(0, cn_write_in(r, "a/cpuset.sched_load_balance", "1"));
	EXPECT_EQ(4, sched_span_of(0));
	EXPECT_EQ(4, sched_span_of(3));

	/* A balancing cpuset removed takes its domain along. */
	ASSERT_EQ(0, cn_write_in(r, "b/cpuset.cpus", "2-3"));
	EXPECT_EQ(2, sched_span_of(2));
	ASSERT_EQ(0, cn_rmdir_in(r, "b"));
	end = cn_now_ms() + 3000;
	while (sched_span_of(2) && cn_now_ms() < end)
		cn_sleep_ms(20);
	EXPECT_EQ(0, sched_span_of(2));
	EXPECT_EQ(2, sched_span_of(0));

	/* The top balancing again: one domain of every CPU. */
	ASSERT_EQ(0, cn_write_in(r, "cpuset.sched_load_balance", "1"));
	EXPECT_EQ(4, sched_span_of(0));
	EXPECT_EQ(4, sched_span_of(2));
}

/*
 * cpuset.sched_relax_domain_level: -1 up to one above the highest
 * domain level; 0 turns newly-idle balancing off in every domain of the
 * CPUs it covers, -1 brings the system's default back.
 */
TEST_F(cs, sched_relax_domain_level)
{
	static const char * const bad[] = { "-2", "x", "100", "", "1 2" };
	const char *r = self->root;
	unsigned int i;

	EXPECT_EQ(-1, cn_read_long_in(r, "cpuset.sched_relax_domain_level"));
	ASSERT_EQ(0, make_cs(r, "a", "0-3", "0-1"));
	EXPECT_EQ(-1, cn_read_long_in(r, "a/cpuset.sched_relax_domain_level"));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, cn_write_in(r, "a/cpuset.sched_relax_domain_level",
					       bad[i]))
			TH_LOG("'%s'", bad[i]);
	}
	EXPECT_EQ(-1, cn_read_long_in(r, "a/cpuset.sched_relax_domain_level"));
	ASSERT_EQ(0, cn_write_in(r, "a/cpuset.sched_relax_domain_level", "1"));
	EXPECT_EQ(1, cn_read_long_in(r, "a/cpuset.sched_relax_domain_level"));
	ASSERT_EQ(0, cn_write_in(r, "a/cpuset.sched_relax_domain_level", "-1"));

	if (!sched_domains_visible())
		SKIP(return, "no scheduling domains in debugfs");
	EXPECT_LT(0, sched_domains_of(0, "SD_BALANCE_NEWIDLE"));
	ASSERT_EQ(0, cn_write_in(r, "a/cpuset.sched_relax_domain_level", "0"));
	EXPECT_EQ(0, sched_domains_of(0, "SD_BALANCE_NEWIDLE"));
	EXPECT_LT(0, sched_domains_of(0, NULL));
	ASSERT_EQ(0, cn_write_in(r, "a/cpuset.sched_relax_domain_level", "-1"));
	EXPECT_LT(0, sched_domains_of(0, "SD_BALANCE_NEWIDLE"));
}

TEST_F(cs, top_cpuset_sets_read_only)
{
	char before[256];
	char val[CN_PATH_LEN];

	cn_read_str_in(self->root, "cpuset.cpus", before, sizeof(before));
	EXPECT_EQ(-EACCES, cn_write_in(self->root, "cpuset.cpus", "0"));
	EXPECT_EQ(-EACCES, cn_write_in(self->root, "cpuset.mems", "0"));
	EXPECT_STREQ(before, cn_read_str_in(self->root, "cpuset.cpus", val,
					    sizeof(val)));
}

TEST_F(cs, effective_within_parent)
{
	const char *r = self->root;
	char val[CN_PATH_LEN];

	ASSERT_EQ(0, make_cs(r, "p", "1-3", "0-1"));
	ASSERT_EQ(0, make_cs(r, "p/c", "2-3", "1"));
	EXPECT_STREQ("2-3", cn_read_str_in(r, "p/c/cpuset.effective_cpus", val,
					   sizeof(val)));
	EXPECT_STREQ("1", cn_read_str_in(r, "p/c/cpuset.effective_mems", val,
					 sizeof(val)));
}

/* Poll until @pid is in container @cont, for at most @ms. */
static bool wait_in(const char *cont, pid_t pid, long ms)
{
	long end = cn_now_ms() + ms;

	while (cn_has_task(cont, pid) != 1) {
		if (cn_now_ms() > end)
			return false;
		cn_sleep_ms(20);
	}
	return true;
}

/* Poll until file @file of container @cont reads @want, for at most @ms. */
static bool wait_str(const char *cont, const char *file, const char *want,
		     long ms)
{
	long end = cn_now_ms() + ms;
	char val[CN_PATH_LEN];

	while (strcmp(cn_read_str_in(cont, file, val, sizeof(val)), want)) {
		if (cn_now_ms() > end)
			return false;
		cn_sleep_ms(20);
	}
	return true;
}

/*
 * CPU hotplug as in cgroup v1: a CPU that goes offline leaves cpuset.cpus
 * of every container for good; when it comes back only the top gets it,
 * and a container is given it again by writing cpuset.cpus.  Also when
 * it comes back before the hotplug work has run.
 */
TEST_F_TIMEOUT(cs, hotplug_removes_cpu_for_good, 60)
{
	const char *r = self->root;
	pid_t pid = cn_env_sleeper(&self->env);
	char c[CN_PATH_LEN], val[CN_PATH_LEN], got[CN_PATH_LEN];
	char all[CN_PATH_LEN];

	ASSERT_GT(pid, 0);
	cn_read_str_in(r, "cpuset.cpus", all, sizeof(all));
	cn_path(c, sizeof(c), r, "c");
	ASSERT_EQ(0, make_cs(r, "c", "2-3", "0"));
	ASSERT_EQ(0, cn_move(c, pid));
	ASSERT_STREQ("2-3", affinity(pid, got, sizeof(got)));

	ASSERT_EQ(0, set_online(3, "0"));
	EXPECT_TRUE(wait_str(r, "c/cpuset.effective_cpus", "2", 5000));
	EXPECT_STREQ("2", cn_read_str_in(r, "c/cpuset.cpus", val,
					 sizeof(val)));
	EXPECT_STREQ("2", affinity(pid, got, sizeof(got)));
	EXPECT_EQ(1, cn_has_task(c, pid));
	/* An offline CPU cannot be configured. */
	EXPECT_EQ(-EINVAL, cn_write_in(r, "c/cpuset.cpus", "2-3"));

	ASSERT_EQ(0, set_online(3, "1"));
	EXPECT_TRUE(wait_str(r, "cpuset.cpus", all, 5000));
	EXPECT_STREQ("2", cn_read_str_in(r, "c/cpuset.cpus", val,
					 sizeof(val)));
	EXPECT_STREQ("2", cn_read_str_in(r, "c/cpuset.effective_cpus", val,
					 sizeof(val)));
	EXPECT_STREQ("2", affinity(pid, got, sizeof(got)));
	ASSERT_EQ(0, cn_write_in(r, "c/cpuset.cpus", "2-3"));
	EXPECT_STREQ("2-3", affinity(pid, got, sizeof(got)));

	/* Off and on again at once: still gone from the container. */
	ASSERT_EQ(0, set_online(3, "0"));
	ASSERT_EQ(0, set_online(3, "1"));
	EXPECT_TRUE(wait_str(r, "c/cpuset.cpus", "2", 5000));
	EXPECT_TRUE(wait_str(r, "cpuset.cpus", all, 5000));
	EXPECT_STREQ("2", affinity(pid, got, sizeof(got)));
}

TEST_F_TIMEOUT(cs, hotplug_empty_container_moves_tasks_up, 60)
{
	const char *r = self->root;
	pid_t pid = cn_env_sleeper(&self->env);
	char p[CN_PATH_LEN], c[CN_PATH_LEN], val[CN_PATH_LEN], got[CN_PATH_LEN];

	ASSERT_GT(pid, 0);
	cn_path(p, sizeof(p), r, "p");
	cn_path(c, sizeof(c), r, "p/c");
	ASSERT_EQ(0, make_cs(r, "p", "2-3", "0"));
	ASSERT_EQ(0, make_cs(r, "p/c", "3", "0"));
	ASSERT_EQ(0, cn_move(c, pid));
	ASSERT_STREQ("3", affinity(pid, got, sizeof(got)));

	ASSERT_EQ(0, set_online(3, "0"));
	/* Moved to the nearest ancestor with CPUs: p, not the top. */
	EXPECT_TRUE(wait_in(p, pid, 5000));
	EXPECT_EQ(0, cn_has_task(c, pid));
	EXPECT_STREQ("2", affinity(pid, got, sizeof(got)));
	EXPECT_STREQ("", cn_read_str_in(r, "p/c/cpuset.cpus", val,
					sizeof(val)));
	EXPECT_STREQ("", cn_read_str_in(r, "p/c/cpuset.effective_cpus", val,
					sizeof(val)));

	/* Back online: neither p nor c gets the CPU back by itself. */
	ASSERT_EQ(0, set_online(3, "1"));
	EXPECT_TRUE(wait_str(r, "cpuset.effective_cpus", "0-3", 5000));
	EXPECT_STREQ("2", cn_read_str_in(r, "p/cpuset.cpus", val,
					 sizeof(val)));
	EXPECT_STREQ("", cn_read_str_in(r, "p/c/cpuset.cpus", val,
					sizeof(val)));
	EXPECT_STREQ("2", affinity(pid, got, sizeof(got)));
	/* An emptied container with no tasks can be given CPUs again. */
	ASSERT_EQ(0, cn_write_in(r, "p/cpuset.cpus", "2-3"));
	ASSERT_EQ(0, cn_write_in(r, "p/c/cpuset.cpus", "3"));
	ASSERT_EQ(0, cn_move(c, pid));
	EXPECT_STREQ("3", affinity(pid, got, sizeof(got)));
}

TEST_HARNESS_MAIN
