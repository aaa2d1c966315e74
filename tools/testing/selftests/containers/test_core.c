// SPDX-License-Identifier: GPL-2.0
/*
 * Core interface of process containers: mounting hierarchies, creating and
 * removing containers, moving tasks, the per-container control files, the
 * release agent, /proc/<pid>/container, /proc/containers and the debug
 * subsystem.
 *
 * Every test works on hierarchies it mounts itself under /tmp/cntest.* and
 * removes again.  Only the "dbg" fixture and a few mount tests bind the
 * debug subsystem, which can be bound to one hierarchy at a time; the
 * others use "none,name=ct<pid>" hierarchies that cannot collide.
 *
 * Loop and if bodies holding an EXPECT_*() or ASSERT_*() keep their braces
 * even when they are one statement: the harness macros are two statements
 * (the check, then the optional TH_LOG() handler).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "container_util.h"

#define BAD_READ	CN_BAD_READ

static const char * const core_files[] = {
	"tasks", "container.procs", "notify_on_release",
	"container.clone_children",
};

static const char * const debug_files[] = {
	"debug.container_refcount", "debug.taskcount",
	"debug.current_css_group", "debug.current_css_group_refcount",
	"debug.releasable",
	"debug.css_group_count", "debug.descendants",
};

/* The path of @pid in hierarchy @hid in @buf, or "<error N>"; @buf. */
static char *where(pid_t pid, int hid, char *buf, size_t len)
{
	int ret;

	ret = cn_proc_path(pid, hid, buf, len);
	if (ret)
		snprintf(buf, len, "<error %d>", ret);
	return buf;
}

/*
 * Poll until file @file of container @cont holds @want, for at most @ms
 * milliseconds.
 */
static long wait_long(const char *cont, const char *file, long want, long ms)
{
	long end = cn_now_ms() + ms, v;

	for (;;) {
		v = cn_read_long_in(cont, file);
		if (v == want || cn_now_ms() > end)
			return v;
		cn_sleep_ms(20);
	}
}

static bool file_has_line(const char *path, const char *line)
{
	char *text = cn_read_all(path, 4096), *p, *nl;
	size_t len = strlen(line);
	bool found = false;

	if (!text)
		return false;
	for (p = text; *p; p = nl + 1) {
		nl = strchrnul(p, '\n');
		if ((size_t)(nl - p) == len && !strncmp(p, line, len)) {
			found = true;
			break;
		}
		if (!*nl)
			break;
	}
	free(text);
	return found;
}

static bool wait_line(const char *path, const char *line, long ms)
{
	long end = cn_now_ms() + ms;

	while (!file_has_line(path, line)) {
		if (cn_now_ms() > end)
			return false;
		cn_sleep_ms(50);
	}
	return true;
}

/* A pid that no task has now. */
static pid_t unused_pid(void)
{
	long max = cn_long("/proc/sys/kernel/pid_max");
	char path[64];
	pid_t p;

	if (max == BAD_READ || max < 300)
		max = 32768;
	for (p = max - 1; p > 300; p--) {
		snprintf(path, sizeof(path), "/proc/%d", p);
		if (!cn_exists(path))
			return p;
	}
	return -1;
}

/*
 * A child process with @nthreads threads besides its main thread, all
 * sleeping until killed.  tids[0] is the main thread (the tgid), then the
 * threads.  Returns the pid or -1.
 */
struct thr_arg {
	pthread_barrier_t *barrier;
	pid_t *slot;
};

static void *thr_main(void *data)
{
	struct thr_arg *arg = data;

	*arg->slot = cn_gettid();
	pthread_barrier_wait(arg->barrier);
	for (;;)
		pause();
	return NULL;
}

static pid_t spawn_threaded(struct cn_env *env, int nthreads, pid_t *tids)
{
	int fds[2], i, count;
	size_t len, got = 0;
	ssize_t n;
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
		pthread_barrier_t barrier;
		struct thr_arg *args;
		pthread_attr_t attr;
		pthread_t th;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(fds[0]);
		args = calloc(nthreads, sizeof(*args));
		pthread_barrier_init(&barrier, NULL, nthreads + 1);
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 64 * 1024);
		tids[0] = cn_gettid();
		for (i = 0; i < nthreads; i++) {
			args[i].barrier = &barrier;
			args[i].slot = &tids[i + 1];
			if (pthread_create(&th, &attr, thr_main, &args[i])) {
				count = -1;
				if (write(fds[1], &count, sizeof(count)) < 0)
					_exit(1);
				_exit(1);
			}
		}
		pthread_barrier_wait(&barrier);
		count = nthreads + 1;
		if (write(fds[1], &count, sizeof(count)) < 0 ||
		    write(fds[1], tids, count * sizeof(*tids)) < 0)
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	cn_env_track(env, pid);
	if (read(fds[0], &count, sizeof(count)) != sizeof(count) ||
	    count != nthreads + 1)
		goto fail;
	len = count * sizeof(*tids);
	while (got < len) {
		n = read(fds[0], (char *)tids + got, len - got);
		if (n <= 0)
			goto fail;
		got += n;
	}
	close(fds[0]);
	return pid;
fail:
	close(fds[0]);
	cn_env_kill(env, pid);
	return -1;
}

/* A sleeping child whose uids are all @uid. */
static pid_t spawn_sleeper_as(struct cn_env *env, uid_t uid)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
			_exit(1);
		if (getppid() != parent)
			_exit(0);
		for (;;)
			pause();
	}
	cn_env_track(env, pid);
	return pid;
}

/* ---------------------------------------------------------------------
 * Fixtures.
 *
 * bare:  nothing mounted; tests mount through self->env.
 * named: a fresh "none,name=ct<pid>" hierarchy at self->root.
 * dbg:   the debug subsystem's hierarchy at self->root.
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

FIXTURE(named) {
	struct cn_env env;
	char *root;
	char name[32];
	int hid;
};

FIXTURE_SETUP(named)
{
	char opts[CN_DIR_LEN];

	cn_cleanup_stale();
	cn_env_init(&self->env);
	snprintf(self->name, sizeof(self->name), "ct%d", getpid());
	snprintf(opts, sizeof(opts), "none,name=%s", self->name);
	ASSERT_EQ(0, cn_env_mount(&self->env, opts, &self->root));
	snprintf(opts, sizeof(opts), "name=%s", self->name);
	self->hid = cn_hier_id(opts);
}

FIXTURE_TEARDOWN(named)
{
	cn_env_cleanup(&self->env);
}

FIXTURE(dbg) {
	struct cn_env env;
	char *root;
	int hid;
};

FIXTURE_SETUP(dbg)
{
	cn_cleanup_stale();
	cn_env_init(&self->env);
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "debug", &self->root));
	self->hid = cn_hier_id("debug");
}

FIXTURE_TEARDOWN(dbg)
{
	cn_env_cleanup(&self->env);
}

/* ---------------------------------------------------------------------
 * Mounting.
 * ---------------------------------------------------------------------
 */
TEST_F(bare, mount_named_hierarchy)
{
	char name[32], opts[CN_DIR_LEN], got[CN_PATH_LEN], *m;
	int i, hid;

	snprintf(name, sizeof(name), "ct%d", getpid());
	snprintf(opts, sizeof(opts), "none,name=%s", name);
	ASSERT_EQ(0, cn_env_mount(&self->env, opts, &m));
	for (i = 0; i < ARRAY_SIZE(core_files); i++) {
		EXPECT_TRUE(cn_exists_in(m, core_files[i]))
			TH_LOG("missing %s", core_files[i]);
	}
	EXPECT_TRUE(cn_exists_in(m, "release_agent"));
	for (i = 0; i < ARRAY_SIZE(debug_files); i++) {
		EXPECT_FALSE(cn_exists_in(m, debug_files[i]))
			TH_LOG("%s", debug_files[i]);
	}
	snprintf(opts, sizeof(opts), "name=%s", name);
	hid = cn_hier_id(opts);
	ASSERT_GT(hid, 0);
	EXPECT_STREQ("/", where(0, hid, got, sizeof(got)));
	EXPECT_EQ(1, cn_has_task(m, getpid()));
}

/* The size of the buffer of mount_options(). */
#define OPTS_LEN	512

/*
 * The options of a mount in /proc/mounts, after "container rw,relatime",
 * in @opts of OPTS_LEN bytes; returns @opts.
 */
static char *mount_options(const char *dir, char *opts)
{
	char *all = cn_read_all("/proc/mounts", 4096), *line, *save;
	char mnt[256], type[64];

	snprintf(opts, OPTS_LEN, "<not mounted>");
	for (line = all ? strtok_r(all, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%*s %255s %63s %511s", mnt, type, opts) == 3 &&
		    !strcmp(mnt, dir) && !strcmp(type, CN_FSTYPE))
			break;
		snprintf(opts, OPTS_LEN, "<not mounted>");
	}
	free(all);
	return opts;
}

/*
 * /proc/mounts shows a hierarchy's options (show_options runs under the
 * VFS's namespace_sem: on the debug kernel lockdep watches it) and follows
 * a change of the release agent.
 */
TEST_F(bare, proc_mounts_shows_options)
{
	char name[32], want[CN_PATH_LEN], got[OPTS_LEN], *m;

	snprintf(name, sizeof(name), "ct%d", getpid());
	snprintf(want, sizeof(want),
		 "none,name=%s,clone_children,release_agent=/sbin/agent",
		 name);
	ASSERT_EQ(0, cn_env_mount(&self->env, want, &m));
	snprintf(want, sizeof(want),
		 "rw,relatime,none,clone_children,release_agent=/sbin/agent,name=%s",
		 name);
	EXPECT_STREQ(want, mount_options(m, got));
	ASSERT_EQ(0, cn_write_in(m, "release_agent", "/bin/other"));
	snprintf(want, sizeof(want),
		 "rw,relatime,none,clone_children,release_agent=/bin/other,name=%s",
		 name);
	EXPECT_STREQ(want, mount_options(m, got));
	ASSERT_EQ(0, cn_write_in(m, "release_agent", ""));
	snprintf(want, sizeof(want), "rw,relatime,none,clone_children,name=%s",
		 name);
	EXPECT_STREQ(want, mount_options(m, got));
}

TEST_F(bare, mount_debug_prefixed_files)
{
	char c[CN_PATH_LEN], *m;
	int i;

	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "debug", &m));
	cn_path(c, sizeof(c), m, "c");
	ASSERT_EQ(0, cn_mkdir(c));
	for (i = 0; i < ARRAY_SIZE(debug_files); i++) {
		EXPECT_TRUE(cn_exists_in(m, debug_files[i]))
			TH_LOG("missing %s in root", debug_files[i]);
		EXPECT_TRUE(cn_exists_in(c, debug_files[i]))
			TH_LOG("missing %s in child", debug_files[i]);
		/* Without the "debug." prefix: absent. */
		EXPECT_FALSE(cn_exists_in(m, debug_files[i] + 6));
	}
	for (i = 0; i < ARRAY_SIZE(core_files); i++) {
		EXPECT_TRUE(cn_exists_in(c, core_files[i]))
			TH_LOG("%s", core_files[i]);
	}
	EXPECT_TRUE(cn_exists_in(m, "release_agent"));
	EXPECT_FALSE(cn_exists_in(m, "c/release_agent"));
}

/* noprefix is for cpuset alone, as in cgroup v1 (the old cpuset fs). */
TEST_F(bare, mount_noprefix)
{
	char *m;
	int i;

	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "cpuset,noprefix", &m));
	EXPECT_TRUE(cn_exists_in(m, "cpus"));
	EXPECT_TRUE(cn_exists_in(m, "mems"));
	EXPECT_TRUE(cn_exists_in(m, "cpu_exclusive"));
	EXPECT_FALSE(cn_exists_in(m, "cpuset.cpus"));
	/* The core files keep their names. */
	for (i = 0; i < ARRAY_SIZE(core_files); i++) {
		EXPECT_TRUE(cn_exists_in(m, core_files[i]))
			TH_LOG("missing %s", core_files[i]);
	}
	EXPECT_TRUE(cn_exists_in(m, "release_agent"));
	ASSERT_EQ(0, cn_mkdir_in(m, "c"));
	EXPECT_TRUE(cn_exists_in(m, "c/cpus"));
	EXPECT_TRUE(cn_exists_in(m, "c/tasks"));
	ASSERT_EQ(0, cn_rmdir_in(m, "c"));
	/* No other subsystem may join it, and the refusal changes nothing. */
	EXPECT_EQ(-EINVAL, cn_remount(m, "cpuset,debug"));
	EXPECT_EQ(-EINVAL, cn_remount(m, "cpuset,debug,noprefix"));
	EXPECT_FALSE(cn_exists_in(m, "taskcount"));
	EXPECT_TRUE(cn_exists_in(m, "cpus"));
	EXPECT_NE(cn_hier_id("cpuset"), cn_hier_id("debug"));
}

TEST_F(bare, mount_noprefix_other_subsystems_einval)
{
	static const char * const bad[] = {
		"debug,noprefix", "cpuacct,memory,noprefix",
		"cpuset,debug,noprefix", "noprefix",
	};
	char opts[CN_DIR_LEN];
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, cn_env_mount(&self->env, bad[i], NULL))
			TH_LOG("'%s'", bad[i]);
	}
	/* Without subsystems there is nothing to clash. */
	snprintf(opts, sizeof(opts), "none,noprefix,name=np%d", getpid());
	EXPECT_EQ(0, cn_env_mount(&self->env, opts, NULL));
}

TEST_F(bare, mount_unknown_subsystem_einval)
{
	char opts[CN_DIR_LEN];

	EXPECT_EQ(-EINVAL, cn_env_mount(&self->env, "nosuchsubsys", NULL));
	EXPECT_EQ(-EINVAL, cn_env_mount(&self->env, "debug,nosuchsubsys",
					NULL));
	snprintf(opts, sizeof(opts), "nosuchsubsys,name=ct%d", getpid());
	EXPECT_EQ(-EINVAL, cn_env_mount(&self->env, opts, NULL));
	/* A failed mount must not have left debug bound. */
	EXPECT_EQ(0, cn_env_mount_retry(&self->env, "debug", NULL));
}

TEST_F(bare, mount_unknown_option_einval)
{
	char opts[CN_DIR_LEN];

	EXPECT_EQ(-EINVAL, cn_env_mount(&self->env, "debug,bogus=1", NULL));
	snprintf(opts, sizeof(opts), "none,name=ct%d,frobnicate=yes",
		 getpid());
	EXPECT_EQ(-EINVAL, cn_env_mount(&self->env, opts, NULL));
	EXPECT_EQ(0, cn_env_mount_retry(&self->env, "debug", NULL));
}

TEST_F(bare, mount_none_requires_name)
{
	char opts[CN_DIR_LEN];

	EXPECT_EQ(-EINVAL, cn_env_mount(&self->env, "none", NULL));
	EXPECT_EQ(-EINVAL, cn_env_mount(&self->env, "none,noprefix", NULL));
	snprintf(opts, sizeof(opts), "none,name=ct%d", getpid());
	EXPECT_EQ(0, cn_env_mount(&self->env, opts, NULL));
}

TEST_F(bare, mount_bound_subsystem_ebusy)
{
	char opts[CN_DIR_LEN], *m, *r;
	int hier, num, en, hid;

	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "debug", &m));
	hid = cn_hier_id("debug");
	ASSERT_GT(hid, 0);
	/* A new hierarchy cannot take debug away. */
	snprintf(opts, sizeof(opts), "debug,name=ct%d", getpid());
	EXPECT_EQ(-EBUSY, cn_env_mount(&self->env, opts, NULL));
	/* Nor can another one grab it by remounting. */
	snprintf(opts, sizeof(opts), "none,name=ct%dr", getpid());
	ASSERT_EQ(0, cn_env_mount(&self->env, opts, &r));
	snprintf(opts, sizeof(opts), "debug,name=ct%dr", getpid());
	EXPECT_EQ(-EBUSY, cn_remount(r, opts));
	EXPECT_FALSE(cn_exists_in(r, "debug.taskcount"));
	ASSERT_EQ(0, cn_subsys_info("debug", &hier, &num, &en));
	EXPECT_EQ(hid, hier);
	EXPECT_EQ(1, cn_hier_count("debug"));
}

TEST_F(bare, mount_same_subsystems_same_hierarchy)
{
	char x1[CN_PATH_LEN], x2[CN_PATH_LEN], *m1, *m2;
	pid_t pid;

	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "debug", &m1));
	ASSERT_EQ(0, cn_env_mount(&self->env, "debug", &m2));
	cn_path(x1, sizeof(x1), m1, "x");
	cn_path(x2, sizeof(x2), m2, "x");
	EXPECT_EQ(1, cn_hier_count("debug"));
	ASSERT_EQ(0, cn_mkdir(x1));
	EXPECT_TRUE(cn_exists_in(x2, "tasks"));
	pid = cn_env_sleeper(&self->env);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, cn_move(x2, pid));
	EXPECT_EQ(1, cn_has_task(x1, pid));
	EXPECT_EQ(0, cn_has_task(m1, pid));
	cn_env_kill(&self->env, pid);
	EXPECT_EQ(0, cn_rmdir_in(m2, "x"));
	EXPECT_FALSE(cn_exists_in(m1, "x"));
}

TEST_F(bare, mount_same_name_same_hierarchy)
{
	char name[32], opts[CN_DIR_LEN], *m1, *m2;

	snprintf(name, sizeof(name), "ct%d", getpid());
	snprintf(opts, sizeof(opts), "none,name=%s", name);
	ASSERT_EQ(0, cn_env_mount(&self->env, opts, &m1));
	ASSERT_EQ(0, cn_env_mount(&self->env, opts, &m2));
	snprintf(opts, sizeof(opts), "name=%s", name);
	EXPECT_EQ(1, cn_hier_count(opts));
	ASSERT_EQ(0, cn_mkdir_in(m2, "a"));
	ASSERT_EQ(0, cn_mkdir_in(m1, "a/b"));
	EXPECT_TRUE(cn_exists_in(m2, "a/b/tasks"));
	ASSERT_EQ(0, cn_write_in(m1, "a/notify_on_release", "1"));
	EXPECT_EQ(1, cn_read_long_in(m2, "a/notify_on_release"));
}

TEST_F(bare, mount_same_name_other_subsystems_ebusy)
{
	char opts[CN_DIR_LEN], *m;

	snprintf(opts, sizeof(opts), "none,name=ct%da", getpid());
	ASSERT_EQ(0, cn_env_mount(&self->env, opts, &m));
	snprintf(opts, sizeof(opts), "debug,name=ct%da", getpid());
	EXPECT_EQ(-EBUSY, cn_env_mount(&self->env, opts, NULL));
	EXPECT_FALSE(cn_exists_in(m, "debug.taskcount"));

	snprintf(opts, sizeof(opts), "debug,name=ct%db", getpid());
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, opts, &m));
	snprintf(opts, sizeof(opts), "none,name=ct%db", getpid());
	EXPECT_EQ(-EBUSY, cn_env_mount(&self->env, opts, NULL));
	EXPECT_TRUE(cn_exists_in(m, "debug.taskcount"));
}

static void check_binds_debug(struct __test_metadata *_metadata,
			      const char *m)
{
	int hier, num, en, hid;
	char got[CN_PATH_LEN];

	hid = cn_hier_id("debug");
	ASSERT_GT(hid, 0);
	ASSERT_EQ(0, cn_subsys_info("debug", &hier, &num, &en));
	EXPECT_EQ(hid, hier);
	EXPECT_TRUE(cn_exists_in(m, "debug.taskcount"));
	EXPECT_TRUE(cn_exists_in(m, "tasks"));
	EXPECT_STREQ("/", where(0, hid, got, sizeof(got)));
}

TEST_F(bare, mount_all_binds_free_subsystems)
{
	char *m;

	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "all", &m));
	check_binds_debug(_metadata, m);
}

TEST_F(bare, mount_without_options_binds_free_subsystems)
{
	char *m;

	ASSERT_EQ(0, cn_env_mount_retry(&self->env, NULL, &m));
	check_binds_debug(_metadata, m);
}

static int try_mount(void *arg)
{
	const char *dir = arg;

	if (mount("none", dir, CN_FSTYPE, 0, "debug"))
		return -errno;
	umount(dir);
	return 0;
}

static int try_mount_named(void *arg)
{
	const char *dir = arg;

	if (mount("none", dir, CN_FSTYPE, 0, "none,name=ctnobody"))
		return -errno;
	umount(dir);
	return 0;
}

TEST_F(bare, mount_requires_cap_sys_admin)
{
	const char *tmp = cn_env_tmpdir(&self->env);
	char dir[CN_PATH_LEN];

	ASSERT_NE(NULL, tmp);
	cn_path(dir, sizeof(dir), tmp, "mnt");
	ASSERT_EQ(0, mkdir(dir, 0777));
	ASSERT_EQ(0, chmod(tmp, 0777));
	EXPECT_EQ(-EPERM, cn_run_as(CN_NOBODY, try_mount, dir));
	EXPECT_EQ(-EPERM, cn_run_as(CN_NOBODY, try_mount_named, dir));
	rmdir(dir);
}

TEST_F(bare, hierarchy_with_children_survives_umount)
{
	char name[32], opts[CN_DIR_LEN], *m;

	snprintf(name, sizeof(name), "ct%d", getpid());
	snprintf(opts, sizeof(opts), "debug,name=%s", name);
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, opts, &m));
	ASSERT_EQ(0, cn_mkdir_in(m, "keep"));
	ASSERT_EQ(0, cn_write_in(m, "keep/notify_on_release", "1"));
	ASSERT_EQ(0, cn_env_umount(&self->env, m));

	/* Still alive, so debug is still taken. */
	snprintf(opts, sizeof(opts), "debug,name=%sx", name);
	EXPECT_EQ(-EBUSY, cn_env_mount(&self->env, opts, NULL));

	/* Mount it again: the old children are there. */
	snprintf(opts, sizeof(opts), "debug,name=%s", name);
	ASSERT_EQ(0, cn_env_mount(&self->env, opts, &m));
	EXPECT_TRUE(cn_exists_in(m, "keep/tasks"));
	EXPECT_EQ(1, cn_read_long_in(m, "keep/notify_on_release"));
	EXPECT_EQ(0, cn_rmdir_in(m, "keep"));
}

TEST_F(bare, hierarchy_without_children_destroyed)
{
	char opts[CN_DIR_LEN], name_a[CN_DIR_LEN], *m;
	int hier, num, en;

	snprintf(opts, sizeof(opts), "debug,name=ct%da", getpid());
	snprintf(name_a, sizeof(name_a), "name=ct%da", getpid());
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, opts, &m));
	ASSERT_GT(cn_hier_id(name_a), 0);
	ASSERT_EQ(0, cn_mkdir_in(m, "tmp"));
	ASSERT_EQ(0, cn_rmdir_in(m, "tmp"));
	ASSERT_EQ(0, cn_env_umount(&self->env, m));

	/* Gone (allowing for deferred freeing)... */
	EXPECT_EQ(0, cn_wait_subsys_hier("debug", 0, 3000));
	ASSERT_EQ(0, cn_subsys_info("debug", &hier, &num, &en));
	EXPECT_EQ(1, num);
	EXPECT_EQ(-ENOENT, cn_hier_id(name_a));
	/* ...so debug can go to a hierarchy of another name. */
	snprintf(opts, sizeof(opts), "debug,name=ct%db", getpid());
	ASSERT_EQ(0, cn_env_mount(&self->env, opts, &m));
	EXPECT_TRUE(cn_exists_in(m, "debug.taskcount"));
	snprintf(opts, sizeof(opts), "name=ct%db", getpid());
	EXPECT_GT(cn_hier_id(opts), 0);
}

TEST_F(bare, remount_changes_subsystems)
{
	char name[32], none[CN_DIR_LEN], debug[CN_DIR_LEN], *m;
	int hier, num, en, hid;

	ASSERT_EQ(0, cn_wait_subsys_hier("debug", 0, 3000));
	snprintf(name, sizeof(name), "name=ct%d", getpid());
	snprintf(none, sizeof(none), "none,%s", name);
	snprintf(debug, sizeof(debug), "debug,%s", name);
	ASSERT_EQ(0, cn_env_mount(&self->env, none, &m));
	hid = cn_hier_id(name);
	ASSERT_GT(hid, 0);
	ASSERT_FALSE(cn_exists_in(m, "debug.taskcount"));

	ASSERT_EQ(0, cn_remount(m, debug));
	EXPECT_TRUE(cn_exists_in(m, "debug.taskcount"));
	EXPECT_EQ(hid, cn_hier_id("debug"));
	EXPECT_EQ(hid, cn_hier_id(name));
	ASSERT_EQ(0, cn_subsys_info("debug", &hier, &num, &en));
	EXPECT_EQ(hid, hier);
	EXPECT_EQ(1, cn_has_task(m, getpid()));

	ASSERT_EQ(0, cn_remount(m, none));
	EXPECT_FALSE(cn_exists_in(m, "debug.taskcount"));
	EXPECT_EQ(-ENOENT, cn_hier_id("debug"));
	EXPECT_EQ(0, cn_wait_subsys_hier("debug", 0, 3000));
	/* Still the same hierarchy, still mounted. */
	EXPECT_EQ(hid, cn_hier_id(name));
	EXPECT_EQ(1, cn_has_task(m, getpid()));
}

TEST_F(bare, remount_with_children_ebusy)
{
	char name[32], opts[CN_DIR_LEN], *m;
	int hier, num, en;

	ASSERT_EQ(0, cn_wait_subsys_hier("debug", 0, 3000));
	snprintf(name, sizeof(name), "ct%d", getpid());
	snprintf(opts, sizeof(opts), "none,name=%s", name);
	ASSERT_EQ(0, cn_env_mount(&self->env, opts, &m));
	ASSERT_EQ(0, cn_mkdir_in(m, "c"));
	snprintf(opts, sizeof(opts), "debug,name=%s", name);
	EXPECT_EQ(-EBUSY, cn_remount(m, opts));
	EXPECT_FALSE(cn_exists_in(m, "debug.taskcount"));
	EXPECT_FALSE(cn_exists_in(m, "c/debug.taskcount"));
	ASSERT_EQ(0, cn_subsys_info("debug", &hier, &num, &en));
	EXPECT_EQ(0, hier);
	/* Without the child it works. */
	ASSERT_EQ(0, cn_rmdir_in(m, "c"));
	EXPECT_EQ(0, cn_remount(m, opts));
	EXPECT_TRUE(cn_exists_in(m, "debug.taskcount"));
}

TEST_F(bare, mount_option_clone_children)
{
	char opts[CN_DIR_LEN], *m1, *m2;

	snprintf(opts, sizeof(opts), "none,name=ct%da,clone_children",
		 getpid());
	ASSERT_EQ(0, cn_env_mount(&self->env, opts, &m1));
	snprintf(opts, sizeof(opts), "none,name=ct%db", getpid());
	ASSERT_EQ(0, cn_env_mount(&self->env, opts, &m2));
	EXPECT_EQ(1, cn_read_long_in(m1, "container.clone_children"));
	EXPECT_EQ(0, cn_read_long_in(m2, "container.clone_children"));
	ASSERT_EQ(0, cn_mkdir_in(m1, "c"));
	EXPECT_EQ(1, cn_read_long_in(m1, "c/container.clone_children"));
}

TEST_F(bare, mount_option_release_agent)
{
	char opts[CN_DIR_LEN], val[CN_PATH_LEN], *m;

	snprintf(opts, sizeof(opts),
		 "none,name=ct%d,release_agent=/tmp/agent-x", getpid());
	ASSERT_EQ(0, cn_env_mount(&self->env, opts, &m));
	EXPECT_STREQ("/tmp/agent-x",
		     cn_read_str_in(m, "release_agent", val, sizeof(val)));
}

/* ---------------------------------------------------------------------
 * Containers as directories.
 * ---------------------------------------------------------------------
 */
TEST_F(named, mkdir_rmdir)
{
	char c[CN_PATH_LEN], val[CN_PATH_LEN];
	struct dirent *de;
	bool listed = false;
	struct stat st;
	DIR *d;
	int i;

	cn_path(c, sizeof(c), self->root, "c");
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, stat(c, &st));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	for (i = 0; i < ARRAY_SIZE(core_files); i++) {
		EXPECT_TRUE(cn_exists_in(c, core_files[i]))
			TH_LOG("missing %s", core_files[i]);
	}
	EXPECT_EQ(0, cn_count_tasks(c));
	EXPECT_STREQ("", cn_read_str_in(c, "container.procs", val,
					sizeof(val)));

	d = opendir(self->root);
	ASSERT_NE(NULL, d);
	while ((de = readdir(d)))
		if (!strcmp(de->d_name, "c"))
			listed = true;
	closedir(d);
	EXPECT_TRUE(listed);

	EXPECT_EQ(-EEXIST, cn_mkdir(c));
	EXPECT_EQ(-EEXIST, cn_mkdir_in(self->root, "tasks"));
	EXPECT_EQ(0, cn_rmdir(c));
	EXPECT_FALSE(cn_exists(c));
	EXPECT_EQ(-ENOENT, cn_rmdir(c));
}

TEST_F(named, nested_containers)
{
	const char *r = self->root;
	char d[CN_PATH_LEN], got[CN_PATH_LEN];
	int i;

	cn_path(d, sizeof(d), r, "a/b/c/d");
	ASSERT_EQ(0, cn_mkdir_in(r, "a"));
	ASSERT_EQ(0, cn_mkdir_in(r, "a/b"));
	ASSERT_EQ(0, cn_mkdir_in(r, "a/b/c"));
	ASSERT_EQ(0, cn_mkdir_in(r, "a/b/c/d"));
	EXPECT_EQ(-ENOENT, cn_mkdir_in(r, "x/y"));
	for (i = 0; i < ARRAY_SIZE(core_files); i++) {
		EXPECT_TRUE(cn_exists_in(d, core_files[i]))
			TH_LOG("%s", core_files[i]);
	}
	EXPECT_FALSE(cn_exists_in(d, "release_agent"));

	ASSERT_EQ(0, cn_move_self(d));
	EXPECT_STREQ("/a/b/c/d", where(0, self->hid, got, sizeof(got)));
	ASSERT_EQ(0, cn_move_self(r));
	EXPECT_STREQ("/", where(0, self->hid, got, sizeof(got)));

	/* A container with children cannot go. */
	EXPECT_EQ(-EBUSY, cn_rmdir_in(r, "a"));
	EXPECT_EQ(-EBUSY, cn_rmdir_in(r, "a/b/c"));
	EXPECT_TRUE(cn_exists_in(r, "a/b/c/d/tasks"));
	EXPECT_EQ(0, cn_rmdir_in(r, "a/b/c/d"));
	EXPECT_EQ(0, cn_rmdir_in(r, "a/b/c"));
	EXPECT_EQ(0, cn_rmdir_in(r, "a/b"));
	EXPECT_EQ(0, cn_rmdir_in(r, "a"));
	EXPECT_EQ(1, cn_tree_dirs(r));
}

/*
 * The tree helpers of the tests work on any tree the kernel accepts: four
 * levels of NAME_MAX-long names (a path of over 1000 bytes) and a directory
 * with more children than any fixed table of names would hold.
 */
TEST_F(named, tree_helpers_long_paths)
{
	static char deep[PATH_MAX], rel[PATH_MAX], got[PATH_MAX];
	struct cn_member *m;
	struct cn_dir *dirs;
	char name[NAME_MAX + 1];
	int i, n, seen = 0;
	size_t off, roff = 0;
	pid_t pid;

	off = snprintf(deep, sizeof(deep), "%s", self->root);
	for (i = 0; i < 4; i++) {
		memset(name, 'a' + i, NAME_MAX);
		name[NAME_MAX] = '\0';
		off += snprintf(deep + off, sizeof(deep) - off, "/%s", name);
		roff += snprintf(rel + roff, sizeof(rel) - roff, "/%s", name);
		ASSERT_EQ(0, mkdir(deep, 0755)) TH_LOG("level %d: %m", i);
	}
	ASSERT_LT(1000, (int)strlen(rel));
	for (i = 0; i < 70; i++) {
		snprintf(name, sizeof(name), "k%d", i);
		ASSERT_EQ(0, cn_mkdir_in(self->root, name));
	}
	pid = cn_env_sleeper(&self->env);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, cn_move(deep, pid));

	EXPECT_EQ(1 + 4 + 70, cn_tree_dirs(self->root));
	EXPECT_STREQ(rel, where(pid, self->hid, got, sizeof(got)));
	n = cn_tree_members(self->root, &m);
	ASSERT_LT(0, n);
	for (i = 0; i < n; i++) {
		if (m[i].tid != pid)
			continue;
		seen++;
		EXPECT_STREQ(rel, m[i].path);
	}
	free(m);
	EXPECT_EQ(1, seen);

	n = cn_tree_list(self->root, &dirs);
	EXPECT_EQ(1 + 4 + 70, n);
	for (i = 0; i < n; i++)
		EXPECT_TRUE(cn_exists_in(dirs[i].path, "tasks"))
			TH_LOG("%s", dirs[i].path);
	if (n > 0) {
		EXPECT_STREQ(self->root, dirs[0].path);
		free(dirs);
	}
	EXPECT_EQ(1, cn_has_task(deep, pid));

	/* The task is moved out by the helper itself. */
	EXPECT_EQ(4 + 70, cn_destroy_tree(self->root));
	EXPECT_EQ(1, cn_tree_dirs(self->root));
	EXPECT_EQ(1, cn_has_task(self->root, pid));
}

TEST_F(named, rmdir_with_tasks_ebusy)
{
	char c[CN_PATH_LEN];
	long end;
	pid_t pid;
	int ret;

	cn_path(c, sizeof(c), self->root, "c");
	ASSERT_EQ(0, cn_mkdir(c));
	pid = cn_env_sleeper(&self->env);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, cn_move(c, pid));
	EXPECT_EQ(-EBUSY, cn_rmdir(c));
	EXPECT_EQ(1, cn_has_task(c, pid));

	/* The writer itself as the only task. */
	ASSERT_EQ(0, cn_move(self->root, pid));
	ASSERT_EQ(0, cn_move_self(c));
	EXPECT_EQ(-EBUSY, cn_rmdir(c));
	ASSERT_EQ(0, cn_move_self(self->root));
	EXPECT_EQ(0, cn_rmdir(c));

	/* A task that exits leaves: then the container can go. */
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, cn_move(c, pid));
	cn_env_kill(&self->env, pid);
	end = cn_now_ms() + 2000;
	while ((ret = cn_rmdir(c)) == -EBUSY && cn_now_ms() < end)
		cn_sleep_ms(20);
	EXPECT_EQ(0, ret);
}

TEST_F(named, rename_within_parent)
{
	const char *r = self->root;
	char x[CN_PATH_LEN], y[CN_PATH_LEN], got[CN_PATH_LEN];
	pid_t pid;

	cn_path(x, sizeof(x), r, "a/x");
	cn_path(y, sizeof(y), r, "a/y");
	ASSERT_EQ(0, cn_mkdir_in(r, "a"));
	ASSERT_EQ(0, cn_mkdir(x));
	pid = cn_env_sleeper(&self->env);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, cn_move(x, pid));
	ASSERT_EQ(0, rename(x, y));
	EXPECT_FALSE(cn_exists(x));
	EXPECT_TRUE(cn_exists_in(y, "tasks"));
	EXPECT_EQ(1, cn_has_task(y, pid));
	EXPECT_STREQ("/a/y", where(pid, self->hid, got, sizeof(got)));
}

TEST_F(named, rename_to_other_parent_fails)
{
	const char *r = self->root;
	char x[CN_PATH_LEN], to[CN_PATH_LEN];
	int ret;

	cn_path(x, sizeof(x), r, "a/x");
	ASSERT_EQ(0, cn_mkdir_in(r, "a"));
	ASSERT_EQ(0, cn_mkdir_in(r, "b"));
	ASSERT_EQ(0, cn_mkdir(x));
	ret = rename(x, cn_path(to, sizeof(to), r, "b/x")) ? -errno : 0;
	EXPECT_TRUE(ret == -EINVAL || ret == -EXDEV)
		TH_LOG("rename across parents returned %d", ret);
	EXPECT_TRUE(cn_exists_in(r, "a/x/tasks"));
	EXPECT_FALSE(cn_exists_in(r, "b/x"));
	ret = rename(x, cn_path(to, sizeof(to), r, "x")) ? -errno : 0;
	EXPECT_TRUE(ret == -EINVAL || ret == -EXDEV)
		TH_LOG("rename to the grandparent returned %d", ret);
	EXPECT_TRUE(cn_exists_in(r, "a/x/tasks"));
}

TEST_F(named, create_regular_file_fails)
{
	const char *r = self->root;
	char path[CN_PATH_LEN];
	int fd;

	fd = open(cn_path(path, sizeof(path), r, "newfile"),
		  O_CREAT | O_WRONLY, 0644);
	EXPECT_LT(fd, 0);
	if (fd >= 0)
		close(fd);
	EXPECT_FALSE(cn_exists_in(r, "newfile"));

	ASSERT_EQ(0, cn_mkdir_in(r, "c"));
	fd = open(cn_path(path, sizeof(path), r, "c/newfile"),
		  O_CREAT | O_WRONLY, 0644);
	EXPECT_LT(fd, 0);
	if (fd >= 0)
		close(fd);
	EXPECT_FALSE(cn_exists_in(r, "c/newfile"));
}

/* ---------------------------------------------------------------------
 * tasks and container.procs.
 * ---------------------------------------------------------------------
 */
TEST_F(named, root_tasks_lists_every_task)
{
	pid_t *before = NULL, *tasks, tids[4], pid;
	int nbefore = 0, n, i, missing = 0;
	struct dirent *de, *te;
	char path[CN_PATH_LEN];
	DIR *d, *td;

	pid = spawn_threaded(&self->env, 3, tids);
	ASSERT_GT(pid, 0);

	/* Every thread of the system before reading... */
	d = opendir("/proc");
	ASSERT_NE(NULL, d);
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", de->d_name);
		td = opendir(path);
		if (!td)
			continue;
		while ((te = readdir(td))) {
			if (te->d_name[0] < '1' || te->d_name[0] > '9')
				continue;
			before = realloc(before,
					 (nbefore + 1) * sizeof(*before));
			ASSERT_NE(NULL, before);
			before[nbefore++] = atoi(te->d_name);
		}
		closedir(td);
	}
	closedir(d);

	n = cn_read_pids_in(self->root, "tasks", &tasks);
	ASSERT_GT(n, 0);
	EXPECT_TRUE(cn_pids_sorted_unique(tasks, n));
	EXPECT_TRUE(cn_pids_contain(tasks, n, 1));
	EXPECT_TRUE(cn_pids_contain(tasks, n, 2));
	EXPECT_TRUE(cn_pids_contain(tasks, n, getpid()));
	for (i = 0; i < 4; i++) {
		EXPECT_TRUE(cn_pids_contain(tasks, n, tids[i]))
			TH_LOG("thread %d", tids[i]);
	}

	/* ...is listed, unless it exited meanwhile. */
	for (i = 0; i < nbefore; i++) {
		if (cn_pids_contain(tasks, n, before[i]))
			continue;
		snprintf(path, sizeof(path), "/proc/%d", before[i]);
		if (!cn_exists(path))
			continue;
		TH_LOG("thread %d missing from the root's tasks", before[i]);
		missing++;
	}
	EXPECT_EQ(0, missing);
	free(before);
	free(tasks);
}

TEST_F(named, tasks_write_zero_moves_writer)
{
	char c[CN_PATH_LEN], val[CN_PATH_LEN], got[CN_PATH_LEN];
	char want[CN_PATH_LEN];

	cn_path(c, sizeof(c), self->root, "c");
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, cn_write_in(c, "tasks", "0"));
	EXPECT_EQ(1, cn_has_task(c, getpid()));
	EXPECT_EQ(0, cn_has_task(self->root, getpid()));
	EXPECT_STREQ("/c", where(0, self->hid, got, sizeof(got)));
	snprintf(want, sizeof(want), "%d", getpid());
	EXPECT_STREQ(want, cn_read_str_in(c, "tasks", val, sizeof(val)));
	ASSERT_EQ(0, cn_write_in(self->root, "tasks", "0"));
	EXPECT_EQ(0, cn_has_task(c, getpid()));
	EXPECT_EQ(1, cn_has_task(self->root, getpid()));
	EXPECT_STREQ("/", where(0, self->hid, got, sizeof(got)));
}

TEST_F(named, tasks_move_other_task)
{
	char c1[CN_PATH_LEN], c2[CN_PATH_LEN], got[CN_PATH_LEN];
	pid_t pid;

	cn_path(c1, sizeof(c1), self->root, "c1");
	cn_path(c2, sizeof(c2), self->root, "c2");
	ASSERT_EQ(0, cn_mkdir(c1));
	ASSERT_EQ(0, cn_mkdir(c2));
	pid = cn_env_sleeper(&self->env);
	ASSERT_GT(pid, 0);
	EXPECT_EQ(1, cn_has_task(self->root, pid));

	ASSERT_EQ(0, cn_move(c1, pid));
	EXPECT_EQ(1, cn_has_task(c1, pid));
	EXPECT_EQ(0, cn_has_task(self->root, pid));
	EXPECT_STREQ("/c1", where(pid, self->hid, got, sizeof(got)));
	/* The writer stays where it was. */
	EXPECT_EQ(1, cn_has_task(self->root, getpid()));

	/* As echo writes it: with a newline. */
	ASSERT_EQ(0, cn_writef_in(c2, "tasks", "%d\n", pid));
	EXPECT_EQ(0, cn_has_task(c1, pid));
	EXPECT_EQ(1, cn_has_task(c2, pid));
	EXPECT_STREQ("/c2", where(pid, self->hid, got, sizeof(got)));

	/* Moving into the container it is in already is fine. */
	EXPECT_EQ(0, cn_move(c2, pid));
	EXPECT_EQ(1, cn_count_tasks(c2));

	ASSERT_EQ(0, cn_move(self->root, pid));
	EXPECT_EQ(1, cn_has_task(self->root, pid));
	EXPECT_EQ(0, cn_count_tasks(c1));
	EXPECT_EQ(0, cn_count_tasks(c2));
	EXPECT_STREQ("/", where(pid, self->hid, got, sizeof(got)));
}

TEST_F(named, tasks_unknown_pid_esrch)
{
	char c[CN_PATH_LEN];
	pid_t pid = unused_pid();

	cn_path(c, sizeof(c), self->root, "c");
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, cn_mkdir(c));
	EXPECT_EQ(-ESRCH, cn_move(c, pid));
	EXPECT_EQ(-ESRCH, cn_move_proc(c, pid));
	EXPECT_EQ(0, cn_count_tasks(c));
}

TEST_F(named, tasks_garbage_einval)
{
	static const char * const bad[] = { "abc", "12abc", "0x" };
	char c[CN_PATH_LEN];
	int i;

	cn_path(c, sizeof(c), self->root, "c");
	ASSERT_EQ(0, cn_mkdir(c));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, cn_write_in(c, "tasks", bad[i]))
			TH_LOG("tasks <- '%s'", bad[i]);
		EXPECT_EQ(-EINVAL, cn_write_in(c, "container.procs", bad[i]))
			TH_LOG("container.procs <- '%s'", bad[i]);
	}
	EXPECT_EQ(0, cn_count_tasks(c));
}

TEST_F(named, tasks_negative_pid_fails)
{
	char c[CN_PATH_LEN];
	int ret;

	cn_path(c, sizeof(c), self->root, "c");
	ASSERT_EQ(0, cn_mkdir(c));
	ret = cn_write_in(c, "tasks", "-1");
	EXPECT_TRUE(ret == -EINVAL || ret == -ESRCH)
		TH_LOG("tasks <- -1 returned %d", ret);
	ret = cn_writef_in(c, "tasks", "-%d", getpid());
	EXPECT_TRUE(ret == -EINVAL || ret == -ESRCH)
		TH_LOG("tasks <- -pid returned %d", ret);
	ret = cn_write_in(c, "container.procs", "-1");
	EXPECT_TRUE(ret == -EINVAL || ret == -ESRCH)
		TH_LOG("container.procs <- -1 returned %d", ret);
	EXPECT_EQ(0, cn_count_tasks(c));
	EXPECT_EQ(1, cn_has_task(self->root, getpid()));
}

TEST_F(named, tasks_kthreadd_einval)
{
	char c[CN_PATH_LEN], val[CN_PATH_LEN];

	cn_path(c, sizeof(c), self->root, "c");
	if (strcmp(cn_str("/proc/2/comm", val, sizeof(val)), "kthreadd"))
		SKIP(return, "pid 2 is not kthreadd");
	ASSERT_EQ(0, cn_mkdir(c));
	EXPECT_EQ(-EINVAL, cn_move(c, 2));
	EXPECT_EQ(0, cn_has_task(c, 2));
	EXPECT_EQ(1, cn_has_task(self->root, 2));
}

struct move_arg {
	const char *cont;
	pid_t pid;
};

static int move_as(void *data)
{
	struct move_arg *arg = data;
	int ret;

	ret = cn_move(arg->cont, arg->pid ? arg->pid : cn_gettid());
	if (ret)
		return ret;
	ret = cn_has_task(arg->cont, arg->pid ? arg->pid : cn_gettid());
	return ret == 1 ? 0 : -ENOENT;
}

TEST_F(named, tasks_nonroot_needs_matching_uid)
{
	char c[CN_PATH_LEN], tasks[CN_PATH_LEN];
	struct move_arg arg = { .cont = c };
	pid_t rootpid, nobodypid;

	cn_path(c, sizeof(c), self->root, "c");
	cn_path(tasks, sizeof(tasks), self->root, "c/tasks");
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_TRUE(!chmod(tasks, 0666) ||
		    !chown(tasks, CN_NOBODY, CN_NOBODY));
	rootpid = cn_env_sleeper(&self->env);
	ASSERT_GT(rootpid, 0);
	nobodypid = spawn_sleeper_as(&self->env, CN_NOBODY);
	ASSERT_GT(nobodypid, 0);

	/* A task of another user: refused. */
	arg.pid = rootpid;
	EXPECT_EQ(-EACCES, cn_run_as(CN_NOBODY, move_as, &arg));
	EXPECT_EQ(0, cn_has_task(c, rootpid));
	EXPECT_EQ(1, cn_has_task(self->root, rootpid));

	/* Its own tasks: allowed. */
	arg.pid = 0;
	EXPECT_EQ(0, cn_run_as(CN_NOBODY, move_as, &arg));
	arg.pid = nobodypid;
	EXPECT_EQ(0, cn_run_as(CN_NOBODY, move_as, &arg));
	EXPECT_EQ(1, cn_has_task(c, nobodypid));
}

TEST_F(named, tasks_single_thread_moves_alone)
{
	char c[CN_PATH_LEN], val[CN_PATH_LEN], got[CN_PATH_LEN];
	char want[CN_PATH_LEN];
	pid_t tids[4], pid, *pids;
	int n, i;

	cn_path(c, sizeof(c), self->root, "c");
	pid = spawn_threaded(&self->env, 3, tids);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, cn_move(c, tids[2]));

	n = cn_read_pids_in(c, "tasks", &pids);
	ASSERT_EQ(1, n);
	EXPECT_EQ(tids[2], pids[0]);
	free(pids);
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(i != 2, cn_has_task(self->root, tids[i]))
			TH_LOG("thread %d", tids[i]);
	}
	/* The thread group of a member is listed in container.procs. */
	snprintf(want, sizeof(want), "%d", pid);
	EXPECT_STREQ(want, cn_read_str_in(c, "container.procs", val,
					  sizeof(val)));
	EXPECT_STREQ("/c", where(tids[2], self->hid, got, sizeof(got)));
	EXPECT_STREQ("/", where(tids[1], self->hid, got, sizeof(got)));
	EXPECT_STREQ("/", where(pid, self->hid, got, sizeof(got)));
}

TEST_F(named, procs_moves_all_threads)
{
	char c[CN_PATH_LEN], val[CN_PATH_LEN], got[CN_PATH_LEN];
	char want[CN_PATH_LEN];
	pid_t tids[4], pid, *pids;
	int n, i;

	cn_path(c, sizeof(c), self->root, "c");
	pid = spawn_threaded(&self->env, 3, tids);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, cn_move_proc(c, pid));

	n = cn_read_pids_in(c, "tasks", &pids);
	ASSERT_EQ(4, n);
	EXPECT_TRUE(cn_pids_sorted_unique(pids, n));
	for (i = 0; i < 4; i++) {
		EXPECT_TRUE(cn_pids_contain(pids, n, tids[i]))
			TH_LOG("thread %d not moved", tids[i]);
		EXPECT_EQ(0, cn_has_task(self->root, tids[i]));
		EXPECT_STREQ("/c", where(tids[i], self->hid, got, sizeof(got)));
	}
	free(pids);
	snprintf(want, sizeof(want), "%d", pid);
	EXPECT_STREQ(want, cn_read_str_in(c, "container.procs", val,
					  sizeof(val)));
	EXPECT_EQ(0, cn_has_proc(self->root, pid));

	/* And back again. */
	ASSERT_EQ(0, cn_move_proc(self->root, pid));
	EXPECT_EQ(0, cn_count_tasks(c));
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(1, cn_has_task(self->root, tids[i]))
			TH_LOG("thread %d", tids[i]);
	}
}

TEST_F(named, procs_lists_each_process_once)
{
	char c[CN_PATH_LEN];
	pid_t a[4], b[4], pa, pb, *pids;
	int n;

	cn_path(c, sizeof(c), self->root, "c");
	pa = spawn_threaded(&self->env, 3, a);
	ASSERT_GT(pa, 0);
	pb = spawn_threaded(&self->env, 3, b);
	ASSERT_GT(pb, 0);
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, cn_move_proc(c, pb));
	ASSERT_EQ(0, cn_move_proc(c, pa));

	n = cn_read_pids_in(c, "container.procs", &pids);
	ASSERT_EQ(2, n);
	EXPECT_EQ(pa < pb ? pa : pb, pids[0]);
	EXPECT_EQ(pa < pb ? pb : pa, pids[1]);
	free(pids);
	n = cn_read_pids_in(c, "tasks", &pids);
	EXPECT_EQ(8, n);
	EXPECT_TRUE(cn_pids_sorted_unique(pids, n));
	free(pids);

	/* The root's list is sorted and unique too. */
	n = cn_read_pids_in(self->root, "container.procs", &pids);
	ASSERT_GT(n, 0);
	EXPECT_TRUE(cn_pids_sorted_unique(pids, n));
	EXPECT_TRUE(cn_pids_contain(pids, n, getpid()));
	EXPECT_FALSE(cn_pids_contain(pids, n, pa));
	free(pids);
}

TEST_F(bare, fork_inherits_in_every_hierarchy)
{
	char opts[CN_DIR_LEN], a1[CN_PATH_LEN], b1[CN_PATH_LEN];
	char b2[CN_PATH_LEN], got[CN_PATH_LEN], *m1, *m2;
	int h1, h2;
	pid_t pid;

	snprintf(opts, sizeof(opts), "none,name=ct%da", getpid());
	ASSERT_EQ(0, cn_env_mount(&self->env, opts, &m1));
	snprintf(opts, sizeof(opts), "none,name=ct%db", getpid());
	ASSERT_EQ(0, cn_env_mount(&self->env, opts, &m2));
	snprintf(opts, sizeof(opts), "name=ct%da", getpid());
	h1 = cn_hier_id(opts);
	snprintf(opts, sizeof(opts), "name=ct%db", getpid());
	h2 = cn_hier_id(opts);
	ASSERT_GT(h1, 0);
	ASSERT_GT(h2, 0);
	ASSERT_NE(h1, h2);
	cn_path(a1, sizeof(a1), m1, "A1");
	cn_path(b1, sizeof(b1), m2, "B1");
	cn_path(b2, sizeof(b2), m2, "B1/B2");
	ASSERT_EQ(0, cn_mkdir(a1));
	ASSERT_EQ(0, cn_mkdir(b1));
	ASSERT_EQ(0, cn_mkdir(b2));
	ASSERT_EQ(0, cn_move_self(a1));
	ASSERT_EQ(0, cn_move_self(b2));

	pid = cn_env_sleeper(&self->env);
	ASSERT_GT(pid, 0);
	EXPECT_EQ(1, cn_has_task(a1, pid));
	EXPECT_EQ(1, cn_has_task(b2, pid));
	EXPECT_EQ(0, cn_has_task(m1, pid));
	EXPECT_EQ(0, cn_has_task(b1, pid));
	EXPECT_STREQ("/A1", where(pid, h1, got, sizeof(got)));
	EXPECT_STREQ("/B1/B2", where(pid, h2, got, sizeof(got)));

	/* The parent leaving does not take the child along. */
	ASSERT_EQ(0, cn_move_self(m1));
	ASSERT_EQ(0, cn_move_self(m2));
	EXPECT_EQ(1, cn_has_task(a1, pid));
	EXPECT_EQ(1, cn_has_task(b2, pid));
	EXPECT_EQ(0, cn_count_tasks(b1));
}

/* Every task listed exactly once in the tree; @pid at @path. */
static void check_tree(struct __test_metadata *_metadata, const char *root,
		       int hid, const pid_t *pids, const char * const *paths,
		       int npids)
{
	struct cn_member *m;
	int n, i, j, seen;
	char got[CN_PATH_LEN];

	n = cn_tree_members(root, &m);
	ASSERT_GT(n, 0);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			EXPECT_NE(m[i].tid, m[j].tid)
				TH_LOG("tid %d in %s and in %s", m[i].tid,
				       m[i].path, m[j].path);
		}
	for (i = 0; i < npids; i++) {
		seen = 0;
		for (j = 0; j < n; j++) {
			if (m[j].tid != pids[i])
				continue;
			seen++;
			EXPECT_STREQ(paths[i], m[j].path);
		}
		EXPECT_EQ(1, seen) TH_LOG("pid %d", pids[i]);
		EXPECT_STREQ(paths[i], where(pids[i], hid, got, sizeof(got)));
	}
	free(m);
}

TEST_F(named, one_container_per_hierarchy)
{
	static const char * const dirs[] = { "/a", "/a/b", "/c", "/a/b/d" };
	const char *paths[4];
	const char *r = self->root;
	char path[CN_PATH_LEN];
	pid_t pids[4];
	int i, round;

	/* dirs[] and paths[] start with a slash, as in /proc. */
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, cn_mkdir_in(r, dirs[i] + 1))
			TH_LOG("%s", dirs[i]);
	}
	for (i = 0; i < 4; i++) {
		pids[i] = cn_env_sleeper(&self->env);
		ASSERT_GT(pids[i], 0);
	}
	for (round = 0; round < 4; round++) {
		for (i = 0; i < 4; i++) {
			paths[i] = dirs[(i + round) % 4];
			cn_path(path, sizeof(path), r, paths[i] + 1);
			ASSERT_EQ(0, cn_move(path, pids[i]));
		}
		check_tree(_metadata, r, self->hid, pids, paths, 4);
	}
}

/* ---------------------------------------------------------------------
 * /proc/<pid>/container and /proc/containers.
 * ---------------------------------------------------------------------
 */
TEST_F(bare, proc_pid_container_format)
{
	char *m1, *m2, *text, *line, *save, *end, *p;
	char name[32], opts[CN_DIR_LEN], path[CN_PATH_LEN], want[CN_PATH_LEN];
	int hd, hn, ids[64], n = 0, i;

	snprintf(name, sizeof(name), "ct%d", getpid());
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "debug", &m1));
	snprintf(opts, sizeof(opts), "none,name=%s", name);
	ASSERT_EQ(0, cn_env_mount(&self->env, opts, &m2));
	hd = cn_hier_id("debug");
	snprintf(opts, sizeof(opts), "name=%s", name);
	hn = cn_hier_id(opts);
	ASSERT_GT(hd, 0);
	ASSERT_GT(hn, 0);
	ASSERT_NE(hd, hn);
	ASSERT_EQ(0, cn_mkdir_in(m2, "x"));
	ASSERT_EQ(0, cn_mkdir_in(m2, "x/y"));
	ASSERT_EQ(0, cn_move_self(cn_path(path, sizeof(path), m2, "x/y")));

	text = cn_read_all("/proc/self/container", 4096);
	ASSERT_NE(NULL, text);
	snprintf(want, sizeof(want), "%d:debug:/", hd);
	EXPECT_TRUE(file_has_line("/proc/self/container", want))
		TH_LOG("no '%d:debug:/' in:\n%s", hd, text);
	snprintf(want, sizeof(want), "%d:name=%s:/x/y", hn, name);
	EXPECT_TRUE(file_has_line("/proc/self/container", want))
		TH_LOG("no '%d:name=%s:/x/y' in:\n%s", hn, name, text);
	/* Every line: positive id, subsystems, absolute path; ids unique. */
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		long id = strtol(line, &end, 10);

		EXPECT_TRUE(end != line && *end == ':' && id > 0)
			TH_LOG("bad line '%s'", line);
		if (end == line || *end != ':')
			continue;
		p = strchr(end + 1, ':');
		EXPECT_NE(NULL, p) TH_LOG("bad line '%s'", line);
		if (!p)
			continue;
		EXPECT_GT(p - end - 1, 0) TH_LOG("no subsystems: '%s'", line);
		EXPECT_EQ('/', p[1]) TH_LOG("bad path: '%s'", line);
		for (i = 0; i < n; i++) {
			EXPECT_NE(ids[i], id)
				TH_LOG("id %ld twice", id);
		}
		if (n < ARRAY_SIZE(ids))
			ids[n++] = id;
	}
	free(text);

	/* Another task's file, and a task in the root of both. */
	snprintf(want, sizeof(want), "%d:debug:/", hd);
	EXPECT_TRUE(file_has_line("/proc/1/container", want));
	snprintf(want, sizeof(want), "%d:name=%s:/", hn, name);
	EXPECT_TRUE(file_has_line("/proc/1/container", want));
}

TEST_F(bare, proc_pid_container_subsystems_and_name)
{
	char name[32], opts[CN_DIR_LEN], path[CN_PATH_LEN];
	char want[CN_PATH_LEN], *m;
	int hid;

	snprintf(name, sizeof(name), "ct%d", getpid());
	snprintf(opts, sizeof(opts), "debug,name=%s", name);
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, opts, &m));
	snprintf(opts, sizeof(opts), "name=%s", name);
	hid = cn_hier_id(opts);
	ASSERT_GT(hid, 0);
	EXPECT_EQ(hid, cn_hier_id("debug"));
	snprintf(want, sizeof(want), "%d:debug,name=%s:/", hid, name);
	EXPECT_TRUE(file_has_line("/proc/self/container", want))
		TH_LOG("no '%d:debug,name=%s:/' in /proc/self/container",
		       hid, name);
	ASSERT_EQ(0, cn_mkdir_in(m, "z"));
	ASSERT_EQ(0, cn_move_self(cn_path(path, sizeof(path), m, "z")));
	snprintf(want, sizeof(want), "%d:debug,name=%s:/z", hid, name);
	EXPECT_TRUE(file_has_line("/proc/self/container", want));
}

/* Poll /proc/containers until @name counts @want containers. */
static int wait_num(const char *name, int want, long ms)
{
	long end = cn_now_ms() + ms;
	int hier, num, en;

	for (;;) {
		if (cn_subsys_info(name, &hier, &num, &en))
			return -1;
		if (num == want || cn_now_ms() > end)
			return num;
		cn_sleep_ms(20);
	}
}

TEST_F(bare, proc_containers_counts)
{
	int hier, num, en, hid;
	char *text, *m;

	text = cn_read_all("/proc/containers", 4096);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(0, strncmp(text, "#subsys_name", 12))
		TH_LOG("header: %.40s", text);
	free(text);

	ASSERT_EQ(0, cn_wait_subsys_hier("debug", 0, 3000));
	ASSERT_EQ(0, cn_subsys_info("debug", &hier, &num, &en));
	EXPECT_EQ(0, hier);
	EXPECT_EQ(1, num);
	EXPECT_EQ(1, en);

	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "debug", &m));
	hid = cn_hier_id("debug");
	ASSERT_GT(hid, 0);
	ASSERT_EQ(0, cn_subsys_info("debug", &hier, &num, &en));
	EXPECT_EQ(hid, hier);
	EXPECT_EQ(1, num);
	EXPECT_EQ(1, en);

	ASSERT_EQ(0, cn_mkdir_in(m, "a"));
	ASSERT_EQ(0, cn_mkdir_in(m, "a/b"));
	ASSERT_EQ(0, cn_subsys_info("debug", &hier, &num, &en));
	EXPECT_EQ(3, num);
	ASSERT_EQ(0, cn_rmdir_in(m, "a/b"));
	EXPECT_EQ(2, wait_num("debug", 2, 3000));
	ASSERT_EQ(0, cn_rmdir_in(m, "a"));
	ASSERT_EQ(0, cn_env_umount(&self->env, m));
	EXPECT_EQ(0, cn_wait_subsys_hier("debug", 0, 3000));
	ASSERT_EQ(0, cn_subsys_info("debug", &hier, &num, &en));
	EXPECT_EQ(1, num);
}

/* ---------------------------------------------------------------------
 * notify_on_release, container.clone_children, release_agent.
 * ---------------------------------------------------------------------
 */
static void check_bool_file(struct __test_metadata *_metadata,
			    const char *root, const char *file)
{
	static const char * const bad[] = { "-1", "abc", "1x", "" };
	char c[CN_PATH_LEN], f[CN_PATH_LEN], val[CN_PATH_LEN];
	int i;

	cn_path(c, sizeof(c), root, "c");
	cn_path(f, sizeof(f), c, file);
	EXPECT_EQ(0, cn_read_long_in(root, file));
	ASSERT_EQ(0, cn_mkdir(c));
	EXPECT_EQ(0, cn_long(f));
	ASSERT_EQ(0, cn_write(f, "1"));
	EXPECT_EQ(1, cn_long(f));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, cn_write(f, bad[i]))
			TH_LOG("%s <- '%s'", file, bad[i]);
		EXPECT_EQ(1, cn_long(f));
	}
	ASSERT_EQ(0, cn_write(f, "0\n"));
	EXPECT_EQ(0, cn_long(f));
	ASSERT_EQ(0, cn_write(f, "1\n"));
	EXPECT_EQ(1, cn_long(f));
	/* As in cgroup v1, any other number sets the flag: it reads 1. */
	ASSERT_EQ(0, cn_write(f, "0"));
	ASSERT_EQ(0, cn_write(f, "2"));
	EXPECT_STREQ("1", cn_str(f, val, sizeof(val)));
	ASSERT_EQ(0, cn_write(f, "0"));
	ASSERT_EQ(0, cn_write(f, "0x10"));
	EXPECT_STREQ("1", cn_str(f, val, sizeof(val)));
	/* The root's own file. */
	ASSERT_EQ(0, cn_write_in(root, file, "1"));
	EXPECT_EQ(1, cn_read_long_in(root, file));
	EXPECT_EQ(-EINVAL, cn_write_in(root, file, "-1"));
	EXPECT_EQ(1, cn_read_long_in(root, file));
	ASSERT_EQ(0, cn_write_in(root, file, "0"));
	EXPECT_EQ(0, cn_read_long_in(root, file));
}

static void check_bool_inherited(struct __test_metadata *_metadata,
				 const char *r, const char *file)
{
	char a[CN_PATH_LEN], ab[CN_PATH_LEN], ac[CN_PATH_LEN], d[CN_PATH_LEN];

	cn_path(a, sizeof(a), r, "a");
	cn_path(ab, sizeof(ab), r, "a/b");
	cn_path(ac, sizeof(ac), r, "a/c");
	cn_path(d, sizeof(d), r, "d");
	ASSERT_EQ(0, cn_write_in(r, file, "1"));
	ASSERT_EQ(0, cn_mkdir(a));
	EXPECT_EQ(1, cn_read_long_in(a, file));
	ASSERT_EQ(0, cn_mkdir(ab));
	EXPECT_EQ(1, cn_read_long_in(ab, file));
	ASSERT_EQ(0, cn_write_in(a, file, "0"));
	ASSERT_EQ(0, cn_mkdir(ac));
	EXPECT_EQ(0, cn_read_long_in(ac, file));
	/* Existing children keep their own value. */
	EXPECT_EQ(1, cn_read_long_in(ab, file));
	ASSERT_EQ(0, cn_write_in(r, file, "0"));
	ASSERT_EQ(0, cn_mkdir(d));
	EXPECT_EQ(0, cn_read_long_in(d, file));
	EXPECT_EQ(1, cn_read_long_in(ab, file));
}

TEST_F(named, notify_on_release_values)
{
	check_bool_file(_metadata, self->root, "notify_on_release");
}

TEST_F(named, notify_on_release_inherited)
{
	check_bool_inherited(_metadata, self->root, "notify_on_release");
}

TEST_F(named, clone_children_values)
{
	check_bool_file(_metadata, self->root, "container.clone_children");
}

TEST_F(named, clone_children_inherited)
{
	check_bool_inherited(_metadata, self->root, "container.clone_children");
}

TEST_F(named, release_agent_file)
{
	const char *r = self->root;
	char path[CN_PATH_LEN], val[CN_PATH_LEN];
	int fd, err;

	EXPECT_TRUE(cn_exists_in(r, "release_agent"));
	ASSERT_EQ(0, cn_write_in(r, "release_agent", "/tmp/some/agent"));
	EXPECT_STREQ("/tmp/some/agent",
		     cn_read_str_in(r, "release_agent", val, sizeof(val)));
	ASSERT_EQ(0, cn_write_in(r, "release_agent", "/sbin/other-agent"));
	EXPECT_STREQ("/sbin/other-agent",
		     cn_read_str_in(r, "release_agent", val, sizeof(val)));

	/* Only the root has one. */
	ASSERT_EQ(0, cn_mkdir_in(r, "c"));
	fd = open(cn_path(path, sizeof(path), r, "c/release_agent"),
		  O_RDONLY);
	err = errno;
	EXPECT_LT(fd, 0);
	EXPECT_EQ(ENOENT, err);
	if (fd >= 0)
		close(fd);
}

/* A release agent script that appends its argument to @out. */
static int write_agent(const char *path, const char *out)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f, "#!/bin/sh\necho \"$1\" >> %s\n", out);
	if (fclose(f))
		return -errno;
	return chmod(path, 0755) ? -errno : 0;
}

/* Set up an agent for the fixture's hierarchy; returns its output file. */
static char *setup_agent(struct __test_metadata *_metadata,
			 struct cn_env *env, const char *root)
{
	const char *tmp = cn_env_tmpdir(env);
	static char out[CN_PATH_LEN];
	char agent[CN_PATH_LEN];

	if (!tmp)
		return NULL;
	cn_path(agent, sizeof(agent), tmp, "agent.sh");
	snprintf(out, sizeof(out), "%s/out", tmp);
	if (write_agent(agent, out))
		return NULL;
	if (cn_write_in(root, "release_agent", agent))
		return NULL;
	return out;
}

TEST_F_TIMEOUT(named, release_agent_runs_on_last_exit, 60)
{
	char c[CN_PATH_LEN], *out;
	pid_t pid;

	cn_path(c, sizeof(c), self->root, "rel");
	out = setup_agent(_metadata, &self->env, self->root);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, cn_write_in(c, "notify_on_release", "1"));
	pid = cn_env_sleeper(&self->env);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, cn_move(c, pid));
	cn_sleep_ms(200);
	/* Not empty yet: no call. */
	EXPECT_FALSE(file_has_line(out, "/rel"));

	cn_env_kill(&self->env, pid);
	EXPECT_TRUE(wait_line(out, "/rel", 10000))
		TH_LOG("release agent not run with /rel");
}

/* Setting the flag on a container that is already empty is no release. */
TEST_F_TIMEOUT(named, release_agent_not_run_on_flag_write, 60)
{
	char *out;

	out = setup_agent(_metadata, &self->env, self->root);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, cn_mkdir_in(self->root, "idle"));
	ASSERT_EQ(0, cn_write_in(self->root, "idle/notify_on_release", "1"));
	cn_sleep_ms(1000);
	EXPECT_FALSE(file_has_line(out, "/idle"));
}

TEST_F_TIMEOUT(named, release_agent_runs_on_last_move_nested, 60)
{
	const char *r = self->root;
	char q[CN_PATH_LEN], *out;

	out = setup_agent(_metadata, &self->env, r);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, cn_mkdir_in(r, "p"));
	ASSERT_EQ(0, cn_write_in(r, "p/notify_on_release", "1"));
	/* Inherited from p. */
	ASSERT_EQ(0, cn_mkdir_in(r, "p/q"));
	ASSERT_EQ(1, cn_read_long_in(r, "p/q/notify_on_release"));
	ASSERT_EQ(0, cn_move_self(cn_path(q, sizeof(q), r, "p/q")));
	ASSERT_EQ(0, cn_move_self(r));
	EXPECT_TRUE(wait_line(out, "/p/q", 10000))
		TH_LOG("release agent not run with /p/q");
}

TEST_F_TIMEOUT(named, release_agent_needs_notify_on_release, 60)
{
	const char *r = self->root;
	char path[CN_PATH_LEN], *out;
	pid_t quiet, loud;

	out = setup_agent(_metadata, &self->env, r);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, cn_mkdir_in(r, "quiet"));
	ASSERT_EQ(0, cn_mkdir_in(r, "loud"));
	ASSERT_EQ(0, cn_write_in(r, "loud/notify_on_release", "1"));
	quiet = cn_env_sleeper(&self->env);
	ASSERT_GT(quiet, 0);
	loud = cn_env_sleeper(&self->env);
	ASSERT_GT(loud, 0);
	ASSERT_EQ(0, cn_move(cn_path(path, sizeof(path), r, "quiet"), quiet));
	ASSERT_EQ(0, cn_move(cn_path(path, sizeof(path), r, "loud"), loud));

	cn_env_kill(&self->env, quiet);
	cn_env_kill(&self->env, loud);
	/* The call for loud shows the agent works... */
	EXPECT_TRUE(wait_line(out, "/loud", 10000));
	cn_sleep_ms(500);
	/* ...and quiet had none. */
	EXPECT_FALSE(file_has_line(out, "/quiet"));
}

/* ---------------------------------------------------------------------
 * The debug subsystem.
 * ---------------------------------------------------------------------
 */
TEST_F(dbg, debug_taskcount)
{
	const char *tc = "debug.taskcount";
	char c[CN_PATH_LEN];
	pid_t a, b;

	cn_path(c, sizeof(c), self->root, "c");
	ASSERT_GT(self->hid, 0);
	ASSERT_EQ(0, cn_mkdir(c));
	EXPECT_EQ(0, cn_read_long_in(c, tc));
	a = cn_env_sleeper(&self->env);
	ASSERT_GT(a, 0);
	b = cn_env_sleeper(&self->env);
	ASSERT_GT(b, 0);
	ASSERT_EQ(0, cn_move(c, a));
	EXPECT_EQ(1, cn_read_long_in(c, tc));
	ASSERT_EQ(0, cn_move(c, b));
	EXPECT_EQ(2, cn_read_long_in(c, tc));
	cn_env_kill(&self->env, a);
	EXPECT_EQ(1, wait_long(c, tc, 1, 2000));
	ASSERT_EQ(0, cn_move(self->root, b));
	EXPECT_EQ(0, cn_read_long_in(c, tc));
	ASSERT_EQ(0, cn_move(c, b));
	EXPECT_EQ(1, cn_read_long_in(c, tc));
	cn_env_kill(&self->env, b);
	EXPECT_EQ(0, wait_long(c, tc, 0, 2000));
	EXPECT_GE(cn_read_long_in(self->root, "debug.taskcount"), 3);
}

TEST_F(dbg, debug_container_refcount)
{
	const char *rc = "debug.container_refcount";
	char c[CN_PATH_LEN];
	pid_t a, b;

	cn_path(c, sizeof(c), self->root, "c");
	ASSERT_EQ(0, cn_mkdir(c));
	EXPECT_EQ(0, cn_read_long_in(c, rc));
	a = cn_env_sleeper(&self->env);
	ASSERT_GT(a, 0);
	b = cn_env_sleeper(&self->env);
	ASSERT_GT(b, 0);
	ASSERT_EQ(0, cn_move(c, a));
	EXPECT_EQ(1, cn_read_long_in(c, rc));
	/* Same containers everywhere: the same css_group. */
	ASSERT_EQ(0, cn_move(c, b));
	EXPECT_EQ(1, cn_read_long_in(c, rc));
	cn_env_kill(&self->env, a);
	cn_env_kill(&self->env, b);
	EXPECT_EQ(0, wait_long(c, rc, 0, 2000));
	EXPECT_GE(cn_read_long_in(self->root, "debug.container_refcount"), 1);
}

TEST_F(dbg, debug_current_css_group)
{
	char c[CN_PATH_LEN], top[CN_PATH_LEN], in_c[CN_PATH_LEN];
	char root1[64], root2[64], inc[64];
	long ref;

	cn_path(c, sizeof(c), self->root, "c");
	cn_path(top, sizeof(top), self->root, "debug.current_css_group");
	cn_path(in_c, sizeof(in_c), c, "debug.current_css_group");
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, cn_read_str(top, root1, sizeof(root1)));
	EXPECT_GT(strlen(root1), 0);
	/* It is about the reader, not the file. */
	ASSERT_EQ(0, cn_read_str(in_c, root2, sizeof(root2)));
	EXPECT_STREQ(root1, root2);

	ASSERT_EQ(0, cn_move_self(c));
	ASSERT_EQ(0, cn_read_str(top, inc, sizeof(inc)));
	EXPECT_STRNE(root1, inc);
	ref = cn_read_long_in(self->root, "debug.current_css_group_refcount");
	EXPECT_NE(BAD_READ, ref);
	EXPECT_GE(ref, 1);

	ASSERT_EQ(0, cn_move_self(self->root));
	ASSERT_EQ(0, cn_read_str(top, root2, sizeof(root2)));
	EXPECT_STREQ(root1, root2);
	ref = cn_read_long_in(self->root, "debug.current_css_group_refcount");
	EXPECT_GE(ref, 1);
}

TEST_F(dbg, debug_releasable_is_boolean)
{
	char c[CN_PATH_LEN];
	long v;

	cn_path(c, sizeof(c), self->root, "c");
	ASSERT_EQ(0, cn_mkdir(c));
	v = cn_read_long_in(self->root, "debug.releasable");
	EXPECT_TRUE(v == 0 || v == 1) TH_LOG("root releasable %ld", v);
	v = cn_read_long_in(c, "debug.releasable");
	EXPECT_TRUE(v == 0 || v == 1) TH_LOG("child releasable %ld", v);
}

/*
 * The core's walks of the tree of states, as debug.descendants of @dir
 * shows them, in @buf of @len bytes; returns @buf.
 */
static char *walks(const char *dir, char *buf, size_t len)
{
	char *text = cn_read_all_in(dir, "debug.descendants", 256);

	snprintf(buf, len, "%s", text ? text : "<error>");
	free(text);
	return buf;
}

TEST_F(dbg, descendants_walks_pre_and_post_order)
{
	char a[CN_PATH_LEN], b[CN_PATH_LEN], c[CN_PATH_LEN], z[CN_PATH_LEN];
	static const char * const dirs[] = { "b", "b/d", "b/e", "c" };
	char got[1024];
	int i;

	cn_path(a, sizeof(a), self->root, "a");
	cn_path(b, sizeof(b), a, "b");
	cn_path(c, sizeof(c), a, "c");
	cn_path(z, sizeof(z), a, "z");
	ASSERT_EQ(0, cn_mkdir(a));
	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		ASSERT_EQ(0, cn_mkdir_in(a, dirs[i]));
	/* Children oldest first; a parent before (pre) or after (post) them. */
	EXPECT_STREQ("pre . b d e c\npost d e b c .\n",
		     walks(a, got, sizeof(got)));
	EXPECT_STREQ("pre . d e\npost d e .\n", walks(b, got, sizeof(got)));
	EXPECT_STREQ("pre .\npost .\n", walks(c, got, sizeof(got)));
	EXPECT_STREQ("pre . a b d e c\npost d e b c a .\n",
		     walks(self->root, got, sizeof(got)));

	/* A removed container leaves the walks; a new one comes last. */
	ASSERT_EQ(0, cn_rmdir_in(b, "d"));
	EXPECT_STREQ("pre . b e c\npost e b c .\n", walks(a, got, sizeof(got)));
	ASSERT_EQ(0, rename(c, z));
	ASSERT_EQ(0, cn_mkdir_in(b, "d"));
	EXPECT_STREQ("pre . b e d z\npost e d b z .\n",
		     walks(a, got, sizeof(got)));
}

TEST_F(dbg, debug_files_read_only)
{
	char c[CN_PATH_LEN], f[CN_PATH_LEN];
	const char *dirs[2] = { self->root, c };
	int i, j, ret;
	pid_t pid;

	cn_path(c, sizeof(c), self->root, "c");
	ASSERT_EQ(0, cn_mkdir(c));
	pid = cn_env_sleeper(&self->env);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, cn_move(c, pid));
	for (j = 0; j < 2; j++) {
		for (i = 0; i < ARRAY_SIZE(debug_files); i++) {
			cn_path(f, sizeof(f), dirs[j], debug_files[i]);
			EXPECT_TRUE(cn_exists(f)) TH_LOG("missing %s", f);
			ret = cn_write(f, "0");
			EXPECT_NE(0, ret) TH_LOG("write to %s succeeded", f);
			ret = cn_write(f, "7");
			EXPECT_NE(0, ret) TH_LOG("write to %s succeeded", f);
		}
	}
	EXPECT_EQ(1, cn_read_long_in(c, "debug.taskcount"));
	EXPECT_EQ(1, cn_read_long_in(c, "debug.container_refcount"));
}

TEST_F_TIMEOUT(dbg, tasks_file_2000_processes, 240)
{
	const int want = 2000;
	char big[CN_PATH_LEN], *t1, *t2, *p1;
	pid_t *pids, *tasks, *roots;
	int n, i, j, nroot, spawned = 0;

	cn_path(big, sizeof(big), self->root, "big");
	ASSERT_EQ(0, cn_mkdir(big));
	pids = calloc(want, sizeof(*pids));
	ASSERT_NE(NULL, pids);

	/* Children inherit big from the parent while it is there. */
	ASSERT_EQ(0, cn_move_self(big));
	for (i = 0; i < want; i++) {
		pids[i] = cn_env_sleeper(&self->env);
		if (pids[i] <= 0)
			break;
		spawned++;
	}
	ASSERT_EQ(0, cn_move_self(self->root));
	ASSERT_EQ(want, spawned);

	n = cn_read_pids_in(big, "tasks", &tasks);
	ASSERT_EQ(want, n);
	EXPECT_TRUE(cn_pids_sorted_unique(tasks, n));
	cn_pids_sort(pids, want);
	for (i = 0; i < want; i++)
		if (tasks[i] != pids[i])
			break;
	EXPECT_EQ(want, i) TH_LOG("first difference at %d", i);
	EXPECT_EQ(want, cn_read_long_in(big, "debug.taskcount"));

	/* Small reads must give the same text as big ones. */
	t1 = cn_read_all_in(big, "tasks", 65536);
	t2 = cn_read_all_in(big, "tasks", 13);
	p1 = cn_read_all_in(big, "container.procs", 7);
	ASSERT_NE(NULL, t1);
	ASSERT_NE(NULL, t2);
	ASSERT_NE(NULL, p1);
	EXPECT_EQ(0, strcmp(t1, t2));
	/* One thread each: container.procs lists the same ids. */
	EXPECT_EQ(0, strcmp(t1, p1));
	free(t1);
	free(t2);
	free(p1);

	/* None of them in the root. */
	nroot = cn_read_pids_in(self->root, "tasks", &roots);
	ASSERT_GT(nroot, 0);
	for (i = 0, j = 0; i < nroot && j < want;) {
		if (roots[i] == pids[j])
			break;
		if (roots[i] < pids[j])
			i++;
		else
			j++;
	}
	EXPECT_TRUE(i == nroot || j == want)
		TH_LOG("pid %d listed in the root too", pids[j]);
	free(roots);
	free(tasks);

	cn_env_kill_all(&self->env);
	EXPECT_EQ(0, wait_long(big, "debug.taskcount", 0, 10000));
	EXPECT_EQ(0, cn_count_tasks(big));
	EXPECT_EQ(0, cn_rmdir(big));
	free(pids);
}

TEST_F_TIMEOUT(named, procs_moves_1000_threads, 120)
{
	const int nthreads = 1000;
	char c[CN_PATH_LEN], val[CN_PATH_LEN], want[CN_PATH_LEN];
	pid_t *tids, *tasks, pid;
	int n, i;

	cn_path(c, sizeof(c), self->root, "c");
	tids = calloc(nthreads + 1, sizeof(*tids));
	ASSERT_NE(NULL, tids);
	pid = spawn_threaded(&self->env, nthreads, tids);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, cn_move_proc(c, pid));

	n = cn_read_pids_in(c, "tasks", &tasks);
	ASSERT_EQ(nthreads + 1, n);
	EXPECT_TRUE(cn_pids_sorted_unique(tasks, n));
	cn_pids_sort(tids, nthreads + 1);
	for (i = 0; i < n; i++)
		if (tasks[i] != tids[i])
			break;
	EXPECT_EQ(n, i) TH_LOG("first difference at %d", i);
	snprintf(want, sizeof(want), "%d", pid);
	EXPECT_STREQ(want, cn_read_str_in(c, "container.procs", val,
					  sizeof(val)));
	free(tasks);
	free(tids);
	cn_env_kill(&self->env, pid);
	EXPECT_EQ(0, cn_count_tasks(c));
}

/* ---------------------------------------------------------------------
 * Stress: concurrent mkdir, rmdir, moves, forks and exits.
 * ---------------------------------------------------------------------
 */
#define STRESS_WORKERS	6
#define STRESS_MS	3000
#define STRESS_KIDS	8

static void random_path(char *buf, size_t len, const char *root,
			unsigned int *seed)
{
	static const char * const names[] = { "a", "b", "c" };
	int depth = 1 + rand_r(seed) % 3, i;
	size_t off;

	off = snprintf(buf, len, "%s", root);
	for (i = 0; i < depth && off < len; i++)
		off += snprintf(buf + off, len - off, "/%s",
				names[rand_r(seed) % 3]);
}

static void stress_kid(char *const roots[2], unsigned int seed)
{
	char path[CN_PATH_LEN];

	random_path(path, sizeof(path), roots[seed % 2], &seed);
	cn_move_self(path);
	if (rand_r(&seed) % 2)
		cn_mkdir(path);
	_exit(0);
}

static void stress_worker(char *const roots[2], int ready, unsigned int seed,
			  long deadline)
{
	char path[CN_PATH_LEN], *text;
	int kids = 0, i;
	pid_t pid;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (cn_now_ms() < deadline) {
		const char *root = roots[rand_r(&seed) % 2];

		random_path(path, sizeof(path), root, &seed);
		switch (rand_r(&seed) % 8) {
		case 0:
		case 1:
			cn_mkdir(path);
			break;
		case 2:
			cn_rmdir(path);
			break;
		case 3:
			cn_move_self(path);
			break;
		case 4:
			cn_move_self(root);
			break;
		case 5:
			pid = fork();
			if (!pid)
				stress_kid(roots, rand_r(&seed));
			if (pid > 0)
				kids++;
			break;
		case 6:
			text = cn_read_all_in(path, "tasks", 64);
			free(text);
			break;
		case 7:
			while (kids && waitpid(-1, NULL, WNOHANG) > 0)
				kids--;
			break;
		}
		if (kids >= STRESS_KIDS && wait(NULL) > 0)
			kids--;
	}
	while (wait(NULL) > 0 || errno == EINTR)
		;
	/* Settle somewhere that exists (or stay where it is). */
	for (i = 0; i < 2; i++) {
		random_path(path, sizeof(path), roots[i], &seed);
		cn_mkdir(path);
		cn_move_self(path);
	}
	if (write(ready, "x", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

TEST_F_TIMEOUT(bare, stress_concurrent_operations, 120)
{
	pid_t workers[STRESS_WORKERS], pid;
	const char *paths[STRESS_WORKERS];
	char path_bufs[STRESS_WORKERS][CN_PATH_LEN];
	int hid[2], fds[2], i, h, n, ready = 0, hier, num, en, dirs;
	struct cn_member *m;
	char name[32], opts[CN_DIR_LEN], *roots[2];
	long deadline;
	char c;

	snprintf(name, sizeof(name), "name=ct%d", getpid());
	snprintf(opts, sizeof(opts), "none,%s", name);
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "debug", &roots[0]));
	ASSERT_EQ(0, cn_env_mount(&self->env, opts, &roots[1]));
	hid[0] = cn_hier_id("debug");
	hid[1] = cn_hier_id(name);
	ASSERT_GT(hid[0], 0);
	ASSERT_GT(hid[1], 0);
	ASSERT_EQ(0, pipe(fds));

	deadline = cn_now_ms() + STRESS_MS;
	fflush(stdout);
	fflush(stderr);
	for (i = 0; i < STRESS_WORKERS; i++) {
		pid = fork();
		ASSERT_GE(pid, 0);
		if (!pid) {
			close(fds[0]);
			stress_worker(roots, fds[1], getpid() * 7919u + i,
				      deadline);
		}
		workers[i] = pid;
		cn_env_track(&self->env, pid);
	}
	close(fds[1]);

	/* Read the trees while they change. */
	while (cn_now_ms() < deadline) {
		for (h = 0; h < 2; h++) {
			n = cn_tree_members(roots[h], &m);
			if (n > 0)
				free(m);
		}
		cn_subsys_info("debug", &hier, &num, &en);
	}

	/* Wait for every worker to settle. */
	while (ready < STRESS_WORKERS) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };

		ASSERT_EQ(1, poll(&pfd, 1, 60000)) TH_LOG("workers hang");
		ASSERT_EQ(1, read(fds[0], &c, 1));
		ready++;
	}
	close(fds[0]);

	for (h = 0; h < 2; h++) {
		/* Each worker somewhere, /proc agreeing with the tree. */
		n = cn_tree_members(roots[h], &m);
		ASSERT_GT(n, 0);
		for (i = 0; i < STRESS_WORKERS; i++) {
			int j;

			paths[i] = "<nowhere>";
			for (j = 0; j < n; j++) {
				if (m[j].tid == workers[i]) {
					snprintf(path_bufs[i], CN_PATH_LEN,
						 "%s", m[j].path);
					paths[i] = path_bufs[i];
					break;
				}
			}
		}
		/* Outside the root there is nobody but the workers. */
		for (i = 0; i < n; i++) {
			if (!strcmp(m[i].path, "/"))
				continue;
			EXPECT_TRUE(cn_pids_contain(workers, STRESS_WORKERS,
						    m[i].tid))
				TH_LOG("stray tid %d in %s", m[i].tid,
				       m[i].path);
		}
		free(m);
		check_tree(_metadata, roots[h], hid[h], workers, paths,
			   STRESS_WORKERS);
		EXPECT_EQ(1, cn_has_task(roots[h], getpid()));
	}

	/* Allow a moment for removed containers to be freed. */
	dirs = cn_tree_dirs(roots[0]);
	ASSERT_GT(dirs, 0);
	deadline = cn_now_ms() + 3000;
	do {
		ASSERT_EQ(0, cn_subsys_info("debug", &hier, &num, &en));
		if (num == dirs)
			break;
		cn_sleep_ms(50);
	} while (cn_now_ms() < deadline);
	EXPECT_EQ(hid[0], hier);
	EXPECT_EQ(dirs, num);
}

/* ---------------------------------------------------------------------
 * Thread groups whose main thread has gone (review bugs).
 * ---------------------------------------------------------------------
 */

static long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *pause_thread(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

/* This program; /proc/self/exe of a process whose leader exited is gone. */
static char exe_path[PATH_MAX];

static void *exec_thread(void *arg)
{
	char **argv = arg;

	execv(exe_path, argv);
	_exit(1);
}

/*
 * "test_core --exec-loop <deadline>": until the deadline (CLOCK_MONOTONIC
 * ms), start a thread, let the main thread exit, and have the thread exec
 * this program again: each exec is one from a non-leader thread, which
 * makes it the leader (de_thread()).  Runs before the harness's main().
 */
__attribute__((constructor))
static void exec_loop(int argc, char **argv)
{
	pthread_t t;

	if (argc != 3 || strcmp(argv[1], "--exec-loop"))
		return;
	if (mono_ms() >= atol(argv[2]))
		_exit(0);
	if (readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1) <= 0)
		_exit(2);
	if (pthread_create(&t, NULL, exec_thread, argv))
		_exit(2);
	syscall(SYS_exit, 0);
}

/*
 * A process whose main thread exited still moves as a whole through
 * container.procs, is listed there under its pid, and /proc/<pid>/container
 * shows where it is, as in cgroup v1.
 */
TEST_F(named, exited_leader_moves_and_shows)
{
	char c[CN_PATH_LEN], got[CN_PATH_LEN];
	pid_t pid, tid;

	cn_path(c, sizeof(c), self->root, "c");
	ASSERT_EQ(0, cn_mkdir(c));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		pthread_t t;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (pthread_create(&t, NULL, pause_thread, NULL))
			_exit(1);
		syscall(SYS_exit, 0);
	}
	cn_env_track(&self->env, pid);
	tid = cn_wait_exited_leader(pid);
	ASSERT_GT(tid, 0);
	EXPECT_STREQ("/", where(pid, self->hid, got, sizeof(got)));

	ASSERT_EQ(0, cn_writef_in(c, "container.procs", "%d", pid));
	EXPECT_EQ(1, cn_has_proc(c, pid));
	EXPECT_EQ(1, cn_has_task(c, tid));
	EXPECT_EQ(0, cn_has_proc(self->root, pid));
	EXPECT_STREQ("/c", where(pid, self->hid, got, sizeof(got)));
	EXPECT_STREQ("/c", where(tid, self->hid, got, sizeof(got)));
	/* The dead main thread alone cannot be moved. */
	EXPECT_EQ(-ESRCH, cn_writef_in(self->root, "tasks", "%d", pid));
	EXPECT_EQ(1, cn_has_task(c, tid));
	/* Back, by the thread's id. */
	ASSERT_EQ(0, cn_writef_in(self->root, "tasks", "%d", tid));
	EXPECT_STREQ("/", where(pid, self->hid, got, sizeof(got)));
	EXPECT_EQ(0, cn_count_tasks(c));
}

/*
 * Review bug: a write to container.procs racing an exec from a non-leader
 * thread walked the thread list from a stale leader forever, with the
 * threadgroup lock held for writing: every fork and exit in the system
 * hung (RCU stall).  Each exec of the child happens from a new thread
 * while two writers move it, over and over, into the container it is
 * already in (so that the walk never fills its array and stops).
 */
TEST_F_TIMEOUT(named, procs_write_races_exec_from_thread, 120)
{
	char a[CN_PATH_LEN];
	char b[CN_PATH_LEN];
	char deadline[32];
	long end, moves = 0, errors = 0;
	pid_t pid, helper;
	int status, ret;

	cn_path(a, sizeof(a), self->root, "a");
	cn_path(b, sizeof(b), self->root, "b");
	ASSERT_EQ(0, cn_mkdir(a));
	ASSERT_EQ(0, cn_mkdir(b));
	end = mono_ms() + 4000;
	snprintf(deadline, sizeof(deadline), "%ld", end);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		char *argv[] = { "test_core", "--exec-loop", deadline, NULL };

		execv("/proc/self/exe", argv);
		_exit(1);
	}
	cn_env_track(&self->env, pid);
	helper = fork();
	ASSERT_GE(helper, 0);
	if (!helper) {
		while (mono_ms() < end && !kill(pid, 0))
			cn_writef_in(a, "container.procs", "%d", pid);
		_exit(0);
	}
	cn_env_track(&self->env, helper);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		ret = cn_writef_in(moves % 64 ? a : b, "container.procs", "%d",
				   pid);
		/* Between one exec and the next, the thread may be gone. */
		if (ret)
			errors++;
		moves++;
		ASSERT_LT(mono_ms(), end + 30000) TH_LOG("the child did not end");
	}
	cn_env_untrack(&self->env, pid);
	ASSERT_EQ(helper, waitpid(helper, NULL, 0));
	cn_env_untrack(&self->env, helper);
	TH_LOG("%ld moves (%ld failed) while the child exec'ed from threads",
	       moves, errors);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child status %#x", status);
	EXPECT_GT(moves - errors, 10);
}

/*
 * Review bug: a write to one of the top's cpuset files waits for the
 * container mutex with its kernfs protection dropped; a remount that
 * unbound cpuset meanwhile left it a NULL state (oops).  Writers keep
 * their files open across remounts that unbind and bind cpuset: each
 * write either works, or fails because the file or subsystem went.
 */
TEST_F_TIMEOUT(bare, write_races_remount_unbinding, 120)
{
	static const char * const files[] = {
		"cpuset.cpu_exclusive", "cpuset.mem_exclusive", "cpuset.cpus",
	};
	char name[32], none[CN_DIR_LEN], cpuset[CN_DIR_LEN], *m;
	pid_t pids[3];
	long end, remounts = 0;
	int i, status;

	snprintf(name, sizeof(name), "name=rcs%d", getpid());
	snprintf(none, sizeof(none), "none,%s", name);
	snprintf(cpuset, sizeof(cpuset), "cpuset,%s", name);
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, cpuset, &m));
	end = cn_now_ms() + 4000;
	for (i = 0; i < 3; i++) {
		pids[i] = fork();
		ASSERT_GE(pids[i], 0);
		if (pids[i])
			continue;
		while (cn_now_ms() < end) {
			char path[CN_PATH_LEN];
			int fd;

			cn_path(path, sizeof(path), m, files[i]);
			fd = open(path, O_WRONLY);
			while (fd >= 0 && cn_now_ms() < end) {
				/* 1 changes nothing: the top is exclusive. */
				ssize_t n = pwrite(fd, "1", 1, 0);

				/* Gone with its subsystem: open it again. */
				if (n < 0 && errno != EACCES && errno != EINVAL)
					break;
			}
			if (fd >= 0)
				close(fd);
		}
		_exit(0);
	}
	while (cn_now_ms() < end) {
		EXPECT_EQ(0, cn_remount(m, none));
		EXPECT_EQ(0, cn_remount(m, cpuset));
		remounts++;
	}
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	}
	TH_LOG("%ld remount pairs", remounts);
	EXPECT_GT(remounts, 5);
	EXPECT_TRUE(cn_exists_in(m, "cpuset.cpus"));
	EXPECT_EQ(cn_hier_id(name), cn_hier_id("cpuset"));
}

TEST_HARNESS_MAIN
