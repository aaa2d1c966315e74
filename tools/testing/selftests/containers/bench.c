// SPDX-License-Identifier: GPL-2.0
/*
 * Micro-benchmarks of the paths every process takes, for "make bench":
 * fork+exit, fork+exec, anonymous page faults, tmpfs page cache, pipe
 * ping-pong, and container operations.  Each workload runs REPS times;
 * the median, minimum and maximum time per operation (in ns of guest time;
 * under qemu -icount that is instruction time) are printed as
 *
 *   BENCH <workload> <median> <min> <max>
 *
 * Usage: bench [-c DIR]   with -c, also time mkdir+rmdir, moving a task
 * between two containers and reading a tasks file of 1000 members in the
 * hierarchy mounted at DIR (container or cgroup v1 filesystem).
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
#include <time.h>
#include <unistd.h>

#define REPS	7

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* Run @fn REPS times; each returns its number of operations. */
static void bench(const char *name, long (*fn)(void *), void *arg)
{
	long long t[REPS];
	int i;

	for (i = 0; i < REPS; i++) {
		long long start = now_ns();
		long ops = fn(arg);

		if (ops <= 0) {
			printf("BENCH-FAIL %s\n", name);
			return;
		}
		t[i] = (now_ns() - start) / ops;
	}
	qsort(t, REPS, sizeof(t[0]), cmp_ll);
	printf("BENCH %s %lld %lld %lld\n", name, t[REPS / 2], t[0],
	       t[REPS - 1]);
	fflush(stdout);
}

static long fork_exit(void *arg)
{
	int i, n = 200;

	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return -1;
		if (!pid)
			_exit(0);
		waitpid(pid, NULL, 0);
	}
	return n;
}

static const char *self_exe;

static long fork_exec(void *arg)
{
	int i, n = 50;

	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return -1;
		if (!pid) {
			execl(self_exe, self_exe, "--exit", NULL);
			_exit(1);
		}
		waitpid(pid, NULL, 0);
	}
	return n;
}

#define AREA	(64L << 20)

static long anon_fault(void *arg)
{
	char *p = mmap(NULL, AREA, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long i;

	if (p == MAP_FAILED)
		return -1;
	for (i = 0; i < AREA; i += 4096)
		p[i] = 1;
	munmap(p, AREA);
	return AREA / 4096;
}

static long tmpfs_rw(void *arg)
{
	static char buf[1 << 16];
	const char *path = "/tmp/bench.data";
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	long i;

	if (fd < 0)
		return -1;
	for (i = 0; i < AREA; i += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			return -1;
	lseek(fd, 0, SEEK_SET);
	for (i = 0; i < AREA; i += sizeof(buf))
		if (read(fd, buf, sizeof(buf)) != sizeof(buf))
			return -1;
	close(fd);
	unlink(path);
	return AREA / 4096;
}

static long pipe_pingpong(void *arg)
{
	int a[2], b[2], i, n = 2000;
	char c = 0;
	pid_t pid;

	if (pipe(a) || pipe(b))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		while (read(a[0], &c, 1) == 1 && write(b[1], &c, 1) == 1)
			;
		_exit(0);
	}
	for (i = 0; i < n; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			return -1;
	close(a[1]);
	waitpid(pid, NULL, 0);
	close(a[0]);
	close(b[0]);
	close(b[1]);
	return n;
}

static const char *cdir;

static long mkdir_rmdir(void *arg)
{
	char path[512];
	int i, n = 100;

	snprintf(path, sizeof(path), "%s/bench.tmp", cdir);
	for (i = 0; i < n; i++)
		if (mkdir(path, 0755) || rmdir(path))
			return -1;
	return n;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

static long move_task(void *arg)
{
	char a[512], b[512], pid[16];
	int i, n = 200;

	snprintf(a, sizeof(a), "%s/bench.a/tasks", cdir);
	snprintf(b, sizeof(b), "%s/bench.b/tasks", cdir);
	snprintf(pid, sizeof(pid), "%d", getpid());
	for (i = 0; i < n / 2; i++)
		if (write_str(a, pid) || write_str(b, pid))
			return -1;
	return n;
}

static long read_tasks(void *arg)
{
	char path[512], buf[1 << 16];
	int i, n = 20;

	snprintf(path, sizeof(path), "%s/bench.big/tasks", cdir);
	for (i = 0; i < n; i++) {
		int fd = open(path, O_RDONLY);

		if (fd < 0)
			return -1;
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
	return n;
}

/* Copy the settings cpuset needs from the parent, if there are such files. */
static void inherit(const char *dir, const char *file)
{
	char from[512], to[512], buf[256];
	int fd;
	ssize_t n;

	snprintf(from, sizeof(from), "%s/%s", cdir, file);
	snprintf(to, sizeof(to), "%s/%s", dir, file);
	fd = open(from, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = '\0';
		write_str(to, buf);
	}
}

static int make_container(const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", cdir, name);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -1;
	inherit(path, "cpuset.cpus");
	inherit(path, "cpuset.mems");
	return 0;
}

static void container_ops(void)
{
	char a[512], b[512], big[512], tasks[600], pid[16];
	pid_t kids[1000];
	int i;

	if (make_container("bench.a", a, sizeof(a)) ||
	    make_container("bench.b", b, sizeof(b)) ||
	    make_container("bench.big", big, sizeof(big))) {
		printf("BENCH-FAIL container setup\n");
		return;
	}
	bench("mkdir+rmdir", mkdir_rmdir, NULL);
	bench("move-task", move_task, NULL);
	snprintf(tasks, sizeof(tasks), "%s/tasks", big);
	for (i = 0; i < 1000; i++) {
		kids[i] = fork();
		if (!kids[i]) {
			pause();
			_exit(0);
		}
		snprintf(pid, sizeof(pid), "%d", kids[i]);
		write_str(tasks, pid);
	}
	bench("read-tasks-1000", read_tasks, NULL);
	for (i = 0; i < 1000; i++)
		kill(kids[i], SIGKILL);
	for (i = 0; i < 1000; i++)
		waitpid(kids[i], NULL, 0);
	/* Back where we started, then clean up. */
	snprintf(tasks, sizeof(tasks), "%s/tasks", cdir);
	snprintf(pid, sizeof(pid), "%d", getpid());
	write_str(tasks, pid);
	rmdir(a);
	rmdir(b);
	rmdir(big);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--exit"))
		return 0;
	self_exe = "/proc/self/exe";
	{
		static char exe[512];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (n > 0) {
			exe[n] = '\0';
			self_exe = exe;
		}
	}
	if (argc > 2 && !strcmp(argv[1], "-c"))
		cdir = argv[2];

	bench("fork+exit", fork_exit, NULL);
	bench("fork+exec", fork_exec, NULL);
	bench("anon-fault-per-page", anon_fault, NULL);
	bench("tmpfs-write+read-per-page", tmpfs_rw, NULL);
	bench("pipe-pingpong", pipe_pingpong, NULL);
	if (cdir)
		container_ops();
	printf("BENCH-DONE\n");
	return 0;
}
