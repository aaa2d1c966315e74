// SPDX-License-Identifier: GPL-2.0
/*
 * Stress: for CN_STRESS_SECS seconds (SECS_DEFAULT unless set), worker
 * processes race on two hierarchies, A ("cpuset,memory,pids") and B
 * ("cpuacct,debug"):
 *
 *   create-a1, create-a2, create-b1, create-b2
 *		mkdir random containers up to MAX_DEPTH deep and rmdir random
 *		leaves; in A they first copy the parent's effective CPUs and
 *		nodes into a new container (mostly: some stay empty).
 *   mover	writes the ids of the victims (a process with VICTIM_THREADS
 *		threads besides its main one, and NR_SLEEPERS single threaded
 *		ones) into tasks and container.procs of random containers,
 *		does the same with children that exit at once, and moves the
 *		workers themselves around B.
 *   storm	forks and reaps children in STORM_PATH of A, whose pids.max
 *		is STORM_MAX.  Half of the batches keep every child alive
 *		until the batch is done, so the limit is hit exactly.
 *   reader	reads every tasks and container.procs file and one control
 *		file of each container, /proc/<pid>/container of every
 *		process and /proc/containers, over and over.
 *   config	writes cpuset.cpus, cpuset.mems, memory.limit_in_bytes and
 *		pids.max of random containers of A, cpuacct.usage of B.
 *   mounter	mounts "none,name=stress3", makes, enters, leaves and
 *		removes a few containers in it and unmounts it; sometimes it
 *		leaves one behind, which must be there at the next mount.
 *   hotplug	takes the highest hot-pluggable CPU offline and brings it
 *		back online, up to HOTPLUG_CYCLES times.
 *
 * The mover, the config changer and the sentinels below keep out of
 * STORM_PATH: the storm's counts must be its own.
 *
 * Each worker counts, in memory shared with the test, what succeeded, what
 * failed with an errno that the race explains (the ok_* lists) and what
 * failed otherwise.  Each has its own seed, logged; CN_STRESS_SEED sets the
 * base seed, which repeats the choices but not their timing.
 *
 * Then, with every worker stopped and reaped and a few sentinel threads
 * placed in random containers: no unexpected error; every thread in /proc
 * in exactly one container of each hierarchy, the one its
 * /proc/<pid>/container names; num_containers in /proc/containers;
 * debug.taskcount and pids.current against the tasks files; and, once
 * everything is back in the roots, memory.force_empty leaves no usage in
 * any container of A.
 *
 * Loop and if bodies holding an EXPECT_*() or ASSERT_*() keep their braces
 * even when they are one statement: the harness macros are two statements.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "container_util.h"

#define SECS_DEFAULT	20
#define SECS_MIN	5
#define SECS_MAX	150	/* to stay within the test's timeout */
#define MAX_DEPTH	4	/* of the containers the creators make */
#define MAX_DIRS	40	/* per hierarchy; above it rmdir is favoured */
#define MAX_SUBDIRS	64	/* children of a container looked at */
#define NAME_LEN	32
#define NR_NAMES	32	/* creators name containers c0 .. c31 */
#define VICTIM_THREADS	4
#define NR_SLEEPERS	2
#define VICTIM_BYTES	(64 * 1024)
#define MAX_TIDS	16
#define STORM_PATH	"storm/s1/s2/s3"
#define STORM_MAX	8	/* pids.max of STORM_PATH */
#define STORM_BATCH	12	/* children forked at a time */
#define HOTPLUG_CYCLES	6
#define MAX_LOGGED	10	/* unexpected errors printed per worker */
#define STOP_MS		60000	/* time the workers get to stop */
#define MIN_OPS		3	/* successes of each kind for a valid run */
#define CHECK_TRIES	3
#define STRESS3		"stress3"

enum { HA, HB, NR_HIER };

static const char * const hier_opts[NR_HIER] = {
	"cpuset,memory,pids", "cpuacct,debug",
};

static const struct {
	const char *name;
	int h;
} subsystems[] = {
	{ "cpuset", HA }, { "memory", HA }, { "pids", HA },
	{ "cpuacct", HB }, { "debug", HB },
};

enum {
	W_CREATE_A1, W_CREATE_A2, W_CREATE_B1, W_CREATE_B2,
	W_MOVER, W_STORM, W_READER, W_CONFIG, W_MOUNTER, W_HOTPLUG,
	NR_WORKERS
};

static const char * const role_names[NR_WORKERS] = {
	"create-a1", "create-a2", "create-b1", "create-b2",
	"mover", "storm", "reader", "config", "mounter", "hotplug",
};

enum {
	OP_MKDIR_A, OP_MKDIR_B, OP_RMDIR_A, OP_RMDIR_B, OP_CS_SETUP,
	OP_MOVE_TASK, OP_MOVE_PROCS, OP_MOVE_EXITING, OP_MOVE_WORKER,
	OP_FORK, OP_READ_TASKS, OP_READ_FILE, OP_READ_PROC, OP_READ_PROCCONT,
	OP_SET_CPUS, OP_SET_MEMS, OP_SET_LIMIT, OP_SET_PIDS, OP_RESET_ACCT,
	OP_MOUNT, OP_UMOUNT, OP_MNT_KEPT, OP_MNT_MKDIR, OP_MNT_MOVE,
	OP_MNT_RMDIR, OP_CPU_OFF, OP_CPU_ON,
	NR_OPS
};

static const char * const op_names[NR_OPS] = {
	[OP_MKDIR_A] = "mkdir in A",
	[OP_MKDIR_B] = "mkdir in B",
	[OP_RMDIR_A] = "rmdir in A",
	[OP_RMDIR_B] = "rmdir in B",
	[OP_CS_SETUP] = "cpuset copy on mkdir",
	[OP_MOVE_TASK] = "move thread (tasks)",
	[OP_MOVE_PROCS] = "move process (procs)",
	[OP_MOVE_EXITING] = "move exiting child",
	[OP_MOVE_WORKER] = "move worker in B",
	[OP_FORK] = "fork in storm",
	[OP_READ_TASKS] = "read tasks/procs",
	[OP_READ_FILE] = "read control file",
	[OP_READ_PROC] = "read /proc/<pid>/container",
	[OP_READ_PROCCONT] = "read /proc/containers",
	[OP_SET_CPUS] = "write cpuset.cpus",
	[OP_SET_MEMS] = "write cpuset.mems",
	[OP_SET_LIMIT] = "write memory.limit",
	[OP_SET_PIDS] = "write pids.max",
	[OP_RESET_ACCT] = "reset cpuacct.usage",
	[OP_MOUNT] = "mount stress3",
	[OP_UMOUNT] = "umount stress3",
	[OP_MNT_KEPT] = "stress3 kept a child",
	[OP_MNT_MKDIR] = "mkdir in stress3",
	[OP_MNT_MOVE] = "move in stress3",
	[OP_MNT_RMDIR] = "rmdir in stress3",
	[OP_CPU_OFF] = "cpu offline",
	[OP_CPU_ON] = "cpu online",
};

/* Kinds that must have succeeded MIN_OPS times for the run to count. */
static const int needed_ops[] = {
	OP_MKDIR_A, OP_MKDIR_B, OP_RMDIR_A, OP_RMDIR_B, OP_CS_SETUP,
	OP_MOVE_TASK, OP_MOVE_PROCS, OP_MOVE_WORKER, OP_FORK, OP_READ_TASKS,
	OP_READ_FILE, OP_READ_PROC, OP_READ_PROCCONT, OP_SET_CPUS,
	OP_SET_MEMS, OP_SET_LIMIT, OP_SET_PIDS, OP_RESET_ACCT, OP_MOUNT,
	OP_UMOUNT, OP_MNT_MKDIR, OP_MNT_MOVE, OP_MNT_RMDIR,
};

/*
 * The errnos that a race explains, for each kind of operation; 0 ends a
 * list.  Whatever else fails is an unexpected error.
 */
/* The name is taken; the parent was removed (lookup, or kernfs). */
static const int ok_mkdir[] = { EEXIST, ENOENT, ENODEV, 0 };
/* Tasks or children; removed meanwhile. */
static const int ok_rmdir[] = { EBUSY, ENOENT, ENODEV, 0 };
/* The container was removed (open: ENOENT, write or read: ENODEV). */
static const int ok_gone[] = { ENOENT, ENODEV, 0 };
/*
 * cpuset.cpus and .mems: a CPU went offline meanwhile (EINVAL), the
 * parent shrank (EACCES), a child uses what is left out (EBUSY).
 */
static const int ok_cpuset[] = { EINVAL, EACCES, EBUSY, ENOENT, ENODEV, 0 };
/* Usage above the new limit that cannot be reclaimed (no swap). */
static const int ok_limit[] = { EBUSY, ENOENT, ENODEV, 0 };
/* A live task into A: the cpuset has no CPU or node (yet, or any more). */
static const int ok_move_a[] = { ENOSPC, ENOENT, ENODEV, 0 };
/* A task that may be exiting, or have exited (a zombie). */
static const int ok_exit_a[] = { ESRCH, ENOSPC, ENOENT, ENODEV, 0 };
static const int ok_exit_b[] = { ESRCH, ENOENT, ENODEV, 0 };
/* /proc/<pid> of a process that exited. */
static const int ok_proc[] = { ENOENT, ESRCH, 0 };
/* pids.max. */
static const int ok_fork[] = { EAGAIN, 0 };
/* The kernel may refuse hotplug for a while. */
static const int ok_offline[] = { EBUSY, 0 };

/* Threads of processes that the mover (or the checks) move around. */
struct tidset {
	int ready;		/* threads that have filled their slot */
	int ntids;
	pid_t tids[MAX_TIDS];
	int nprocs;
	pid_t procs[MAX_TIDS];
};

/* What one worker did. */
struct wstat {
	unsigned long ok[NR_OPS];
	unsigned long refused[NR_OPS];
	unsigned long errors;
	unsigned int seed;
	char last[256];		/* the last unexpected error */
};

/* Shared between the test and its workers (MAP_SHARED). */
struct shared {
	int go;
	int stop;
	long deadline;		/* cn_now_ms() */
	long run_ms;
	int hot_cpu;		/* -1: no hotplug */
	int hid[NR_HIER];
	int ndirs[NR_HIER];	/* about how many containers there are */
	char root[NR_HIER][CN_DIR_LEN];
	char storm[NR_HIER][CN_PATH_LEN];
	pid_t workers[NR_WORKERS];
	struct tidset victims;
	struct tidset sentinels;
	char mnt3[CN_DIR_LEN];	/* where the mounter has stress3, or "" */
	struct wstat st[NR_WORKERS];
};

struct worker {
	struct shared *sh;
	struct wstat *st;
	const char *name;
	unsigned int seed;
	int logged;
};

/* xorshift32: the same sequence everywhere for the same seed. */
static unsigned int rnd(unsigned int *seed)
{
	unsigned int x = *seed ? *seed : 0x9e3779b9u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*seed = x;
	return x;
}

static bool running(struct worker *w)
{
	return !__atomic_load_n(&w->sh->stop, __ATOMIC_ACQUIRE) &&
	       cn_now_ms() < w->sh->deadline;
}

/* Sleep @ms, or less if the run ends meanwhile. */
static void nap(struct worker *w, long ms)
{
	long end = cn_now_ms() + ms;

	while (running(w) && cn_now_ms() < end)
		cn_sleep_ms(20);
}

static void __printf(2, 3) fail(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	w->st->errors++;
	va_start(ap, fmt);
	vsnprintf(w->st->last, sizeof(w->st->last), fmt, ap);
	va_end(ap);
	if (w->logged++ < MAX_LOGGED)
		fprintf(stderr, "#  %s: unexpected: %s\n", w->name,
			w->st->last);
}

/*
 * Count the outcome @ret (0 or -errno) of one operation of kind @op: a
 * success, a refusal with one of the errnos in @expected, or an unexpected
 * error.  Returns @ret.
 */
static int note(struct worker *w, int op, int ret, const int *expected,
		const char *what, const char *path)
{
	int i;

	if (!ret) {
		w->st->ok[op]++;
		return 0;
	}
	for (i = 0; expected && expected[i]; i++) {
		if (-ret == expected[i]) {
			w->st->refused[op]++;
			return ret;
		}
	}
	fail(w, "%s %s: %s", what, path, strerror(-ret));
	return ret;
}

static bool is_subdir(const char *dir, struct dirent *de)
{
	char path[CN_PATH_LEN + NAME_LEN];
	struct stat st;

	if (de->d_name[0] == '.' || strlen(de->d_name) >= NAME_LEN)
		return false;
	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
	return !lstat(path, &st) && S_ISDIR(st.st_mode);
}

/* The names of up to @max child containers of @dir, or -errno. */
static int subdirs(const char *dir, char names[][NAME_LEN], int max,
		   bool no_storm)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return -errno;
	while (n < max && (de = readdir(d))) {
		if (!is_subdir(dir, de))
			continue;
		if (no_storm && !strcmp(de->d_name, "storm"))
			continue;
		snprintf(names[n++], NAME_LEN, "%.*s", NAME_LEN - 1,
			 de->d_name);
	}
	closedir(d);
	return n;
}

enum { PICK_ANY, PICK_LEAF, PICK_PARENT };

/*
 * A random container of hierarchy @h into @path, by a random walk down
 * from the root; returns its depth.  PICK_ANY stops at each level with
 * probability 1/3, PICK_LEAF goes down to a container without children,
 * PICK_PARENT stops above MAX_DEPTH - 1 (a parent for mkdir).  With
 * @no_storm the walk never enters /storm.  A container removed under the
 * walk ends it there: the caller's operation then fails with ENOENT.
 */
static int pick(struct shared *sh, int h, unsigned int *seed, int how,
		bool no_storm, char *path, size_t len)
{
	char names[MAX_SUBDIRS][NAME_LEN];
	int depth = 0, n;
	size_t off;

	off = snprintf(path, len, "%s", sh->root[h]);
	for (;;) {
		if (how == PICK_PARENT && depth >= MAX_DEPTH - 1)
			break;
		if (how != PICK_LEAF && !(rnd(seed) % 3))
			break;
		n = subdirs(path, names, MAX_SUBDIRS, no_storm && !depth);
		if (n <= 0 || off >= len)
			break;
		off += snprintf(path + off, len - off, "/%s",
				names[rnd(seed) % n]);
		depth++;
	}
	return depth;
}

/* "0-2,5" into a mask of CPUs or nodes below 64. */
static int parse_list(const char *s, unsigned long long *mask)
{
	unsigned long a, b;
	char *end;

	*mask = 0;
	while (*s) {
		a = strtoul(s, &end, 10);
		if (end == s)
			return -EINVAL;
		b = a;
		s = end;
		if (*s == '-') {
			b = strtoul(s + 1, &end, 10);
			if (end == s + 1)
				return -EINVAL;
			s = end;
		}
		if (a > b || b >= 64)
			return -EINVAL;
		for (; a <= b; a++)
			*mask |= 1ULL << a;
		if (*s == ',')
			s++;
		else if (*s)
			return -EINVAL;
	}
	return 0;
}

static void format_list(unsigned long long mask, char *buf, size_t len)
{
	size_t off = 0;
	int a, b;

	buf[0] = '\0';
	for (a = 0; a < 64 && off < len; a = b + 1) {
		if (!(mask & (1ULL << a))) {
			b = a;
			continue;
		}
		for (b = a; b + 1 < 64 && (mask & (1ULL << (b + 1))); b++)
			;
		off += snprintf(buf + off, len - off, "%s%d", off ? "," : "",
				a);
		if (b > a && off < len)
			off += snprintf(buf + off, len - off, "-%d", b);
	}
}

/*
 * A random non-empty subset of the list in @file of container @cont (the
 * root's cpuset.cpus or cpuset.mems), as a list.
 */
static int random_list(struct worker *w, const char *cont, const char *file,
		       char *buf, size_t len)
{
	char path[CN_PATH_LEN], all[256];
	unsigned long long mask, sub;
	int ret;

	cn_path(path, sizeof(path), cont, file);
	ret = cn_read_str(path, all, sizeof(all));
	if (ret)
		return ret;
	if (parse_list(all, &mask) || !mask)
		return -EINVAL;
	sub = ((unsigned long long)rnd(&w->seed) << 32 | rnd(&w->seed)) & mask;
	if (!sub)
		sub = mask & -mask;
	format_list(sub, buf, len);
	return 0;
}

/* ---------------------------------------------------------------------
 * Victims and sentinels: processes with threads that the test moves.
 * ---------------------------------------------------------------------
 */
struct vt_arg {
	struct tidset *set;
	int slot;
	bool busy;
};

/* Fill our slot, then loop: map and touch some memory, or just sleep. */
static void victim_loop(struct tidset *set, int slot, bool busy)
{
	char *p;

	set->tids[slot] = cn_gettid();
	__atomic_add_fetch(&set->ready, 1, __ATOMIC_RELEASE);
	for (;;) {
		if (!busy) {
			pause();
			continue;
		}
		p = mmap(NULL, VICTIM_BYTES, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED) {
			memset(p, 1, VICTIM_BYTES);
			munmap(p, VICTIM_BYTES);
		}
		cn_sleep_ms(2);
	}
}

static void *victim_thread(void *data)
{
	struct vt_arg *arg = data;

	victim_loop(arg->set, arg->slot, arg->busy);
	return NULL;
}

/*
 * A child process with @nthreads threads besides its main one, added to
 * @set once every thread has written its tid there.  Returns the pid, or
 * -1.
 */
static pid_t spawn_victim(struct cn_env *env, struct tidset *set,
			  int nthreads, bool busy)
{
	int first = set->ntids, i;
	pid_t parent = getpid(), pid;
	long end;

	if (first + 1 + nthreads > MAX_TIDS || set->nprocs == MAX_TIDS)
		return -1;
	set->ntids += 1 + nthreads;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		static struct vt_arg args[MAX_TIDS];
		pthread_attr_t attr;
		pthread_t th;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 64 * 1024);
		for (i = 1; i <= nthreads; i++) {
			args[i].set = set;
			args[i].slot = first + i;
			args[i].busy = busy;
			if (pthread_create(&th, &attr, victim_thread, &args[i]))
				_exit(1);
		}
		victim_loop(set, first, busy);
	}
	cn_env_track(env, pid);
	set->procs[set->nprocs++] = pid;
	end = cn_now_ms() + 10000;
	while (__atomic_load_n(&set->ready, __ATOMIC_ACQUIRE) < set->ntids) {
		if (cn_now_ms() > end)
			return -1;
		cn_sleep_ms(5);
	}
	return pid;
}

/* ---------------------------------------------------------------------
 * The workers.
 * ---------------------------------------------------------------------
 */

/* Give a new container of A its parent's effective CPUs and nodes. */
static void copy_cpuset(struct worker *w, const char *parent,
			const char *cont)
{
	static const char * const files[2][2] = {
		{ "cpuset.effective_cpus", "cpuset.cpus" },
		{ "cpuset.effective_mems", "cpuset.mems" },
	};
	char from[CN_PATH_LEN + 32], to[CN_PATH_LEN + 32], val[256];
	int i, ret;

	for (i = 0; i < 2; i++) {
		snprintf(from, sizeof(from), "%s/%s", parent, files[i][0]);
		snprintf(to, sizeof(to), "%s/%s", cont, files[i][1]);
		ret = cn_read_str(from, val, sizeof(val));
		if (ret) {
			note(w, OP_CS_SETUP, ret, ok_gone, "read", from);
			return;
		}
		/* An empty value needs the newline to be a write at all. */
		ret = cn_writef(to, "%s\n", val);
		if (note(w, OP_CS_SETUP, ret, ok_cpuset, "write", to))
			return;
	}
}

static void creator(struct worker *w, int h)
{
	char parent[CN_PATH_LEN], path[CN_PATH_LEN];
	int mk = h == HA ? OP_MKDIR_A : OP_MKDIR_B;
	int rm = h == HA ? OP_RMDIR_A : OP_RMDIR_B;
	int *ndirs = &w->sh->ndirs[h];
	bool full;

	while (running(w)) {
		full = __atomic_load_n(ndirs, __ATOMIC_RELAXED) >= MAX_DIRS;
		if (rnd(&w->seed) % 10 < (full ? 2u : 6u)) {
			pick(w->sh, h, &w->seed, PICK_PARENT, false, parent,
			     sizeof(parent));
			if (snprintf(path, sizeof(path), "%s/c%u", parent,
				     rnd(&w->seed) % NR_NAMES) >=
			    (int)sizeof(path))
				continue;
			if (note(w, mk, cn_mkdir(path), ok_mkdir, "mkdir",
				 path))
				continue;
			__atomic_add_fetch(ndirs, 1, __ATOMIC_RELAXED);
			/* Some stay without CPUs: moves there get ENOSPC. */
			if (h == HA && rnd(&w->seed) % 8)
				copy_cpuset(w, parent, path);
		} else {
			if (!pick(w->sh, h, &w->seed, PICK_LEAF, false, path,
				  sizeof(path)))
				continue;
			/*
			 * The storm's own container is empty once its worker
			 * stopped, while this one may still run: the end
			 * check reads its pids.events.
			 */
			if (!strcmp(path, w->sh->storm[h]))
				continue;
			if (!note(w, rm, cn_rmdir(path), ok_rmdir, "rmdir",
				  path))
				__atomic_sub_fetch(ndirs, 1, __ATOMIC_RELAXED);
		}
	}
}

/* Fork a child that exits at once, and move it while it does. */
static void move_exiting(struct worker *w, int h, const char *cont)
{
	pid_t pid;
	int ret;

	pid = fork();
	if (pid < 0) {
		fail(w, "fork: %s", strerror(errno));
		cn_sleep_ms(10);
		return;
	}
	if (!pid)
		_exit(0);
	if (rnd(&w->seed) % 2)
		ret = cn_move(cont, pid);
	else
		ret = cn_move_proc(cont, pid);
	note(w, OP_MOVE_EXITING, ret, h == HA ? ok_exit_a : ok_exit_b,
	     "move exiting child to", cont);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

static void mover(struct worker *w)
{
	struct tidset *v = &w->sh->victims;
	char path[CN_PATH_LEN];
	unsigned int r;
	int h, i;
	pid_t id;

	while (running(w)) {
		r = rnd(&w->seed) % 100;
		/* The workers move in B only: A could limit them. */
		h = r >= 75 ? HB : (int)(rnd(&w->seed) % NR_HIER);
		pick(w->sh, h, &w->seed, PICK_ANY, true, path, sizeof(path));
		if (r < 40) {
			id = v->tids[rnd(&w->seed) % v->ntids];
			note(w, OP_MOVE_TASK, cn_move(path, id),
			     h == HA ? ok_move_a : ok_gone, "move thread to",
			     path);
		} else if (r < 55) {
			id = v->procs[rnd(&w->seed) % v->nprocs];
			note(w, OP_MOVE_PROCS, cn_move_proc(path, id),
			     h == HA ? ok_move_a : ok_gone, "move process to",
			     path);
		} else if (r < 75) {
			move_exiting(w, h, path);
		} else if (r < 95) {
			/* Workers that have finished are zombies: ESRCH. */
			id = w->sh->workers[rnd(&w->seed) % NR_WORKERS];
			if (id > 0)
				note(w, OP_MOVE_WORKER, cn_move(path, id),
				     ok_exit_b, "move worker to", path);
		} else {
			/* Everybody home, so that the removers get a go. */
			h = rnd(&w->seed) % NR_HIER;
			for (i = 0; i < v->ntids; i++)
				note(w, OP_MOVE_TASK,
				     cn_move(w->sh->root[h], v->tids[i]), NULL,
				     "move thread to", w->sh->root[h]);
		}
	}
}

/* Fork and reap children in STORM_PATH, where the parent put us. */
static void storm(struct worker *w)
{
	const char *leaf = w->sh->storm[HA];
	char cur_path[CN_PATH_LEN + 16], c;
	pid_t kids[STORM_BATCH], pid;
	int fds[2], n, i;
	bool hold;
	long cur;

	snprintf(cur_path, sizeof(cur_path), "%s/pids.current", leaf);
	while (running(w)) {
		hold = rnd(&w->seed) % 2;
		if (hold && pipe(fds)) {
			fail(w, "pipe: %s", strerror(errno));
			return;
		}
		for (n = 0, i = 0; i < STORM_BATCH; i++) {
			pid = fork();
			if (!pid) {
				if (hold) {
					close(fds[1]);
					while (read(fds[0], &c, 1) < 0 &&
					       errno == EINTR)
						;
				}
				_exit(0);
			}
			if (!note(w, OP_FORK, pid < 0 ? -errno : 0, ok_fork,
				  "fork in", leaf))
				kids[n++] = pid;
		}
		if (hold) {
			/*
			 * All children are alive: the storm and STORM_MAX - 1
			 * children, exactly (one forker, no race for a slot).
			 */
			cur = cn_long(cur_path);
			if (n != STORM_MAX - 1 || cur != STORM_MAX)
				fail(w, "%d children under pids.max %d, pids.current %ld",
				     n, STORM_MAX, cur);
			close(fds[0]);
			close(fds[1]);
		}
		for (i = 0; i < n; i++)
			while (waitpid(kids[i], NULL, 0) < 0 && errno == EINTR)
				;
	}
}

/* A tasks or container.procs file: well formed, sorted, no duplicate. */
static void read_ids(struct worker *w, const char *dir, const char *file)
{
	char path[CN_PATH_LEN + 32], *text;
	size_t chunk;
	pid_t *ids;
	int n;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	chunk = rnd(&w->seed) % 2 ? 1 + rnd(&w->seed) % 64 : 4096;
	text = cn_read_all(path, chunk);
	if (!text) {
		note(w, OP_READ_TASKS, -errno, ok_gone, "read", path);
		return;
	}
	n = cn_parse_pids(text, &ids);
	free(text);
	if (n < 0) {
		fail(w, "%s: malformed (%d)", path, n);
		return;
	}
	if (cn_pids_sorted_unique(ids, n))
		w->st->ok[OP_READ_TASKS]++;
	else
		fail(w, "%s: not sorted, or a duplicate", path);
	free(ids);
}

static void read_tree(struct worker *w, int h, const char *dir, int depth)
{
	static const char * const files[NR_HIER][3] = {
		{ "pids.current", "memory.usage_in_bytes",
		  "cpuset.effective_cpus" },
		{ "debug.taskcount", "cpuacct.usage", "debug.releasable" },
	};
	char names[MAX_SUBDIRS][NAME_LEN], sub[CN_PATH_LEN];
	char path[CN_PATH_LEN + 32], val[256];
	int n, i;

	read_ids(w, dir, "tasks");
	read_ids(w, dir, "container.procs");
	/* The root has no pids or memory usage files. */
	if (depth) {
		snprintf(path, sizeof(path), "%s/%s", dir,
			 files[h][rnd(&w->seed) % 3]);
		note(w, OP_READ_FILE, cn_read_str(path, val, sizeof(val)),
		     ok_gone, "read", path);
	}
	if (depth > 2 * MAX_DEPTH)
		return;
	n = subdirs(dir, names, MAX_SUBDIRS, false);
	for (i = 0; i < n && running(w); i++) {
		if (snprintf(sub, sizeof(sub), "%s/%s", dir, names[i]) <
		    (int)sizeof(sub))
			read_tree(w, h, sub, depth + 1);
	}
}

/* One line "ID:SUBSYSTEMS:/PATH" for A and for B, and nothing odd. */
static void check_proc_text(struct worker *w, const char *path, char *text)
{
	bool seen[NR_HIER] = { false };
	char *line, *save, *end, *rel;
	long id;
	int h;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		id = strtol(line, &end, 10);
		rel = *end == ':' ? strchr(end + 1, ':') : NULL;
		if (end == line || !rel || rel[1] != '/') {
			fail(w, "%s: bad line '%s'", path, line);
			return;
		}
		for (h = 0; h < NR_HIER; h++)
			if (id == w->sh->hid[h])
				seen[h] = true;
	}
	if (seen[HA] && seen[HB])
		w->st->ok[OP_READ_PROC]++;
	else
		fail(w, "%s: no line for hierarchy %d or %d", path,
		     w->sh->hid[HA], w->sh->hid[HB]);
}

static void read_procs(struct worker *w)
{
	char path[64], *text;
	struct dirent *de;
	DIR *d;

	d = opendir("/proc");
	if (!d) {
		fail(w, "opendir /proc: %s", strerror(errno));
		return;
	}
	while (running(w) && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.32s/container",
			 de->d_name);
		text = cn_read_all(path, rnd(&w->seed) % 2 ?
				   1 + rnd(&w->seed) % 32 : 4096);
		if (!text) {
			note(w, OP_READ_PROC, -errno, ok_proc, "read", path);
			continue;
		}
		check_proc_text(w, path, text);
		free(text);
	}
	closedir(d);
}

/* Every subsystem listed, bound where we mounted it. */
static void read_proc_containers(struct worker *w)
{
	char *text, *line, *save, name[64];
	int hier, num, en, found = 0;
	unsigned int i;

	text = cn_read_all("/proc/containers", 1 + rnd(&w->seed) % 128);
	if (!text) {
		fail(w, "read /proc/containers: %s", strerror(errno));
		return;
	}
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		if (sscanf(line, "%63s %d %d %d", name, &hier, &num,
			   &en) != 4 || num < 1 || en != 1) {
			fail(w, "/proc/containers: bad line '%s'", line);
			goto out;
		}
		for (i = 0; i < ARRAY_SIZE(subsystems); i++) {
			if (strcmp(name, subsystems[i].name))
				continue;
			found++;
			if (hier != w->sh->hid[subsystems[i].h])
				fail(w, "/proc/containers: %s in %d, not %d",
				     name, hier, w->sh->hid[subsystems[i].h]);
		}
	}
	if (found == ARRAY_SIZE(subsystems))
		w->st->ok[OP_READ_PROCCONT]++;
	else
		fail(w, "/proc/containers: %d of our subsystems listed", found);
out:
	free(text);
}

static void reader(struct worker *w)
{
	int h;

	/*
	 * /proc/containers is cheap and the walks are slow on the debug
	 * kernel: read it between them, so that it is read often enough.
	 */
	while (running(w)) {
		read_proc_containers(w);
		for (h = 0; h < NR_HIER && running(w); h++) {
			read_tree(w, h, w->sh->root[h], 0);
			read_proc_containers(w);
		}
		read_procs(w);
	}
}

static void config(struct worker *w)
{
	char cont[CN_PATH_LEN], path[CN_PATH_LEN + 32], val[256];
	const char *root_a = w->sh->root[HA];
	unsigned int r;
	int h, tries, ret;

	while (running(w)) {
		r = rnd(&w->seed) % 100;
		h = r < 85 ? HA : HB;
		/* Not the root (nothing to write there), not the storm. */
		for (tries = 0; tries < 4; tries++)
			if (pick(w->sh, h, &w->seed, PICK_ANY, true, cont,
				 sizeof(cont)))
				break;
		if (tries == 4) {
			cn_sleep_ms(1);
			continue;
		}
		if (h == HB) {
			snprintf(path, sizeof(path), "%s/cpuacct.usage", cont);
			note(w, OP_RESET_ACCT, cn_write(path, "0"), ok_gone,
			     "write", path);
		} else if (r % 4 < 2) {
			bool cpus = r % 4 == 0;

			ret = random_list(w, root_a,
					  cpus ? "cpuset.cpus" : "cpuset.mems",
					  val, sizeof(val));
			if (ret) {
				fail(w, "root cpuset list: %s", strerror(-ret));
				continue;
			}
			snprintf(path, sizeof(path), "%s/cpuset.%s", cont,
				 cpus ? "cpus" : "mems");
			note(w, cpus ? OP_SET_CPUS : OP_SET_MEMS,
			     cn_write(path, val), ok_cpuset, "write", path);
		} else if (r % 4 == 2) {
			if (rnd(&w->seed) % 4)
				snprintf(val, sizeof(val), "%uM",
					 16 + rnd(&w->seed) % 1009);
			else
				snprintf(val, sizeof(val), "-1");
			snprintf(path, sizeof(path), "%s/memory.limit_in_bytes",
				 cont);
			note(w, OP_SET_LIMIT, cn_write(path, val), ok_limit,
			     "write", path);
		} else {
			if (rnd(&w->seed) % 4)
				snprintf(val, sizeof(val), "%u",
					 5 + rnd(&w->seed) % 196);
			else
				snprintf(val, sizeof(val), "max");
			snprintf(path, sizeof(path), "%s/pids.max", cont);
			note(w, OP_SET_PIDS, cn_write(path, val), ok_gone,
			     "write", path);
		}
		cn_sleep_ms(1 + rnd(&w->seed) % 4);
	}
}

/* One mount of stress3: containers made, entered, left and removed. */
static void mount_cycle(struct worker *w, bool *kept)
{
	char dir[CN_DIR_LEN], path[CN_DIR_LEN + 16], where[CN_PATH_LEN];
	static const char * const dirs[] = { "d0", "d0/d1", "d2" };
	bool keep;
	int hid, i, ret;

	ret = cn_mount("none,name=" STRESS3, dir, sizeof(dir));
	if (note(w, OP_MOUNT, ret, NULL, "mount", "none,name=" STRESS3)) {
		cn_sleep_ms(50);
		return;
	}
	snprintf(w->sh->mnt3, sizeof(w->sh->mnt3), "%s", dir);
	/* A hierarchy whose last umount left a child is the same one. */
	snprintf(path, sizeof(path), "%s/d2", dir);
	if (*kept != cn_exists(path))
		fail(w, "%s: d2 %s", dir, *kept ? "lost" : "out of nowhere");
	else if (*kept)
		w->st->ok[OP_MNT_KEPT]++;
	hid = cn_hier_id("name=" STRESS3);
	if (hid <= 0)
		fail(w, "no name=" STRESS3 " in /proc/self/container: %d",
		     hid);

	for (i = 0; i < (int)ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, dirs[i]);
		if (i < 2 || !*kept)
			note(w, OP_MNT_MKDIR, cn_mkdir(path), NULL, "mkdir",
			     path);
	}
	snprintf(path, sizeof(path), "%s/d0/d1", dir);
	if (!note(w, OP_MNT_MOVE, cn_move_self(path), NULL, "move self to",
		  path) && hid > 0) {
		ret = cn_proc_path(0, hid, where, sizeof(where));
		if (ret || strcmp(where, "/d0/d1"))
			fail(w, "in %s, /proc/self/container says '%s' (%d)",
			     path, ret ? "" : where, ret);
	}
	note(w, OP_MNT_MOVE, cn_move_self(dir), NULL, "move self to", dir);

	keep = !(rnd(&w->seed) % 4) && running(w);
	for (i = ARRAY_SIZE(dirs) - 1; i >= 0; i--) {
		snprintf(path, sizeof(path), "%s/%s", dir, dirs[i]);
		if (i < 2 || !keep)
			note(w, OP_MNT_RMDIR, cn_rmdir(path), NULL, "rmdir",
			     path);
	}
	ret = cn_umount(dir);
	if (!note(w, OP_UMOUNT, ret, NULL, "umount", dir))
		w->sh->mnt3[0] = '\0';
	*kept = keep && !ret;
}

static void mounter(struct worker *w)
{
	char dir[CN_DIR_LEN], path[CN_DIR_LEN + 16];
	bool kept = false;

	while (running(w)) {
		mount_cycle(w, &kept);
		cn_sleep_ms(5 + rnd(&w->seed) % 20);
	}
	if (!kept)
		return;
	/* Do not leave the hierarchy behind. */
	if (note(w, OP_MOUNT, cn_mount("name=" STRESS3, dir, sizeof(dir)),
		 NULL, "mount", "name=" STRESS3))
		return;
	snprintf(w->sh->mnt3, sizeof(w->sh->mnt3), "%s", dir);
	snprintf(path, sizeof(path), "%s/d2", dir);
	note(w, OP_MNT_RMDIR, cn_rmdir(path), NULL, "rmdir", path);
	if (!note(w, OP_UMOUNT, cn_umount(dir), NULL, "umount", dir))
		w->sh->mnt3[0] = '\0';
}

/* The online file of CPU @cpu in @buf of @len bytes; returns @buf. */
static char *online_file(char *buf, size_t len, int cpu)
{
	snprintf(buf, len, "/sys/devices/system/cpu/cpu%d/online", cpu);
	return buf;
}

/* Bring the CPU back, whatever happens (EBUSY: try again a while). */
static void cpu_online(struct worker *w, const char *path)
{
	int tries, ret;

	for (tries = 0; tries < 50; tries++) {
		ret = cn_write(path, "1");
		if (ret != -EBUSY)
			break;
		cn_sleep_ms(100);
	}
	note(w, OP_CPU_ON, ret, NULL, "online", path);
}

static void hotplug(struct worker *w)
{
	long gap = w->sh->run_ms / (2 * HOTPLUG_CYCLES + 1);
	char path[64];
	int cycle;

	if (w->sh->hot_cpu < 0)
		return;
	online_file(path, sizeof(path), w->sh->hot_cpu);
	for (cycle = 0; cycle < HOTPLUG_CYCLES; cycle++) {
		nap(w, gap);
		if (!running(w))
			break;
		note(w, OP_CPU_OFF, cn_write(path, "0"), ok_offline, "offline",
		     path);
		nap(w, gap);
		cpu_online(w, path);
	}
}

static void __noreturn run_worker(struct shared *sh, int role, pid_t parent)
{
	struct worker w = {
		.sh = sh,
		.st = &sh->st[role],
		.name = role_names[role],
		.seed = sh->st[role].seed,
	};

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE))
		cn_sleep_ms(5);
	switch (role) {
	case W_CREATE_A1:
	case W_CREATE_A2:
		creator(&w, HA);
		break;
	case W_CREATE_B1:
	case W_CREATE_B2:
		creator(&w, HB);
		break;
	case W_MOVER:
		mover(&w);
		break;
	case W_STORM:
		storm(&w);
		break;
	case W_READER:
		reader(&w);
		break;
	case W_CONFIG:
		config(&w);
		break;
	case W_MOUNTER:
		mounter(&w);
		break;
	case W_HOTPLUG:
		hotplug(&w);
		break;
	}
	_exit(0);
}

/* ---------------------------------------------------------------------
 * Helpers of the test itself.
 * ---------------------------------------------------------------------
 */
static long env_long(const char *name, long def)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtol(s, &end, 0);
	return errno || *end ? def : v;
}

/* The highest CPU that can be taken offline, or -1. */
static int hotplug_cpu(void)
{
	int cpu = sysconf(_SC_NPROCESSORS_CONF) - 1;
	char path[64];

	for (; cpu >= 1; cpu--) {
		online_file(path, sizeof(path), cpu);
		if (!access(path, W_OK) && cn_long(path) == 1)
			return cpu;
	}
	return -1;
}

/* Empty and unmount a stress3 mount that a worker left behind. */
static void drop_mount(const char *dir)
{
	cn_destroy_tree(dir);
	if (umount(dir))
		umount2(dir, MNT_DETACH);
	rmdir(dir);
}

/* A stress3 hierarchy kept alive by a child container: destroy it. */
static void drop_stress3(void)
{
	char dir[CN_DIR_LEN];

	if (cn_hier_id("name=" STRESS3) <= 0)
		return;
	if (!cn_mount("name=" STRESS3, dir, sizeof(dir)))
		drop_mount(dir);
}

/* /proc/<tid> exists and is not a zombie (zombies are in no container). */
static bool task_alive(pid_t tid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	if (cn_read(path, buf, sizeof(buf)) <= 0)
		return false;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

/* Every thread in /proc, sorted. */
static int proc_tids(pid_t **out)
{
	struct dirent *de, *te;
	pid_t *arr = NULL, *tmp;
	int n = 0, cap = 0;
	char path[64];
	DIR *d, *t;

	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.32s/task", de->d_name);
		t = opendir(path);
		if (!t)
			continue;
		while ((te = readdir(t))) {
			if (te->d_name[0] < '1' || te->d_name[0] > '9')
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 256;
				tmp = realloc(arr, cap * sizeof(*arr));
				if (!tmp) {
					closedir(t);
					closedir(d);
					free(arr);
					return -ENOMEM;
				}
				arr = tmp;
			}
			arr[n++] = atoi(te->d_name);
		}
		closedir(t);
	}
	closedir(d);
	if (n)
		cn_pids_sort(arr, n);
	*out = arr;
	return n;
}

static int cmp_member(const void *a, const void *b)
{
	pid_t x = ((const struct cn_member *)a)->tid;
	pid_t y = ((const struct cn_member *)b)->tid;

	return x < y ? -1 : x > y;
}

/* A sentinel thread and where the test put it. */
struct placed {
	pid_t tid;
	char path[NR_HIER][CN_PATH_LEN];
};

/*
 * Move @tid into a random container of @h (not the storm's); the path
 * relative to the root into @rel.
 */
static int place(struct shared *sh, int h, unsigned int *seed, pid_t tid,
		 char *rel)
{
	char path[CN_PATH_LEN];
	size_t len = strlen(sh->root[h]);
	int tries, ret;

	for (tries = 0; tries < 20; tries++) {
		pick(sh, h, seed, PICK_ANY, true, path, sizeof(path));
		if (!cn_move(path, tid)) {
			snprintf(rel, CN_PATH_LEN, "%s",
				 path[len] ? path + len : "/");
			return 0;
		}
	}
	ret = cn_move(sh->root[h], tid);
	snprintf(rel, CN_PATH_LEN, "/");
	return ret;
}

/*
 * Every thread of @snap that is still alive is listed in exactly one tasks
 * file of hierarchy @h, the container its /proc/<tid>/container names;
 * every sentinel is where it was put.  Returns the number of problems,
 * logged if @log.
 */
static int check_hier(struct __test_metadata *_metadata, struct shared *sh,
		      int h, const pid_t *snap, int nsnap,
		      const struct placed *pl, int npl, bool log)
{
	struct cn_member *m, key, *f;
	char where[CN_PATH_LEN];
	int n, i, ret, bad = 0;

	n = cn_tree_members(sh->root[h], &m);
	if (n <= 0) {
		if (log)
			TH_LOG("%s: cannot read the tree: %d", sh->root[h], n);
		return 1;
	}
	qsort(m, n, sizeof(*m), cmp_member);
	for (i = 1; i < n; i++) {
		if (m[i].tid != m[i - 1].tid)
			continue;
		bad++;
		if (log)
			TH_LOG("%s: tid %d in %s and in %s", hier_opts[h],
			       m[i].tid, m[i - 1].path, m[i].path);
	}
	for (i = 0; i < nsnap; i++) {
		key.tid = snap[i];
		f = bsearch(&key, m, n, sizeof(*m), cmp_member);
		if (!f) {
			if (!task_alive(snap[i]))
				continue;
			bad++;
			if (log)
				TH_LOG("%s: tid %d, alive, in no container",
				       hier_opts[h], snap[i]);
			continue;
		}
		ret = cn_proc_path(snap[i], sh->hid[h], where, sizeof(where));
		if (!ret && !strcmp(where, f->path))
			continue;
		if (!task_alive(snap[i]))
			continue;
		bad++;
		if (log)
			TH_LOG("%s: tid %d in tasks of %s, /proc/%d/container says '%s' (%d)",
			       hier_opts[h], snap[i], f->path, snap[i],
			       ret ? "" : where, ret);
	}
	for (i = 0; i < npl; i++) {
		key.tid = pl[i].tid;
		f = bsearch(&key, m, n, sizeof(*m), cmp_member);
		if (f && !strcmp(f->path, pl[i].path[h]))
			continue;
		bad++;
		if (log)
			TH_LOG("%s: sentinel %d put in %s, found in %s",
			       hier_opts[h], pl[i].tid, pl[i].path[h],
			       f ? f->path : "<none>");
	}
	free(m);
	return bad;
}

/* Every container of the tree at @dir, children before their parent. */
struct dirlist {
	int n, cap;
	char (*path)[CN_PATH_LEN];
};

static int list_dirs(const char *dir, struct dirlist *l)
{
	char names[MAX_SUBDIRS][NAME_LEN], sub[CN_PATH_LEN];
	char (*tmp)[CN_PATH_LEN];
	int n, i, ret;

	n = subdirs(dir, names, MAX_SUBDIRS, false);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		if (snprintf(sub, sizeof(sub), "%s/%s", dir, names[i]) >=
		    (int)sizeof(sub))
			return -ENAMETOOLONG;
		ret = list_dirs(sub, l);
		if (ret)
			return ret;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		tmp = realloc(l->path, l->cap * sizeof(*tmp));
		if (!tmp)
			return -ENOMEM;
		l->path = tmp;
	}
	snprintf(l->path[l->n++], CN_PATH_LEN, "%s", dir);
	return 0;
}

static unsigned long total(struct shared *sh, int op, bool refused)
{
	unsigned long sum = 0;
	int i;

	for (i = 0; i < NR_WORKERS; i++)
		sum += refused ? sh->st[i].refused[op] : sh->st[i].ok[op];
	return sum;
}

static void print_summary(struct shared *sh)
{
	unsigned long ok, refused, all = 0;
	int op, i;

	ksft_print_msg("%-28s %10s %10s\n", "operation", "done", "refused");
	for (op = 0; op < NR_OPS; op++) {
		ok = total(sh, op, false);
		refused = total(sh, op, true);
		all += ok + refused;
		ksft_print_msg("%-28s %10lu %10lu\n", op_names[op], ok,
			       refused);
	}
	ksft_print_msg("operations in all: %lu in %ld s\n", all,
		       sh->run_ms / 1000);
	for (i = 0; i < NR_WORKERS; i++)
		ksft_print_msg("worker %-10s seed %10u unexpected errors %lu\n",
			       role_names[i], sh->st[i].seed,
			       sh->st[i].errors);
}

/* ---------------------------------------------------------------------
 * The test.
 * ---------------------------------------------------------------------
 */
FIXTURE(stress) {
	struct cn_env env;
	struct shared *sh;
	int hot_cpu;
	char online[256];
};

FIXTURE_SETUP(stress)
{
	int hier, num, en, h;
	unsigned int i;
	char *root;

	self->sh = MAP_FAILED;
	self->hot_cpu = -1;
	cn_cleanup_stale();
	drop_stress3();
	cn_env_init(&self->env);
	for (i = 0; i < ARRAY_SIZE(subsystems); i++) {
		if (cn_subsys_info(subsystems[i].name, &hier, &num, &en))
			SKIP(return, "no %s subsystem in this kernel",
			     subsystems[i].name);
	}
	self->sh = mmap(NULL, sizeof(*self->sh), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->sh);
	for (h = 0; h < NR_HIER; h++) {
		ASSERT_EQ(0, cn_env_mount_retry(&self->env, hier_opts[h],
						&root))
			TH_LOG("mount -o %s", hier_opts[h]);
		snprintf(self->sh->root[h], CN_DIR_LEN, "%s", root);
		self->sh->hid[h] = cn_hier_id(h == HA ? "cpuset" : "debug");
		ASSERT_GT(self->sh->hid[h], 0);
	}
	ASSERT_EQ(0, cn_read_str("/sys/devices/system/cpu/online",
				 self->online, sizeof(self->online)));
	self->hot_cpu = hotplug_cpu();
	self->sh->hot_cpu = self->hot_cpu;
}

FIXTURE_TEARDOWN(stress)
{
	char path[64];

	/* Workers first: the mounter may still be using its mount. */
	cn_env_kill_all(&self->env);
	if (self->sh != MAP_FAILED && self->sh->mnt3[0])
		drop_mount(self->sh->mnt3);
	cn_env_cleanup(&self->env);
	drop_stress3();
	/* Whatever happened, the CPU comes back. */
	if (self->hot_cpu >= 0)
		cn_write(online_file(path, sizeof(path), self->hot_cpu), "1");
	if (self->sh != MAP_FAILED)
		munmap(self->sh, sizeof(*self->sh));
}

/* ---------------------------------------------------------------------
 * The phases of the test.
 * ---------------------------------------------------------------------
 */

/* How long the workers run: CN_STRESS_SECS, within SECS_MIN..SECS_MAX. */
static long churn_seconds(struct __test_metadata *_metadata)
{
	long secs = env_long("CN_STRESS_SECS", SECS_DEFAULT);

	if (secs < SECS_MIN || secs > SECS_MAX) {
		TH_LOG("CN_STRESS_SECS=%ld out of %d..%d", secs, SECS_MIN,
		       SECS_MAX);
		secs = secs < SECS_MIN ? SECS_MIN : SECS_MAX;
	}
	return secs;
}

/*
 * The fork storm's container, 4 deep in both hierarchies, with every CPU
 * and node of the root of A, and its pids.max.
 */
static void make_storm(struct __test_metadata *_metadata, struct shared *sh)
{
	static const char * const chain[] = {
		"storm", "storm/s1", "storm/s1/s2", STORM_PATH,
	};
	char cpus[256], mems[256], path[CN_PATH_LEN], dir[CN_PATH_LEN];
	int i, h;

	cn_path(path, sizeof(path), sh->root[HA], "cpuset.effective_cpus");
	ASSERT_EQ(0, cn_read_str(path, cpus, sizeof(cpus)));
	cn_path(path, sizeof(path), sh->root[HA], "cpuset.effective_mems");
	ASSERT_EQ(0, cn_read_str(path, mems, sizeof(mems)));
	for (h = 0; h < NR_HIER; h++) {
		for (i = 0; i < (int)ARRAY_SIZE(chain); i++) {
			cn_path(dir, sizeof(dir), sh->root[h], chain[i]);
			ASSERT_EQ(0, cn_mkdir(dir));
			if (h != HA)
				continue;
			ASSERT_EQ(0, cn_write_in(dir, "cpuset.cpus", cpus));
			ASSERT_EQ(0, cn_write_in(dir, "cpuset.mems", mems));
		}
		snprintf(sh->storm[h], CN_PATH_LEN, "%s/%s", sh->root[h],
			 STORM_PATH);
		sh->ndirs[h] = ARRAY_SIZE(chain) + 1;
	}
	ASSERT_EQ(0, cn_write_in(sh->root[HA], "storm/s1/pids.max", "100"));
	ASSERT_EQ(0, cn_writef_in(sh->storm[HA], "pids.max", "%d",
				  STORM_MAX));
}

/* Victims: one busy with threads, one busy alone, one idle. */
static void start_victims(struct __test_metadata *_metadata,
			  struct cn_env *env, struct shared *sh)
{
	int i;

	ASSERT_LT(0, spawn_victim(env, &sh->victims, VICTIM_THREADS, true));
	for (i = 0; i < NR_SLEEPERS; i++) {
		ASSERT_LT(0, spawn_victim(env, &sh->victims, 0, i == 0));
	}
}

/*
 * Fork the workers, each with its own seed made from @base; they wait for
 * sh->go.  The storm's worker is put into the storm's containers.
 */
static void start_workers(struct __test_metadata *_metadata,
			  struct cn_env *env, struct shared *sh,
			  unsigned int base)
{
	pid_t me = getpid(), pid;
	int i, h;

	for (i = 0; i < NR_WORKERS; i++) {
		sh->st[i].seed = (base ^ (0x9e3779b9u * (i + 1))) ?: 1;
		fflush(stdout);
		fflush(stderr);
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			run_worker(sh, i, me);
		sh->workers[i] = pid;
		cn_env_track(env, pid);
	}
	/* Before the removers start: the storm's containers are in use. */
	for (h = 0; h < NR_HIER; h++)
		ASSERT_EQ(0, cn_move(sh->storm[h], sh->workers[W_STORM]));
}

/* Let the workers loose for @secs seconds. */
static void run_workers(struct shared *sh, long secs)
{
	sh->run_ms = secs * 1000;
	sh->deadline = cn_now_ms() + sh->run_ms;
	__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	while (cn_now_ms() < sh->deadline)
		cn_sleep_ms(100);
}

/*
 * Stop, and wait for each worker to finish what it was doing.  Returns
 * how many workers did not stop, or ended with an error.
 */
static int stop_workers(struct __test_metadata *_metadata,
			struct cn_env *env, struct shared *sh)
{
	bool done[NR_WORKERS] = { false };
	int i, n, stuck = 0;
	long end;

	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
	end = cn_now_ms() + STOP_MS;
	for (n = 0; n < NR_WORKERS && cn_now_ms() < end;) {
		int status;

		for (i = 0; i < NR_WORKERS; i++) {
			if (done[i] || waitpid(sh->workers[i], &status,
					       WNOHANG) != sh->workers[i])
				continue;
			done[i] = true;
			n++;
			cn_env_untrack(env, sh->workers[i]);
			if (WIFEXITED(status) && !WEXITSTATUS(status))
				continue;
			stuck++;
			TH_LOG("worker %s ended with status 0x%x",
			       role_names[i], status);
		}
		cn_sleep_ms(20);
	}
	for (i = 0; i < NR_WORKERS; i++) {
		if (done[i])
			continue;
		stuck++;
		TH_LOG("worker %s did not stop in %d s", role_names[i],
		       STOP_MS / 1000);
	}
	return stuck;
}

/*
 * Kill the victims and the workers that did not stop, drop what the
 * mounter left mounted, and bring CPU @hot_cpu back online: the CPUs
 * online are @online again.
 */
static void end_run(struct __test_metadata *_metadata, struct cn_env *env,
		    struct shared *sh, int hot_cpu, const char *online)
{
	char path[64], now[256];

	/* The victims, and workers that did not stop. */
	cn_env_kill_all(env);
	if (sh->mnt3[0]) {
		TH_LOG("the mounter left %s mounted", sh->mnt3);
		drop_mount(sh->mnt3);
		sh->mnt3[0] = '\0';
	}
	if (hot_cpu >= 0) {
		online_file(path, sizeof(path), hot_cpu);
		EXPECT_EQ(0, cn_write(path, "1"));
	}
	EXPECT_STREQ(online, cn_str("/sys/devices/system/cpu/online", now,
				    sizeof(now)));
}

/*
 * What the workers did: @stuck workers that did not stop, no unexpected
 * error, every kind of operation done (CPU @hot_cpu offline and online
 * too), and pids.max of the storm hit.
 */
static void check_run(struct __test_metadata *_metadata, struct shared *sh,
		      int hot_cpu, int stuck)
{
	char val[CN_PATH_LEN], *text;
	unsigned int op;
	int i, ret;
	long v;

	print_summary(sh);
	EXPECT_EQ(0, stuck);
	for (i = 0; i < NR_WORKERS; i++) {
		EXPECT_EQ(0, sh->st[i].errors)
			TH_LOG("%s: %lu unexpected errors, the last: %s",
			       role_names[i], sh->st[i].errors,
			       sh->st[i].last);
	}
	/* Not a vacuous pass: every kind of operation happened. */
	for (op = 0; op < ARRAY_SIZE(needed_ops); op++) {
		EXPECT_LE(MIN_OPS, total(sh, needed_ops[op], false))
			TH_LOG("too few: %s", op_names[needed_ops[op]]);
	}
	EXPECT_LE(MIN_OPS, total(sh, OP_MOVE_EXITING, false) +
		  total(sh, OP_MOVE_EXITING, true));
	EXPECT_LE(1, total(sh, OP_FORK, true))
		TH_LOG("pids.max %d never refused a fork", STORM_MAX);
	if (hot_cpu >= 0) {
		EXPECT_LE(1, total(sh, OP_CPU_OFF, false));
		EXPECT_LE(1, total(sh, OP_CPU_ON, false));
	}
	v = -1;
	text = cn_read_str_in(sh->storm[HA], "pids.events", val, sizeof(val));
	ret = sscanf(text, "max %ld", &v);
	EXPECT_EQ(1, ret) TH_LOG("pids.events '%s'", text);
	EXPECT_LE(1, v) TH_LOG("pids.events '%s'", text);
}

/*
 * Sentinels: a process with 3 threads and 3 alone, each thread put into
 * a random container of each hierarchy, as @pl records.
 */
static void place_sentinels(struct __test_metadata *_metadata,
			    struct cn_env *env, struct shared *sh,
			    unsigned int base, struct placed *pl)
{
	unsigned int seed;
	int i, h;

	ASSERT_LT(0, spawn_victim(env, &sh->sentinels, 3, false));
	for (i = 0; i < 3; i++)
		ASSERT_LT(0, spawn_victim(env, &sh->sentinels, 0, false));
	seed = base ^ 0x5e471e1u;
	for (i = 0; i < sh->sentinels.ntids; i++) {
		pl[i].tid = sh->sentinels.tids[i];
		for (h = 0; h < NR_HIER; h++)
			ASSERT_EQ(0, place(sh, h, &seed, pl[i].tid,
					   pl[i].path[h]));
	}
}

/*
 * Every thread in /proc in exactly one container of each hierarchy, the
 * one its /proc/<pid>/container names; each sentinel where @pl says.
 */
static void check_membership(struct __test_metadata *_metadata,
			     struct shared *sh, const struct placed *pl)
{
	int n, h, bad, tries;
	pid_t *snap;

	/* CPU hotplug moves tasks from a workqueue: let it finish. */
	cn_sleep_ms(300);

	/*
	 * Threads forked or exiting while the trees are read can be missed
	 * or listed twice for a moment: try again before calling it a bug.
	 */
	for (tries = 1; tries <= CHECK_TRIES; tries++) {
		n = proc_tids(&snap);
		ASSERT_LT(0, n);
		for (bad = 0, h = 0; h < NR_HIER; h++)
			bad += check_hier(_metadata, sh, h, snap, n, pl,
					  sh->sentinels.ntids,
					  tries == CHECK_TRIES);
		free(snap);
		if (!bad)
			break;
		TH_LOG("membership: %d problems (try %d of %d)", bad, tries,
		       CHECK_TRIES);
		cn_sleep_ms(500);
	}
	ASSERT_EQ(0, bad);
	ksft_print_msg("membership: %d threads, each in one container per hierarchy\n",
		       n);
}

/* num_containers in /proc/containers counts the directories of the tree. */
static void check_num_containers(struct __test_metadata *_metadata,
				 struct shared *sh)
{
	int i, h, hier, num, en, dirs[NR_HIER];

	for (h = 0; h < NR_HIER; h++) {
		dirs[h] = cn_tree_dirs(sh->root[h]);
		ASSERT_LT(0, dirs[h]);
	}
	for (i = 0; i < (int)ARRAY_SIZE(subsystems); i++) {
		h = subsystems[i].h;
		ASSERT_EQ(0, cn_subsys_info(subsystems[i].name, &hier, &num,
					    &en));
		EXPECT_EQ(sh->hid[h], hier) TH_LOG("%s", subsystems[i].name);
		EXPECT_EQ(dirs[h], num) TH_LOG("%s", subsystems[i].name);
	}
	ksft_print_msg("containers: %d in A, %d in B\n", dirs[HA], dirs[HB]);
}

/*
 * debug.taskcount in B and pids.current in A (whole subtree) against the
 * tasks files.
 */
static void check_task_counts(struct __test_metadata *_metadata,
			      struct shared *sh)
{
	struct dirlist dl = { 0 };
	int i, j, h, *counts;

	for (h = 0; h < NR_HIER; h++) {
		dl.n = 0;
		ASSERT_EQ(0, list_dirs(sh->root[h], &dl));
		counts = calloc(dl.n, sizeof(*counts));
		ASSERT_NE(NULL, counts);
		for (i = 0; i < dl.n; i++) {
			counts[i] = cn_count_tasks(dl.path[i]);
			ASSERT_LE(0, counts[i]) TH_LOG("%s", dl.path[i]);
		}
		for (i = 0; i < dl.n; i++) {
			size_t len = strlen(dl.path[i]);
			long sum = 0;

			if (!strcmp(dl.path[i], sh->root[h]))
				continue;
			if (h == HB) {
				EXPECT_EQ(counts[i],
					  cn_read_long_in(dl.path[i],
							  "debug.taskcount"))
					TH_LOG("%s", dl.path[i]);
				continue;
			}
			for (j = 0; j < dl.n; j++) {
				char *p = dl.path[j];

				if (!strncmp(p, dl.path[i], len) &&
				    (!p[len] || p[len] == '/'))
					sum += counts[j];
			}
			EXPECT_EQ(sum, cn_read_long_in(dl.path[i],
						       "pids.current"))
				TH_LOG("%s", dl.path[i]);
		}
		free(counts);
	}
	free(dl.path);
}

/* Kill the sentinels; every task left goes back to the roots. */
static void move_all_to_roots(struct __test_metadata *_metadata,
			      struct cn_env *env, struct shared *sh)
{
	struct cn_member *m;
	int i, h, n, ret;

	cn_env_kill_all(env);
	for (h = 0; h < NR_HIER; h++) {
		n = cn_tree_members(sh->root[h], &m);
		ASSERT_LT(0, n);
		for (i = 0; i < n; i++) {
			if (!strcmp(m[i].path, "/"))
				continue;
			ret = cn_move(sh->root[h], m[i].tid);
			EXPECT_TRUE(!ret || ret == -ESRCH)
				TH_LOG("tid %d from %s: %d", m[i].tid,
				       m[i].path, ret);
		}
		free(m);
	}
}

/*
 * memory.force_empty of every container of A, children first: it moves
 * what it cannot reclaim to the parent, whose turn comes after.  Nothing
 * may stay charged.
 */
static void check_force_empty(struct __test_metadata *_metadata,
			      struct shared *sh)
{
	struct dirlist dl = { 0 };
	int i;

	ASSERT_EQ(0, list_dirs(sh->root[HA], &dl));
	for (i = 0; i < dl.n; i++) {
		char *c = dl.path[i];

		if (!strcmp(c, sh->root[HA]))
			continue;
		EXPECT_EQ(0, cn_count_tasks(c)) TH_LOG("%s", c);
		EXPECT_EQ(0, cn_write_in(c, "memory.force_empty", "0"))
			TH_LOG("%s", c);
		EXPECT_EQ(0, cn_read_long_in(c, "memory.usage_in_bytes"))
			TH_LOG("%s", c);
	}
	ksft_print_msg("force_empty: %d containers of A left without usage\n",
		       dl.n - 1);
	free(dl.path);
}

/*
 * Remove every container: no css_group leaked (the count is back to
 * @css_groups) and each hierarchy is its root alone again.
 */
static void check_no_leaks(struct __test_metadata *_metadata,
			   struct shared *sh, long css_groups)
{
	int i, h, tries, hier, num, en;
	long v;

	for (h = 0; h < NR_HIER; h++) {
		EXPECT_LE(0, cn_destroy_tree(sh->root[h]));
		EXPECT_EQ(1, cn_tree_dirs(sh->root[h]));
	}
	/* No css_group leaked: the count is back where it started. */
	for (tries = 0; tries < 30; tries++) {
		v = cn_read_long_in(sh->root[HB], "debug.css_group_count");
		if (v == css_groups)
			break;
		cn_sleep_ms(100);
	}
	EXPECT_EQ(css_groups, v);
	ksft_print_msg("css_groups: %ld before, %ld after\n", css_groups, v);
	for (i = 0; i < (int)ARRAY_SIZE(subsystems); i++) {
		ASSERT_EQ(0, cn_subsys_info(subsystems[i].name, &hier, &num,
					    &en));
		EXPECT_EQ(1, num) TH_LOG("%s", subsystems[i].name);
	}
}

TEST_F_TIMEOUT(stress, churn_then_invariants, 280)
{
	static struct placed pl[MAX_TIDS];
	struct cn_env *env = &self->env;
	struct shared *sh = self->sh;
	long secs, css_groups;
	unsigned int base;
	int stuck;

	secs = churn_seconds(_metadata);
	base = env_long("CN_STRESS_SEED", (unsigned int)time(NULL) ^
			((unsigned int)getpid() << 16));
	ksft_print_msg("%ld s of churn, CN_STRESS_SEED=%u, hotplug CPU %d\n",
		       secs, base, self->hot_cpu);
	/* Every task is in the roots now: remember how many css_groups. */
	css_groups = cn_read_long_in(sh->root[HB], "debug.css_group_count");
	ASSERT_LT(0, css_groups);

	/* The run: workers race on both hierarchies, then stop. */
	make_storm(_metadata, sh);
	start_victims(_metadata, env, sh);
	start_workers(_metadata, env, sh, base);
	run_workers(sh, secs);
	stuck = stop_workers(_metadata, env, sh);
	end_run(_metadata, env, sh, self->hot_cpu, self->online);
	check_run(_metadata, sh, self->hot_cpu, stuck);

	/* The invariants, with sentinel threads scattered over the trees. */
	place_sentinels(_metadata, env, sh, base, pl);
	check_membership(_metadata, sh, pl);
	check_num_containers(_metadata, sh);
	check_task_counts(_metadata, sh);

	/* With everything back in the roots: no charge and no leak left. */
	move_all_to_roots(_metadata, env, sh);
	check_force_empty(_metadata, sh);
	check_no_leaks(_metadata, sh, css_groups);
}

TEST_HARNESS_MAIN
