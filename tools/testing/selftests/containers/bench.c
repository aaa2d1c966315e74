// SPDX-License-Identifier: GPL-2.0
/*
 * Micro-benchmarks of the paths every process takes, for "make bench":
 * fork+exit, fork+exec, anonymous page faults, tmpfs page cache, reads
 * of an ext2 file (from the disk and from the page cache), pipe
 * ping-pong, and container operations.  Each workload runs 7 times (-n);
 * the median, minimum and maximum time per operation (in ns of guest time;
 * under qemu -icount that is instruction time) are printed as
 *
 *   BENCH <workload> <median> <min> <max>
 *
 * Usage: bench [-e DIR] [-c DIR] [-w WORKLOAD] [-n REPS]
 *   -e DIR  time reads of a 64 MiB file in DIR, a mounted block-backed
 *           filesystem: after dropping the page cache (each page is read
 *           from the device and charged) and again with it cached;
 *   -c DIR  time mkdir+rmdir, moving a task between two containers and
 *           reading a tasks file of 1000 members in the hierarchy mounted
 *           at DIR (container or cgroup v1 filesystem);
 *   -w NAME run only the workload NAME (for profiling);
 *   -n REPS repetitions of each workload (default 7, at most 1000).
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

#define MAX_REPS	1000

static int reps = 7;
static const char *only;

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

static int wanted(const char *name)
{
	return !only || !strcmp(name, only);
}

/* Run @fn reps times; each returns its number of operations. */
static void bench(const char *name, long (*fn)(void *), void *arg)
{
	static long long t[MAX_REPS];
	long ops = 0;
	int i;

	if (!wanted(name))
		return;
	for (i = 0; i < reps; i++) {
		long long start = now_ns();

		ops = fn(arg);
		if (ops <= 0) {
			printf("BENCH-FAIL %s\n", name);
			return;
		}
		t[i] = (now_ns() - start) / ops;
	}
	qsort(t, reps, sizeof(t[0]), cmp_ll);
	printf("BENCH %s %lld %lld %lld\n", name, t[reps / 2], t[0],
	       t[reps - 1]);
	/* Operations per repetition, for scripts/profile.sh. */
	printf("BENCH-OPS %s %ld\n", name, ops);
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

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

static char ext_file[512];

static int make_ext_file(const char *dir)
{
	static char buf[1 << 16];
	long i;
	int fd;

	snprintf(ext_file, sizeof(ext_file), "%s/bench.data", dir);
	fd = open(ext_file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < AREA; i += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			break;
	if (fsync(fd) || close(fd) || i < AREA)
		return -1;
	return 0;
}

static long read_file(void)
{
	static char buf[1 << 16];
	int fd = open(ext_file, O_RDONLY);
	long i;

	if (fd < 0)
		return -1;
	for (i = 0; i < AREA; i += sizeof(buf))
		if (read(fd, buf, sizeof(buf)) != sizeof(buf))
			return -1;
	close(fd);
	return AREA / 4096;
}

/* Dropping the caches is part of the timed operation, but small. */
static long ext_cold_read(void *arg)
{
	if (write_str("/proc/sys/vm/drop_caches", "1"))
		return -1;
	return read_file();
}

static long ext_cached_read(void *arg)
{
	return read_file();
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
		/* Keep only our ends, so that the parent's close is our EOF. */
		close(a[1]);
		close(b[0]);
		while (read(a[0], &c, 1) == 1 && write(b[1], &c, 1) == 1)
			;
		_exit(0);
	}
	close(a[0]);
	close(b[1]);
	for (i = 0; i < n; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			break;
	close(a[1]);
	close(b[0]);
	waitpid(pid, NULL, 0);
	return i == n ? n : -1;
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
	const char *edir = NULL;
	int i;

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
	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-c"))
			cdir = argv[i + 1];
		else if (!strcmp(argv[i], "-e"))
			edir = argv[i + 1];
		else if (!strcmp(argv[i], "-w"))
			only = argv[i + 1];
		else if (!strcmp(argv[i], "-n"))
			reps = atoi(argv[i + 1]);
	}
	if (reps < 1 || reps > MAX_REPS) {
		fprintf(stderr, "bench: -n wants 1..%d\n", MAX_REPS);
		return 1;
	}

	bench("fork+exit", fork_exit, NULL);
	bench("fork+exec", fork_exec, NULL);
	bench("anon-fault-per-page", anon_fault, NULL);
	bench("tmpfs-write+read-per-page", tmpfs_rw, NULL);
	if (edir && (wanted("ext2-read-uncached-per-page") ||
		     wanted("ext2-read-cached-per-page"))) {
		if (make_ext_file(edir)) {
			printf("BENCH-FAIL ext2 file\n");
		} else {
			bench("ext2-read-uncached-per-page", ext_cold_read, NULL);
			bench("ext2-read-cached-per-page", ext_cached_read, NULL);
			unlink(ext_file);
		}
	}
	bench("pipe-pingpong", pipe_pingpong, NULL);
	if (cdir && (wanted("mkdir+rmdir") || wanted("move-task") ||
		     wanted("read-tasks-1000")))
		container_ops();
	printf("BENCH-DONE\n");
	return 0;
}
