// SPDX-License-Identifier: GPL-2.0
/*
 * Permissions: what an unprivileged user (nobody) may and may not do,
 * that writes to tasks and release_agent are checked against whoever
 * opened the file (the bug classes of CVE-2021-4197 and CVE-2022-0492),
 * and delegation of a subtree by chown.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "container_util.h"

FIXTURE(perm) {
	struct cn_env env;
	char *root;
	char c[CN_PATH_LEN];
};

FIXTURE_SETUP(perm)
{
	char opts[CN_DIR_LEN];

	cn_cleanup_stale();
	cn_env_init(&self->env);
	snprintf(opts, sizeof(opts), "none,name=perm%d", getpid());
	ASSERT_EQ(0, cn_env_mount(&self->env, opts, &self->root));
	/* nobody must be able to reach the mount point. */
	ASSERT_EQ(0, chmod(self->root, 0755));
	snprintf(self->c, sizeof(self->c), "%s/c", self->root);
	ASSERT_EQ(0, cn_mkdir(self->c));
}

FIXTURE_TEARDOWN(perm)
{
	cn_env_cleanup(&self->env);
}

static int do_mkdir(void *arg)
{
	return cn_mkdir(arg);
}

static int do_rmdir(void *arg)
{
	return cn_rmdir(arg);
}

static int do_write1(void *arg)
{
	return cn_write(arg, "1");
}

static int do_move_self(void *arg)
{
	return cn_move_self(arg);
}

TEST_F(perm, nobody_cannot_change_root_owned)
{
	char path[CN_PATH_LEN];

	cn_path(path, sizeof(path), self->root, "x");
	EXPECT_EQ(-EACCES, cn_run_as(CN_NOBODY, do_mkdir, path));
	cn_path(path, sizeof(path), self->c, "x");
	EXPECT_EQ(-EACCES, cn_run_as(CN_NOBODY, do_mkdir, path));
	EXPECT_EQ(-EACCES, cn_run_as(CN_NOBODY, do_rmdir, self->c));
	cn_path(path, sizeof(path), self->c, "notify_on_release");
	EXPECT_EQ(-EACCES, cn_run_as(CN_NOBODY, do_write1, path));
	EXPECT_EQ(0, cn_read_long_in(self->c, "notify_on_release"));
	EXPECT_EQ(-EACCES, cn_run_as(CN_NOBODY, do_move_self, self->c));
	cn_path(path, sizeof(path), self->root, "release_agent");
	EXPECT_EQ(-EACCES, cn_run_as(CN_NOBODY, do_write1, path));
	EXPECT_TRUE(cn_exists(self->c));
	EXPECT_EQ(1, cn_tree_dirs(self->c));
}

/* Send @fd over the socket @sk. */
static int send_fd(int sk, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, c = 'x';
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sk, &msg, 0) == 1 ? 0 : -errno;
}

static int recv_fd(int sk)
{
	char cbuf[CMSG_SPACE(sizeof(int))], c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sk, &msg, 0) != 1)
		return -errno;
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -EINVAL;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/* As nobody, open @path for writing and send the descriptor over @sk. */
static int open_and_send(const char *path, int sk, uid_t uid)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -errno;
	if (!pid) {
		int fd;

		if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
			_exit(1);
		fd = open(path, O_WRONLY);
		if (fd < 0 || send_fd(sk, fd))
			_exit(2);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? -WEXITSTATUS(status) : -100;
}

/*
 * CVE-2021-4197: a tasks file that nobody may write (delegated to it),
 * opened by nobody and handed to root, must not let root's write move a
 * task nobody could not move.
 */
TEST_F(perm, tasks_checked_against_opener)
{
	char tasks[CN_PATH_LEN + sizeof("/tasks")];
	int sk[2], fd;
	pid_t victim;

	snprintf(tasks, sizeof(tasks), "%s/tasks", self->c);
	ASSERT_EQ(0, chown(self->c, CN_NOBODY, CN_NOBODY));
	ASSERT_EQ(0, chown(tasks, CN_NOBODY, CN_NOBODY));
	victim = cn_env_sleeper(&self->env);
	ASSERT_GT(victim, 0);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM, 0, sk));
	ASSERT_EQ(0, open_and_send(tasks, sk[1], CN_NOBODY));
	fd = recv_fd(sk[0]);
	ASSERT_GE(fd, 0);
	/* root writes, but nobody opened: root's sleeper stays. */
	EXPECT_EQ(-1, dprintf(fd, "%d", victim) < 0 ? -1 : 0);
	EXPECT_EQ(0, cn_has_task(self->c, victim));
	EXPECT_EQ(1, cn_has_task(self->root, victim));
	close(fd);
	/* The same write through root's own descriptor works. */
	EXPECT_EQ(0, cn_move(self->c, victim));
	close(sk[0]);
	close(sk[1]);
}

/* Write "/bin/true" to @arg (an fd number as a string) as nobody. */
static int write_fd_str(void *arg)
{
	int fd = atoi(arg);

	return write(fd, "/bin/true", 9) < 0 ? -errno : 0;
}

/*
 * CVE-2022-0492: setting release_agent needs CAP_SYS_ADMIN in the initial
 * user namespace, for the writer as well as for the opener.
 */
TEST_F(perm, release_agent_needs_cap_sys_admin)
{
	char path[CN_PATH_LEN], fdstr[16], val[CN_PATH_LEN];
	int fd, sk[2];

	snprintf(path, sizeof(path), "%s/release_agent", self->root);
	/* Opened by root, written by nobody. */
	fd = open(path, O_WRONLY);
	ASSERT_GE(fd, 0);
	snprintf(fdstr, sizeof(fdstr), "%d", fd);
	EXPECT_EQ(-EPERM, cn_run_as(CN_NOBODY, write_fd_str, fdstr));
	close(fd);
	EXPECT_STREQ("", cn_str(path, val, sizeof(val)));

	/* Opened by nobody (after a chown), written by root. */
	ASSERT_EQ(0, chown(path, CN_NOBODY, CN_NOBODY));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM, 0, sk));
	ASSERT_EQ(0, open_and_send(path, sk[1], CN_NOBODY));
	fd = recv_fd(sk[0]);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(-1, write(fd, "/bin/true", 9));
	EXPECT_EQ(EPERM, errno);
	close(fd);
	EXPECT_STREQ("", cn_str(path, val, sizeof(val)));
	close(sk[0]);
	close(sk[1]);
}

struct deleg {
	const char *c;
	const char *root;
	pid_t other;
};

/* As nobody in a delegated subtree: what works and what does not. */
static int delegated(void *arg)
{
	struct deleg *d = arg;
	char sub[CN_PATH_LEN];
	int ret;

	snprintf(sub, sizeof(sub), "%s/d", d->c);
	ret = cn_mkdir(sub);
	if (ret)
		return 10;
	/* Its own task into its own subtree. */
	if (cn_move_self(sub))
		return 11;
	if (cn_move_self(d->c))
		return 12;
	/* Not out of it: the root's tasks file is root's. */
	if (cn_move_self(d->root) != -EACCES)
		return 13;
	/* Not somebody else's task. */
	if (cn_move(sub, d->other) != -EACCES)
		return 14;
	if (cn_move_self(sub))
		return 15;
	return 0;
}

TEST_F(perm, delegation_by_chown)
{
	struct deleg d = { .c = self->c, .root = self->root };
	char tasks[CN_PATH_LEN];

	cn_path(tasks, sizeof(tasks), self->c, "tasks");
	d.other = cn_env_sleeper(&self->env);
	ASSERT_GT(d.other, 0);
	ASSERT_EQ(0, chown(self->c, CN_NOBODY, CN_NOBODY));
	ASSERT_EQ(0, chown(tasks, CN_NOBODY, CN_NOBODY));
	EXPECT_EQ(0, cn_run_as(CN_NOBODY, delegated, &d));
	EXPECT_EQ(1, cn_has_task(self->root, d.other));
	/* The child container nobody made is nobody's. */
	EXPECT_TRUE(cn_exists_in(self->c, "d"));
}

TEST_HARNESS_MAIN
