// SPDX-License-Identifier: GPL-2.0
/*
 * The pids subsystem (task limit): pids.max stops fork and clone with
 * EAGAIN in the container and below it, counts threads, leaves no trace
 * of a refused fork, lets a move exceed the limit, lets the limit be
 * lowered below the count, and rejects bad values.
 *
 * Forks inside a container are made by an agent: a child of the test that
 * moves itself into the container, then forks on command and reports how
 * many forks succeeded and the errno of the one that failed.  The agent's
 * children pause until it kills them at the end or dies (parent-death
 * signal), and the agent is tracked in the env, so that a failed test
 * leaves no task behind.
 *
 * Every test mounts its own "pids,name=ct<pid>" hierarchy: the name lets
 * cn_cleanup_stale() empty it should a failed test leave it behind.
 *
 * Loop and if bodies holding an EXPECT_*() or ASSERT_*() keep their braces
 * even when they are one statement: the harness macros are two statements.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "container_util.h"

/* An agent never has more children than this, limit or not. */
#define AGENT_MAX_KIDS	64

/* Commands to an agent, one byte each. */
#define AGENT_FORK	'f'	/* fork one child */
#define AGENT_BOMB	'b'	/* fork until fork fails */
#define AGENT_QUIT	'q'	/* kill and reap the children, exit */

struct agent {
	pid_t pid;
	int cmd;	/* write end of the command pipe */
	int res;	/* read end of the reply pipe */
};

/* A child of an agent: pause until killed or until the agent dies. */
static void agent_kid(pid_t agent, int cmd, int res)
{
	close(cmd);
	close(res);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != agent)
		_exit(0);
	for (;;)
		pause();
}

/*
 * Move into @cont and reply { 0, errno of the move }; then serve commands
 * from @cmd, replying { children forked, errno of the failed fork or 0 }
 * to each, until AGENT_QUIT or end of file.
 */
static void agent_main(const char *cont, pid_t test, int cmd, int res)
{
	pid_t kids[AGENT_MAX_KIDS], self = getpid();
	int n = 0, i, reply[2];
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != test)
		_exit(1);
	reply[0] = 0;
	reply[1] = -cn_move_self(cont);
	if (write(res, reply, sizeof(reply)) != sizeof(reply) || reply[1])
		_exit(1);
	while (read(cmd, &c, 1) == 1 && c != AGENT_QUIT) {
		int want = c == AGENT_BOMB ? AGENT_MAX_KIDS : 1;

		reply[0] = 0;
		reply[1] = 0;
		while (reply[0] < want && n < AGENT_MAX_KIDS) {
			pid_t pid = fork();

			if (pid < 0) {
				reply[1] = errno;
				break;
			}
			if (!pid)
				agent_kid(self, cmd, res);
			kids[n++] = pid;
			reply[0]++;
		}
		if (write(res, reply, sizeof(reply)) != sizeof(reply))
			break;
	}
	for (i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	for (i = 0; i < n; i++)
		waitpid(kids[i], NULL, 0);
	_exit(0);
}

/* Start an agent in @cont.  Returns 0 once it is there, or -errno. */
static int agent_start(struct cn_env *env, struct agent *a, const char *cont)
{
	int cmd[2], res[2], reply[2];
	pid_t test = getpid();

	if (pipe(cmd))
		return -errno;
	if (pipe(res)) {
		close(cmd[0]);
		close(cmd[1]);
		return -errno;
	}
	a->pid = fork();
	if (!a->pid) {
		close(cmd[1]);
		close(res[0]);
		agent_main(cont, test, cmd[0], res[1]);
	}
	close(cmd[0]);
	close(res[1]);
	a->cmd = cmd[1];
	a->res = res[0];
	if (a->pid < 0) {
		close(a->cmd);
		close(a->res);
		return -EAGAIN;
	}
	cn_env_track(env, a->pid);
	if (read(a->res, reply, sizeof(reply)) != sizeof(reply))
		return -EIO;
	return -reply[1];
}

/*
 * Send @cmd to the agent.  Returns the number of children it forked and
 * sets *@err to the errno of the fork that failed (0 if none did), or
 * returns -1 if the agent is gone.
 */
static int agent_do(struct agent *a, char cmd, int *err)
{
	int reply[2];

	*err = -1;
	if (write(a->cmd, &cmd, 1) != 1 ||
	    read(a->res, reply, sizeof(reply)) != sizeof(reply))
		return -1;
	*err = reply[1];
	return reply[0];
}

/*
 * Stop the agent: its children are killed and reaped, and so is the agent,
 * before this returns.  The pipes are closed.
 */
static void agent_stop(struct cn_env *env, struct agent *a)
{
	char c = AGENT_QUIT;

	if (a->pid <= 0)
		return;
	/* Other children of the test may hold the pipe: say it. */
	if (write(a->cmd, &c, 1) != 1)
		kill(a->pid, SIGKILL);
	close(a->cmd);
	close(a->res);
	while (waitpid(a->pid, NULL, 0) < 0 && errno == EINTR)
		;
	cn_env_untrack(env, a->pid);
	a->pid = 0;
}

/* "max N" of pids.events, or -1. */
static long events_max(const char *cont)
{
	long v;
	char val[CN_PATH_LEN];

	cn_read_str_in(cont, "pids.events", val, sizeof(val));
	return sscanf(val, "max %ld", &v) == 1 ? v : -1;
}

/* Wait until pids.current of @cont is @want, at most 2 s; return it. */
static long wait_current(const char *cont, long want)
{
	long v = -1;
	int i;

	for (i = 0; i < 200; i++) {
		v = cn_read_long_in(cont, "pids.current");
		if (v == want)
			break;
		cn_sleep_ms(10);
	}
	return v;
}

/* The permission bits of file @file of container @cont, or -1. */
static int mode_of(const char *cont, const char *file)
{
	char path[CN_PATH_LEN];
	struct stat st;

	cn_path(path, sizeof(path), cont, file);
	return stat(path, &st) ? -1 : (int)(st.st_mode & 07777);
}

FIXTURE(pids) {
	struct cn_env env;
	char *root;
	char c[CN_PATH_LEN];	/* a container: <root>/c */
	char d[CN_PATH_LEN];	/* its child: <root>/c/d */
};

FIXTURE_SETUP(pids)
{
	char opts[CN_DIR_LEN];

	/* A write to an agent that died must fail, not kill the test. */
	signal(SIGPIPE, SIG_IGN);
	cn_cleanup_stale();
	cn_env_init(&self->env);
	snprintf(opts, sizeof(opts), "pids,name=ct%d", getpid());
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, opts, &self->root));
	snprintf(self->c, sizeof(self->c), "%s/c", self->root);
	snprintf(self->d, sizeof(self->d), "%s/c/d", self->root);
	ASSERT_EQ(0, cn_mkdir(self->c));
}

FIXTURE_TEARDOWN(pids)
{
	cn_env_cleanup(&self->env);
}

/* 1. The files, their modes and their values in a new container. */
TEST_F(pids, files_and_defaults)
{
	const char *c = self->c;
	char val[CN_PATH_LEN];

	EXPECT_EQ(0644, mode_of(c, "pids.max"));
	EXPECT_EQ(0444, mode_of(c, "pids.current"));
	EXPECT_EQ(0444, mode_of(c, "pids.events"));
	EXPECT_STREQ("max", cn_read_str_in(c, "pids.max", val, sizeof(val)));
	EXPECT_EQ(0, cn_read_long_in(c, "pids.current"));
	EXPECT_STREQ("max 0", cn_read_str_in(c, "pids.events", val,
					     sizeof(val)));

	/* The top has no limit and counts nothing: none of the files. */
	EXPECT_FALSE(cn_exists_in(self->root, "pids.max"));
	EXPECT_FALSE(cn_exists_in(self->root, "pids.current"));
	EXPECT_FALSE(cn_exists_in(self->root, "pids.events"));

	/* A grandchild has them too. */
	ASSERT_EQ(0, cn_mkdir(self->d));
	EXPECT_STREQ("max", cn_read_str_in(self->d, "pids.max", val,
					   sizeof(val)));
	EXPECT_EQ(0, cn_read_long_in(self->d, "pids.current"));
	EXPECT_STREQ("max 0", cn_read_str_in(self->d, "pids.events", val,
					     sizeof(val)));
}

/* 2. A fork bomb stops at the limit; outside, fork still works. */
TEST_F_TIMEOUT(pids, fork_bomb_stops_at_limit, 120)
{
	const char *c = self->c;
	struct agent a;
	int err, status;
	pid_t pid;

	ASSERT_EQ(0, cn_write_in(c, "pids.max", "20"));
	ASSERT_EQ(0, agent_start(&self->env, &a, c));
	/* The agent itself and 19 children. */
	EXPECT_EQ(19, agent_do(&a, AGENT_BOMB, &err));
	EXPECT_EQ(EAGAIN, err);
	EXPECT_EQ(20, cn_read_long_in(c, "pids.current"));
	EXPECT_EQ(20, cn_count_tasks(c));
	EXPECT_EQ(1, events_max(c));

	/* Outside the container, fork works. */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));

	agent_stop(&self->env, &a);
	EXPECT_EQ(0, wait_current(c, 0));
}

/*
 * 3. An ancestor's limit applies below it and the refusal is counted where
 * the limit was hit; a tighter limit below wins.
 */
TEST_F_TIMEOUT(pids, ancestor_limit_applies, 120)
{
	const char *c = self->c, *d = self->d;
	struct agent a;
	int err;

	ASSERT_EQ(0, cn_mkdir(d));
	ASSERT_EQ(0, cn_write_in(c, "pids.max", "5"));
	ASSERT_EQ(0, agent_start(&self->env, &a, d));
	EXPECT_EQ(4, agent_do(&a, AGENT_BOMB, &err));
	EXPECT_EQ(EAGAIN, err);
	EXPECT_EQ(5, cn_read_long_in(d, "pids.current"));
	EXPECT_EQ(5, cn_read_long_in(c, "pids.current"));
	EXPECT_EQ(1, events_max(c));
	EXPECT_EQ(0, events_max(d));
	agent_stop(&self->env, &a);
	EXPECT_EQ(0, wait_current(d, 0));
	EXPECT_EQ(0, wait_current(c, 0));

	ASSERT_EQ(0, cn_write_in(c, "pids.max", "10"));
	ASSERT_EQ(0, cn_write_in(d, "pids.max", "3"));
	ASSERT_EQ(0, agent_start(&self->env, &a, d));
	EXPECT_EQ(2, agent_do(&a, AGENT_BOMB, &err));
	EXPECT_EQ(EAGAIN, err);
	EXPECT_EQ(3, cn_read_long_in(d, "pids.current"));
	EXPECT_EQ(3, cn_read_long_in(c, "pids.current"));
	EXPECT_EQ(1, events_max(d));
	EXPECT_EQ(1, events_max(c));
	agent_stop(&self->env, &a);
	EXPECT_EQ(0, wait_current(d, 0));
	EXPECT_EQ(0, wait_current(c, 0));
}

static void *idle_thread(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

/* In @cont, with room for 3 tasks: two threads, then EAGAIN. */
static int threads_in(const char *cont)
{
	pthread_t t;
	int i;

	if (cn_move_self(cont))
		return 10;
	for (i = 0; i < 2; i++)
		if (pthread_create(&t, NULL, idle_thread, NULL))
			return 11 + i;
	if (pthread_create(&t, NULL, idle_thread, NULL) != EAGAIN)
		return 20;
	if (cn_read_long_in(cont, "pids.current") != 3)
		return 21;
	return 0;
}

/* 4. Threads count as tasks. */
TEST_F_TIMEOUT(pids, threads_count, 60)
{
	const char *c = self->c;
	int status;
	pid_t pid;

	ASSERT_EQ(0, cn_write_in(c, "pids.max", "3"));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(threads_in(c));
	cn_env_track(&self->env, pid);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	cn_env_untrack(&self->env, pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(1, events_max(c));
	EXPECT_EQ(0, wait_current(c, 0));
}

/*
 * 5. A refused fork leaves the counts as they were, in the container and
 * in its parent; once the tasks are gone both are back to 0.
 */
TEST_F_TIMEOUT(pids, refused_fork_leaves_no_trace, 60)
{
	const char *c = self->c, *d = self->d;
	struct agent a;
	int i, err;

	ASSERT_EQ(0, cn_mkdir(d));
	ASSERT_EQ(0, cn_write_in(d, "pids.max", "1"));
	ASSERT_EQ(0, agent_start(&self->env, &a, d));
	EXPECT_EQ(1, cn_read_long_in(d, "pids.current"));
	for (i = 0; i < 5; i++) {
		EXPECT_EQ(0, agent_do(&a, AGENT_FORK, &err));
		EXPECT_EQ(EAGAIN, err);
		EXPECT_EQ(1, cn_read_long_in(d, "pids.current"));
		EXPECT_EQ(1, cn_read_long_in(c, "pids.current"));
	}
	EXPECT_EQ(5, events_max(d));
	EXPECT_EQ(0, events_max(c));

	/* Nothing was left charged: one more task fits in a limit of 2. */
	ASSERT_EQ(0, cn_write_in(d, "pids.max", "2"));
	EXPECT_EQ(1, agent_do(&a, AGENT_FORK, &err));
	EXPECT_EQ(0, err);
	EXPECT_EQ(0, agent_do(&a, AGENT_FORK, &err));
	EXPECT_EQ(EAGAIN, err);
	EXPECT_EQ(2, cn_read_long_in(d, "pids.current"));
	EXPECT_EQ(2, cn_read_long_in(c, "pids.current"));

	agent_stop(&self->env, &a);
	EXPECT_EQ(0, wait_current(d, 0));
	EXPECT_EQ(0, wait_current(c, 0));
}

/* 6. Moving tasks in may exceed the limit; forks inside then fail. */
TEST_F_TIMEOUT(pids, attach_may_exceed, 60)
{
	const char *c = self->c;
	struct agent a;
	pid_t s1, s2;
	int err;

	ASSERT_EQ(0, cn_write_in(c, "pids.max", "1"));
	s1 = cn_env_sleeper(&self->env);
	s2 = cn_env_sleeper(&self->env);
	ASSERT_GT(s1, 0);
	ASSERT_GT(s2, 0);
	EXPECT_EQ(0, cn_move(c, s1));
	EXPECT_EQ(0, cn_move(c, s2));
	EXPECT_EQ(2, cn_read_long_in(c, "pids.current"));

	/* The agent moves in too, over the limit, and cannot fork. */
	ASSERT_EQ(0, agent_start(&self->env, &a, c));
	EXPECT_EQ(3, cn_read_long_in(c, "pids.current"));
	EXPECT_EQ(0, agent_do(&a, AGENT_FORK, &err));
	EXPECT_EQ(EAGAIN, err);
	EXPECT_EQ(3, cn_read_long_in(c, "pids.current"));
	EXPECT_EQ(1, events_max(c));

	/* Moving out uncharges, and so does exiting. */
	EXPECT_EQ(0, cn_move(self->root, s1));
	EXPECT_EQ(2, cn_read_long_in(c, "pids.current"));
	cn_env_kill(&self->env, s2);
	EXPECT_EQ(1, wait_current(c, 1));
	agent_stop(&self->env, &a);
	EXPECT_EQ(0, wait_current(c, 0));
}

/*
 * 7. A limit below the count is accepted and stops forks; raising it lets
 * them through again, up to the new limit.
 */
TEST_F_TIMEOUT(pids, lowering_below_current, 60)
{
	const char *c = self->c;
	struct agent a;
	int err;
	char val[CN_PATH_LEN];

	ASSERT_EQ(0, agent_start(&self->env, &a, c));
	EXPECT_EQ(1, agent_do(&a, AGENT_FORK, &err));
	EXPECT_EQ(1, agent_do(&a, AGENT_FORK, &err));
	EXPECT_EQ(3, cn_read_long_in(c, "pids.current"));

	EXPECT_EQ(0, cn_write_in(c, "pids.max", "1"));
	EXPECT_STREQ("1", cn_read_str_in(c, "pids.max", val, sizeof(val)));
	EXPECT_EQ(3, cn_read_long_in(c, "pids.current"));
	EXPECT_EQ(0, agent_do(&a, AGENT_FORK, &err));
	EXPECT_EQ(EAGAIN, err);
	EXPECT_EQ(3, cn_read_long_in(c, "pids.current"));

	EXPECT_EQ(0, cn_write_in(c, "pids.max", "4"));
	EXPECT_EQ(1, agent_do(&a, AGENT_FORK, &err));
	EXPECT_EQ(0, err);
	EXPECT_EQ(0, agent_do(&a, AGENT_FORK, &err));
	EXPECT_EQ(EAGAIN, err);
	EXPECT_EQ(4, cn_read_long_in(c, "pids.current"));

	EXPECT_EQ(0, cn_write_in(c, "pids.max", "max"));
	EXPECT_EQ(1, agent_do(&a, AGENT_FORK, &err));
	EXPECT_EQ(5, cn_read_long_in(c, "pids.current"));
	EXPECT_EQ(2, events_max(c));

	agent_stop(&self->env, &a);
	EXPECT_EQ(0, wait_current(c, 0));
}

/* 8. Bad values fail with EINVAL and change nothing. */
TEST_F(pids, bad_values_einval)
{
	static const char * const bad[] = {
		"-1", "abc", "10abc", "max1", "max x", "maxx", "", " ", "\n",
		"1 2", "1.5", "99999999999999999999", "2147483648", "4194305",
	};
	static const struct {
		const char *in, *out;
	} good[] = {
		{ "max\n", "max" }, { "10\n", "10" }, { " 7", "7" },
		{ "8 ", "8" },
		{ "0", "0" }, { "max", "max" },
		/* PID_MAX_LIMIT of a 64-bit kernel without BASE_SMALL */
		{ "4194304", "4194304" },
	};
	const char *c = self->c;
	unsigned int i;
	char val[CN_PATH_LEN];

	ASSERT_EQ(0, cn_write_in(c, "pids.max", "10\n"));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, cn_write_in(c, "pids.max", bad[i])) {
			TH_LOG("'%s'", bad[i]);
		}
		EXPECT_STREQ("10", cn_read_str_in(c, "pids.max", val,
						  sizeof(val)));
	}
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		EXPECT_EQ(0, cn_write_in(c, "pids.max", good[i].in)) {
			TH_LOG("'%s'", good[i].in);
		}
		EXPECT_STREQ(good[i].out, cn_read_str_in(c, "pids.max", val,
							 sizeof(val)));
	}
}

/* 9. pids.current and pids.events cannot be opened for writing. */
TEST_F(pids, read_only_files)
{
	static const char * const files[] = { "pids.current", "pids.events" };
	const char *c = self->c;
	char path[CN_PATH_LEN], val[CN_PATH_LEN];
	unsigned int i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		EXPECT_EQ(-EACCES, cn_write_in(c, files[i], "1")) {
			TH_LOG("%s", files[i]);
		}
		fd = open(cn_path(path, sizeof(path), c, files[i]),
			  O_RDWR | O_CLOEXEC);
		EXPECT_EQ(-1, fd);
		EXPECT_EQ(EACCES, errno);
		if (fd >= 0)
			close(fd);
	}
	EXPECT_EQ(0, cn_read_long_in(c, "pids.current"));
	EXPECT_STREQ("max 0", cn_read_str_in(c, "pids.events", val,
					     sizeof(val)));
}

TEST_HARNESS_MAIN
