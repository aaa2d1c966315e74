// SPDX-License-Identifier: GPL-2.0
/*
 * Randomized concurrency test of the whole container interface, in the
 * spirit of syzkaller: NR_WORKERS worker processes pick random operations
 * for CN_FUZZ_SECONDS seconds (default 60 on the debug kernel, the one
 * with kmemleak, else 15) and race them against each other:
 *
 *   mount	mount a hierarchy with random options: a random subset of the
 *		subsystems, name=, none, all, noprefix, clone_children,
 *		release_agent=, or malformed options; or mount again a
 *		hierarchy that lives on unmounted
 *   remount	remount a mounted hierarchy with random options
 *   umount	umount one (sometimes lazily)
 *   mkdir	make a container at a random depth, sometimes with a bad name
 *   rmdir	remove a random container (or the root, or a file)
 *   rename	rename a container in place, to another parent, to a bad name
 *   write	write a random or boundary value (0, 1, -1, 2^64, garbage,
 *		empty, "0x10", "0-1", a page of digits, binary...) to a random
 *		control file of a random container
 *   read	read every file of a container or of a tree in random chunks,
 *		/proc/containers, /proc/<pid>/container of test tasks
 *   move	write a test thread's tid into tasks, or its tgid into
 *		container.procs, of a random container
 *   spawn	fork a child with a few threads, sometimes exiting its main
 *		thread, for the others to move
 *   execrace	fork a child whose main thread exits while another thread
 *		exec()s this binary (which exits after a few loops), and
 *		write its pid to container.procs over and over meanwhile
 *   setuid	chown a container to nobody, and as nobody move into it,
 *		make containers in it, write its files, move others
 *   unshare	a child that unshares namespaces (the ns subsystem)
 *   memhog	a child touching tens of MiB in a container with a small
 *		memory.limit_in_bytes
 *   memleader	the same, from a thread whose main thread has exited
 *   swap	swap on zram and off again (worker 0 only)
 *   hotplug	take a CPU other than 0 offline or online (workers 1 and 2)
 *
 * Errors for bad input or lost races are expected.  The test fails on a
 * worker that hangs (an operation still running OP_HANG_MS after it
 * started, or a worker not finished STOP_GRACE_MS after the end), a worker
 * that crashes, a test process that SIGKILL cannot remove, or a broken
 * invariant once everything is stopped and every test task is gone: in
 * each hierarchy every thread of the system is in exactly one container,
 * the one /proc/<tid>/container names, and no kernel thread is outside the
 * root (the test never moves one); container.procs is the set of the
 * tgids of tasks; /proc/containers counts the containers of each
 * hierarchy; memory.force_empty leaves no usage; after all is removed and
 * unmounted, no hierarchy remains, debug.css_group_count is back to its
 * value at the start and no test mount is left.  A hang also dumps the
 * blocked tasks to the console (sysrq w).  What the kernel itself reports
 * (oopses, warnings, lockdep, KASAN, RCU stalls, kmemleak) is for the
 * harness that reads the console to judge.
 *
 * Replay: the seed is printed at the start (and logged to /dev/kmsg, so
 * that it is on the console even if the kernel hangs); run again with
 * CN_FUZZ_SEED=<seed>.  That repeats each worker's choices, not their
 * timing.  CN_FUZZ_SKIP=op,op,... leaves operations out (triage), and
 * CN_FUZZ_SECONDS sets the duration (1 to MAX_SECONDS).
 *
 * Loop and if bodies holding an EXPECT_*() or ASSERT_*() keep their braces
 * even when they are one statement: the harness macros are two statements.
 * Workers are forked processes: they never use EXPECT_*() or ASSERT_*(),
 * they report through the shared memory.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "container_util.h"

#define NR_WORKERS	8
#define SECS_DEBUG	60
#define SECS_DEFAULT	15
#define MAX_SECONDS	240	/* the runner kills a test after 300 s */
#define OP_HANG_MS	30000	/* one operation running this long: hung */
#define STOP_GRACE_MS	30000	/* time the workers get to stop */
#define KILL_MS		15000	/* time SIGKILL gets to remove everything */
#define MAX_MOUNTS	6	/* test mounts; above it mount is umount */
#define MAX_POOL	512	/* test threads that may be moved */
#define MAX_KIDS	16	/* children of one worker */
#define MAX_HOGS	2	/* memory hogs at a time */
#define MAX_DEPTH	4
#define MAX_SUBDIRS	32
#define NAME_LEN	256	/* NAME_MAX + 1 */
#define WALK_LEN	32	/* longer names are leaves: paths stay short */
#define MAX_HIER	16
#define CHECK_TRIES	3
#define EXEC_ARG	"--cn-fuzz-exec-child"
#define PID_MAX		"4194304"	/* no pid reuse during a run */

enum {
	OP_MOUNT, OP_REMOUNT, OP_UMOUNT, OP_MKDIR, OP_RMDIR, OP_RENAME,
	OP_WRITE, OP_READ, OP_MOVE, OP_SPAWN, OP_EXECRACE, OP_SETUID,
	OP_UNSHARE, OP_MEMHOG, OP_MEMLEADER, OP_SWAP, OP_HOTPLUG,
	NR_OPS
};

static const struct {
	const char *name;
	int weight;
} ops[NR_OPS] = {
	[OP_MOUNT]	= { "mount", 4 },
	[OP_REMOUNT]	= { "remount", 2 },
	[OP_UMOUNT]	= { "umount", 2 },
	[OP_MKDIR]	= { "mkdir", 12 },
	[OP_RMDIR]	= { "rmdir", 6 },
	[OP_RENAME]	= { "rename", 3 },
	[OP_WRITE]	= { "write", 16 },
	[OP_READ]	= { "read", 10 },
	[OP_MOVE]	= { "move", 16 },
	[OP_SPAWN]	= { "spawn", 4 },
	[OP_EXECRACE]	= { "execrace", 5 },
	[OP_SETUID]	= { "setuid", 3 },
	[OP_UNSHARE]	= { "unshare", 2 },
	[OP_MEMHOG]	= { "memhog", 2 },
	[OP_MEMLEADER]	= { "memleader", 1 },
	[OP_SWAP]	= { "swap", 1 },
	[OP_HOTPLUG]	= { "hotplug", 1 },
};

/* Kinds of children a worker keeps track of. */
enum { KID_PLAIN, KID_HOG };

/* One thread of a test child that the workers may move. */
struct pool_ent {
	pid_t tgid;
	pid_t tid;		/* 0: free slot */
};

/* What one worker is doing and has done, for the test to read. */
struct wstate {
	pid_t pid;
	int op;			/* -1: between operations */
	long op_start;		/* cn_now_ms() */
	int done;		/* finished its loop and reaped its children */
	unsigned long tried[NR_OPS];
	unsigned long ok[NR_OPS];
};

/* Shared between the test and all its workers and children. */
struct shared {
	unsigned long long seed;
	long deadline;
	int stop;
	unsigned int skip;	/* mask of ops left out */
	int nbase;		/* hierarchies that existed before the test */
	int base[MAX_HIER];
	int hogs;
	int ncpus;
	struct pool_ent pool[MAX_POOL];
	struct wstate w[NR_WORKERS];
};

struct kid {
	pid_t pid;
	long deadline;
	int kind;
};

struct worker {
	struct shared *sh;
	struct wstate *st;
	int idx;
	unsigned long long rng;
	long last_swap;
	int nkids;
	struct kid kids[MAX_KIDS];
};

/* ---------------------------------------------------------------------
 * Randomness: xorshift64*, each worker its own stream.
 * ---------------------------------------------------------------------
 */
static unsigned long long splitmix64(unsigned long long x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static unsigned long long rnd64(unsigned long long *s)
{
	unsigned long long x = *s ? *s : 0x2545f4914f6cdd1dULL;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* A random number below @n (n > 0). */
static unsigned int rn(unsigned long long *s, unsigned int n)
{
	return (rnd64(s) >> 32) % n;
}

/* ---------------------------------------------------------------------
 * Small helpers.
 * ---------------------------------------------------------------------
 */
static bool stopping(struct shared *sh)
{
	return __atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE) ||
	       cn_now_ms() >= sh->deadline;
}

/* A line on the console, which outlives a hung guest. */
static void console_log(const char *fmt, ...) __printf(1, 2);
static void console_log(const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cn_write("/dev/kmsg", buf);
}

static int write_raw(const char *path, const void *buf, size_t len, off_t off)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = off ? pwrite(fd, buf, len, off) : write(fd, buf, len);
	if (n < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static bool is_dir_ent(const char *dir, struct dirent *de)
{
	char path[CN_PATH_LEN + NAME_LEN];
	struct stat st;

	if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
		return false;
	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
	return !lstat(path, &st) && S_ISDIR(st.st_mode);
}

/* Up to @max names of subdirectories (@dirs) or files of @dir. */
static int list_dir(const char *dir, bool dirs, char names[][NAME_LEN],
		    int max)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return -errno;
	while (n < max && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (strlen(de->d_name) >= NAME_LEN ||
		    is_dir_ent(dir, de) != dirs)
			continue;
		snprintf(names[n++], NAME_LEN, "%s", de->d_name);
	}
	closedir(d);
	return n;
}

/* The test's mounts (CN_MNT_PREFIX*) in /proc/self/mounts. */
static int test_mounts(char dirs[][CN_DIR_LEN], int max)
{
	char line[1024], dev[256], dir[256], type[64];
	int n = 0;
	FILE *f;

	f = fopen("/proc/self/mounts", "re");
	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %255s %63s", dev, dir, type) != 3)
			continue;
		if (strcmp(type, CN_FSTYPE) ||
		    strncmp(dir, CN_MNT_PREFIX, strlen(CN_MNT_PREFIX)) ||
		    strlen(dir) >= CN_DIR_LEN)
			continue;
		snprintf(dirs[n++], CN_DIR_LEN, "%s", dir);
	}
	fclose(f);
	return n;
}

/* A hierarchy as /proc/self/container lists it. */
struct hier {
	int id;
	char subsys[256];	/* "cpuset,memory,name=x" */
};

static int list_hiers(struct hier *h, int max)
{
	char line[1024], *c, *end;
	int n = 0;
	long id;
	FILE *f;

	f = fopen("/proc/self/container", "re");
	if (!f)
		return -errno;
	while (n < max && fgets(line, sizeof(line), f)) {
		id = strtol(line, &end, 10);
		if (end == line || *end != ':')
			continue;
		c = strchr(end + 1, ':');
		if (!c)
			continue;
		*c = '\0';
		h[n].id = id;
		snprintf(h[n].subsys, sizeof(h[n].subsys), "%s", end + 1);
		n++;
	}
	fclose(f);
	return n;
}

static bool is_base_hier(struct shared *sh, int id)
{
	int i;

	for (i = 0; i < sh->nbase; i++)
		if (sh->base[i] == id)
			return true;
	return false;
}

/* Mount options that find the existing hierarchy @h again. */
static void hier_opts(const struct hier *h, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", strncmp(h->subsys, "name=", 5) ? "" :
		 "none,", h->subsys);
}

static bool has_token(const char *list, const char *token)
{
	size_t len = strlen(token);
	const char *p = list;

	for (; p; p = strchr(p, ','), p = p ? p + 1 : NULL)
		if (!strncmp(p, token, len) && (p[len] == ',' || !p[len]))
			return true;
	return false;
}

/* ---------------------------------------------------------------------
 * The pool of test threads, and the children of a worker.
 * ---------------------------------------------------------------------
 */
static void pool_add(struct shared *sh, pid_t tgid, pid_t tid)
{
	int i, start = tid % MAX_POOL;
	pid_t zero;

	for (i = 0; i < MAX_POOL; i++) {
		struct pool_ent *e = &sh->pool[(start + i) % MAX_POOL];

		zero = 0;
		if (__atomic_compare_exchange_n(&e->tid, &zero, tid, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED)) {
			__atomic_store_n(&e->tgid, tgid, __ATOMIC_RELEASE);
			return;
		}
	}
}

static void pool_del(struct shared *sh, pid_t tgid)
{
	int i;

	for (i = 0; i < MAX_POOL; i++) {
		struct pool_ent *e = &sh->pool[i];

		if (__atomic_load_n(&e->tgid, __ATOMIC_ACQUIRE) != tgid)
			continue;
		__atomic_store_n(&e->tgid, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&e->tid, 0, __ATOMIC_RELEASE);
	}
}

/* A random live entry of the pool; false if none was found. */
static bool pool_pick(struct worker *w, pid_t *tgid, pid_t *tid)
{
	int i, start = rn(&w->rng, MAX_POOL);

	for (i = 0; i < MAX_POOL; i++) {
		struct pool_ent *e = &w->sh->pool[(start + i) % MAX_POOL];

		*tid = __atomic_load_n(&e->tid, __ATOMIC_ACQUIRE);
		*tgid = __atomic_load_n(&e->tgid, __ATOMIC_ACQUIRE);
		if (*tid > 0 && *tgid > 0)
			return true;
	}
	return false;
}

/* Reap children that have exited; kill those past their deadline. */
static void reap_kids(struct worker *w, bool all)
{
	long now = cn_now_ms();
	int i, status;
	pid_t ret;

	for (i = 0; i < w->nkids; i++) {
		struct kid *k = &w->kids[i];

		if (all || now > k->deadline)
			kill(k->pid, SIGKILL);
		do
			ret = waitpid(k->pid, &status, all || now > k->deadline ?
				      0 : WNOHANG);
		while (ret < 0 && errno == EINTR);
		if (!ret)
			continue;
		pool_del(w->sh, k->pid);
		if (k->kind == KID_HOG)
			__atomic_sub_fetch(&w->sh->hogs, 1, __ATOMIC_RELAXED);
		w->kids[i--] = w->kids[--w->nkids];
	}
}

/*
 * Fork a child that lives at most @ms (its own alarm, and the worker kills
 * it after that).  Returns the pid in the parent, 0 in the child.
 */
static pid_t spawn_kid(struct worker *w, long ms, int kind)
{
	pid_t parent = getpid(), pid;

	if (w->nkids == MAX_KIDS) {
		w->kids[0].deadline = 0;
		reap_kids(w, false);
	}
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		alarm((ms + 999) / 1000);
		pool_add(w->sh, getpid(), getpid());
		/* A stream of its own, still repeatable. */
		w->rng = splitmix64(w->rng ^ 0x5eed);
		return 0;
	}
	w->kids[w->nkids].pid = pid;
	w->kids[w->nkids].deadline = cn_now_ms() + ms;
	w->kids[w->nkids].kind = kind;
	w->nkids++;
	return pid;
}

/* ---------------------------------------------------------------------
 * Picking targets.
 * ---------------------------------------------------------------------
 */
static int pick_mount(struct worker *w, char *dir)
{
	char dirs[16][CN_DIR_LEN];
	int n = test_mounts(dirs, 16);

	if (!n)
		return -ENOENT;
	snprintf(dir, CN_DIR_LEN, "%s", dirs[rn(&w->rng, n)]);
	return 0;
}

/*
 * A random container into @path: a walk down from the root of a random
 * mount that stops at each level with probability 1/3 (never at the root
 * if @child, never below @max_depth).  Returns the depth, or -errno.
 */
static int pick_cont(struct worker *w, char *path, size_t len, bool child,
		     int max_depth)
{
	char names[MAX_SUBDIRS][NAME_LEN], root[CN_DIR_LEN], *name;
	int depth = 0, n;
	size_t off;

	if (pick_mount(w, root))
		return -ENOENT;
	off = snprintf(path, len, "%s", root);
	while (depth < max_depth) {
		if ((depth || !child) && !rn(&w->rng, 3))
			break;
		n = list_dir(path, true, names, MAX_SUBDIRS);
		if (n <= 0)
			break;
		name = names[rn(&w->rng, n)];
		if (strlen(name) >= WALK_LEN || off + WALK_LEN + 2 >= len)
			break;
		off += snprintf(path + off, len - off, "/%s", name);
		depth++;
	}
	if (child && !depth)
		return -ENOENT;
	return depth;
}

/* ---------------------------------------------------------------------
 * Values.
 * ---------------------------------------------------------------------
 */
static const char * const any_values[] = {
	"0", "1", "2", "-1", "3", "7", "63", "64", "4096", "65536", "1k",
	"64M", "1G", "4294967295", "4294967296", "9223372036854775807",
	"9223372036854775808", "18446744073709551615", "18446744073709551616",
	"-9223372036854775808", "max", "0x10", "010", "0-1", "0-3", "1-0",
	"0,1", "0-63", "1,0", "", "\n", " ", "abc", "1x", "-", "0\n", "1 2",
	"\t1", "/bin/true", "/nonexistent", "4M", "8388608", "0 ",
};

/*
 * What may be written to tasks and container.procs besides the ids of
 * test threads: nothing that names a real task (not 0, which is the
 * writer, nor a small number, which may be init or a kernel thread).
 */
static const char * const id_values[] = {
	"", "\n", "abc", "-1", "-2147483648", "4194305", "2147483648",
	"18446744073709551616", "99999999999999999999",
};

/* A random value into @buf; returns its length. */
static size_t random_value(struct worker *w, bool ids, char *buf, size_t len)
{
	unsigned int r = rn(&w->rng, 100);
	size_t n, i;

	if (ids) {
		pid_t tgid, tid;

		if (r < 80 && pool_pick(w, &tgid, &tid))
			return snprintf(buf, len, "%d", r < 40 ? tid : tgid);
		return snprintf(buf, len, "%s",
				id_values[rn(&w->rng, ARRAY_SIZE(id_values))]);
	}
	if (r < 70)
		return snprintf(buf, len, "%s",
				any_values[rn(&w->rng, ARRAY_SIZE(any_values))]);
	if (r < 80)
		return snprintf(buf, len, "%llu", rnd64(&w->rng) >>
				rn(&w->rng, 64));
	if (r < 85)
		return snprintf(buf, len, "%d-%d", rn(&w->rng, 8),
				rn(&w->rng, 8));
	if (r < 90) {
		/* A long string: digits or letters. */
		n = 1 + rn(&w->rng, len - 1);
		memset(buf, r % 2 ? '7' : 'a', n);
		buf[n] = '\0';
		return n;
	}
	/* Binary, with NULs. */
	n = 1 + rn(&w->rng, 16);
	for (i = 0; i < n; i++)
		buf[i] = rnd64(&w->rng);
	return n;
}

/* ---------------------------------------------------------------------
 * The operations.  Each returns 0 or -errno; errors are expected.
 * ---------------------------------------------------------------------
 */
static const char * const subsystems[] = {
	"cpuset", "cpuacct", "memory", "pids", "ns", "debug",
};

static const char * const bad_mount_opts[] = {
	"nosuch", "name=", "name=a/b", "none", "cpuset,nosuch",
	"release_agent", "name=x,name=y", "none,cpuset,name=z", "all,cpuset",
	"name=\x01", "cpuset=1", "noprefix,cpuset,memory", "all,none,name=q",
	"clone_children=1",
};

/* Random mount options into @buf. */
static void random_opts(struct worker *w, char *buf, size_t len, bool remount)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	if (!rn(&w->rng, 8)) {
		snprintf(buf, len, "%s",
			 bad_mount_opts[rn(&w->rng, ARRAY_SIZE(bad_mount_opts))]);
		return;
	}
	if (!rn(&w->rng, 10)) {
		off += snprintf(buf + off, len - off, "all");
	} else if (!rn(&w->rng, 6)) {
		off += snprintf(buf + off, len - off, "none");
	} else {
		for (i = 0; i < ARRAY_SIZE(subsystems); i++)
			if (!rn(&w->rng, 3))
				off += snprintf(buf + off, len - off, "%s%s",
						off ? "," : "", subsystems[i]);
	}
	if (!remount ? rn(&w->rng, 2) : !rn(&w->rng, 4))
		off += snprintf(buf + off, len - off, "%sname=ctfz%u",
				off ? "," : "", rn(&w->rng, 4));
	if (!rn(&w->rng, 8))
		off += snprintf(buf + off, len - off, "%snoprefix",
				off ? "," : "");
	if (!rn(&w->rng, 4))
		off += snprintf(buf + off, len - off, "%sclone_children",
				off ? "," : "");
	if (!rn(&w->rng, 8))
		snprintf(buf + off, len - off, "%srelease_agent=/bin/true",
			 off ? "," : "");
}

static int op_mount(struct worker *w)
{
	char dirs[16][CN_DIR_LEN], dir[CN_DIR_LEN], opts[512];
	struct hier h[MAX_HIER];
	int n;

	if (test_mounts(dirs, 16) >= MAX_MOUNTS)
		return -ENOSPC;
	n = list_hiers(h, MAX_HIER);
	if (n > 0 && !rn(&w->rng, 5)) {
		/* A hierarchy that may live on unmounted, with children. */
		struct hier *p = &h[rn(&w->rng, n)];

		if (is_base_hier(w->sh, p->id))
			return -EPERM;
		hier_opts(p, opts, sizeof(opts));
	} else {
		random_opts(w, opts, sizeof(opts), false);
	}
	return cn_mount(opts, dir, sizeof(dir));
}

static int op_remount(struct worker *w)
{
	char dir[CN_DIR_LEN], opts[512];

	if (pick_mount(w, dir))
		return -ENOENT;
	random_opts(w, opts, sizeof(opts), true);
	return mount("none", dir, CN_FSTYPE, MS_REMOUNT, opts) ? -errno : 0;
}

static int op_umount(struct worker *w)
{
	char dir[CN_DIR_LEN];

	if (pick_mount(w, dir))
		return -ENOENT;
	if (umount2(dir, rn(&w->rng, 4) ? 0 : MNT_DETACH))
		return -errno;
	rmdir(dir);
	return 0;
}

static const char *bad_name(struct worker *w, char *buf, size_t len)
{
	static const char * const names[] = {
		".", "..", "tasks", "container.procs", "cpuset.cpus",
		"notify_on_release", "a\nb", "x y", "\xff\xfe", "-", "a:b",
	};

	if (!rn(&w->rng, 4)) {
		size_t n = 250 + rn(&w->rng, 20);

		memset(buf, 'n', n < len ? n : len - 1);
		buf[n < len ? n : len - 1] = '\0';
		return buf;
	}
	return names[rn(&w->rng, ARRAY_SIZE(names))];
}

/* Give @cont its parent's effective CPUs and nodes, if cpuset is bound. */
static void copy_cpuset(const char *parent, const char *cont)
{
	char path[CN_PATH_LEN], val[256];

	cn_path(path, sizeof(path), parent, "cpuset.effective_cpus");
	if (!cn_read_str(path, val, sizeof(val)))
		cn_writef_in(cont, "cpuset.cpus", "%s\n", val);
	cn_path(path, sizeof(path), parent, "cpuset.effective_mems");
	if (!cn_read_str(path, val, sizeof(val)))
		cn_writef_in(cont, "cpuset.mems", "%s\n", val);
}

/*
 * memory.oom_control's oom_kill_disable makes a task over its limit wait
 * instead of being killed; random writes may set it, and new children
 * inherit it: turn it off again, or the tasks wait for good.
 */
static void oom_kill_on(const char *cont)
{
	if (cn_exists_in(cont, "memory.oom_control"))
		cn_write_in(cont, "memory.oom_control", "0");
}

static int op_mkdir(struct worker *w)
{
	char parent[CN_PATH_LEN], path[CN_PATH_LEN + 300], name[300];
	const char *n;
	int ret;

	if (pick_cont(w, parent, sizeof(parent), false, MAX_DEPTH - 1) < 0)
		return -ENOENT;
	if (!rn(&w->rng, 8)) {
		n = bad_name(w, name, sizeof(name));
	} else {
		snprintf(name, sizeof(name), "f%u", rn(&w->rng, 8));
		n = name;
	}
	snprintf(path, sizeof(path), "%s/%s", parent, n);
	ret = mkdir(path, rn(&w->rng, 8) ? 0755 : 0700) ? -errno : 0;
	if (!ret)
		oom_kill_on(path);
	if (!ret && rn(&w->rng, 4))
		copy_cpuset(parent, path);
	return ret;
}

static int op_rmdir(struct worker *w)
{
	char path[CN_PATH_LEN];
	unsigned int r = rn(&w->rng, 20);

	if (pick_cont(w, path, sizeof(path), r, MAX_DEPTH) < 0)
		return -ENOENT;
	if (r == 1)
		strncat(path, "/tasks", sizeof(path) - strlen(path) - 1);
	return rmdir(path) ? -errno : 0;
}

static int op_rename(struct worker *w)
{
	char from[CN_PATH_LEN], to[CN_PATH_LEN + 300], name[300], *slash;
	char other[CN_PATH_LEN];
	unsigned int r = rn(&w->rng, 10);

	if (pick_cont(w, from, sizeof(from), true, MAX_DEPTH) < 0)
		return -ENOENT;
	if (r < 6) {
		/* A new name in the same parent. */
		snprintf(to, sizeof(to), "%s", from);
		slash = strrchr(to, '/');
		snprintf(slash + 1, sizeof(to) - (slash + 1 - to), "f%u",
			 rn(&w->rng, 8));
	} else if (r < 8) {
		/* Another parent, maybe in another hierarchy. */
		if (pick_cont(w, other, sizeof(other), false, MAX_DEPTH) < 0)
			return -ENOENT;
		snprintf(to, sizeof(to), "%s/f%u", other, rn(&w->rng, 8));
	} else {
		snprintf(to, sizeof(to), "%s", from);
		slash = strrchr(to, '/');
		snprintf(slash + 1, sizeof(to) - (slash + 1 - to), "%s",
			 bad_name(w, name, sizeof(name)));
	}
	return rename(from, to) ? -errno : 0;
}

static int op_write(struct worker *w)
{
	char cont[CN_PATH_LEN], path[CN_PATH_LEN + NAME_LEN + 2];
	char files[48][NAME_LEN], val[4100];
	unsigned int r;
	const char *f;
	size_t len;
	bool ids;
	int n, fd, ret = 0;

	if (pick_cont(w, cont, sizeof(cont), false, MAX_DEPTH) < 0)
		return -ENOENT;
	n = list_dir(cont, false, files, 48);
	if (n <= 0)
		return n ? n : -ENOENT;
	f = files[rn(&w->rng, n)];
	ids = !strcmp(f, "tasks") || !strcmp(f, "container.procs");
	len = random_value(w, ids, val, rn(&w->rng, 4) ? 64 : sizeof(val));
	snprintf(path, sizeof(path), "%s/%s", cont, f);
	r = rn(&w->rng, 10);
	/* Never in two writes: the halves of an id would be other ids. */
	if (r < 8 || (ids && r == 9)) {
		ret = write_raw(path, val, len, 0);
	} else if (r == 8) {
		ret = write_raw(path, val, len, 1 + rn(&w->rng, 8));
	} else {
		/* The value in two writes on one descriptor. */
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (write(fd, val, len / 2) < 0 ||
		    write(fd, val + len / 2, len - len / 2) < 0)
			ret = -errno;
		close(fd);
	}
	/* Tasks waiting for room forever would be hangs: let them be killed. */
	if (!strcmp(f, "memory.oom_control"))
		oom_kill_on(cont);
	return ret;
}

static void read_file(struct worker *w, const char *path)
{
	static const size_t chunks[] = { 1, 3, 7, 64, 4096 };

	free(cn_read_all(path, chunks[rn(&w->rng, ARRAY_SIZE(chunks))]));
}

static void read_cont(struct worker *w, const char *cont, int depth)
{
	char names[48][NAME_LEN], path[CN_PATH_LEN], sub[CN_PATH_LEN];
	int n, i;

	n = list_dir(cont, false, names, 48);
	for (i = 0; i < n; i++)
		read_file(w, cn_path(path, sizeof(path), cont, names[i]));
	if (depth <= 0)
		return;
	n = list_dir(cont, true, names, 48);
	for (i = 0; i < n && i < 8; i++) {
		if (snprintf(sub, sizeof(sub), "%s/%s", cont, names[i]) <
		    (int)sizeof(sub))
			read_cont(w, sub, depth - 1);
	}
}

static int op_read(struct worker *w)
{
	char cont[CN_PATH_LEN], path[64];
	unsigned int r = rn(&w->rng, 10);
	pid_t tgid, tid;

	if (r < 4) {
		if (pick_cont(w, cont, sizeof(cont), false, MAX_DEPTH) < 0)
			return -ENOENT;
		read_cont(w, cont, r ? 0 : MAX_DEPTH);
	} else if (r < 6) {
		read_file(w, "/proc/containers");
		read_file(w, "/proc/self/container");
	} else {
		if (!pool_pick(w, &tgid, &tid))
			return -ENOENT;
		snprintf(path, sizeof(path), "/proc/%d/container", tgid);
		read_file(w, path);
		snprintf(path, sizeof(path), "/proc/%d/task/%d/container", tgid,
			 tid);
		read_file(w, path);
		snprintf(path, sizeof(path), "/proc/%d/container", tid);
		read_file(w, path);
	}
	return 0;
}

static int op_move(struct worker *w)
{
	char cont[CN_PATH_LEN];
	pid_t tgid, tid;

	if (!pool_pick(w, &tgid, &tid))
		return -ESRCH;
	if (pick_cont(w, cont, sizeof(cont), false, MAX_DEPTH) < 0)
		return -ENOENT;
	return rn(&w->rng, 2) ? cn_move(cont, tid) : cn_move_proc(cont, tgid);
}

/* Threads of test children: register, then sleep or touch memory. */
struct kid_thread {
	struct shared *sh;
	pid_t tgid;
	int ms;
	bool busy;
	bool exec;
	int loops;
};

static void *kid_thread_fn(void *data)
{
	struct kid_thread *t = data;
	long end = cn_now_ms() + t->ms;
	char arg[16];

	pool_add(t->sh, t->tgid, cn_gettid());
	while (cn_now_ms() < end) {
		if (t->busy) {
			char *p = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p != MAP_FAILED) {
				memset(p, 1, 65536);
				munmap(p, 65536);
			}
		}
		cn_sleep_ms(1);
	}
	if (!t->exec)
		syscall(SYS_exit, 0);	/* this thread only */
	snprintf(arg, sizeof(arg), "%d", t->loops);
	execl("/proc/self/exe", "test_fuzz", EXEC_ARG, arg, NULL);
	exit(0);
}

/*
 * In a child: start @n threads that live up to @ms (the first one then
 * execs if @exec), then end the main thread one way or another (always if
 * @exec), or keep it for up to @ms and exit the whole process.
 */
static void kid_threads(struct worker *w, int n, bool exec, int ms)
{
	static struct kid_thread t[4];
	pthread_attr_t attr;
	pthread_t th;
	int i;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < n && i < 4; i++) {
		t[i].sh = w->sh;
		t[i].tgid = getpid();
		t[i].ms = rn(&w->rng, ms + 1);
		t[i].busy = rn(&w->rng, 2);
		t[i].exec = exec && !i;
		t[i].loops = rn(&w->rng, 6);
		/* The others wait for the exec, which ends them. */
		if (exec && i)
			t[i].ms = 2000;
		pthread_create(&th, &attr, kid_thread_fn, &t[i]);
	}
	switch (exec ? rn(&w->rng, 2) : n ? rn(&w->rng, 3) : 2) {
	case 0:
		syscall(SYS_exit, 0);
		break;
	case 1:
		pthread_exit(NULL);
		break;
	}
	cn_sleep_ms(rn(&w->rng, ms + 1));
	_exit(0);
}

static int op_spawn(struct worker *w)
{
	pid_t pid = spawn_kid(w, 3000, KID_PLAIN);

	if (pid < 0)
		return -errno;
	if (!pid)
		kid_threads(w, rn(&w->rng, 4), false, 1 + rn(&w->rng, 1500));
	return 0;
}

/*
 * The race that hung the kernel before: a process whose main thread has
 * exited, another thread exec()ing, and its pid written to container.procs
 * meanwhile, mostly of the container it is already in (where a walk of
 * its threads from a stale leader never filled its array and never
 * stopped).
 */
static int op_execrace(struct worker *w)
{
	char cont[CN_PATH_LEN], path[64];
	long end = cn_now_ms() + 300;
	int ret = -ESRCH, have = -1;
	siginfo_t info;
	pid_t pid;

	pid = spawn_kid(w, 5000, KID_PLAIN);
	if (pid < 0)
		return -errno;
	if (!pid)
		kid_threads(w, 1 + rn(&w->rng, 3), true, 3);
	while (cn_now_ms() < end) {
		if (have < 0 || !rn(&w->rng, 16))
			have = pick_cont(w, cont, sizeof(cont), false,
					 MAX_DEPTH);
		if (have >= 0 && !cn_move_proc(cont, pid))
			ret = 0;
		if (!rn(&w->rng, 4)) {
			snprintf(path, sizeof(path), "/proc/%d/container", pid);
			read_file(w, path);
		}
		/* Exited?  reap_kids() reaps it. */
		info.si_pid = 0;
		if (!waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) &&
		    info.si_pid == pid)
			break;
	}
	return ret;
}

/* As nobody, in a container chowned to nobody. */
static void setuid_kid(struct worker *w, const char *cont)
{
	char path[CN_PATH_LEN + NAME_LEN], val[64];
	int i, n = 3 + rn(&w->rng, 8);
	pid_t pid, tgid, tid;

	if (setgroups(0, NULL) || setresgid(CN_NOBODY, CN_NOBODY, CN_NOBODY) ||
	    setresuid(CN_NOBODY, CN_NOBODY, CN_NOBODY))
		_exit(1);
	for (i = 0; i < n; i++) {
		switch (rn(&w->rng, 8)) {
		case 0:
			cn_write_in(cont, "tasks", "0");
			break;
		case 1:
			cn_move_proc(cont, getpid());
			break;
		case 2:
			snprintf(path, sizeof(path), "%s/u%u", cont,
				 rn(&w->rng, 4));
			if (rn(&w->rng, 2))
				mkdir(path, 0755);
			else
				rmdir(path);
			break;
		case 3:
			if (pool_pick(w, &tgid, &tid))
				cn_move(cont, tid);
			break;
		case 4:
			/* A child of ours, moved by us, that exits. */
			pid = fork();
			if (!pid) {
				cn_sleep_ms(rn(&w->rng, 20));
				_exit(0);
			}
			if (pid > 0) {
				cn_move_proc(cont, pid);
				waitpid(pid, NULL, 0);
			}
			break;
		case 5:
			random_value(w, false, val, sizeof(val));
			cn_write_in(cont, "notify_on_release", val);
			break;
		case 6:
			read_cont(w, cont, 1);
			break;
		default:
			cn_sleep_ms(rn(&w->rng, 10));
			break;
		}
	}
	_exit(0);
}

static int op_setuid(struct worker *w)
{
	static const char * const files[] = {
		"", "/tasks", "/container.procs", "/notify_on_release",
	};
	char cont[CN_PATH_LEN], path[CN_PATH_LEN + 32];
	unsigned int i;
	pid_t pid;

	if (pick_cont(w, cont, sizeof(cont), true, MAX_DEPTH) < 0)
		return -ENOENT;
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s%s", cont, files[i]);
		if (rn(&w->rng, 8) && lchown(path, CN_NOBODY, CN_NOBODY))
			return -errno;
	}
	pid = spawn_kid(w, 3000, KID_PLAIN);
	if (pid < 0)
		return -errno;
	if (!pid)
		setuid_kid(w, cont);
	return 0;
}

static int op_unshare(struct worker *w)
{
	static const int flags[] = {
		CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWNS,
		CLONE_NEWUTS | CLONE_NEWIPC,
	};
	pid_t pid = spawn_kid(w, 2000, KID_PLAIN);

	if (pid < 0)
		return -errno;
	if (!pid) {
		unshare(flags[rn(&w->rng, ARRAY_SIZE(flags))]);
		if (!rn(&w->rng, 2) && !fork()) {
			unshare(CLONE_NEWUTS);
			cn_sleep_ms(rn(&w->rng, 50));
			_exit(0);
		}
		cn_sleep_ms(rn(&w->rng, 100));
		while (wait(NULL) > 0)
			;
		_exit(0);
	}
	return 0;
}

/* Touch @bytes of anonymous memory, page by page, a few times. */
static void hog(size_t bytes, int rounds)
{
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t off;
	int i;

	if (p == MAP_FAILED)
		return;
	for (i = 0; i < rounds; i++)
		for (off = 0; off < bytes; off += 4096)
			p[off] = i + 1;
	munmap(p, bytes);
}

static void *hog_thread(void *data)
{
	hog((size_t)data, 2);
	exit(0);
}

/* Our container "m<idx>" in a hierarchy with memory, into @cont. */
static int memory_cont(struct worker *w, char *cont, size_t len)
{
	char dirs[16][CN_DIR_LEN];
	int n = test_mounts(dirs, 16), i, k, ret;

	for (i = 0, k = n ? rn(&w->rng, n) : 0; i < n; i++, k = (k + 1) % n) {
		snprintf(cont, len, "%s/m%d", dirs[k], w->idx);
		ret = cn_mkdir(cont);
		if (ret && ret != -EEXIST)
			continue;
		if (cn_exists_in(cont, "memory.limit_in_bytes")) {
			copy_cpuset(dirs[k], cont);
			return 0;
		}
		if (!ret)
			rmdir(cont);
	}
	return -ENOENT;
}

static int op_memhog(struct worker *w, bool leader_exits)
{
	size_t bytes = (16 + rn(&w->rng, 33)) << 20;
	char cont[CN_PATH_LEN];
	int fds[2], ret;
	pthread_t th;
	pid_t pid;
	char c;

	ret = memory_cont(w, cont, sizeof(cont));
	if (ret)
		return ret;
	ret = cn_writef_in(cont, "memory.limit_in_bytes", "%uM",
			   4 + rn(&w->rng, 29));
	if (ret)
		return ret;
	cn_writef_in(cont, "memory.soft_limit_in_bytes", "%uM",
		     1 + rn(&w->rng, 16));
	if (__atomic_add_fetch(&w->sh->hogs, 1, __ATOMIC_RELAXED) > MAX_HOGS) {
		__atomic_sub_fetch(&w->sh->hogs, 1, __ATOMIC_RELAXED);
		return -EBUSY;
	}
	if (pipe2(fds, O_CLOEXEC)) {
		__atomic_sub_fetch(&w->sh->hogs, 1, __ATOMIC_RELAXED);
		return -errno;
	}
	pid = spawn_kid(w, 10000, KID_HOG);
	if (pid < 0) {
		__atomic_sub_fetch(&w->sh->hogs, 1, __ATOMIC_RELAXED);
		ret = -errno;
	} else if (!pid) {
		close(fds[1]);
		while (read(fds[0], &c, 1) < 0 && errno == EINTR)
			;
		if (leader_exits) {
			if (pthread_create(&th, NULL, hog_thread,
					   (void *)bytes))
				_exit(1);
			syscall(SYS_exit, 0);
		}
		hog(bytes, 2);
		_exit(0);
	} else {
		ret = cn_move_proc(cont, pid);
	}
	close(fds[0]);
	close(fds[1]);
	return ret;
}

static int op_swap(struct worker *w)
{
	long now = cn_now_ms();

	if (w->idx || now - w->last_swap < 2000)
		return -EAGAIN;
	w->last_swap = now;
	if (!cn_run("grep -q zram0 /proc/swaps")) {
		cn_swap_off();
		return 0;
	}
	return cn_swap_on();
}

/* "/sys/devices/system/cpu/cpu<cpu><file>" in @buf of @len bytes; @buf. */
static char *cpu_path(char *buf, size_t len, int cpu, const char *file)
{
	snprintf(buf, len, "/sys/devices/system/cpu/cpu%d%s", cpu, file);
	return buf;
}

/* Write @val to the online file of CPU @cpu: 0 or -errno. */
static int set_online(int cpu, const char *val)
{
	char path[64];

	return cn_write(cpu_path(path, sizeof(path), cpu, "/online"), val);
}

static int op_hotplug(struct worker *w)
{
	int cpu;

	if ((w->idx != 1 && w->idx != 2) || w->sh->ncpus < 2)
		return -EAGAIN;
	cpu = 1 + rn(&w->rng, w->sh->ncpus - 1);
	return set_online(cpu, rn(&w->rng, 2) ? "1" : "0");
}

static int run_op(struct worker *w, int op)
{
	switch (op) {
	case OP_MOUNT:		return op_mount(w);
	case OP_REMOUNT:	return op_remount(w);
	case OP_UMOUNT:		return op_umount(w);
	case OP_MKDIR:		return op_mkdir(w);
	case OP_RMDIR:		return op_rmdir(w);
	case OP_RENAME:		return op_rename(w);
	case OP_WRITE:		return op_write(w);
	case OP_READ:		return op_read(w);
	case OP_MOVE:		return op_move(w);
	case OP_SPAWN:		return op_spawn(w);
	case OP_EXECRACE:	return op_execrace(w);
	case OP_SETUID:		return op_setuid(w);
	case OP_UNSHARE:	return op_unshare(w);
	case OP_MEMHOG:		return op_memhog(w, false);
	case OP_MEMLEADER:	return op_memhog(w, true);
	case OP_SWAP:		return op_swap(w);
	case OP_HOTPLUG:	return op_hotplug(w);
	}
	return -EINVAL;
}

static int pick_op(struct worker *w)
{
	int total = 0, op, r;

	for (op = 0; op < NR_OPS; op++)
		if (!(w->sh->skip & (1u << op)))
			total += ops[op].weight;
	if (!total)
		return -1;
	r = rn(&w->rng, total);
	for (op = 0; op < NR_OPS; op++) {
		if (w->sh->skip & (1u << op))
			continue;
		if (r < ops[op].weight)
			return op;
		r -= ops[op].weight;
	}
	return -1;
}

static void set_op(struct worker *w, int op)
{
	__atomic_store_n(&w->st->op_start, cn_now_ms(), __ATOMIC_RELAXED);
	__atomic_store_n(&w->st->op, op, __ATOMIC_RELEASE);
}

static void __noreturn worker_main(struct shared *sh, int idx)
{
	struct worker w = {
		.sh = sh, .st = &sh->w[idx], .idx = idx,
		.rng = splitmix64(sh->seed + idx),
	};
	int op;

	while (!stopping(sh)) {
		op = pick_op(&w);
		if (op < 0)
			break;
		set_op(&w, op);
		w.st->tried[op]++;
		if (!run_op(&w, op))
			w.st->ok[op]++;
		set_op(&w, NR_OPS);
		reap_kids(&w, false);
	}
	set_op(&w, NR_OPS);	/* "reap" */
	reap_kids(&w, true);
	set_op(&w, -1);
	w.st->done = 1;
	_exit(0);
}

/*
 * A process that a thread of an execrace child exec()ed: loop a little
 * and exit.  Runs before the harness's main().
 */
static void __attribute__((constructor)) exec_child(int argc, char **argv)
{
	int i, loops;
	pid_t pid;

	if (argc < 3 || strcmp(argv[1], EXEC_ARG))
		return;
	loops = atoi(argv[2]);
	for (i = 0; i < loops; i++) {
		cn_sleep_ms(1);
		if (i % 2)
			continue;
		pid = fork();
		if (!pid)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	_exit(0);
}

/* ---------------------------------------------------------------------
 * The test: setup, run, stop, check, clean up.
 * ---------------------------------------------------------------------
 */
FIXTURE(fuzz) {
	struct shared *sh;
	char pid_max[32];
	char swappiness[32];	/* the top's memory.swappiness is the system's */
	int secs;
	long css_groups;	/* at the start, or -1 */
};

/* Every process below us, by the PPid chain in /proc (we are a subreaper). */
static int descendants(pid_t *out, int max)
{
	static pid_t pids[65536], ppids[65536];
	int n = 0, k = 0, i, j;
	struct dirent *de;
	bool grew = true;
	char line[256], path[64];
	DIR *d;
	FILE *f;

	d = opendir("/proc");
	if (!d)
		return 0;
	while (n < 65536 && (de = readdir(d))) {
		pid_t pid = atoi(de->d_name), ppid = -1;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/status", pid);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "PPid: %d", &ppid) == 1)
				break;
		fclose(f);
		pids[n] = pid;
		ppids[n++] = ppid;
	}
	closedir(d);
	if (max > 0)
		out[k++] = getpid();
	while (grew) {
		grew = false;
		for (i = 0; i < n; i++) {
			if (!pids[i])
				continue;
			for (j = 0; j < k && ppids[i] != out[j]; j++)
				;
			if (j == k || k == max)
				continue;
			out[k++] = pids[i];
			pids[i] = 0;
			grew = true;
		}
	}
	/* Without ourselves. */
	for (i = 1; i < k; i++)
		out[i - 1] = out[i];
	return k ? k - 1 : 0;
}

/*
 * SIGKILL every descendant and reap them, for up to KILL_MS.  Records
 * how workers ended in @status.  Returns how many are left.
 */
static int kill_all(struct shared *sh, int *status)
{
	static pid_t pids[4096];
	long end = cn_now_ms() + KILL_MS;
	int n, i, st;
	pid_t pid;

	for (;;) {
		n = descendants(pids, 4096);
		for (i = 0; i < n; i++)
			kill(pids[i], SIGKILL);
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
			for (i = 0; i < NR_WORKERS; i++)
				if (sh->w[i].pid == pid) {
					status[i] = st;
					sh->w[i].pid = 0;
				}
		if (!n && pid < 0)
			return 0;
		if (cn_now_ms() > end)
			return n;
		cn_sleep_ms(20);
	}
}

/* Unmount every test mount; remove test hierarchies that live on. */
static void cleanup_all(struct shared *sh)
{
	char dirs[32][CN_DIR_LEN], opts[300], dir[CN_DIR_LEN];
	struct hier h[MAX_HIER];
	int round, n, i;

	for (round = 0; round < 3; round++) {
		cn_cleanup_stale();
		n = list_hiers(h, MAX_HIER);
		for (i = 0; i < n; i++) {
			if (is_base_hier(sh, h[i].id))
				continue;
			hier_opts(&h[i], opts, sizeof(opts));
			if (cn_mount(opts, dir, sizeof(dir)))
				continue;
			cn_move_proc(dir, getpid());
			cn_destroy_tree(dir);
		}
		cn_sleep_ms(CN_SETTLE_MS);
		n = test_mounts(dirs, 32);
		for (i = n - 1; i >= 0; i--) {
			if (umount(dirs[i]))
				umount2(dirs[i], MNT_DETACH);
			rmdir(dirs[i]);
		}
	}
	/* Mount points left by a worker killed between mkdtemp and mount. */
	cn_run("for d in " CN_MNT_PREFIX "*; do rmdir \"$d\" 2>/dev/null; done");
}

static int nr_cpus(void)
{
	char path[64];
	int n = 0;

	while (cn_exists(cpu_path(path, sizeof(path), n, "")))
		n++;
	return n;
}

static long read_css_groups(void)
{
	char dir[CN_DIR_LEN];
	long v;

	if (cn_mount("debug", dir, sizeof(dir)))
		return -1;
	v = cn_read_long_in(dir, "debug.css_group_count");
	cn_umount(dir);
	return v == CN_BAD_READ ? -1 : v;
}

FIXTURE_SETUP(fuzz)
{
	struct hier h[MAX_HIER];
	const char *env;
	char *copy, *tok;
	int i, n, hier, num, en;

	cn_cleanup_stale();
	self->sh = mmap(NULL, sizeof(*self->sh), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->sh);
	memset(self->sh, 0, sizeof(*self->sh));

	env = getenv("CN_FUZZ_SEED");
	self->sh->seed = env ? strtoull(env, NULL, 0) :
		splitmix64(time(NULL) ^ ((unsigned long long)getpid() << 32));
	ksft_print_msg("seed=%llu; replay with CN_FUZZ_SEED=%llu\n",
		       self->sh->seed, self->sh->seed);
	console_log("cn_fuzz: seed=%llu\n", self->sh->seed);

	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	self->secs = cn_exists("/sys/kernel/debug/kmemleak") ? SECS_DEBUG :
							       SECS_DEFAULT;
	env = getenv("CN_FUZZ_SECONDS");
	if (env && atoi(env) > 0)
		self->secs = atoi(env) < MAX_SECONDS ? atoi(env) : MAX_SECONDS;

	env = getenv("CN_FUZZ_SKIP");
	copy = strdup(env ? env : "");
	for (tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
		for (i = 0; i < NR_OPS && strcmp(tok, ops[i].name); i++)
			;
		ASSERT_LT(i, NR_OPS) TH_LOG("CN_FUZZ_SKIP: no op '%s'", tok);
		self->sh->skip |= 1u << i;
	}
	free(copy);
	ksft_print_msg("%d s, %d workers, skip mask 0x%x\n", self->secs,
		       NR_WORKERS, self->sh->skip);

	n = list_hiers(h, MAX_HIER);
	ASSERT_LE(0, n);
	for (i = 0; i < n; i++)
		self->sh->base[self->sh->nbase++] = h[i].id;
	self->sh->ncpus = nr_cpus();

	/* Start from nothing bound, for a css_group count to compare with. */
	self->css_groups = -1;
	if (!cn_subsys_info("debug", &hier, &num, &en) && !hier) {
		self->css_groups = read_css_groups();
		cn_wait_subsys_hier("debug", 0, 3000);
	}

	cn_read_str("/proc/sys/kernel/pid_max", self->pid_max,
		    sizeof(self->pid_max));
	cn_read_str("/proc/sys/vm/swappiness", self->swappiness,
		    sizeof(self->swappiness));
	cn_write("/proc/sys/kernel/pid_max", PID_MAX);
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
}

FIXTURE_TEARDOWN(fuzz)
{
	int status[NR_WORKERS], i;

	kill_all(self->sh, status);
	for (i = 1; i < self->sh->ncpus; i++)
		set_online(i, "1");
	cn_swap_off();
	cleanup_all(self->sh);
	if (self->pid_max[0])
		cn_write("/proc/sys/kernel/pid_max", self->pid_max);
	if (self->swappiness[0])
		cn_write("/proc/sys/vm/swappiness", self->swappiness);
	munmap(self->sh, sizeof(*self->sh));
}

/* The Tgid of thread @tid, or -1. */
static pid_t tgid_of(pid_t tid)
{
	char line[256], path[64];
	pid_t tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/* The command name of thread @tid in @buf, or "<error N>"; @buf. */
static char *comm_of(pid_t tid, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", tid);
	return cn_str(path, buf, len);
}

struct thread {
	pid_t tid, tgid;
};

static int cmp_thread(const void *a, const void *b)
{
	const struct thread *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Every thread of the system, sorted by tid. */
static int all_threads(struct thread **out)
{
	struct dirent *de, *te;
	struct thread *t = NULL, *tmp;
	int n = 0, cap = 0;
	char path[64];
	DIR *d, *td;

	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		pid_t tgid = atoi(de->d_name);

		if (tgid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task", tgid);
		td = opendir(path);
		if (!td)
			continue;
		while ((te = readdir(td))) {
			if (atoi(te->d_name) <= 0)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 256;
				tmp = realloc(t, cap * sizeof(*t));
				if (!tmp)
					break;
				t = tmp;
			}
			t[n].tid = atoi(te->d_name);
			t[n++].tgid = tgid;
		}
		closedir(td);
	}
	closedir(d);
	qsort(t, n, sizeof(*t), cmp_thread);
	*out = t;
	return n;
}

static int cmp_member(const void *a, const void *b)
{
	const struct cn_member *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static bool thread_alive(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d", tid);
	return cn_exists(path);
}

/* A kernel thread (PF_KTHREAD in the flags of /proc/<tid>/stat)? */
static bool is_kthread(pid_t tid)
{
	char buf[1024], path[64], *p;
	unsigned long flags;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	if (cn_read(path, buf, sizeof(buf)) <= 0)
		return false;
	p = strrchr(buf, ')');
	/* ") S ppid pgrp session tty_nr tpgid flags" */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return false;
	return flags & 0x00200000;
}

/*
 * Check hierarchy @id mounted at @dir: every thread in exactly one
 * container, the one /proc names; container.procs against tasks.  Logs
 * the problems if @log.  Returns how many it found.
 */
static int check_hier(struct __test_metadata *_metadata, int id,
		      const char *dir, bool log)
{
	struct cn_member *m = NULL;
	struct thread *t = NULL;
	int nm, nt, i, j, bad = 0;
	char path[CN_PATH_LEN], comm[64];

	nt = all_threads(&t);
	nm = cn_tree_members(dir, &m);
	if (nt <= 0 || nm <= 0) {
		if (log)
			TH_LOG("hierarchy %d: cannot list (%d, %d)", id, nt, nm);
		free(t);
		free(m);
		return 1;
	}
	qsort(m, nm, sizeof(*m), cmp_member);
	for (i = 0; i < nm; i++) {
		if (i && m[i].tid == m[i - 1].tid) {
			bad++;
			if (log)
				TH_LOG("hierarchy %d: tid %d in %s and %s", id,
				       m[i].tid, m[i - 1].path, m[i].path);
			continue;
		}
		if (!thread_alive(m[i].tid)) {
			bad++;
			if (log)
				TH_LOG("hierarchy %d: dead tid %d in %s", id,
				       m[i].tid, m[i].path);
			continue;
		}
		/* Nothing of the test moves kernel threads. */
		if (strcmp(m[i].path, "/") && is_kthread(m[i].tid)) {
			bad++;
			if (log)
				TH_LOG("hierarchy %d: kernel thread %d (%s) in %s",
				       id, m[i].tid,
				       comm_of(m[i].tid, comm, sizeof(comm)),
				       m[i].path);
		}
		if (cn_proc_path(m[i].tid, id, path, sizeof(path)))
			continue;	/* exited meanwhile */
		if (strcmp(path, m[i].path)) {
			bad++;
			if (log)
				TH_LOG("hierarchy %d: tid %d in %s, /proc says %s",
				       id, m[i].tid, m[i].path, path);
		}
	}
	for (i = 0, j = 0; i < nt; i++) {
		while (j < nm && m[j].tid < t[i].tid)
			j++;
		if (j < nm && m[j].tid == t[i].tid)
			continue;
		if (!thread_alive(t[i].tid))
			continue;
		bad++;
		if (log)
			TH_LOG("hierarchy %d: tid %d (tgid %d) in no container",
			       id, t[i].tid, t[i].tgid);
	}
	free(t);
	free(m);
	return bad;
}

/* container.procs of @cont is the set of the tgids of its tasks. */
static int check_procs(struct __test_metadata *_metadata, const char *cont,
		       bool log)
{
	pid_t *tasks = NULL, *procs = NULL, *want;
	int nt, np, nw = 0, i, bad = 0;
	char path[CN_PATH_LEN];

	nt = cn_read_pids(cn_path(path, sizeof(path), cont, "tasks"), &tasks);
	np = cn_read_pids_sorted(cn_path(path, sizeof(path), cont,
					 "container.procs"), &procs);
	if (nt < 0 || np < 0) {
		if (log)
			TH_LOG("%s: cannot read (%d, %d)", cont, nt, np);
		if (nt >= 0)
			free(tasks);
		if (np >= 0)
			free(procs);
		return 1;
	}
	want = malloc((nt + 1) * sizeof(*want));
	for (i = 0; want && i < nt; i++) {
		pid_t tgid = tgid_of(tasks[i]);

		if (tgid > 0)
			want[nw++] = tgid;
	}
	if (want)
		cn_pids_sort(want, nw);
	/* Unique. */
	for (i = 1, nt = nw ? 1 : 0; i < nw; i++)
		if (want[i] != want[nt - 1])
			want[nt++] = want[i];
	if (!want || nt != np || memcmp(want, procs, np * sizeof(*procs)) ||
	    !cn_pids_sorted_unique(procs, np)) {
		bad++;
		if (log)
			TH_LOG("%s: container.procs has %d tgids, tasks %d",
			       cont, np, nt);
	}
	free(want);
	free(tasks);
	free(procs);
	return bad;
}

static int depth_of(const char *p)
{
	int n = 0;

	for (; *p; p++)
		n += *p == '/';
	return n;
}

static int cmp_deeper_first(const void *a, const void *b)
{
	const struct cn_dir *x = a, *y = b;

	return depth_of(y->path) - depth_of(x->path);
}

/* Who is in @cont. */
static void log_tasks(struct __test_metadata *_metadata, const char *cont)
{
	char comm[64];
	pid_t *pids;
	int n, i;

	n = cn_read_pids_in(cont, "tasks", &pids);
	for (i = 0; i < n && i < 8; i++)
		TH_LOG("  task %d (%s, tgid %d)", pids[i],
		       comm_of(pids[i], comm, sizeof(comm)), tgid_of(pids[i]));
	if (n >= 0)
		free(pids);
}

/* What keeps the containers of a tree that cannot be removed. */
static void log_left(struct __test_metadata *_metadata, const char *root)
{
	static const char * const files[] = {
		"tasks", "container.procs", "debug.taskcount",
		"debug.container_refcount", "debug.releasable", "pids.current",
		"memory.usage_in_bytes",
	};
	struct cn_dir *dl;
	unsigned int k;
	int j, n;

	n = cn_tree_list(root, &dl);
	if (n < 0) {
		TH_LOG("%s: cannot list (%d)", root, n);
		return;
	}
	for (j = 1; j < n; j++) {
		char *text, *nl;

		TH_LOG("left: %s", dl[j].path);
		for (k = 0; k < ARRAY_SIZE(files); k++) {
			text = cn_read_all_in(dl[j].path, files[k], 4096);
			if (!text)
				continue;
			while ((nl = strchr(text, '\n')))
				*nl = ' ';
			TH_LOG("  %s: %.200s", files[k], text);
			free(text);
		}
		log_tasks(_metadata, dl[j].path);
	}
	free(dl);
}

static void print_stats(struct shared *sh)
{
	unsigned long tried, ok, total = 0;
	int op, i;

	for (op = 0; op < NR_OPS; op++) {
		for (tried = ok = 0, i = 0; i < NR_WORKERS; i++) {
			tried += sh->w[i].tried[op];
			ok += sh->w[i].ok[op];
		}
		total += tried;
		ksft_print_msg("  %-10s %7lu tried %7lu succeeded\n",
			       ops[op].name, tried, ok);
	}
	ksft_print_msg("%lu operations\n", total);
}

static const char *op_name(int op)
{
	return op < 0 ? "(none)" : op == NR_OPS ? "reap children" :
	       ops[op].name;
}

/* A worker stuck in an operation: say where, on the console too. */
static void report_hang(struct __test_metadata *_metadata, struct shared *sh,
			int i, long ms)
{
	char wchan[64] = "?", path[64];

	snprintf(path, sizeof(path), "/proc/%d/wchan", sh->w[i].pid);
	cn_read_str(path, wchan, sizeof(wchan));
	TH_LOG("worker %d (pid %d) stuck in '%s' for %ld ms (wchan %s); seed %llu",
	       i, sh->w[i].pid, op_name(sh->w[i].op), ms, wchan, sh->seed);
	console_log("cn_fuzz: worker %d pid %d stuck in %s for %ld ms, seed %llu\n",
		    i, sh->w[i].pid, op_name(sh->w[i].op), ms, sh->seed);
	/* The blocked tasks' stacks, on the console. */
	cn_write("/proc/sysrq-trigger", "w");
}

TEST_F_TIMEOUT(fuzz, random_ops, MAX_SECONDS + 150)
{
	struct shared *sh = self->sh;
	int status[NR_WORKERS], i, j, n, st, bad, tries, hung = 0, left;
	char dirs[MAX_HIER][CN_DIR_LEN], opts[300], line[256], name[64];
	char path[CN_PATH_LEN] = "";
	int nh, hier, num, en, nok = 0, ret, nd;
	struct hier h[MAX_HIER];
	long now, end, v;
	struct cn_dir *dl;
	pid_t pid;
	FILE *f;

	for (i = 0; i < NR_WORKERS; i++)
		status[i] = -1;
	sh->deadline = cn_now_ms() + self->secs * 1000L;
	fflush(stdout);
	fflush(stderr);
	for (i = 0; i < NR_WORKERS; i++) {
		sh->w[i].op = -1;
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			worker_main(sh, i);
		}
		sh->w[i].pid = pid;
	}

	/* Watch: an operation that does not end is a hang. */
	end = sh->deadline + STOP_GRACE_MS;
	for (;;) {
		now = cn_now_ms();
		for (i = 0, n = 0; i < NR_WORKERS; i++) {
			int op = __atomic_load_n(&sh->w[i].op,
						 __ATOMIC_ACQUIRE);
			long t = now - sh->w[i].op_start;

			if (sh->w[i].pid <= 0)
				continue;
			n++;
			if (op >= 0 && t > OP_HANG_MS && !hung) {
				report_hang(_metadata, sh, i, t);
				hung = 1;
			}
		}
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
			for (i = 0; i < NR_WORKERS; i++)
				if (sh->w[i].pid == pid) {
					status[i] = st;
					sh->w[i].pid = 0;
				}
		if (!n || hung)
			break;
		if (now > end) {
			for (i = 0; i < NR_WORKERS; i++)
				if (sh->w[i].pid > 0)
					report_hang(_metadata, sh, i,
						    now - sh->w[i].op_start);
			hung = 1;
			break;
		}
		cn_sleep_ms(100);
	}
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
	left = kill_all(sh, status);
	print_stats(sh);
	EXPECT_EQ(0, hung) TH_LOG("a worker hung: replay with CN_FUZZ_SEED=%llu",
				  sh->seed);
	EXPECT_EQ(0, left) TH_LOG("%d test processes survive SIGKILL", left);
	for (i = 0; i < NR_WORKERS; i++) {
		EXPECT_TRUE(hung || (WIFEXITED(status[i]) &&
				     !WEXITSTATUS(status[i])))
			TH_LOG("worker %d ended with status 0x%x (in '%s'); seed %llu",
			       i, status[i], op_name(sh->w[i].op), sh->seed);
	}
	ASSERT_EQ(0, hung);
	ASSERT_EQ(0, left);

	/* CPU hotplug moves tasks from a workqueue: let it finish. */
	for (i = 1; i < sh->ncpus; i++)
		set_online(i, "1");
	cn_swap_off();
	cn_sleep_ms(300);

	/*
	 * Mount every hierarchy the run left (mounted or not) once more, and
	 * bring ourselves, the only test task left, back to the roots.
	 */
	nh = list_hiers(h, MAX_HIER);
	ASSERT_LE(0, nh);
	for (i = 0, n = 0; i < nh; i++) {
		if (is_base_hier(sh, h[i].id))
			continue;
		hier_opts(&h[i], opts, sizeof(opts));
		EXPECT_EQ(0, cn_mount(opts, dirs[n], CN_DIR_LEN))
			TH_LOG("mount -o %s again", opts);
		if (!cn_exists_in(dirs[n], "tasks"))
			continue;
		EXPECT_EQ(0, cn_move_proc(dirs[n], getpid()))
			TH_LOG("%s", dirs[n]);
		/* The same hierarchy, not a new one with the same options? */
		EXPECT_EQ(0, cn_proc_path(0, h[i].id, path, sizeof(path)))
			TH_LOG("hierarchy %d (%s) went away", h[i].id, opts);
		EXPECT_STREQ("/", path);
		h[n++] = h[i];
	}
	ksft_print_msg("%d hierarchies left by the run\n", n);

	for (tries = 1; tries <= CHECK_TRIES; tries++) {
		for (bad = 0, i = 0; i < n; i++) {
			bad += check_hier(_metadata, h[i].id, dirs[i],
					  tries == CHECK_TRIES);
			nd = cn_tree_list(dirs[i], &dl);
			if (nd < 0) {
				bad++;
				if (tries == CHECK_TRIES)
					TH_LOG("%s: cannot list (%d)", dirs[i],
					       nd);
				continue;
			}
			for (j = 0; j < nd; j++)
				bad += check_procs(_metadata, dl[j].path,
						   tries == CHECK_TRIES);
			free(dl);
		}
		if (!bad)
			break;
		cn_sleep_ms(500);
	}
	EXPECT_EQ(0, bad) TH_LOG("membership: seed %llu", sh->seed);

	/* num_containers is the number of containers of the hierarchy. */
	f = fopen("/proc/containers", "re");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %d %d %d", name, &hier, &num, &en) < 3 ||
		    name[0] == '#')
			continue;
		for (i = 0; i < n && h[i].id != hier; i++)
			;
		if (i == n)
			continue;
		EXPECT_EQ(cn_tree_dirs(dirs[i]), num)
			TH_LOG("%s in hierarchy %d", name, hier);
		nok++;
	}
	fclose(f);

	/* Nothing stays charged: children first, force_empty. */
	for (i = 0; i < n; i++) {
		if (!has_token(h[i].subsys, "memory"))
			continue;
		nd = cn_tree_list(dirs[i], &dl);
		EXPECT_LE(0, nd) TH_LOG("%s", dirs[i]);
		if (nd < 0)
			continue;
		qsort(dl, nd, sizeof(*dl), cmp_deeper_first);
		for (j = 0; j < nd; j++) {
			const char *c = dl[j].path;

			if (!strcmp(c, dirs[i]) ||
			    !cn_exists_in(c, "memory.force_empty"))
				continue;
			ret = cn_write_in(c, "memory.force_empty", "0");
			EXPECT_EQ(0, ret) TH_LOG("%s", c);
			if (ret)
				log_tasks(_metadata, c);
			EXPECT_EQ(0,
				  cn_read_long_in(c, "memory.usage_in_bytes"))
				TH_LOG("%s: usage after force_empty", c);
		}
		free(dl);
	}

	/* Remove everything: no hierarchy of ours may remain. */
	for (i = 0; i < n; i++) {
		EXPECT_LE(0, cn_destroy_tree(dirs[i])) TH_LOG("%s", dirs[i]);
		EXPECT_EQ(1, cn_tree_dirs(dirs[i])) TH_LOG("%s", dirs[i]);
		if (cn_tree_dirs(dirs[i]) > 1)
			log_left(_metadata, dirs[i]);
	}
	cn_sleep_ms(CN_SETTLE_MS);
	while ((n = test_mounts(dirs, MAX_HIER)) > 0) {
		for (i = 0; i < n; i++) {
			ASSERT_EQ(0, cn_umount(dirs[i]))
				TH_LOG("umount %s", dirs[i]);
		}
	}
	for (tries = 0; tries < 30; tries++) {
		nh = list_hiers(h, MAX_HIER);
		for (i = 0, left = 0; i < nh; i++)
			left += !is_base_hier(sh, h[i].id);
		if (!left)
			break;
		cn_sleep_ms(100);
	}
	EXPECT_EQ(0, left) TH_LOG("hierarchies left after the last umount");
	EXPECT_EQ(0, test_mounts(dirs, MAX_HIER));

	/* No css_group leaked. */
	if (self->css_groups >= 0) {
		for (tries = 0; tries < 30; tries++) {
			v = read_css_groups();
			if (v == self->css_groups)
				break;
			cn_wait_subsys_hier("debug", 0, 3000);
			cn_sleep_ms(100);
		}
		EXPECT_EQ(self->css_groups, v);
		ksft_print_msg("css_groups: %ld before, %ld after\n",
			       self->css_groups, v);
	}
	ksft_print_msg("checked %d subsystem counts; seed %llu\n", nok,
		       sh->seed);
}

TEST_HARNESS_MAIN
