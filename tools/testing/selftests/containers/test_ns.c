// SPDX-License-Identifier: GPL-2.0
/*
 * The ns subsystem: creating namespaces with clone() or unshare() moves
 * the task into a new child container "node_<pid>", and tasks can only
 * move down from there.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "container_util.h"

FIXTURE(ns) {
	struct cn_env env;
	char *root;
	int hid;
};

FIXTURE_SETUP(ns)
{
	cn_cleanup_stale();
	cn_env_init(&self->env);
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "ns", &self->root));
	self->hid = cn_hier_id("ns");
	ASSERT_GT(self->hid, 0);
}

FIXTURE_TEARDOWN(ns)
{
	cn_env_cleanup(&self->env);
}

/* The path of @pid in hierarchy @hid in @buf, or "<error N>"; @buf. */
static char *where(pid_t pid, int hid, char *buf, size_t len)
{
	int ret = cn_proc_path(pid, hid, buf, len);

	if (ret)
		snprintf(buf, len, "<error %d>", ret);
	return buf;
}

/*
 * "@dir/node_<pid>", the container a new namespace of @pid makes; with ""
 * for @dir, its path as /proc/<pid>/container shows it.  Returns @buf.
 */
static char *node_of(char *buf, size_t len, const char *dir, pid_t pid)
{
	snprintf(buf, len, "%s/node_%d", dir, pid);
	return buf;
}

/* clone() with @flags; the child pauses until killed. */
static pid_t clone_sleeper(unsigned long flags)
{
	pid_t pid = syscall(SYS_clone, flags | SIGCHLD, 0, NULL, NULL, 0);

	if (pid < 0)
		return -errno;
	if (!pid) {
		for (;;)
			pause();
	}
	return pid;
}

/*
 * A child that waits for a byte on @go, unshares @flags, reports the
 * result on @done and pauses.
 */
static pid_t unshare_child(unsigned long flags, int go[2], int done[2])
{
	pid_t pid;

	if (pipe(go) || pipe(done))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		char c;
		int ret;

		if (read(go[0], &c, 1) != 1)
			_exit(1);
		ret = unshare(flags) ? errno : 0;
		if (write(done[1], &ret, sizeof(ret)) != sizeof(ret))
			_exit(1);
		for (;;)
			pause();
	}
	return pid;
}

static int run_unshare(int go[2], int done[2])
{
	int ret = -1;

	if (write(go[1], "x", 1) != 1)
		return -1;
	if (read(done[0], &ret, sizeof(ret)) != sizeof(ret))
		return -1;
	return ret;
}

TEST_F(ns, clone_newuts_makes_container)
{
	pid_t pid = clone_sleeper(CLONE_NEWUTS);
	char node[CN_PATH_LEN], want[CN_PATH_LEN], got[CN_PATH_LEN];

	ASSERT_GT(pid, 0);
	cn_env_track(&self->env, pid);
	node_of(node, sizeof(node), self->root, pid);
	EXPECT_TRUE(cn_exists(node));
	EXPECT_EQ(1, cn_has_task(node, pid));
	EXPECT_STREQ(node_of(want, sizeof(want), "", pid),
		     where(pid, self->hid, got, sizeof(got)));
	/* The parent stays where it was. */
	EXPECT_STREQ("/", where(getpid(), self->hid, got, sizeof(got)));
}

TEST_F(ns, clone_each_namespace_flag)
{
	static const unsigned long flags[] = {
		CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWPID,
		CLONE_NEWNET,
	};
	char want[CN_PATH_LEN], got[CN_PATH_LEN];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		pid_t pid = clone_sleeper(flags[i]);

		ASSERT_GT(pid, 0) TH_LOG("flag %#lx", flags[i]);
		cn_env_track(&self->env, pid);
		EXPECT_STREQ(node_of(want, sizeof(want), "", pid),
			     where(pid, self->hid, got, sizeof(got)))
			TH_LOG("flag %#lx", flags[i]);
	}
}

TEST_F(ns, plain_fork_makes_no_container)
{
	pid_t pid = clone_sleeper(0);
	char node[CN_PATH_LEN], got[CN_PATH_LEN];

	ASSERT_GT(pid, 0);
	cn_env_track(&self->env, pid);
	EXPECT_STREQ("/", where(pid, self->hid, got, sizeof(got)));
	EXPECT_FALSE(cn_exists(node_of(node, sizeof(node), self->root, pid)));
	EXPECT_EQ(1, cn_tree_dirs(self->root));
}

TEST_F(ns, unshare_moves_caller)
{
	int go[2], done[2];
	pid_t pid = unshare_child(CLONE_NEWUTS, go, done);
	char node[CN_PATH_LEN], want[CN_PATH_LEN], got[CN_PATH_LEN];

	ASSERT_GT(pid, 0);
	cn_env_track(&self->env, pid);
	EXPECT_STREQ("/", where(pid, self->hid, got, sizeof(got)));
	ASSERT_EQ(0, run_unshare(go, done));
	EXPECT_STREQ(node_of(want, sizeof(want), "", pid),
		     where(pid, self->hid, got, sizeof(got)));
	EXPECT_EQ(1, cn_has_task(node_of(node, sizeof(node), self->root, pid),
				 pid));
}

TEST_F(ns, unshare_without_namespaces_stays)
{
	int go[2], done[2];
	pid_t pid = unshare_child(CLONE_FILES, go, done);
	char got[CN_PATH_LEN];

	ASSERT_GT(pid, 0);
	cn_env_track(&self->env, pid);
	ASSERT_EQ(0, run_unshare(go, done));
	EXPECT_STREQ("/", where(pid, self->hid, got, sizeof(got)));
}

TEST_F(ns, name_clash_gets_suffix)
{
	int go[2], done[2];
	pid_t pid = unshare_child(CLONE_NEWUTS, go, done);
	char node[CN_PATH_LEN], want[CN_PATH_LEN], got[CN_PATH_LEN];

	ASSERT_GT(pid, 0);
	cn_env_track(&self->env, pid);
	ASSERT_EQ(0, cn_mkdir(node_of(node, sizeof(node), self->root, pid)));
	ASSERT_EQ(0, run_unshare(go, done));
	snprintf(want, sizeof(want), "/node_%d-2", pid);
	EXPECT_STREQ(want, where(pid, self->hid, got, sizeof(got)));
}

TEST_F(ns, nested_unshare_nests)
{
	char want[CN_PATH_LEN], got[CN_PATH_LEN];
	pid_t pid;
	int i;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		if (unshare(CLONE_NEWUTS) || unshare(CLONE_NEWIPC))
			_exit(1);
		for (;;)
			pause();
	}
	cn_env_track(&self->env, pid);
	/* The second unshare starts from the container of the first. */
	snprintf(want, sizeof(want), "/node_%d/node_%d", pid, pid);
	for (i = 0; i < 300; i++) {
		if (!strcmp(where(pid, self->hid, got, sizeof(got)), want))
			break;
		cn_sleep_ms(10);
	}
	EXPECT_STREQ(want, where(pid, self->hid, got, sizeof(got)));
}

TEST_F(ns, cannot_move_up_or_sideways)
{
	const char *r = self->root;
	pid_t pid = clone_sleeper(CLONE_NEWUTS);
	char node[CN_PATH_LEN], other[CN_PATH_LEN], below[CN_PATH_LEN];

	ASSERT_GT(pid, 0);
	cn_env_track(&self->env, pid);
	node_of(node, sizeof(node), r, pid);
	cn_path(other, sizeof(other), r, "other");
	cn_path(below, sizeof(below), node, "below");
	ASSERT_TRUE(cn_exists(node));
	ASSERT_EQ(0, cn_mkdir(other));

	EXPECT_EQ(-EPERM, cn_move(r, pid));
	EXPECT_EQ(-EPERM, cn_move(other, pid));
	EXPECT_EQ(1, cn_has_task(node, pid));

	/* Down is fine, and then not back up. */
	ASSERT_EQ(0, cn_mkdir(below));
	EXPECT_EQ(0, cn_move(below, pid));
	EXPECT_EQ(-EPERM, cn_move(node, pid));
	EXPECT_EQ(1, cn_has_task(below, pid));
}

TEST_F(ns, container_of_exited_task_can_be_removed)
{
	pid_t pid = clone_sleeper(CLONE_NEWUTS);
	char node[CN_PATH_LEN];

	ASSERT_GT(pid, 0);
	cn_env_track(&self->env, pid);
	node_of(node, sizeof(node), self->root, pid);
	ASSERT_TRUE(cn_exists(node));
	EXPECT_EQ(-EBUSY, cn_rmdir(node));
	cn_env_kill(&self->env, pid);
	EXPECT_EQ(0, cn_rmdir(node));
}

TEST(no_hierarchy_no_container)
{
	/* Without an ns hierarchy nothing happens: clone just works. */
	pid_t pid;
	int status;

	if (cn_hier_id("ns") > 0)
		SKIP(return, "an ns hierarchy is mounted");
	pid = syscall(SYS_clone, CLONE_NEWUTS | SIGCHLD, 0, NULL, NULL, 0);
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
}

TEST_HARNESS_MAIN
