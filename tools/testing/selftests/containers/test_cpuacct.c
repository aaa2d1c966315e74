// SPDX-License-Identifier: GPL-2.0
/*
 * The cpuacct subsystem: cpuacct.usage, cpuacct.usage_percpu and
 * cpuacct.stat, charging up the hierarchy, reset, and charges that stay
 * where they were made when tasks move.
 *
 * CPU time is burnt by child processes that move themselves into a
 * container and run until their own CPU clock (CLOCK_PROCESS_CPUTIME_ID)
 * has advanced by the amount asked for, then report what they measured.
 * The scheduler charges the container from the same run time accounting
 * as that clock, so the container's usage is at least what the child
 * measured and not much more: the bounds, [0.8x, 1.5x + 50 ms], leave room
 * for the work done around the measurement (moving in, exiting) and for a
 * slow guest (qemu TCG).
 *
 * Every test mounts its own "cpuacct,name=ct<pid>" hierarchy: the name
 * lets cn_cleanup_stale() empty it should a failed test leave it behind.
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
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "container_util.h"

#define MS		1000000L	/* nanoseconds in a millisecond */
#define NSEC_PER_SEC	1000000000L
#define MAX_CPUS	4096
#define ZERO_CHUNK	(1024 * 1024)

/* The lower and upper bounds of a charge for @ns measured by the task. */
#define LO(ns)		((ns) * 8 / 10)
#define HI(ns)		((ns) * 3 / 2 + 50 * MS)

static long cpu_usage(const char *cont)
{
	return cn_read_long_in(cont, "cpuacct.usage");
}

/*
 * Parse cpuacct.usage_percpu of @cont into @vals: decimal numbers
 * separated by single spaces, and a newline at the end.  Returns the count,
 * or -1 if the file cannot be read or is malformed.
 */
static int read_percpu(const char *cont, long *vals, int max)
{
	char *text = cn_read_all_in(cont, "cpuacct.usage_percpu", 4096);
	char *p, *end;
	int n = 0;

	if (!text)
		return -1;
	for (p = text; ; p = end + 1) {
		if (*p < '0' || *p > '9' || n == max)
			goto bad;
		errno = 0;
		vals[n++] = strtol(p, &end, 10);
		if (errno || (*end != ' ' && *end != '\n'))
			goto bad;
		if (*end == '\n')
			break;
	}
	if (end[1])
		goto bad;
	free(text);
	return n;
bad:
	free(text);
	return -1;
}

static long sum_percpu(const char *cont)
{
	long vals[MAX_CPUS], sum = 0;
	int i, n = read_percpu(cont, vals, MAX_CPUS);

	if (n <= 0)
		return -1;
	for (i = 0; i < n; i++)
		sum += vals[i];
	return sum;
}

/* cpuacct.stat of @cont, which must be exactly "user N\nsystem N\n". */
static int read_stat(const char *cont, long *user, long *sys)
{
	char path[CN_PATH_LEN], buf[256], want[256];

	cn_path(path, sizeof(path), cont, "cpuacct.stat");
	if (cn_read(path, buf, sizeof(buf)) < 0)
		return -1;
	if (sscanf(buf, "user %ld\nsystem %ld", user, sys) != 2)
		return -1;
	snprintf(want, sizeof(want), "user %ld\nsystem %ld\n", *user, *sys);
	return strcmp(buf, want) ? -1 : 0;
}

/* The number of CPUs in a list like "0-3,6" (/sys/devices/system/cpu). */
static int count_cpu_list(const char *list)
{
	int n = 0, a, b, k;

	while (*list && *list != '\n') {
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

static long cputime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* A few milliseconds in user space, without a system call. */
static void spin_user(void)
{
	unsigned long x = 1;
	int i;

	for (i = 0; i < 200000; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		__asm__ __volatile__("" : "+r" (x));
	}
}

/* Mostly kernel time: clearing a 1 MiB buffer in read(). */
static void spin_sys(int fd, char *buf)
{
	if (read(fd, buf, ZERO_CHUNK) != ZERO_CHUNK)
		_exit(3);
}

/*
 * What a burner child does: pin itself to @cpu (unless -1), move into
 * @cont and burn @ms of CPU time there; then, if @then is set, move there
 * and burn @then_ms more.  @used and @then_used receive the CPU time it
 * measured in each container.
 */
struct burn {
	const char *cont;
	long ms;
	const char *then;
	long then_ms;
	bool sys;
	int cpu;
	long used, then_used;
};

static long burn_for(long ms, int fd, char *buf)
{
	long start = cputime_ns(), used;

	do {
		if (fd >= 0)
			spin_sys(fd, buf);
		else
			spin_user();
		used = cputime_ns() - start;
	} while (used < ms * MS);
	return used;
}

static void burner(struct burn *b, int out)
{
	char *buf = NULL;
	long used[2];
	cpu_set_t set;
	int fd = -1;

	if (b->sys) {
		buf = malloc(ZERO_CHUNK);
		fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
		if (!buf || fd < 0)
			_exit(1);
		/* Fault the buffer in before the clock starts. */
		spin_sys(fd, buf);
	}
	if (b->cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(b->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			_exit(1);
	}
	if (cn_move_self(b->cont))
		_exit(2);
	used[0] = burn_for(b->ms, fd, buf);
	used[1] = 0;
	if (b->then) {
		if (cn_move_self(b->then))
			_exit(2);
		used[1] = burn_for(b->then_ms, fd, buf);
	}
	if (write(out, used, sizeof(used)) != sizeof(used))
		_exit(4);
	_exit(0);
}

/* Run a burner child to its end.  Returns 0, or -1 if it failed. */
static int run_burn(struct cn_env *env, struct burn *b)
{
	long used[2];
	int fds[2], status;
	pid_t pid;

	if (pipe(fds))
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(fds[0]);
		burner(b, fds[1]);
	}
	close(fds[1]);
	cn_env_track(env, pid);
	if (read(fds[0], used, sizeof(used)) != sizeof(used))
		used[0] = -1;
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	cn_env_untrack(env, pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) || used[0] < 0)
		return -1;
	b->used = used[0];
	b->then_used = used[1];
	return 0;
}

/* Burn @ms of user CPU time in @cont; the time measured, or -1. */
static long burn(struct cn_env *env, const char *cont, long ms)
{
	struct burn b = { .cont = cont, .ms = ms, .cpu = -1 };

	return run_burn(env, &b) ? -1 : b.used;
}

/* A child in @cont that spins in user space until it is killed. */
static pid_t spawn_spinner(struct cn_env *env, const char *cont)
{
	int fds[2];
	char c = 0;
	pid_t pid;

	if (pipe(fds))
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(fds[0]);
		if (cn_move_self(cont) || write(fds[1], &c, 1) != 1)
			_exit(2);
		for (;;)
			spin_user();
	}
	close(fds[1]);
	cn_env_track(env, pid);
	if (read(fds[0], &c, 1) != 1) {
		cn_env_kill(env, pid);
		pid = -1;
	}
	close(fds[0]);
	return pid;
}

/* The highest CPU this process may run on, or -1. */
static int last_allowed_cpu(void)
{
	cpu_set_t set;
	int cpu;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (cpu = CPU_SETSIZE - 1; cpu >= 0; cpu--)
		if (CPU_ISSET(cpu, &set))
			return cpu;
	return -1;
}

/* The permission bits of file @file of container @cont, or -1. */
static mode_t file_mode(const char *cont, const char *file)
{
	char path[CN_PATH_LEN];
	struct stat st;

	cn_path(path, sizeof(path), cont, file);
	return stat(path, &st) ? (mode_t)-1 : st.st_mode & 07777;
}

/* ---------------------------------------------------------------------
 * Fixtures.
 *
 * bare: nothing mounted; tests mount through self->env.
 * acct: a fresh "cpuacct,name=ct<pid>" hierarchy at self->root.
 * ---------------------------------------------------------------------
 */
FIXTURE(bare) {
	struct cn_env env;
};

FIXTURE_SETUP(bare)
{
	cn_cleanup_stale();
	cn_env_init(&self->env);
}

FIXTURE_TEARDOWN(bare)
{
	cn_env_cleanup(&self->env);
}

FIXTURE(acct) {
	struct cn_env env;
	char *root;
	int hid;
};

FIXTURE_SETUP(acct)
{
	char opts[CN_DIR_LEN];

	cn_cleanup_stale();
	cn_env_init(&self->env);
	snprintf(opts, sizeof(opts), "cpuacct,name=ct%d", getpid());
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, opts, &self->root));
	self->hid = cn_hier_id("cpuacct");
	ASSERT_GT(self->hid, 0);
}

FIXTURE_TEARDOWN(acct)
{
	cn_env_cleanup(&self->env);
}

/* ---------------------------------------------------------------------
 * Files.
 * ---------------------------------------------------------------------
 */
TEST_F(acct, files_and_modes)
{
	char a[CN_PATH_LEN];
	const char *dirs[2] = { self->root, a };
	char possible[256];
	long vals[MAX_CPUS], user, sys;
	int i, j, ncpus, n;

	cn_path(a, sizeof(a), self->root, "a");
	ASSERT_EQ(0, cn_read_str("/sys/devices/system/cpu/possible", possible,
				 sizeof(possible)));
	ncpus = count_cpu_list(possible);
	ASSERT_GT(ncpus, 0) TH_LOG("possible: '%s'", possible);

	ASSERT_EQ(0, cn_mkdir(a));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0644, file_mode(dirs[i], "cpuacct.usage"));
		EXPECT_EQ(0444, file_mode(dirs[i], "cpuacct.usage_percpu"));
		EXPECT_EQ(0444, file_mode(dirs[i], "cpuacct.stat"));
		/* Without the prefix: absent. */
		EXPECT_FALSE(cn_exists_in(dirs[i], "usage"));

		EXPECT_NE(CN_BAD_READ, cpu_usage(dirs[i]));
		n = read_percpu(dirs[i], vals, MAX_CPUS);
		EXPECT_EQ(ncpus, n) TH_LOG("%s: possible '%s'", dirs[i],
					   possible);
		for (j = 0; j < n; j++) {
			EXPECT_GE(vals[j], 0)
				TH_LOG("cpu %d", j);
		}
		EXPECT_EQ(0, read_stat(dirs[i], &user, &sys));
		EXPECT_GE(user, 0);
		EXPECT_GE(sys, 0);
	}
	/* The root has been counting since boot. */
	EXPECT_GT(cpu_usage(self->root), 0);

	/* Read-only files refuse writes. */
	EXPECT_NE(0, cn_write_in(a, "cpuacct.usage_percpu", "0"));
	EXPECT_NE(0, cn_write_in(a, "cpuacct.stat", "0"));
}

TEST_F(acct, new_container_starts_at_zero)
{
	char a[CN_PATH_LEN];
	long vals[MAX_CPUS], user, sys;
	int i, n;

	cn_path(a, sizeof(a), self->root, "a");
	ASSERT_EQ(0, cn_mkdir(a));
	EXPECT_EQ(0, cpu_usage(a));
	n = read_percpu(a, vals, MAX_CPUS);
	ASSERT_GT(n, 0);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(0, vals[i])
			TH_LOG("cpu %d", i);
	}
	ASSERT_EQ(0, read_stat(a, &user, &sys));
	EXPECT_EQ(0, user);
	EXPECT_EQ(0, sys);
}

/* As in cgroup v1, noprefix is for cpuset alone: "stat" would clash. */
TEST_F(bare, noprefix_refused)
{
	char opts[CN_DIR_LEN];

	snprintf(opts, sizeof(opts), "cpuacct,noprefix,name=ct%d", getpid());
	EXPECT_EQ(-EINVAL, cn_env_mount(&self->env, opts, NULL));
	snprintf(opts, sizeof(opts), "cpuacct,memory,noprefix,name=ct%d",
		 getpid());
	EXPECT_EQ(-EINVAL, cn_env_mount(&self->env, opts, NULL));
}

/* ---------------------------------------------------------------------
 * Charging.
 * ---------------------------------------------------------------------
 */
TEST_F(acct, busy_loop_charged_idle_sibling_not)
{
	char a[CN_PATH_LEN], b[CN_PATH_LEN];
	long used, ua, ub;
	pid_t sleeper;

	cn_path(a, sizeof(a), self->root, "a");
	cn_path(b, sizeof(b), self->root, "b");
	ASSERT_EQ(0, cn_mkdir(a));
	ASSERT_EQ(0, cn_mkdir(b));
	sleeper = cn_env_sleeper(&self->env);
	ASSERT_GT(sleeper, 0);
	ASSERT_EQ(0, cn_move(b, sleeper));

	used = burn(&self->env, a, 500);
	ASSERT_GE(used, 500 * MS);
	ua = cpu_usage(a);
	EXPECT_GE(ua, LO(used)) TH_LOG("usage %ld, measured %ld", ua, used);
	EXPECT_LE(ua, HI(used)) TH_LOG("usage %ld, measured %ld", ua, used);
	ub = cpu_usage(b);
	EXPECT_GE(ub, 0);
	EXPECT_LT(ub, 20 * MS) TH_LOG("idle sibling used %ld ns", ub);
	/* The burner is gone: nothing more is charged to a. */
	cn_sleep_ms(100);
	EXPECT_EQ(ua, cpu_usage(a));
}

TEST_F(acct, usage_grows_while_running)
{
	char a[CN_PATH_LEN];
	long u1, u2;
	pid_t pid;

	cn_path(a, sizeof(a), self->root, "a");
	ASSERT_EQ(0, cn_mkdir(a));
	pid = spawn_spinner(&self->env, a);
	ASSERT_GT(pid, 0);
	cn_sleep_ms(300);
	u1 = cpu_usage(a);
	cn_sleep_ms(300);
	u2 = cpu_usage(a);
	cn_env_kill(&self->env, pid);
	/* Charged while it runs, not only when it stops. */
	EXPECT_GT(u1, 0);
	EXPECT_GT(u2, u1);
}

TEST_F(acct, parent_includes_children)
{
	char p[CN_PATH_LEN], c1[CN_PATH_LEN], c2[CN_PATH_LEN];
	long used1, used2, usedp, u1, u2, up, ur;

	cn_path(p, sizeof(p), self->root, "p");
	cn_path(c1, sizeof(c1), self->root, "p/c1");
	cn_path(c2, sizeof(c2), self->root, "p/c2");
	ASSERT_EQ(0, cn_mkdir(p));
	ASSERT_EQ(0, cn_mkdir(c1));
	ASSERT_EQ(0, cn_mkdir(c2));
	used1 = burn(&self->env, c1, 200);
	ASSERT_GT(used1, 0);
	used2 = burn(&self->env, c2, 200);
	ASSERT_GT(used2, 0);
	usedp = burn(&self->env, p, 100);
	ASSERT_GT(usedp, 0);

	/* Children first: the counters only grow. */
	u1 = cpu_usage(c1);
	u2 = cpu_usage(c2);
	up = cpu_usage(p);
	ur = cpu_usage(self->root);
	EXPECT_GE(u1, LO(used1));
	EXPECT_LE(u1, HI(used1));
	EXPECT_GE(u2, LO(used2));
	EXPECT_LE(u2, HI(used2));
	EXPECT_GE(up, u1 + u2 + LO(usedp))
		TH_LOG("parent %ld, children %ld + %ld, own %ld", up, u1, u2,
		       usedp);
	EXPECT_LE(up, u1 + u2 + HI(usedp));
	EXPECT_GE(ur, up);
}

TEST_F(acct, usage_percpu_adds_up)
{
	char a[CN_PATH_LEN];
	long sum, u;
	pid_t pid;
	int i;

	cn_path(a, sizeof(a), self->root, "a");
	ASSERT_EQ(0, cn_mkdir(a));
	pid = spawn_spinner(&self->env, a);
	ASSERT_GT(pid, 0);
	cn_sleep_ms(100);
	for (i = 0; i < 20; i++) {
		sum = sum_percpu(a);
		u = cpu_usage(a);
		ASSERT_GE(sum, 0);
		/* Read later, the total cannot be smaller. */
		EXPECT_LE(sum, u) TH_LOG("round %d", i);
		cn_sleep_ms(10);
	}
	cn_env_kill(&self->env, pid);
	/* At rest the two agree exactly. */
	u = cpu_usage(a);
	EXPECT_GT(u, 0);
	EXPECT_EQ(u, sum_percpu(a));
	/* The root too, give or take what ran between the two reads. */
	sum = sum_percpu(self->root);
	u = cpu_usage(self->root);
	EXPECT_LE(sum, u);
	EXPECT_GE(sum, u - 1000 * MS);
}

TEST_F(acct, usage_percpu_follows_cpu)
{
	char a[CN_PATH_LEN];
	struct burn b = { .cont = a, .ms = 300 };
	long vals[MAX_CPUS], others = 0;
	int i, n;

	cn_path(a, sizeof(a), self->root, "a");
	b.cpu = last_allowed_cpu();
	ASSERT_GE(b.cpu, 0);
	ASSERT_EQ(0, cn_mkdir(a));
	ASSERT_EQ(0, run_burn(&self->env, &b));
	n = read_percpu(a, vals, MAX_CPUS);
	ASSERT_GT(n, b.cpu);
	EXPECT_GE(vals[b.cpu], LO(b.used)) TH_LOG("cpu %d", b.cpu);
	EXPECT_LE(vals[b.cpu], HI(b.used)) TH_LOG("cpu %d", b.cpu);
	for (i = 0; i < n; i++)
		if (i != b.cpu)
			others += vals[i];
	EXPECT_LT(others, 20 * MS) TH_LOG("other CPUs: %ld ns", others);
}

TEST_F(acct, stat_user_and_system)
{
	char a[CN_PATH_LEN];
	long u0, s0, u1, s1, u2, s2, du, ds, ticks;
	long tck = sysconf(_SC_CLK_TCK);
	struct burn b = { .cont = a, .ms = 500, .cpu = -1 };

	cn_path(a, sizeof(a), self->root, "a");
	ASSERT_GT(tck, 0);
	ASSERT_EQ(0, cn_mkdir(a));
	ASSERT_EQ(0, read_stat(a, &u0, &s0));

	/* Spinning in user space is user time. */
	ASSERT_EQ(0, run_burn(&self->env, &b));
	ASSERT_EQ(0, read_stat(a, &u1, &s1));
	du = u1 - u0;
	ds = s1 - s0;
	EXPECT_GT(du, 0);
	EXPECT_GE(du, ds) TH_LOG("user loop: user %ld, system %ld", du, ds);
	/* In USER_HZ ticks, not nanoseconds nor jiffies of another HZ. */
	ticks = b.used * tck / NSEC_PER_SEC;
	EXPECT_LE(du + ds, 2 * ticks + 10)
		TH_LOG("%ld + %ld ticks for %ld ns", du, ds, b.used);

	/* Clearing buffers in read() is system time. */
	b.sys = true;
	ASSERT_EQ(0, run_burn(&self->env, &b));
	ASSERT_EQ(0, read_stat(a, &u2, &s2));
	du = u2 - u1;
	ds = s2 - s1;
	EXPECT_GT(ds, 0);
	EXPECT_GE(ds, du) TH_LOG("read loop: user %ld, system %ld", du, ds);
	ticks = b.used * tck / NSEC_PER_SEC;
	EXPECT_LE(du + ds, 2 * ticks + 10);

	/* The parent gets its children's ticks. */
	ASSERT_EQ(0, read_stat(self->root, &u0, &s0));
	EXPECT_GE(u0, u2);
	EXPECT_GE(s0, s2);
}

/* ---------------------------------------------------------------------
 * Reset.
 * ---------------------------------------------------------------------
 */
TEST_F(acct, reset_with_zero)
{
	char a[CN_PATH_LEN], b[CN_PATH_LEN], f[CN_PATH_LEN];
	long vals[MAX_CPUS], used, before, ua;
	int i, n;

	cn_path(a, sizeof(a), self->root, "a");
	cn_path(b, sizeof(b), self->root, "a/b");
	cn_path(f, sizeof(f), self->root, "a/b/cpuacct.usage");
	ASSERT_EQ(0, cn_mkdir(a));
	ASSERT_EQ(0, cn_mkdir(b));
	used = burn(&self->env, b, 100);
	ASSERT_GT(used, 0);
	before = cpu_usage(b);
	EXPECT_GE(before, LO(used));
	ua = cpu_usage(a);
	EXPECT_GE(ua, before);

	ASSERT_EQ(0, cn_write(f, "0\n"));
	EXPECT_LT(cpu_usage(b), 10 * MS);
	n = read_percpu(b, vals, MAX_CPUS);
	ASSERT_GT(n, 0);
	for (i = 0; i < n; i++) {
		EXPECT_LT(vals[i], 10 * MS)
			TH_LOG("cpu %d", i);
	}
	/* Only this container: the parent keeps its count. */
	EXPECT_GE(cpu_usage(a), ua);

	/* It counts again from zero. */
	used = burn(&self->env, b, 100);
	ASSERT_GT(used, 0);
	EXPECT_GE(cpu_usage(b), LO(used));
	EXPECT_LE(cpu_usage(b), HI(used));
	EXPECT_GE(cpu_usage(a), ua + LO(used));
}

TEST_F(acct, reset_other_values_einval)
{
	static const char * const bad[] = {
		"5", "1", "-1", "abc", "", "\n", "0 1", "0abc",
	};
	char a[CN_PATH_LEN], f[CN_PATH_LEN];
	long used, before, after;
	int i;

	cn_path(a, sizeof(a), self->root, "a");
	cn_path(f, sizeof(f), self->root, "a/cpuacct.usage");
	ASSERT_EQ(0, cn_mkdir(a));
	used = burn(&self->env, a, 100);
	ASSERT_GT(used, 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		before = cpu_usage(a);
		EXPECT_GE(before, LO(used));
		EXPECT_EQ(-EINVAL, cn_write(f, bad[i]))
			TH_LOG("usage <- '%s'", bad[i]);
		after = cpu_usage(a);
		EXPECT_GE(after, before) TH_LOG("usage <- '%s'", bad[i]);
	}
	/* The root can be reset too; it holds a's time, so it drops. */
	before = cpu_usage(self->root);
	EXPECT_GE(before, LO(used));
	ASSERT_EQ(0, cn_write_in(self->root, "cpuacct.usage", "0"));
	EXPECT_LT(cpu_usage(self->root), before);
}

/* ---------------------------------------------------------------------
 * Nesting and moves.
 * ---------------------------------------------------------------------
 */
TEST_F(acct, nested_charges_stay_after_move)
{
	char a[CN_PATH_LEN], ab[CN_PATH_LEN], abc[CN_PATH_LEN];
	char ad[CN_PATH_LEN];
	struct burn b = {
		.cont = abc, .ms = 300, .then = ad, .then_ms = 400, .cpu = -1,
	};
	long uc, ub, ua, ud;

	cn_path(a, sizeof(a), self->root, "a");
	cn_path(ab, sizeof(ab), self->root, "a/b");
	cn_path(abc, sizeof(abc), self->root, "a/b/c");
	cn_path(ad, sizeof(ad), self->root, "a/d");
	ASSERT_EQ(0, cn_mkdir(a));
	ASSERT_EQ(0, cn_mkdir(ab));
	ASSERT_EQ(0, cn_mkdir(abc));
	ASSERT_EQ(0, cn_mkdir(ad));
	ASSERT_EQ(0, run_burn(&self->env, &b));

	uc = cpu_usage(abc);
	ub = cpu_usage(ab);
	ud = cpu_usage(ad);
	ua = cpu_usage(a);
	/* Time run in c is c's; what ran after the move is not. */
	EXPECT_GE(uc, LO(b.used)) TH_LOG("c %ld, measured %ld", uc, b.used);
	EXPECT_LE(uc, HI(b.used)) TH_LOG("c %ld, measured %ld", uc, b.used);
	EXPECT_GE(ud, LO(b.then_used));
	EXPECT_LE(ud, HI(b.then_used));
	/* Every ancestor has it. */
	EXPECT_GE(ub, uc);
	EXPECT_GE(ua, ub + ud);
	EXPECT_GE(cpu_usage(self->root), ua);

	/* c has no tasks left and keeps its count... */
	cn_sleep_ms(100);
	EXPECT_EQ(uc, cpu_usage(abc));
	EXPECT_EQ(ub, cpu_usage(ab));
	/* ...and removing it leaves its time with its ancestors. */
	ASSERT_EQ(0, cn_rmdir(abc));
	EXPECT_EQ(ub, cpu_usage(ab));
	EXPECT_EQ(ua, cpu_usage(a));
}

TEST_F(acct, moved_task_stops_charging_old_container)
{
	char a[CN_PATH_LEN], path[CN_PATH_LEN];
	long ua;
	pid_t pid;

	cn_path(a, sizeof(a), self->root, "a");
	ASSERT_EQ(0, cn_mkdir(a));
	pid = spawn_spinner(&self->env, a);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, cn_proc_path(pid, self->hid, path, sizeof(path)));
	EXPECT_STREQ("/a", path);
	EXPECT_EQ(1, cn_has_task(a, pid));
	cn_sleep_ms(100);
	/* Moved to the root, it is charged there and a stops counting. */
	ASSERT_EQ(0, cn_move(self->root, pid));
	cn_sleep_ms(50);
	ua = cpu_usage(a);
	EXPECT_GT(ua, 0);
	cn_sleep_ms(200);
	EXPECT_EQ(ua, cpu_usage(a));
	cn_env_kill(&self->env, pid);
}

TEST_HARNESS_MAIN
