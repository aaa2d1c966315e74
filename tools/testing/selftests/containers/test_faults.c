// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures: every operation of the container filesystem either
 * succeeds or fails cleanly with ENOMEM, and leaves things as they were.
 *
 * Each operation runs in a child process that asks for its N-th fault
 * injection point to fail (/proc/thread-self/fail-nth, with failslab and
 * fail_page_alloc set to fail sleeping allocations too), for N = 1, 2, ...
 * until the operation completes without reaching the N-th point.  After
 * each attempt the test checks what the operation must not have half done:
 * a failed mkdir left no directory and no container counted, a failed move
 * left the task where it was, a failed fork left pids.current alone, a
 * failed mount bound nothing, a failed write left the value, and so on.
 * The console must stay clean (the harness fails on any kernel report) and
 * kmemleak, on the debug kernel, finds nothing afterwards.
 *
 * Needs CONFIG_FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC and their debugfs
 * files (the debug configuration); skipped elsewhere.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "container_util.h"

#define DBG		"/sys/kernel/debug"
/* Give up on an operation that still fails after this many points. */
#define MAX_NTH		400

/* The fault injection knobs the test changes, and their saved values. */
static const char * const knobs[][2] = {
	{ DBG "/failslab/ignore-gfp-wait", "N" },
	{ DBG "/failslab/verbose", "0" },
	{ DBG "/fail_page_alloc/ignore-gfp-wait", "N" },
	{ DBG "/fail_page_alloc/ignore-gfp-highmem", "N" },
	{ DBG "/fail_page_alloc/min-order", "0" },
	{ DBG "/fail_page_alloc/verbose", "0" },
};

#define NR_KNOBS	ARRAY_SIZE(knobs)

static char saved[NR_KNOBS][32];

/* What one attempt reports, through a pipe. */
struct attempt {
	int ret;	/* 0 or the errno of the operation */
	int injected;	/* the N-th point was reached and failed */
	int check;	/* 0, or which consistency check failed */
};

typedef int (*op_fn)(void *arg, int *check);

/*
 * Run @op in a child with its @nth fault injection point failing.  The
 * op returns 0 or an errno and, after injection is off again, checks
 * itself from inside (membership of the child, say) into *check.
 */
static int attempt(op_fn op, void *arg, int nth, struct attempt *res)
{
	int pfd[2], status;
	pid_t pid;

	if (pipe(pfd))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		struct attempt a = { 0 };
		char buf[16];
		int fd, len;

		close(pfd[0]);
		fd = open("/proc/thread-self/fail-nth", O_RDWR);
		if (fd < 0)
			_exit(2);
		len = snprintf(buf, sizeof(buf), "%d", nth);
		if (write(fd, buf, len) != len)
			_exit(3);
		a.ret = op(arg, NULL);
		/* Reading the counter back allocates nothing. */
		len = pread(fd, buf, sizeof(buf) - 1, 0);
		if (write(fd, "0", 1) != 1)
			_exit(4);
		buf[len > 0 ? len : 0] = '\0';
		a.injected = atoi(buf) == 0;
		op(arg, &a.check);
		if (write(pfd[1], &a, sizeof(a)) != sizeof(a))
			_exit(5);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], res, sizeof(*res)) != sizeof(*res))
		res->check = -1;
	close(pfd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -ECHILD;
	return 0;
}

FIXTURE(faults) {
	struct cn_env env;
	char *a;	/* cpuset,memory,pids */
	char *b;	/* cpuacct,debug */
	char c[CN_PATH_LEN];	/* a container of A, with CPUs and nodes */
};

static bool have_fault_injection(void)
{
	mount("debugfs", DBG, "debugfs", 0, NULL);
	return access("/proc/self/fail-nth", W_OK) == 0 &&
	       access(DBG "/failslab/ignore-gfp-wait", W_OK) == 0 &&
	       access(DBG "/fail_page_alloc/min-order", W_OK) == 0;
}

/* Copy the value of @file from container @from to container @to. */
static int copy_value(const char *to, const char *from, const char *file)
{
	char val[CN_PATH_LEN];

	return cn_write_in(to, file,
			   cn_read_str_in(from, file, val, sizeof(val)));
}

FIXTURE_SETUP(faults)
{
	unsigned int i;

	cn_env_init(&self->env);
	if (!have_fault_injection())
		SKIP(return, "no fault injection (needs the debug kernel)");
	for (i = 0; i < NR_KNOBS; i++) {
		ASSERT_EQ(0, cn_read_str(knobs[i][0], saved[i],
					 sizeof(saved[i])));
		ASSERT_EQ(0, cn_write(knobs[i][0], knobs[i][1]));
	}
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "cpuset,memory,pids",
					&self->a));
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "cpuacct,debug",
					&self->b));
	cn_path(self->c, sizeof(self->c), self->a, "c");
	ASSERT_EQ(0, cn_mkdir(self->c));
	ASSERT_EQ(0, copy_value(self->c, self->a, "cpuset.cpus"));
	ASSERT_EQ(0, copy_value(self->c, self->a, "cpuset.mems"));
}

FIXTURE_TEARDOWN(faults)
{
	unsigned int i;

	cn_env_cleanup(&self->env);
	for (i = 0; i < NR_KNOBS; i++)
		if (saved[i][0])
			cn_write(knobs[i][0], saved[i]);
}

/* The number of containers of the hierarchy @subsys is bound to. */
static int nr_containers(const char *subsys)
{
	int hier, num, enabled;

	if (cn_subsys_info(subsys, &hier, &num, &enabled))
		return -1;
	return num;
}

struct run {
	int attempts;	/* how many N were tried */
	int failed;	/* attempts where the operation failed */
	int bad_errno;	/* failures with an errno other than ENOMEM */
	int bad_check;	/* attempts that left an inconsistency */
	int last_errno;
};

/*
 * Try @op with its first, second, ... injection point failing until it
 * runs through without reaching the point; @verify (in the test process)
 * checks and repairs the state after each attempt.  A failure must be
 * ENOMEM, or @tolerate when that is not 0.
 */
static void run_op(struct __test_metadata *_metadata, const char *name,
		   op_fn op, void *arg,
		   int (*verify)(void *arg, const struct attempt *a),
		   int tolerate, struct run *r)
{
	struct attempt a;
	int nth, ret;

	memset(r, 0, sizeof(*r));
	for (nth = 1; nth <= MAX_NTH; nth++) {
		memset(&a, 0, sizeof(a));
		ret = attempt(op, arg, nth, &a);
		r->attempts++;
		if (ret) {
			/* No ASSERT: run_op() also runs in forked children. */
			TH_LOG("%s: attempt %d: child failed", name, nth);
			r->bad_check++;
			break;
		}
		if (a.ret) {
			r->failed++;
			if (a.ret != ENOMEM && a.ret != tolerate) {
				r->bad_errno++;
				r->last_errno = a.ret;
				TH_LOG("%s: fail-nth %d: errno %d (%s)", name,
				       nth, a.ret, strerror(a.ret));
			}
		}
		if (a.check || (verify && verify(arg, &a))) {
			r->bad_check++;
			TH_LOG("%s: fail-nth %d: ret %d, check %d failed",
			       name, nth, a.ret, a.check);
		}
		/* A success at the injected point is fine (a fallback). */
		if (!a.injected)
			break;
	}
	TH_LOG("%-24s %3d attempts, %3d failed cleanly", name, r->attempts,
	       r->failed - r->bad_errno);
	EXPECT_GT(MAX_NTH + 1, r->attempts);
	EXPECT_EQ(0, r->bad_errno);
	EXPECT_EQ(0, r->bad_check);
}

/* mkdir: a failure leaves no directory and no container counted. */
struct mkdir_arg {
	const char *path;
	const char *subsys;
	int before;
};

static int op_mkdir(void *arg, int *check)
{
	struct mkdir_arg *m = arg;

	if (check)
		return 0;
	return mkdir(m->path, 0755) ? errno : 0;
}

static int verify_mkdir(void *arg, const struct attempt *a)
{
	struct mkdir_arg *m = arg;
	bool there = cn_exists(m->path);
	int bad = 0;

	if (there != !a->ret)
		bad = 1;
	else if (nr_containers(m->subsys) != m->before + there)
		bad = 2;
	if (there && cn_rmdir(m->path))
		bad = 3;
	return bad;
}

TEST_F_TIMEOUT(faults, mkdir_either_works_or_leaves_nothing, 600)
{
	char path[CN_PATH_LEN];
	struct mkdir_arg m = { .path = path };
	struct run r;

	cn_path(path, sizeof(path), self->a, "new");
	m.subsys = "memory";
	m.before = nr_containers("memory");
	run_op(_metadata, "mkdir (cpuset,memory,pids)", op_mkdir, &m,
	       verify_mkdir, 0, &r);
	EXPECT_LT(0, r.failed);

	cn_path(path, sizeof(path), self->a, "c/new");
	m.before = nr_containers("memory");
	run_op(_metadata, "mkdir nested", op_mkdir, &m, verify_mkdir, 0, &r);

	cn_path(path, sizeof(path), self->b, "new");
	m.subsys = "cpuacct";
	m.before = nr_containers("cpuacct");
	run_op(_metadata, "mkdir (cpuacct,debug)", op_mkdir, &m,
	       verify_mkdir, 0, &r);
	EXPECT_LT(0, r.failed);
}

/*
 * Moving oneself: through tasks and container.procs.  The child checks
 * afterwards that it is where the result says, in both hierarchies' views
 * (tasks file and /proc/self/container).
 */
struct move_arg {
	const char *root;
	const char *to;
	const char *file;
};

static int op_move(void *arg, int *check)
{
	struct move_arg *m = arg;
	static int moved;
	char buf[16];
	int in_to, in_root;

	if (!check) {
		snprintf(buf, sizeof(buf), "%d", getpid());
		moved = cn_write_in(m->to, m->file, buf);
		return -moved;
	}
	in_to = cn_has_task(m->to, getpid());
	in_root = cn_has_task(m->root, getpid());
	if (in_to < 0 || in_root < 0)
		*check = 1;
	else if (in_to + in_root != 1)
		*check = 2;
	else if (in_to != !moved)
		*check = 3;
	return 0;
}

TEST_F_TIMEOUT(faults, move_either_works_or_stays, 600)
{
	struct move_arg m = { .root = self->a, .to = self->c, .file = "tasks" };
	char to[CN_PATH_LEN];
	struct run r;

	run_op(_metadata, "move (tasks)", op_move, &m, NULL, 0, &r);
	m.file = "container.procs";
	run_op(_metadata, "move (container.procs)", op_move, &m, NULL, 0, &r);
	m.root = self->b;
	m.to = cn_path(to, sizeof(to), self->b, "m");
	ASSERT_EQ(0, cn_mkdir(m.to));
	m.file = "tasks";
	run_op(_metadata, "move (cpuacct,debug)", op_move, &m, NULL, 0, &r);
}

/*
 * fork inside a container with a task limit: the fork works, or fails
 * with ENOMEM and pids.current is as before (the child's charge undone).
 */
static int op_fork(void *arg, int *check)
{
	const char *c = arg;
	int status;
	pid_t pid;

	if (check) {
		/* Left in the container: run_op()'s process and this one. */
		if (cn_read_long_in(c, "pids.current") != 2)
			*check = 1;
		return 0;
	}
	pid = fork();
	if (pid < 0)
		return errno;
	if (!pid)
		_exit(0);
	waitpid(pid, &status, 0);
	return 0;
}

TEST_F_TIMEOUT(faults, fork_either_works_or_uncharges, 600)
{
	char c[CN_PATH_LEN];
	struct run r;
	pid_t pid;
	int status;

	cn_path(c, sizeof(c), self->c, "f");
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, copy_value(c, self->c, "cpuset.cpus"));
	ASSERT_EQ(0, copy_value(c, self->c, "cpuset.mems"));
	ASSERT_EQ(0, cn_write_in(c, "pids.max", "10"));
	/*
	 * The attempts run in a child that is already in the container:
	 * fork one to run run_op() there and report through its status.
	 */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (cn_move_self(c))
			_exit(1);
		run_op(_metadata, "fork in a container", op_fork, c, NULL, 0, &r);
		_exit(r.bad_errno || r.bad_check ? 2 :
		      !r.failed ? 3 : __test_passed(_metadata) ? 0 : 4);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, cn_read_long_in(c, "pids.current"));
	EXPECT_EQ(0, cn_read_long_in(self->c, "pids.current"));
}

/*
 * mount: a failure binds nothing and leaves no mount; a success is
 * unmounted again (which must then free the hierarchy).
 */
struct mount_arg {
	char dir[CN_DIR_LEN];
	int before;	/* hierarchy id of ns before: 0, unbound */
};

static int op_mount(void *arg, int *check)
{
	struct mount_arg *m = arg;

	if (check)
		return 0;
	return mount("none", m->dir, CN_FSTYPE, 0, "ns,name=faults") ?
	       errno : 0;
}

static bool mounted_at(const char *dir)
{
	char field[CN_PATH_LEN], *all;
	bool found;

	snprintf(field, sizeof(field), " %s ", dir);
	all = cn_read_all("/proc/mounts", 4096);
	found = all && strstr(all, field);
	free(all);
	return found;
}

static int verify_mount(void *arg, const struct attempt *a)
{
	struct mount_arg *m = arg;
	int hier, num, enabled, bad = 0;
	bool mounted = mounted_at(m->dir);

	if (mounted != !a->ret)
		bad = 1;
	if (cn_subsys_info("ns", &hier, &num, &enabled))
		bad = 2;
	else if ((hier != 0) != mounted)
		bad = 3;
	if (mounted && umount(m->dir))
		bad = 4;
	/* The hierarchy goes once unmounted and empty. */
	if (!bad && cn_wait_subsys_hier("ns", 0, 3000))
		bad = 5;
	return bad;
}

TEST_F_TIMEOUT(faults, mount_either_works_or_binds_nothing, 600)
{
	struct mount_arg m;
	struct run r;

	snprintf(m.dir, sizeof(m.dir), "%sXXXXXX", CN_TMP_PREFIX);
	ASSERT_NE(NULL, mkdtemp(m.dir));
	if (cn_wait_subsys_hier("ns", 0, 3000))
		SKIP(rmdir(m.dir); return, "ns is bound elsewhere");
	run_op(_metadata, "mount ns,name=", op_mount, &m, verify_mount, 0, &r);
	EXPECT_LT(0, r.failed);
	rmdir(m.dir);
}

/* Writes to control files: a failure leaves the value as it was. */
struct write_arg {
	const char *file;
	const char *value;
	const char *other;	/* the value before; restored after a success */
};

static int op_write(void *arg, int *check)
{
	struct write_arg *w = arg;

	if (check)
		return 0;
	return -cn_write(w->file, w->value);
}

static int verify_write(void *arg, const struct attempt *a)
{
	struct write_arg *w = arg;
	char now[CN_PATH_LEN];
	int bad = 0;

	cn_str(w->file, now, sizeof(now));
	if (strcmp(now, a->ret ? w->other : w->value))
		bad = 1;
	if (!a->ret && cn_write(w->file, w->other))
		bad = 2;
	return bad;
}

TEST_F_TIMEOUT(faults, writes_either_work_or_change_nothing, 600)
{
	struct write_arg w[] = {
		{ "cpuset.cpus", "1", NULL },
		{ "cpuset.mems", "0", NULL },
		{ "memory.limit_in_bytes", "67108864", NULL },
		{ "memory.soft_limit_in_bytes", "33554432", NULL },
		{ "pids.max", "50", NULL },
	};
	char file[CN_PATH_LEN], other[CN_PATH_LEN];
	unsigned int i;
	struct run r;

	for (i = 0; i < ARRAY_SIZE(w); i++) {
		cn_path(file, sizeof(file), self->c, w[i].file);
		w[i].other = cn_str(file, other, sizeof(other));
		w[i].file = file;
		run_op(_metadata, w[i].file + strlen(self->a) + 1, op_write,
		       &w[i], verify_write, 0, &r);
	}
}

/* Reading /proc/self/container and a tasks file under failures. */
static int op_read(void *arg, int *check)
{
	char buf[4096];
	ssize_t n;

	if (check)
		return 0;
	n = cn_read(arg, buf, sizeof(buf));
	return n < 0 ? -n : 0;
}

TEST_F_TIMEOUT(faults, reads_either_work_or_enomem, 600)
{
	char tasks[CN_PATH_LEN];
	struct run r;

	cn_path(tasks, sizeof(tasks), self->c, "tasks");
	/* procfs answers ENOENT when it cannot allocate a pid's inode. */
	run_op(_metadata, "read /proc/self/container", op_read,
	       "/proc/self/container", NULL, ENOENT, &r);
	run_op(_metadata, "read /proc/containers", op_read,
	       "/proc/containers", NULL, 0, &r);
	run_op(_metadata, "read tasks", op_read, tasks, NULL, 0, &r);
}

/* rmdir: a failure leaves the container, a success removes it. */
static int op_rmdir(void *arg, int *check)
{
	if (check)
		return 0;
	return rmdir(arg) ? errno : 0;
}

static int verify_rmdir(void *arg, const struct attempt *a)
{
	bool there = cn_exists(arg);

	if (there != !!a->ret)
		return 1;
	if (!there && cn_mkdir(arg))
		return 2;
	return 0;
}

TEST_F_TIMEOUT(faults, rmdir_either_works_or_stays, 600)
{
	char d[CN_PATH_LEN];
	struct run r;

	cn_path(d, sizeof(d), self->a, "r");
	ASSERT_EQ(0, cn_mkdir(d));
	run_op(_metadata, "rmdir", op_rmdir, d, verify_rmdir, 0, &r);
}

/* The names in directory @dir, sorted, one string ("" if unreadable). */
static char *listing(const char *dir)
{
	struct dirent **names;
	size_t len = 1;
	char *out;
	int n, i;

	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		return strdup("");
	for (i = 0; i < n; i++)
		len += strlen(names[i]->d_name) + 1;
	out = calloc(1, len);
	for (i = 0; i < n; i++) {
		if (out) {
			strcat(out, names[i]->d_name);
			strcat(out, ",");
		}
		free(names[i]);
	}
	free(names);
	return out;
}

/*
 * Remount adding a subsystem: all or nothing.  A failure leaves the
 * hierarchy exactly as it was (same files, subsystem unbound, mkdir
 * works); a success binds it with its files and is undone for the next
 * attempt.  (Review bug: a failure while making the files kept the
 * subsystem bound without them and removed files of others.)
 */
struct remount_arg {
	const char *dir;
	const char *from;
	const char *to;
	char *before;
	int hid;
};

static int op_remount(void *arg, int *check)
{
	struct remount_arg *m = arg;

	if (check)
		return 0;
	return mount("none", m->dir, CN_FSTYPE, MS_REMOUNT, m->to) ? errno : 0;
}

static int verify_remount(void *arg, const struct attempt *a)
{
	struct remount_arg *m = arg;
	char *now = listing(m->dir);
	int bad = 0;

	if (a->ret) {
		if (strcmp(now, m->before))
			bad = 1;
		else if (cn_hier_id("cpuacct") == m->hid)
			bad = 2;
		else if (cn_mkdir_in(m->dir, "x") || cn_rmdir_in(m->dir, "x"))
			bad = 3;
	} else if (cn_hier_id("cpuacct") != m->hid ||
		   !cn_exists_in(m->dir, "cpuacct.usage")) {
		bad = 4;
	} else if (mount("none", m->dir, CN_FSTYPE, MS_REMOUNT, m->from)) {
		bad = 5;
	} else {
		free(now);
		now = listing(m->dir);
		if (strcmp(now, m->before))
			bad = 6;
	}
	if (bad)
		ksft_print_msg("remount: check %d: before %s, now %s\n", bad,
			       m->before, now);
	free(now);
	return bad;
}

TEST_F_TIMEOUT(faults, remount_either_works_or_changes_nothing, 600)
{
	char name[32], from[CN_DIR_LEN], to[CN_DIR_LEN], opts[CN_DIR_LEN];
	struct remount_arg m = { .from = from, .to = to };
	char *dir;
	struct run r;

	/* The fixture's cpuacct,debug hierarchy goes; one without cpuacct. */
	ASSERT_EQ(0, cn_env_umount(&self->env, self->b));
	ASSERT_EQ(0, cn_wait_subsys_hier("cpuacct", 0, 3000));
	snprintf(name, sizeof(name), "rmt%d", getpid());
	snprintf(from, sizeof(from), "debug,name=%s", name);
	snprintf(to, sizeof(to), "debug,cpuacct,name=%s", name);
	snprintf(opts, sizeof(opts), "name=%s", name);
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, from, &dir));
	m.dir = dir;
	m.hid = cn_hier_id(opts);
	m.before = listing(dir);
	ASSERT_GT(m.hid, 0);
	ASSERT_NE(NULL, strstr(m.before, "debug.taskcount"));
	run_op(_metadata, "remount +cpuacct", op_remount, &m, verify_remount,
	       0, &r);
	EXPECT_LT(0, r.failed);
	free(m.before);
}

TEST_HARNESS_MAIN
