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

#define P cn_fmt

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

/* The path of @pid in hierarchy @hid, or "<error N>". */
static char *where(pid_t pid, int hid)
{
	static char bufs[4][CN_PATH_LEN];
	static int next;
	char *buf = bufs[next++ % 4];
	int ret = cn_proc_path(pid, hid, buf, CN_PATH_LEN);

	if (ret)
		snprintf(buf, CN_PATH_LEN, "<error %d>", ret);
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

	ASSERT_GT(pid, 0);
	cn_env_track(&self->env, pid);
	EXPECT_TRUE(cn_exists(P("%s/node_%d", self->root, pid)));
	EXPECT_EQ(1, cn_has_task(P("%s/node_%d", self->root, pid), pid));
	EXPECT_STREQ(P("/node_%d", pid), where(pid, self->hid));
	/* The parent stays where it was. */
	EXPECT_STREQ("/", where(getpid(), self->hid));
}

TEST_F(ns, clone_each_namespace_flag)
{
	static const unsigned long flags[] = {
		CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWPID,
		CLONE_NEWNET,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		pid_t pid = clone_sleeper(flags[i]);

		ASSERT_GT(pid, 0) TH_LOG("flag %#lx", flags[i]);
		cn_env_track(&self->env, pid);
		EXPECT_STREQ(P("/node_%d", pid), where(pid, self->hid))
			TH_LOG("flag %#lx", flags[i]);
	}
}

TEST_F(ns, plain_fork_makes_no_container)
{
	pid_t pid = clone_sleeper(0);

	ASSERT_GT(pid, 0);
	cn_env_track(&self->env, pid);
	EXPECT_STREQ("/", where(pid, self->hid));
	EXPECT_FALSE(cn_exists(P("%s/node_%d", self->root, pid)));
	EXPECT_EQ(1, cn_tree_dirs(self->root));
}

TEST_F(ns, unshare_moves_caller)
{
	int go[2], done[2];
	pid_t pid = unshare_child(CLONE_NEWUTS, go, done);

	ASSERT_GT(pid, 0);
	cn_env_track(&self->env, pid);
	EXPECT_STREQ("/", where(pid, self->hid));
	ASSERT_EQ(0, run_unshare(go, done));
	EXPECT_STREQ(P("/node_%d", pid), where(pid, self->hid));
	EXPECT_EQ(1, cn_has_task(P("%s/node_%d", self->root, pid), pid));
}

TEST_F(ns, unshare_without_namespaces_stays)
{
	int go[2], done[2];
	pid_t pid = unshare_child(CLONE_FILES, go, done);

	ASSERT_GT(pid, 0);
	cn_env_track(&self->env, pid);
	ASSERT_EQ(0, run_unshare(go, done));
	EXPECT_STREQ("/", where(pid, self->hid));
}

TEST_F(ns, name_clash_gets_suffix)
{
	int go[2], done[2];
	pid_t pid = unshare_child(CLONE_NEWUTS, go, done);

	ASSERT_GT(pid, 0);
	cn_env_track(&self->env, pid);
	ASSERT_EQ(0, cn_mkdir(P("%s/node_%d", self->root, pid)));
	ASSERT_EQ(0, run_unshare(go, done));
	EXPECT_STREQ(P("/node_%d-2", pid), where(pid, self->hid));
}

TEST_F(ns, nested_unshare_nests)
{
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
	for (i = 0; i < 300; i++) {
		if (!strcmp(where(pid, self->hid),
			    P("/node_%d/node_%d", pid, pid)))
			break;
		cn_sleep_ms(10);
	}
	EXPECT_STREQ(P("/node_%d/node_%d", pid, pid), where(pid, self->hid));
}

TEST_F(ns, cannot_move_up_or_sideways)
{
	const char *r = self->root;
	pid_t pid = clone_sleeper(CLONE_NEWUTS);
	char *node;

	ASSERT_GT(pid, 0);
	cn_env_track(&self->env, pid);
	node = strdup(P("%s/node_%d", r, pid));
	ASSERT_TRUE(cn_exists(node));
	ASSERT_EQ(0, cn_mkdir(P("%s/other", r)));

	EXPECT_EQ(-EPERM, cn_move(r, pid));
	EXPECT_EQ(-EPERM, cn_move(P("%s/other", r), pid));
	EXPECT_EQ(1, cn_has_task(node, pid));

	/* Down is fine, and then not back up. */
	ASSERT_EQ(0, cn_mkdir(P("%s/below", node)));
	EXPECT_EQ(0, cn_move(P("%s/below", node), pid));
	EXPECT_EQ(-EPERM, cn_move(node, pid));
	EXPECT_EQ(1, cn_has_task(P("%s/below", node), pid));
	free(node);
}

TEST_F(ns, container_of_exited_task_can_be_removed)
{
	pid_t pid = clone_sleeper(CLONE_NEWUTS);

	ASSERT_GT(pid, 0);
	cn_env_track(&self->env, pid);
	ASSERT_TRUE(cn_exists(P("%s/node_%d", self->root, pid)));
	EXPECT_EQ(-EBUSY, cn_rmdir(P("%s/node_%d", self->root, pid)));
	cn_env_kill(&self->env, pid);
	EXPECT_EQ(0, cn_rmdir(P("%s/node_%d", self->root, pid)));
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
