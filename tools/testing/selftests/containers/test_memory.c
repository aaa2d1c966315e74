// SPDX-License-Identifier: GPL-2.0
/*
 * The memory subsystem: usage follows what the tasks of a container touch
 * (anonymous memory, tmpfs page cache), hierarchically; the hard limit
 * holds and kills inside the container only; the files and their errors;
 * force_empty, rmdir and moving tasks leave no charge behind.
 *
 * Workloads run in a forked child that moves itself into a container and
 * then does what the parent tells it, one step at a time, over a pipe, so
 * that the parent can look at the files between the steps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "container_util.h"

#define P cn_fmt
#define L cn_long

#define MB		(1024L * 1024)
/* What the harness itself may add to a container besides the workload. */
#define SLACK		(4 * MB)
#define UNLIMITED	9223372036854771712L	/* PAGE_COUNTER_MAX pages */

/* A value from memory.stat, or -1. */
static long stat_value(const char *cont, const char *key)
{
	char *text = cn_read_all(cn_fmt("%s/memory.stat", cont), 4096), *p;
	size_t len = strlen(key);
	long v = -1;

	if (!text)
		return -1;
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, key, len) && p[len] == ' ') {
			v = atol(p + len + 1);
			break;
		}
	}
	free(text);
	return v;
}

/*
 * A worker: a child that moved itself into a container and runs the
 * commands the parent sends, answering each with a status byte.
 */
struct worker {
	pid_t pid;
	int cmd;	/* parent writes commands */
	int ack;	/* parent reads answers */
};

enum {
	W_ANON_TOUCH = 'a',	/* map and touch <arg> MiB of anonymous memory */
	W_ANON_FREE = 'f',	/* unmap it */
	W_TMPFS_WRITE = 'w',	/* write <arg> MiB to the worker's tmpfs file */
	W_TMPFS_CLOSE = 'c',	/* close the file (it stays) */
	W_MOVE = 'm',		/* move itself to the container in <path> */
	W_EXIT = 'x',
};

struct wcmd {
	char op;
	long arg;
	char path[CN_PATH_LEN];
};

static void worker_loop(int cmd, int ack, const char *file)
{
	char *anon = NULL;
	size_t anon_len = 0;
	int fd = -1;
	struct wcmd c;

	while (read(cmd, &c, sizeof(c)) == sizeof(c)) {
		char ok = 0;
		long i;

		switch (c.op) {
		case W_ANON_TOUCH:
			anon_len = c.arg * MB;
			anon = mmap(NULL, anon_len, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (anon == MAP_FAILED) {
				ok = 1;
				break;
			}
			for (i = 0; i < (long)anon_len; i += 4096)
				anon[i] = 1;
			break;
		case W_ANON_FREE:
			if (anon && munmap(anon, anon_len))
				ok = 1;
			anon = NULL;
			break;
		case W_TMPFS_WRITE: {
			static char buf[1 << 16];

			memset(buf, 'x', sizeof(buf));
			if (fd < 0)
				fd = open(file, O_WRONLY | O_CREAT | O_APPEND, 0600);
			for (i = 0; fd >= 0 && i < c.arg * MB; i += sizeof(buf))
				if (write(fd, buf, sizeof(buf)) != sizeof(buf))
					break;
			if (fd < 0 || i < c.arg * MB)
				ok = 1;
			break;
		}
		case W_TMPFS_CLOSE:
			if (fd >= 0)
				close(fd);
			fd = -1;
			break;
		case W_MOVE:
			ok = cn_move_self(c.path) ? 1 : 0;
			break;
		case W_EXIT:
			_exit(0);
		}
		if (write(ack, &ok, 1) != 1)
			_exit(1);
	}
	_exit(0);
}

/* Start a worker in container @cont; its tmpfs file is @file. */
static int worker_start(struct worker *w, const char *cont, const char *file)
{
	int cmd[2], ack[2];
	char ok;

	if (pipe(cmd) || pipe(ack))
		return -errno;
	w->pid = fork();
	if (w->pid < 0)
		return -errno;
	if (!w->pid) {
		close(cmd[1]);
		close(ack[0]);
		ok = cn_move_self(cont) ? 1 : 0;
		if (write(ack[1], &ok, 1) != 1)
			_exit(1);
		worker_loop(cmd[0], ack[1], file);
	}
	close(cmd[0]);
	close(ack[1]);
	w->cmd = cmd[1];
	w->ack = ack[0];
	if (read(w->ack, &ok, 1) != 1 || ok)
		return -EIO;
	return 0;
}

/* Run one command; 0 if it worked, 1 if it failed, -1 if the worker died. */
static int worker_do(struct worker *w, char op, long arg, const char *path)
{
	struct wcmd c = { .op = op, .arg = arg };
	char ok;

	if (path)
		snprintf(c.path, sizeof(c.path), "%s", path);
	if (write(w->cmd, &c, sizeof(c)) != sizeof(c))
		return -1;
	if (read(w->ack, &ok, 1) != 1)
		return -1;
	return ok;
}

/* Wait for the worker; its wait status. */
static int worker_wait(struct worker *w)
{
	int status = -1;

	close(w->cmd);
	close(w->ack);
	waitpid(w->pid, &status, 0);
	return status;
}

static void worker_stop(struct worker *w)
{
	worker_do(w, W_EXIT, 0, NULL);
	worker_wait(w);
}

FIXTURE(mem) {
	struct cn_env env;
	char *root;
	char file[CN_PATH_LEN];
};

FIXTURE_SETUP(mem)
{
	const char *tmp;

	cn_cleanup_stale();
	cn_env_init(&self->env);
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "memory", &self->root));
	tmp = cn_env_tmpdir(&self->env);
	ASSERT_NE(NULL, tmp);
	snprintf(self->file, sizeof(self->file), "%s/data", tmp);
}

FIXTURE_TEARDOWN(mem)
{
	cn_env_cleanup(&self->env);
}

static long usage(const char *cont)
{
	return L(P("%s/memory.usage_in_bytes", cont));
}

TEST_F(mem, files_and_defaults)
{
	static const char * const files[] = {
		"memory.usage_in_bytes", "memory.max_usage_in_bytes",
		"memory.limit_in_bytes", "memory.soft_limit_in_bytes",
		"memory.failcnt", "memory.stat",
	};
	char c[CN_PATH_LEN];
	unsigned int i;

	/* Not a cn_fmt() buffer: those are reused after 16 calls. */
	snprintf(c, sizeof(c), "%s/c", self->root);
	ASSERT_EQ(0, cn_mkdir(c));
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		EXPECT_EQ(0, access(P("%s/%s", c, files[i]), R_OK))
			TH_LOG("%s", files[i]);
	}
	EXPECT_EQ(0, access(P("%s/memory.force_empty", c), W_OK));
	EXPECT_EQ(0, usage(c));
	EXPECT_EQ(0, L(P("%s/memory.failcnt", c)));
	EXPECT_EQ(UNLIMITED, L(P("%s/memory.limit_in_bytes", c)));
	EXPECT_EQ(UNLIMITED, L(P("%s/memory.soft_limit_in_bytes", c)));
	/* The top container is not charged: only memory.stat there. */
	EXPECT_FALSE(cn_exists(P("%s/memory.usage_in_bytes", self->root)));
	EXPECT_TRUE(cn_exists(P("%s/memory.stat", self->root)));
	EXPECT_EQ(-EACCES, cn_write(P("%s/memory.usage_in_bytes", c), "0"));
	EXPECT_EQ(0, stat_value(c, "rss"));
	EXPECT_EQ(0, stat_value(c, "cache"));
}

TEST_F_TIMEOUT(mem, anon_usage_follows_touch, 60)
{
	char *c = strdup(P("%s/c", self->root));
	struct worker w;
	long u0, u1, u2;

	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, worker_start(&w, c, self->file));
	u0 = usage(c);
	ASSERT_EQ(0, worker_do(&w, W_ANON_TOUCH, 32, NULL));
	u1 = usage(c);
	EXPECT_GE(u1 - u0, 32 * MB);
	EXPECT_LE(u1 - u0, 32 * MB + SLACK);
	EXPECT_GE(stat_value(c, "rss"), 32 * MB);
	EXPECT_GE(L(P("%s/memory.max_usage_in_bytes", c)), u1);
	ASSERT_EQ(0, worker_do(&w, W_ANON_FREE, 0, NULL));
	u2 = usage(c);
	EXPECT_LE(u2, u0 + SLACK);
	EXPECT_LT(u2, u1 - 30 * MB);
	worker_stop(&w);
	/* Everything the worker had is gone with it. */
	EXPECT_EQ(0, usage(c));
	EXPECT_GT(stat_value(c, "pgpgin"), 32 * 256 - 1);
	EXPECT_EQ(stat_value(c, "pgpgin"), stat_value(c, "pgpgout"));
	free(c);
}

TEST_F_TIMEOUT(mem, tmpfs_cache_charged_and_hierarchical, 60)
{
	char *p = strdup(P("%s/p", self->root)), *c = strdup(P("%s/p/c", self->root));
	struct worker w;
	long u;

	ASSERT_EQ(0, cn_mkdir(p));
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, worker_start(&w, c, self->file));
	ASSERT_EQ(0, worker_do(&w, W_TMPFS_WRITE, 16, NULL));
	u = usage(c);
	EXPECT_GE(u, 16 * MB);
	EXPECT_LE(u, 16 * MB + SLACK);
	EXPECT_GE(stat_value(c, "cache"), 16 * MB);
	EXPECT_GE(stat_value(c, "shmem"), 16 * MB);
	/* The parent sees the child's pages, in its usage and total_*. */
	EXPECT_GE(usage(p), u);
	EXPECT_EQ(0, stat_value(p, "cache"));
	EXPECT_GE(stat_value(p, "total_cache"), 16 * MB);
	worker_stop(&w);
	/* The file's pages stay charged after the task is gone... */
	EXPECT_GE(usage(c), 16 * MB);
	/* ...until the file goes. */
	ASSERT_EQ(0, unlink(self->file));
	EXPECT_LT(usage(c), SLACK);
	EXPECT_LT(usage(p), SLACK);
	free(p);
	free(c);
}

TEST_F_TIMEOUT(mem, charges_stay_when_task_moves, 60)
{
	char *a = strdup(P("%s/a", self->root)), *b = strdup(P("%s/b", self->root));
	struct worker w;
	long ua;

	ASSERT_EQ(0, cn_mkdir(a));
	ASSERT_EQ(0, cn_mkdir(b));
	ASSERT_EQ(0, worker_start(&w, a, self->file));
	ASSERT_EQ(0, worker_do(&w, W_ANON_TOUCH, 8, NULL));
	ua = usage(a);
	EXPECT_GE(ua, 8 * MB);
	ASSERT_EQ(0, worker_do(&w, W_MOVE, 0, b));
	EXPECT_GE(usage(a), 8 * MB);
	EXPECT_LT(usage(b), SLACK);
	/* New memory is charged where the task is now. */
	ASSERT_EQ(0, worker_do(&w, W_TMPFS_WRITE, 8, NULL));
	EXPECT_GE(usage(b), 8 * MB);
	EXPECT_LT(usage(a), ua + SLACK);
	/* Freeing the old memory uncharges the old container. */
	ASSERT_EQ(0, worker_do(&w, W_ANON_FREE, 0, NULL));
	EXPECT_LT(usage(a), SLACK);
	worker_stop(&w);
	unlink(self->file);
	EXPECT_EQ(0, usage(a));
	EXPECT_EQ(0, usage(b));
	free(a);
	free(b);
}

TEST_F_TIMEOUT(mem, hard_limit_kills_inside_only, 120)
{
	char *c = strdup(P("%s/c", self->root)), *s = strdup(P("%s/s", self->root));
	long peak = 0, limit = 16 * MB;
	struct worker w, sib;
	int status, i;
	pid_t pid;

	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, cn_mkdir(s));
	ASSERT_EQ(0, cn_write(P("%s/memory.limit_in_bytes", c), "16M"));
	ASSERT_EQ(limit, L(P("%s/memory.limit_in_bytes", c)));
	ASSERT_EQ(0, worker_start(&sib, s, P("%s.sib", self->file)));
	ASSERT_EQ(0, worker_do(&sib, W_ANON_TOUCH, 8, NULL));
	ASSERT_EQ(0, worker_start(&w, c, self->file));

	/* Twice the limit, no swap: the worker must be killed. */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(worker_do(&w, W_ANON_TOUCH, 32, NULL) == -1 ? 0 : 1);
	for (i = 0; i < 4000; i++) {
		long u = usage(c);

		if (u > peak)
			peak = u;
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		usleep(5000);
	}
	ASSERT_LT(i, 4000) TH_LOG("the worker was not killed");
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	status = worker_wait(&w);
	EXPECT_TRUE(WIFSIGNALED(status));
	if (WIFSIGNALED(status)) {
		EXPECT_EQ(SIGKILL, WTERMSIG(status));
	}
	EXPECT_LE(peak, limit);
	EXPECT_LE(L(P("%s/memory.max_usage_in_bytes", c)), limit);
	EXPECT_GE(L(P("%s/memory.failcnt", c)), 1);
	EXPECT_EQ(1, stat_value(c, "oom_kill"));
	/* The sibling is alive and well. */
	EXPECT_EQ(0, kill(sib.pid, 0));
	EXPECT_EQ(0, worker_do(&sib, W_ANON_FREE, 0, NULL));
	worker_stop(&sib);
	EXPECT_EQ(0, usage(c));
	free(c);
	free(s);
}

TEST_F(mem, limit_values)
{
	static const char * const bad[] = {
		"", "abc", "-2", "12x", "1k2", "0x", " -1 1",
	};
	char *c = strdup(P("%s/c", self->root)), *f;
	unsigned int i;

	ASSERT_EQ(0, cn_mkdir(c));
	f = strdup(P("%s/memory.limit_in_bytes", c));
	ASSERT_EQ(0, cn_write(f, "4k"));
	EXPECT_EQ(4096, L(f));
	ASSERT_EQ(0, cn_write(f, "1m\n"));
	EXPECT_EQ(MB, L(f));
	ASSERT_EQ(0, cn_write(f, "2G"));
	EXPECT_EQ(2048 * MB, L(f));
	/* Rounded down to whole pages. */
	ASSERT_EQ(0, cn_write(f, "5000"));
	EXPECT_EQ(4096, L(f));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, cn_write(f, bad[i])) TH_LOG("'%s'", bad[i]);
		EXPECT_EQ(4096, L(f));
	}
	ASSERT_EQ(0, cn_write(f, "-1"));
	EXPECT_EQ(UNLIMITED, L(f));

	free(f);
	f = strdup(P("%s/memory.soft_limit_in_bytes", c));
	ASSERT_EQ(0, cn_write(f, "8M"));
	EXPECT_EQ(8 * MB, L(f));
	EXPECT_EQ(-EINVAL, cn_write(f, "x"));
	EXPECT_EQ(8 * MB, L(f));
	free(f);
	free(c);
}

TEST_F_TIMEOUT(mem, limit_below_unreclaimable_usage_ebusy, 60)
{
	char *c = strdup(P("%s/c", self->root));
	struct worker w;

	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, worker_start(&w, c, self->file));
	ASSERT_EQ(0, worker_do(&w, W_ANON_TOUCH, 16, NULL));
	/* Anonymous memory without swap cannot be reclaimed. */
	EXPECT_EQ(-EBUSY, cn_write(P("%s/memory.limit_in_bytes", c), "4M"));
	EXPECT_EQ(UNLIMITED, L(P("%s/memory.limit_in_bytes", c)));
	EXPECT_EQ(0, cn_write(P("%s/memory.limit_in_bytes", c), "64M"));
	worker_stop(&w);
	free(c);
}

TEST_F_TIMEOUT(mem, reset_peak_and_failcnt, 60)
{
	char *c = strdup(P("%s/c", self->root));
	struct worker w;

	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, worker_start(&w, c, self->file));
	ASSERT_EQ(0, worker_do(&w, W_ANON_TOUCH, 16, NULL));
	ASSERT_EQ(0, worker_do(&w, W_ANON_FREE, 0, NULL));
	EXPECT_GE(L(P("%s/memory.max_usage_in_bytes", c)), 16 * MB);
	EXPECT_EQ(-EINVAL, cn_write(P("%s/memory.max_usage_in_bytes", c), "5"));
	EXPECT_GE(L(P("%s/memory.max_usage_in_bytes", c)), 16 * MB);
	ASSERT_EQ(0, cn_write(P("%s/memory.max_usage_in_bytes", c), "0"));
	EXPECT_LT(L(P("%s/memory.max_usage_in_bytes", c)), SLACK);
	EXPECT_EQ(-EINVAL, cn_write(P("%s/memory.failcnt", c), "1"));
	EXPECT_EQ(0, cn_write(P("%s/memory.failcnt", c), "0"));
	EXPECT_EQ(0, L(P("%s/memory.failcnt", c)));
	worker_stop(&w);
	free(c);
}

TEST_F_TIMEOUT(mem, force_empty_moves_unreclaimable_to_parent, 60)
{
	char *p = strdup(P("%s/p", self->root)), *c = strdup(P("%s/p/c", self->root));
	struct worker w;

	ASSERT_EQ(0, cn_mkdir(p));
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, worker_start(&w, c, self->file));
	ASSERT_EQ(0, worker_do(&w, W_TMPFS_WRITE, 8, NULL));
	ASSERT_EQ(0, worker_do(&w, W_TMPFS_CLOSE, 0, NULL));
	EXPECT_EQ(-EBUSY, cn_write(P("%s/memory.force_empty", c), "0"));
	EXPECT_EQ(-EINVAL, cn_write(P("%s/memory.force_empty", c), "1"));
	worker_stop(&w);

	ASSERT_GE(usage(c), 8 * MB);
	ASSERT_EQ(0, cn_write(P("%s/memory.force_empty", c), "0"));
	/* tmpfs without swap cannot be reclaimed: it is the parent's now. */
	EXPECT_EQ(0, usage(c));
	EXPECT_GE(usage(p), 8 * MB);
	EXPECT_GE(stat_value(p, "shmem"), 8 * MB);
	ASSERT_EQ(0, unlink(self->file));
	EXPECT_EQ(0, usage(p));
	free(p);
	free(c);
}

TEST_F_TIMEOUT(mem, rmdir_moves_charges_to_parent, 60)
{
	char *p = strdup(P("%s/p", self->root)), *c = strdup(P("%s/p/c", self->root));
	struct worker w;
	int i;

	ASSERT_EQ(0, cn_mkdir(p));
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, worker_start(&w, c, self->file));
	ASSERT_EQ(0, worker_do(&w, W_TMPFS_WRITE, 8, NULL));
	worker_stop(&w);
	ASSERT_EQ(0, cn_rmdir(c));
	/* The parent keeps the charge, and gets the pages on its own list. */
	EXPECT_GE(usage(p), 8 * MB);
	for (i = 0; i < 100 && stat_value(p, "shmem") < 8 * MB; i++)
		usleep(10000);
	EXPECT_GE(stat_value(p, "shmem"), 8 * MB);
	ASSERT_EQ(0, unlink(self->file));
	EXPECT_EQ(0, usage(p));
	free(p);
	free(c);
}

TEST_HARNESS_MAIN
