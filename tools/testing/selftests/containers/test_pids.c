// SPDX-License-Identifier: GPL-2.0
/*
 * The pids subsystem (task limit): pids.max stops fork and clone with
 * EAGAIN in the container and below it, counts threads, leaves no trace
 * of a refused fork, and rejects bad values.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "container_util.h"

#define P cn_fmt
#define L cn_long
#define S cn_str

FIXTURE(pids) {
	struct cn_env env;
	char *root;
};

FIXTURE_SETUP(pids)
{
	cn_cleanup_stale();
	cn_env_init(&self->env);
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "pids", &self->root));
}

FIXTURE_TEARDOWN(pids)
{
	cn_env_cleanup(&self->env);
}

/* "max N" of pids.events, or -1. */
static long events_max(const char *cont)
{
	char *s = cn_str(cn_fmt("%s/pids.events", cont));
	long v;

	return sscanf(s, "max %ld", &v) == 1 ? v : -1;
}

/*
 * Move into @cont, then fork children that pause, until fork fails.
 * Report on @out the number of children and the errno of the failed
 * fork; wait for @in to close; then kill and reap the children (a
 * parent-death signal could miss a child that has not run yet).
 */
static void fork_bomb(const char *cont, int out, int in, int max_forks)
{
	pid_t *kids = calloc(max_forks, sizeof(*kids));
	int n = 0, err = 0, res[2], i;
	char c;

	if (!kids || cn_move_self(cont))
		_exit(1);
	while (n < max_forks) {
		pid_t pid = fork();

		if (pid < 0) {
			err = errno;
			break;
		}
		if (!pid) {
			for (;;)
				pause();
		}
		kids[n++] = pid;
	}
	res[0] = n;
	res[1] = err;
	if (write(out, res, sizeof(res)) != sizeof(res))
		_exit(1);
	if (read(in, &c, 1) < 0)
		_exit(1);
	for (i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	for (i = 0; i < n; i++)
		waitpid(kids[i], NULL, 0);
	_exit(0);
}

struct bomb {
	pid_t pid;
	int out, in;
	int forked, err;
};

static int bomb_start(struct bomb *b, const char *cont, int max_forks)
{
	int out[2], in[2], res[2];

	if (pipe(out) || pipe(in))
		return -errno;
	b->pid = fork();
	if (b->pid < 0)
		return -errno;
	if (!b->pid) {
		close(out[0]);
		close(in[1]);
		fork_bomb(cont, out[1], in[0], max_forks);
	}
	close(out[1]);
	close(in[0]);
	b->out = out[0];
	b->in = in[1];
	if (read(b->out, res, sizeof(res)) != sizeof(res))
		return -EIO;
	b->forked = res[0];
	b->err = res[1];
	return 0;
}

static void bomb_stop(struct bomb *b)
{
	close(b->in);
	close(b->out);
	waitpid(b->pid, NULL, 0);
}

/* Wait until pids.current of @cont is @want, at most 2 s. */
static long wait_current(const char *cont, long want)
{
	long v = -1;
	int i;

	for (i = 0; i < 200; i++) {
		v = L(cn_fmt("%s/pids.current", cont));
		if (v == want)
			break;
		usleep(10000);
	}
	return v;
}

TEST_F(pids, files_and_defaults)
{
	char c[CN_PATH_LEN];

	snprintf(c, sizeof(c), "%s/c", self->root);
	ASSERT_EQ(0, cn_mkdir(c));
	EXPECT_STREQ("max", S(P("%s/pids.max", c)));
	EXPECT_EQ(0, L(P("%s/pids.current", c)));
	EXPECT_STREQ("max 0", S(P("%s/pids.events", c)));
	/* The top has no limit. */
	EXPECT_FALSE(cn_exists(P("%s/pids.max", self->root)));
	EXPECT_EQ(-EACCES, cn_write(P("%s/pids.current", c), "1"));
	EXPECT_EQ(-EACCES, cn_write(P("%s/pids.events", c), "max 0"));
}

TEST_F_TIMEOUT(pids, fork_bomb_stops_at_limit, 120)
{
	char c[CN_PATH_LEN];
	struct bomb b;
	pid_t pid;
	int status;

	snprintf(c, sizeof(c), "%s/c", self->root);
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, cn_write(P("%s/pids.max", c), "20"));
	ASSERT_EQ(0, bomb_start(&b, c, 1000));
	/* The bomb itself and 19 children. */
	EXPECT_EQ(19, b.forked);
	EXPECT_EQ(EAGAIN, b.err);
	EXPECT_EQ(20, L(P("%s/pids.current", c)));
	EXPECT_EQ(20, cn_count_tasks(c));
	EXPECT_EQ(1, events_max(c));
	/* Outside the container, fork works. */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	bomb_stop(&b);
	EXPECT_EQ(0, wait_current(c, 0));
}

TEST_F_TIMEOUT(pids, ancestor_limit_applies, 120)
{
	char p[CN_PATH_LEN], c[CN_PATH_LEN];
	struct bomb b;

	snprintf(p, sizeof(p), "%s/p", self->root);
	snprintf(c, sizeof(c), "%s/p/c", self->root);
	ASSERT_EQ(0, cn_mkdir(p));
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, cn_write(P("%s/pids.max", p), "5"));
	ASSERT_EQ(0, bomb_start(&b, c, 1000));
	EXPECT_EQ(4, b.forked);
	EXPECT_EQ(EAGAIN, b.err);
	EXPECT_EQ(5, L(P("%s/pids.current", c)));
	EXPECT_EQ(5, L(P("%s/pids.current", p)));
	/* The refusal is counted where the limit was hit. */
	EXPECT_EQ(1, events_max(p));
	EXPECT_EQ(0, events_max(c));
	bomb_stop(&b);
	EXPECT_EQ(0, wait_current(p, 0));

	/* A tighter child limit wins. */
	ASSERT_EQ(0, cn_write(P("%s/pids.max", p), "10"));
	ASSERT_EQ(0, cn_write(P("%s/pids.max", c), "3"));
	ASSERT_EQ(0, bomb_start(&b, c, 1000));
	EXPECT_EQ(2, b.forked);
	EXPECT_EQ(1, events_max(c));
	EXPECT_EQ(1, events_max(p));
	bomb_stop(&b);
	EXPECT_EQ(0, wait_current(p, 0));
}

static void *idle_thread(void *arg)
{
	pause();
	return NULL;
}

/* In @cont with room for 3 tasks: two threads, then EAGAIN. */
static int threads_in(const char *cont)
{
	pthread_t t;
	int i, ret;

	if (cn_move_self(cont))
		return 10;
	for (i = 0; i < 2; i++)
		if (pthread_create(&t, NULL, idle_thread, NULL))
			return 11 + i;
	ret = pthread_create(&t, NULL, idle_thread, NULL);
	if (ret != EAGAIN)
		return 20;
	if (cn_long(cn_fmt("%s/pids.current", cont)) != 3)
		return 21;
	return 0;
}

TEST_F_TIMEOUT(pids, threads_count, 60)
{
	char c[CN_PATH_LEN];
	pid_t pid;
	int status;

	snprintf(c, sizeof(c), "%s/c", self->root);
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, cn_write(P("%s/pids.max", c), "3"));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(threads_in(c));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, wait_current(c, 0));
	EXPECT_EQ(1, events_max(c));
}

TEST_F_TIMEOUT(pids, attach_may_exceed_and_lowering_stops_forks, 60)
{
	char c[CN_PATH_LEN];
	pid_t a, b;
	struct bomb bo;

	snprintf(c, sizeof(c), "%s/c", self->root);
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, cn_write(P("%s/pids.max", c), "1"));
	a = cn_env_sleeper(&self->env);
	b = cn_env_sleeper(&self->env);
	ASSERT_GT(a, 0);
	ASSERT_GT(b, 0);
	EXPECT_EQ(0, cn_move(c, a));
	EXPECT_EQ(0, cn_move(c, b));
	EXPECT_EQ(2, L(P("%s/pids.current", c)));
	/* Over the limit now: a fork inside fails. */
	ASSERT_EQ(0, bomb_start(&bo, c, 5));
	EXPECT_EQ(0, bo.forked);
	EXPECT_EQ(EAGAIN, bo.err);
	bomb_stop(&bo);
	/* Moving out uncharges. */
	EXPECT_EQ(0, cn_move(self->root, a));
	EXPECT_EQ(1, wait_current(c, 1));

	/* Raising lets forks through; lowering below the count is fine. */
	ASSERT_EQ(0, cn_write(P("%s/pids.max", c), "max"));
	ASSERT_EQ(0, bomb_start(&bo, c, 2));
	EXPECT_EQ(2, bo.forked);
	EXPECT_EQ(4, L(P("%s/pids.current", c)));
	EXPECT_EQ(0, cn_write(P("%s/pids.max", c), "1"));
	EXPECT_STREQ("1", S(P("%s/pids.max", c)));
	bomb_stop(&bo);
	EXPECT_EQ(1, wait_current(c, 1));
}

TEST_F(pids, bad_values_einval)
{
	static const char * const bad[] = {
		"-1", "abc", "10abc", "max1", "", " ", "99999999999999999999",
		"4194305", "1 2",
	};
	char c[CN_PATH_LEN];
	unsigned int i;

	snprintf(c, sizeof(c), "%s/c", self->root);
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, cn_write(P("%s/pids.max", c), "10\n"));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, cn_write(P("%s/pids.max", c), bad[i]))
			TH_LOG("'%s'", bad[i]);
		EXPECT_STREQ("10", S(P("%s/pids.max", c)));
	}
	EXPECT_EQ(0, cn_write(P("%s/pids.max", c), "max\n"));
	EXPECT_STREQ("max", S(P("%s/pids.max", c)));
	EXPECT_EQ(0, cn_write(P("%s/pids.max", c), "0"));
	EXPECT_STREQ("0", S(P("%s/pids.max", c)));
}

TEST_HARNESS_MAIN
