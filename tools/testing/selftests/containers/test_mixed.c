// SPDX-License-Identifier: GPL-2.0
/*
 * Containers beside cgroups: a kernel with CONFIG_CGROUPS=y (cgroup v1's
 * cpuacct, pids and freezer controllers) and CONFIG_CONTAINERS=y (the
 * cpuset and memory subsystems).  Both filesystems mount side by side, a
 * task is moved in each independently, /proc/<pid>/cgroup and
 * /proc/<pid>/container each show their own membership, a fork inherits
 * both, and a fork that cgroup's pids controller refuses after the
 * containers accepted it leaves no trace in the containers (the
 * container_cancel_fork() path of copy_process(), which no other
 * configuration reaches).
 *
 * "make check" boots the "mixed" configuration with this test (and
 * test_boot) only; on the other kernels it skips.
 *
 * Loop and if bodies holding an EXPECT_*() or ASSERT_*() keep their braces
 * even when they are one statement: the harness macros are two statements.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "container_util.h"

/* cgroup v1 lists a hierarchy's controllers in the order of their ids. */
#define CG_OPTS		"cpuacct,freezer,pids"
#define CN_OPTS		"cpuset,memory"
#define MB		(1024L * 1024)

/* Whether /proc/filesystems lists @fstype. */
static bool have_fs(const char *fstype)
{
	char *all = cn_read_all("/proc/filesystems", 4096);
	char want[64];
	bool ret;

	if (!all)
		return false;
	snprintf(want, sizeof(want), "\t%s\n", fstype);
	ret = strstr(all, want);
	free(all);
	return ret;
}

/*
 * The line of /proc/@pid/@file ("cgroup" or "container") whose
 * controller list is @subsys: its path in @buf, or "<none>".
 */
static char *member_of(pid_t pid, const char *file, const char *subsys,
		       char *buf, size_t len)
{
	char path[64], line[512], *p;
	FILE *f;

	snprintf(buf, len, "<none>");
	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	f = fopen(path, "re");
	if (!f)
		return buf;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		p = strchr(line, ':');
		if (!p || strncmp(p + 1, subsys, strlen(subsys)) ||
		    p[1 + strlen(subsys)] != ':')
			continue;
		snprintf(buf, len, "%s", p + 2 + strlen(subsys));
		break;
	}
	fclose(f);
	return buf;
}

FIXTURE(mixed) {
	struct cn_env env;
	char *cn;			/* the container hierarchy */
	char cg[CN_PATH_LEN];		/* the cgroup v1 hierarchy */
	char cn_b[CN_PATH_LEN];		/* container "b" (cpuset, memory) */
	char cg_a[CN_PATH_LEN];		/* cgroup "a" (cpuacct, freezer, pids) */
	bool cg_mounted;
};

FIXTURE_SETUP(mixed)
{
	const char *tmp;

	if (!have_fs("cgroup") || !have_fs(CN_FSTYPE))
		SKIP(return, "needs both cgroup and container filesystems");
	cn_cleanup_stale();
	cn_env_init(&self->env);
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, CN_OPTS, &self->cn));
	tmp = cn_env_tmpdir(&self->env);
	ASSERT_NE(NULL, tmp);
	cn_path(self->cg, sizeof(self->cg), tmp, "cg");
	ASSERT_EQ(0, mkdir(self->cg, 0755));
	ASSERT_EQ(0, mount("none", self->cg, "cgroup", 0, CG_OPTS));
	self->cg_mounted = true;

	cn_path(self->cn_b, sizeof(self->cn_b), self->cn, "b");
	ASSERT_EQ(0, cn_mkdir(self->cn_b));
	ASSERT_EQ(0, cn_write_in(self->cn_b, "cpuset.cpus", "0"));
	ASSERT_EQ(0, cn_write_in(self->cn_b, "cpuset.mems", "0"));
	cn_path(self->cg_a, sizeof(self->cg_a), self->cg, "a");
	ASSERT_EQ(0, mkdir(self->cg_a, 0755));
}

FIXTURE_TEARDOWN(mixed)
{
	cn_env_kill_all(&self->env);
	if (self->cg_mounted) {
		rmdir(self->cg_a);
		umount(self->cg);
	}
	cn_env_cleanup(&self->env);
}

/* Move @pid into cgroup a (cgroup.procs) and container b (tasks). */
static int move_both(FIXTURE_DATA(mixed) *self, pid_t pid)
{
	int ret = cn_writef_in(self->cg_a, "cgroup.procs", "%d", pid);

	return ret ? ret : cn_move(self->cn_b, pid);
}

/* Each subsystem is in one of the two filesystems, and only there. */
TEST_F(mixed, each_controller_belongs_to_one_filesystem)
{
	char *cgroups = cn_read_all("/proc/cgroups", 4096);
	char dir[CN_PATH_LEN];
	int h, n, e;

	ASSERT_NE(NULL, cgroups);
	EXPECT_NE(NULL, strstr(cgroups, "\ncpuacct\t"));
	EXPECT_NE(NULL, strstr(cgroups, "\nfreezer\t"));
	EXPECT_NE(NULL, strstr(cgroups, "\npids\t"));
	EXPECT_EQ(NULL, strstr(cgroups, "\ncpuset\t"));
	EXPECT_EQ(NULL, strstr(cgroups, "\nmemory\t"));
	free(cgroups);

	EXPECT_EQ(0, cn_subsys_info("cpuset", &h, &n, &e));
	EXPECT_EQ(0, cn_subsys_info("memory", &h, &n, &e));
	EXPECT_EQ(-ENOENT, cn_subsys_info("cpuacct", &h, &n, &e));
	EXPECT_EQ(-ENOENT, cn_subsys_info("pids", &h, &n, &e));

	/* Neither filesystem accepts the other's subsystems. */
	cn_path(dir, sizeof(dir), cn_env_tmpdir(&self->env), "x");
	ASSERT_EQ(0, mkdir(dir, 0755));
	EXPECT_EQ(-1, mount("none", dir, "cgroup", 0, "memory"));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, mount("none", dir, "cgroup", 0, "cpuset"));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, mount("none", dir, CN_FSTYPE, 0, "pids"));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, mount("none", dir, CN_FSTYPE, 0, "cpuacct"));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, rmdir(dir));
}

/*
 * A task moved in each hierarchy shows in both /proc files, and a move in
 * one leaves its place in the other alone.
 */
TEST_F(mixed, task_moved_in_each_hierarchy)
{
	pid_t pid = cn_env_sleeper(&self->env);
	char buf[CN_PATH_LEN];
	cpu_set_t set;

	ASSERT_GT(pid, 0);
	EXPECT_STREQ("/", member_of(pid, "cgroup", CG_OPTS, buf, sizeof(buf)));
	EXPECT_STREQ("/", member_of(pid, "container", CN_OPTS, buf,
				    sizeof(buf)));

	ASSERT_EQ(0, move_both(self, pid));
	EXPECT_STREQ("/a", member_of(pid, "cgroup", CG_OPTS, buf,
				     sizeof(buf)));
	EXPECT_STREQ("/b", member_of(pid, "container", CN_OPTS, buf,
				     sizeof(buf)));
	EXPECT_EQ(1, cn_has_task(self->cn_b, pid));
	EXPECT_EQ(1, cn_read_long_in(self->cg_a, "pids.current"));

	/* Container b's cpuset applies although cgroups are there too. */
	ASSERT_EQ(0, sched_getaffinity(pid, sizeof(set), &set));
	EXPECT_EQ(1, CPU_COUNT(&set));
	EXPECT_TRUE(CPU_ISSET(0, &set));

	/* Out of container b: cgroup a keeps the task. */
	ASSERT_EQ(0, cn_move(self->cn, pid));
	EXPECT_STREQ("/", member_of(pid, "container", CN_OPTS, buf,
				    sizeof(buf)));
	EXPECT_STREQ("/a", member_of(pid, "cgroup", CG_OPTS, buf,
				     sizeof(buf)));
	EXPECT_EQ(0, cn_count_tasks(self->cn_b));

	/* Out of cgroup a: container b (back in it) keeps the task. */
	ASSERT_EQ(0, cn_move(self->cn_b, pid));
	ASSERT_EQ(0, cn_writef_in(self->cg, "cgroup.procs", "%d", pid));
	EXPECT_STREQ("/", member_of(pid, "cgroup", CG_OPTS, buf, sizeof(buf)));
	EXPECT_STREQ("/b", member_of(pid, "container", CN_OPTS, buf,
				     sizeof(buf)));
	EXPECT_EQ(0, cn_read_long_in(self->cg_a, "pids.current"));

	/* Once the task is gone, both can be removed. */
	cn_env_kill(&self->env, pid);
	EXPECT_EQ(0, cn_count_tasks(self->cn_b));
	EXPECT_EQ(0, cn_rmdir(self->cn_b));
	EXPECT_EQ(0, rmdir(self->cg_a));
}

/*
 * Each hierarchy's controllers act on the task: memory charged in
 * container b, CPU time in cgroup a, and cgroup a's freezer stops it.
 */
TEST_F(mixed, both_hierarchies_control_the_task)
{
	char buf[64], state[32];
	int go[2], done[2];
	long mem, cpu;
	pid_t pid;
	int i;

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char *p;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (read(go[0], buf, 1) != 1)
			_exit(1);
		/* 8 MiB touched and kept, and some CPU time burnt. */
		p = mmap(NULL, 8 * MB, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(1);
		memset(p, 1, 8 * MB);
		for (i = 0; i < 50; i++)
			memset(p, i, 8 * MB);
		if (write(done[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	cn_env_track(&self->env, pid);
	ASSERT_EQ(0, move_both(self, pid));
	ASSERT_EQ(1, write(go[1], "x", 1));
	ASSERT_EQ(1, read(done[0], buf, 1));

	mem = cn_read_long_in(self->cn_b, "memory.usage_in_bytes");
	EXPECT_LE(8 * MB, mem);
	EXPECT_GT(16 * MB, mem);
	cpu = cn_read_long_in(self->cg_a, "cpuacct.usage");
	EXPECT_LT(0, cpu);
	TH_LOG("container b: %ld kB charged; cgroup a: %ld us of CPU",
	       mem / 1024, cpu / 1000);

	ASSERT_EQ(0, cn_write_in(self->cg_a, "freezer.state", "FROZEN"));
	for (i = 0; i < 100; i++) {
		cn_read_str_in(self->cg_a, "freezer.state", state,
			       sizeof(state));
		if (!strcmp(state, "FROZEN"))
			break;
		cn_sleep_ms(20);
	}
	EXPECT_STREQ("FROZEN", state);
	/* A frozen task still moves between containers, charges and all. */
	EXPECT_EQ(0, cn_move(self->cn, pid));
	EXPECT_EQ(0, cn_count_tasks(self->cn_b));
	EXPECT_EQ(0, cn_write_in(self->cg_a, "freezer.state", "THAWED"));

	cn_env_kill(&self->env, pid);
	EXPECT_EQ(0, rmdir(self->cg_a));
	EXPECT_EQ(0, cn_rmdir(self->cn_b));
	close(go[0]);
	close(go[1]);
	close(done[0]);
	close(done[1]);
}

/* A fork inherits both memberships; the exit leaves both. */
TEST_F(mixed, fork_inherits_both)
{
	pid_t pid, kid;
	char buf[CN_PATH_LEN];
	int st;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (move_both(self, getpid()))
			_exit(2);
		kid = fork();
		if (kid < 0)
			_exit(3);
		if (!kid) {
			member_of(getpid(), "cgroup", CG_OPTS, buf,
				  sizeof(buf));
			if (strcmp(buf, "/a"))
				_exit(4);
			member_of(getpid(), "container", CN_OPTS, buf,
				  sizeof(buf));
			if (strcmp(buf, "/b"))
				_exit(5);
			if (cn_read_long_in(self->cg_a, "pids.current") != 2)
				_exit(6);
			if (cn_count_tasks(self->cn_b) != 2)
				_exit(7);
			_exit(0);
		}
		if (waitpid(kid, &st, 0) != kid || !WIFEXITED(st))
			_exit(8);
		_exit(WEXITSTATUS(st));
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(0, cn_read_long_in(self->cg_a, "pids.current"));
	EXPECT_EQ(0, cn_count_tasks(self->cn_b));
	EXPECT_EQ(0, cn_rmdir(self->cn_b));
	EXPECT_EQ(0, rmdir(self->cg_a));
}

/*
 * cgroup's pids controller refuses a fork after container_can_fork() let
 * it through: copy_process() must undo the containers' part (the child's
 * pinned membership), or container b could never be removed again.  Done
 * many times, so that a leaked reference per fork would show as well.
 */
TEST_F(mixed, fork_refused_by_cgroup_leaves_containers_clean)
{
	char buf[64];
	pid_t pid;
	int st;

	ASSERT_EQ(0, cn_write_in(self->cg_a, "pids.max", "1"));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int i;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (move_both(self, getpid()))
			_exit(2);
		for (i = 0; i < 100; i++) {
			pid_t kid = fork();

			if (!kid)
				_exit(0);
			if (kid > 0 || errno != EAGAIN)
				_exit(3);
		}
		if (cn_count_tasks(self->cn_b) != 1)
			_exit(4);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	/* cgroup v1's pids.events counts the refused forks. */
	EXPECT_STREQ("max 100", cn_read_str_in(self->cg_a, "pids.events", buf,
					       sizeof(buf)));
	EXPECT_EQ(0, cn_count_tasks(self->cn_b));
	EXPECT_EQ(0, cn_rmdir(self->cn_b));
	EXPECT_EQ(0, rmdir(self->cg_a));
}

TEST_HARNESS_MAIN
