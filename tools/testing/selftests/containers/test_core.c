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

#define P cn_fmt
#define L cn_long
#define S cn_str

/* The path of @pid in hierarchy @hid, or "<error N>". */
static char *where(pid_t pid, int hid)
{
	static char bufs[8][CN_PATH_LEN];
	static int next;
	char *buf = bufs[next++ % 8];
	int ret;

	ret = cn_proc_path(pid, hid, buf, CN_PATH_LEN);
	if (ret)
		snprintf(buf, CN_PATH_LEN, "<error %d>", ret);
	return buf;
}

/* Poll until file @path holds @want, for at most @ms milliseconds. */
static long wait_long(const char *path, long want, long ms)
{
	long end = cn_now_ms() + ms, v;

	for (;;) {
		v = L(path);
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
	long max = L("/proc/sys/kernel/pid_max");
	pid_t p;

	if (max == BAD_READ || max < 300)
		max = 32768;
	for (p = max - 1; p > 300; p--)
		if (!cn_exists(P("/proc/%d", p)))
			return p;
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
	cn_cleanup_stale();
	cn_env_init(&self->env);
	snprintf(self->name, sizeof(self->name), "ct%d", getpid());
	ASSERT_EQ(0, cn_env_mount(&self->env, P("none,name=%s", self->name),
				  &self->root));
	self->hid = cn_hier_id(P("name=%s", self->name));
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
	char name[32], *m;
	int i, hid;

	snprintf(name, sizeof(name), "ct%d", getpid());
	ASSERT_EQ(0, cn_env_mount(&self->env, P("none,name=%s", name), &m));
	for (i = 0; i < ARRAY_SIZE(core_files); i++) {
		EXPECT_TRUE(cn_exists(P("%s/%s", m, core_files[i])))
			TH_LOG("missing %s", core_files[i]);
	}
	EXPECT_TRUE(cn_exists(P("%s/release_agent", m)));
	for (i = 0; i < ARRAY_SIZE(debug_files); i++) {
		EXPECT_FALSE(cn_exists(P("%s/%s", m, debug_files[i])))
			TH_LOG("%s", debug_files[i]);
	}
	hid = cn_hier_id(P("name=%s", name));
	ASSERT_GT(hid, 0);
	EXPECT_STREQ("/", where(0, hid));
	EXPECT_EQ(1, cn_has_task(m, getpid()));
}

/* The options of a mount in /proc/mounts, after "container rw,relatime". */
static char *mount_options(const char *dir)
{
	static char opts[512];
	char *all = cn_read_all("/proc/mounts", 4096), *line, *save;
	char mnt[256], type[64];

	snprintf(opts, sizeof(opts), "<not mounted>");
	for (line = all ? strtok_r(all, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%*s %255s %63s %511s", mnt, type, opts) == 3 &&
		    !strcmp(mnt, dir) && !strcmp(type, CN_FSTYPE))
			break;
		snprintf(opts, sizeof(opts), "<not mounted>");
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
	char name[32], *m, *want;

	snprintf(name, sizeof(name), "ct%d", getpid());
	ASSERT_EQ(0, cn_env_mount(&self->env,
				  P("none,name=%s,clone_children,release_agent=/sbin/agent",
				    name), &m));
	want = P("rw,relatime,none,clone_children,release_agent=/sbin/agent,name=%s",
		 name);
	EXPECT_STREQ(want, mount_options(m));
	ASSERT_EQ(0, cn_write(P("%s/release_agent", m), "/bin/other"));
	want = P("rw,relatime,none,clone_children,release_agent=/bin/other,name=%s",
		 name);
	EXPECT_STREQ(want, mount_options(m));
	ASSERT_EQ(0, cn_write(P("%s/release_agent", m), ""));
	EXPECT_STREQ(P("rw,relatime,none,clone_children,name=%s", name),
		     mount_options(m));
}

TEST_F(bare, mount_debug_prefixed_files)
{
	char *m;
	int i;

	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "debug", &m));
	ASSERT_EQ(0, cn_mkdir(P("%s/c", m)));
	for (i = 0; i < ARRAY_SIZE(debug_files); i++) {
		EXPECT_TRUE(cn_exists(P("%s/%s", m, debug_files[i])))
			TH_LOG("missing %s in root", debug_files[i]);
		EXPECT_TRUE(cn_exists(P("%s/c/%s", m, debug_files[i])))
			TH_LOG("missing %s in child", debug_files[i]);
		/* Without the "debug." prefix: absent. */
		EXPECT_FALSE(cn_exists(P("%s/%s", m, debug_files[i] + 6)));
	}
	for (i = 0; i < ARRAY_SIZE(core_files); i++) {
		EXPECT_TRUE(cn_exists(P("%s/c/%s", m, core_files[i])))
			TH_LOG("%s", core_files[i]);
	}
	EXPECT_TRUE(cn_exists(P("%s/release_agent", m)));
	EXPECT_FALSE(cn_exists(P("%s/c/release_agent", m)));
}

/* noprefix is for cpuset alone, as in cgroup v1 (the old cpuset fs). */
TEST_F(bare, mount_noprefix)
{
	char *m;
	int i;

	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "cpuset,noprefix", &m));
	EXPECT_TRUE(cn_exists(P("%s/cpus", m)));
	EXPECT_TRUE(cn_exists(P("%s/mems", m)));
	EXPECT_TRUE(cn_exists(P("%s/cpu_exclusive", m)));
	EXPECT_FALSE(cn_exists(P("%s/cpuset.cpus", m)));
	/* The core files keep their names. */
	for (i = 0; i < ARRAY_SIZE(core_files); i++) {
		EXPECT_TRUE(cn_exists(P("%s/%s", m, core_files[i])))
			TH_LOG("missing %s", core_files[i]);
	}
	EXPECT_TRUE(cn_exists(P("%s/release_agent", m)));
	ASSERT_EQ(0, cn_mkdir(P("%s/c", m)));
	EXPECT_TRUE(cn_exists(P("%s/c/cpus", m)));
	EXPECT_TRUE(cn_exists(P("%s/c/tasks", m)));
	ASSERT_EQ(0, cn_rmdir(P("%s/c", m)));
	/* No other subsystem may join it, and the refusal changes nothing. */
	EXPECT_EQ(-EINVAL, cn_remount(m, "cpuset,debug"));
	EXPECT_EQ(-EINVAL, cn_remount(m, "cpuset,debug,noprefix"));
	EXPECT_FALSE(cn_exists(P("%s/taskcount", m)));
	EXPECT_TRUE(cn_exists(P("%s/cpus", m)));
	EXPECT_NE(cn_hier_id("cpuset"), cn_hier_id("debug"));
}

TEST_F(bare, mount_noprefix_other_subsystems_einval)
{
	static const char * const bad[] = {
		"debug,noprefix", "cpuacct,memory,noprefix",
		"cpuset,debug,noprefix", "noprefix",
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, cn_env_mount(&self->env, bad[i], NULL))
			TH_LOG("'%s'", bad[i]);
	}
	/* Without subsystems there is nothing to clash. */
	EXPECT_EQ(0, cn_env_mount(&self->env,
				  P("none,noprefix,name=np%d", getpid()),
				  NULL));
}

TEST_F(bare, mount_unknown_subsystem_einval)
{
	EXPECT_EQ(-EINVAL, cn_env_mount(&self->env, "nosuchsubsys", NULL));
	EXPECT_EQ(-EINVAL, cn_env_mount(&self->env, "debug,nosuchsubsys",
					NULL));
	EXPECT_EQ(-EINVAL, cn_env_mount(&self->env,
					P("nosuchsubsys,name=ct%d", getpid()),
					NULL));
	/* A failed mount must not have left debug bound. */
	EXPECT_EQ(0, cn_env_mount_retry(&self->env, "debug", NULL));
}

TEST_F(bare, mount_unknown_option_einval)
{
	EXPECT_EQ(-EINVAL, cn_env_mount(&self->env, "debug,bogus=1", NULL));
	EXPECT_EQ(-EINVAL, cn_env_mount(&self->env,
					P("none,name=ct%d,frobnicate=yes",
					  getpid()), NULL));
	EXPECT_EQ(0, cn_env_mount_retry(&self->env, "debug", NULL));
}

TEST_F(bare, mount_none_requires_name)
{
	EXPECT_EQ(-EINVAL, cn_env_mount(&self->env, "none", NULL));
	EXPECT_EQ(-EINVAL, cn_env_mount(&self->env, "none,noprefix", NULL));
	EXPECT_EQ(0, cn_env_mount(&self->env, P("none,name=ct%d", getpid()),
				  NULL));
}

TEST_F(bare, mount_bound_subsystem_ebusy)
{
	char *m, *r;
	int hier, num, en, hid;

	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "debug", &m));
	hid = cn_hier_id("debug");
	ASSERT_GT(hid, 0);
	/* A new hierarchy cannot take debug away. */
	EXPECT_EQ(-EBUSY, cn_env_mount(&self->env,
				       P("debug,name=ct%d", getpid()), NULL));
	/* Nor can another one grab it by remounting. */
	ASSERT_EQ(0, cn_env_mount(&self->env, P("none,name=ct%dr", getpid()),
				  &r));
	EXPECT_EQ(-EBUSY, cn_remount(r, P("debug,name=ct%dr", getpid())));
	EXPECT_FALSE(cn_exists(P("%s/debug.taskcount", r)));
	ASSERT_EQ(0, cn_subsys_info("debug", &hier, &num, &en));
	EXPECT_EQ(hid, hier);
	EXPECT_EQ(1, cn_hier_count("debug"));
}

TEST_F(bare, mount_same_subsystems_same_hierarchy)
{
	char *m1, *m2;
	pid_t pid;

	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "debug", &m1));
	ASSERT_EQ(0, cn_env_mount(&self->env, "debug", &m2));
	EXPECT_EQ(1, cn_hier_count("debug"));
	ASSERT_EQ(0, cn_mkdir(P("%s/x", m1)));
	EXPECT_TRUE(cn_exists(P("%s/x/tasks", m2)));
	pid = cn_env_sleeper(&self->env);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, cn_move(P("%s/x", m2), pid));
	EXPECT_EQ(1, cn_has_task(P("%s/x", m1), pid));
	EXPECT_EQ(0, cn_has_task(m1, pid));
	cn_env_kill(&self->env, pid);
	EXPECT_EQ(0, cn_rmdir(P("%s/x", m2)));
	EXPECT_FALSE(cn_exists(P("%s/x", m1)));
}

TEST_F(bare, mount_same_name_same_hierarchy)
{
	char name[32], *m1, *m2;

	snprintf(name, sizeof(name), "ct%d", getpid());
	ASSERT_EQ(0, cn_env_mount(&self->env, P("none,name=%s", name), &m1));
	ASSERT_EQ(0, cn_env_mount(&self->env, P("none,name=%s", name), &m2));
	EXPECT_EQ(1, cn_hier_count(P("name=%s", name)));
	ASSERT_EQ(0, cn_mkdir(P("%s/a", m2)));
	ASSERT_EQ(0, cn_mkdir(P("%s/a/b", m1)));
	EXPECT_TRUE(cn_exists(P("%s/a/b/tasks", m2)));
	ASSERT_EQ(0, cn_write(P("%s/a/notify_on_release", m1), "1"));
	EXPECT_EQ(1, L(P("%s/a/notify_on_release", m2)));
}

TEST_F(bare, mount_same_name_other_subsystems_ebusy)
{
	char *m;

	ASSERT_EQ(0, cn_env_mount(&self->env, P("none,name=ct%da", getpid()),
				  &m));
	EXPECT_EQ(-EBUSY, cn_env_mount(&self->env,
				       P("debug,name=ct%da", getpid()), NULL));
	EXPECT_FALSE(cn_exists(P("%s/debug.taskcount", m)));

	ASSERT_EQ(0, cn_env_mount_retry(&self->env,
					P("debug,name=ct%db", getpid()), &m));
	EXPECT_EQ(-EBUSY, cn_env_mount(&self->env,
				       P("none,name=ct%db", getpid()), NULL));
	EXPECT_TRUE(cn_exists(P("%s/debug.taskcount", m)));
}

static void check_binds_debug(struct __test_metadata *_metadata,
			      const char *m)
{
	int hier, num, en, hid;

	hid = cn_hier_id("debug");
	ASSERT_GT(hid, 0);
	ASSERT_EQ(0, cn_subsys_info("debug", &hier, &num, &en));
	EXPECT_EQ(hid, hier);
	EXPECT_TRUE(cn_exists(P("%s/debug.taskcount", m)));
	EXPECT_TRUE(cn_exists(P("%s/tasks", m)));
	EXPECT_STREQ("/", where(0, hid));
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
	char *dir;

	ASSERT_NE(NULL, tmp);
	dir = P("%s/mnt", tmp);
	ASSERT_EQ(0, mkdir(dir, 0777));
	ASSERT_EQ(0, chmod(tmp, 0777));
	EXPECT_EQ(-EPERM, cn_run_as(CN_NOBODY, try_mount, dir));
	EXPECT_EQ(-EPERM, cn_run_as(CN_NOBODY, try_mount_named, dir));
	rmdir(dir);
}

TEST_F(bare, hierarchy_with_children_survives_umount)
{
	char name[32], *m;

	snprintf(name, sizeof(name), "ct%d", getpid());
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, P("debug,name=%s", name),
					&m));
	ASSERT_EQ(0, cn_mkdir(P("%s/keep", m)));
	ASSERT_EQ(0, cn_write(P("%s/keep/notify_on_release", m), "1"));
	ASSERT_EQ(0, cn_env_umount(&self->env, m));

	/* Still alive, so debug is still taken. */
	EXPECT_EQ(-EBUSY, cn_env_mount(&self->env,
				       P("debug,name=%sx", name), NULL));

	/* Mount it again: the old children are there. */
	ASSERT_EQ(0, cn_env_mount(&self->env, P("debug,name=%s", name), &m));
	EXPECT_TRUE(cn_exists(P("%s/keep/tasks", m)));
	EXPECT_EQ(1, L(P("%s/keep/notify_on_release", m)));
	EXPECT_EQ(0, cn_rmdir(P("%s/keep", m)));
}

TEST_F(bare, hierarchy_without_children_destroyed)
{
	int hier, num, en;
	char *m;

	ASSERT_EQ(0, cn_env_mount_retry(&self->env,
					P("debug,name=ct%da", getpid()), &m));
	ASSERT_GT(cn_hier_id(P("name=ct%da", getpid())), 0);
	ASSERT_EQ(0, cn_mkdir(P("%s/tmp", m)));
	ASSERT_EQ(0, cn_rmdir(P("%s/tmp", m)));
	ASSERT_EQ(0, cn_env_umount(&self->env, m));

	/* Gone (allowing for deferred freeing)... */
	EXPECT_EQ(0, cn_wait_subsys_hier("debug", 0, 3000));
	ASSERT_EQ(0, cn_subsys_info("debug", &hier, &num, &en));
	EXPECT_EQ(1, num);
	EXPECT_EQ(-ENOENT, cn_hier_id(P("name=ct%da", getpid())));
	/* ...so debug can go to a hierarchy of another name. */
	ASSERT_EQ(0, cn_env_mount(&self->env, P("debug,name=ct%db", getpid()),
				  &m));
	EXPECT_TRUE(cn_exists(P("%s/debug.taskcount", m)));
	EXPECT_GT(cn_hier_id(P("name=ct%db", getpid())), 0);
}

TEST_F(bare, remount_changes_subsystems)
{
	char name[32], *m;
	int hier, num, en, hid;

	ASSERT_EQ(0, cn_wait_subsys_hier("debug", 0, 3000));
	snprintf(name, sizeof(name), "ct%d", getpid());
	ASSERT_EQ(0, cn_env_mount(&self->env, P("none,name=%s", name), &m));
	hid = cn_hier_id(P("name=%s", name));
	ASSERT_GT(hid, 0);
	ASSERT_FALSE(cn_exists(P("%s/debug.taskcount", m)));

	ASSERT_EQ(0, cn_remount(m, P("debug,name=%s", name)));
	EXPECT_TRUE(cn_exists(P("%s/debug.taskcount", m)));
	EXPECT_EQ(hid, cn_hier_id("debug"));
	EXPECT_EQ(hid, cn_hier_id(P("name=%s", name)));
	ASSERT_EQ(0, cn_subsys_info("debug", &hier, &num, &en));
	EXPECT_EQ(hid, hier);
	EXPECT_EQ(1, cn_has_task(m, getpid()));

	ASSERT_EQ(0, cn_remount(m, P("none,name=%s", name)));
	EXPECT_FALSE(cn_exists(P("%s/debug.taskcount", m)));
	EXPECT_EQ(-ENOENT, cn_hier_id("debug"));
	EXPECT_EQ(0, cn_wait_subsys_hier("debug", 0, 3000));
	/* Still the same hierarchy, still mounted. */
	EXPECT_EQ(hid, cn_hier_id(P("name=%s", name)));
	EXPECT_EQ(1, cn_has_task(m, getpid()));
}

TEST_F(bare, remount_with_children_ebusy)
{
	char name[32], *m;
	int hier, num, en;

	ASSERT_EQ(0, cn_wait_subsys_hier("debug", 0, 3000));
	snprintf(name, sizeof(name), "ct%d", getpid());
	ASSERT_EQ(0, cn_env_mount(&self->env, P("none,name=%s", name), &m));
	ASSERT_EQ(0, cn_mkdir(P("%s/c", m)));
	EXPECT_EQ(-EBUSY, cn_remount(m, P("debug,name=%s", name)));
	EXPECT_FALSE(cn_exists(P("%s/debug.taskcount", m)));
	EXPECT_FALSE(cn_exists(P("%s/c/debug.taskcount", m)));
	ASSERT_EQ(0, cn_subsys_info("debug", &hier, &num, &en));
	EXPECT_EQ(0, hier);
	/* Without the child it works. */
	ASSERT_EQ(0, cn_rmdir(P("%s/c", m)));
	EXPECT_EQ(0, cn_remount(m, P("debug,name=%s", name)));
	EXPECT_TRUE(cn_exists(P("%s/debug.taskcount", m)));
}

TEST_F(bare, mount_option_clone_children)
{
	char *m1, *m2;

	ASSERT_EQ(0, cn_env_mount(&self->env,
				  P("none,name=ct%da,clone_children", getpid()),
				  &m1));
	ASSERT_EQ(0, cn_env_mount(&self->env, P("none,name=ct%db", getpid()),
				  &m2));
	EXPECT_EQ(1, L(P("%s/container.clone_children", m1)));
	EXPECT_EQ(0, L(P("%s/container.clone_children", m2)));
	ASSERT_EQ(0, cn_mkdir(P("%s/c", m1)));
	EXPECT_EQ(1, L(P("%s/c/container.clone_children", m1)));
}

TEST_F(bare, mount_option_release_agent)
{
	char *m;

	ASSERT_EQ(0, cn_env_mount(&self->env,
				  P("none,name=ct%d,release_agent=/tmp/agent-x",
				    getpid()), &m));
	EXPECT_STREQ("/tmp/agent-x", S(P("%s/release_agent", m)));
}

/* ---------------------------------------------------------------------
 * Containers as directories.
 * ---------------------------------------------------------------------
 */
TEST_F(named, mkdir_rmdir)
{
	char *c = P("%s/c", self->root);
	struct dirent *de;
	bool listed = false;
	struct stat st;
	DIR *d;
	int i;

	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, stat(c, &st));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	for (i = 0; i < ARRAY_SIZE(core_files); i++) {
		EXPECT_TRUE(cn_exists(P("%s/%s", c, core_files[i])))
			TH_LOG("missing %s", core_files[i]);
	}
	EXPECT_EQ(0, cn_count_tasks(c));
	EXPECT_STREQ("", S(P("%s/container.procs", c)));

	d = opendir(self->root);
	ASSERT_NE(NULL, d);
	while ((de = readdir(d)))
		if (!strcmp(de->d_name, "c"))
			listed = true;
	closedir(d);
	EXPECT_TRUE(listed);

	EXPECT_EQ(-EEXIST, cn_mkdir(c));
	EXPECT_EQ(-EEXIST, cn_mkdir(P("%s/tasks", self->root)));
	EXPECT_EQ(0, cn_rmdir(c));
	EXPECT_FALSE(cn_exists(c));
	EXPECT_EQ(-ENOENT, cn_rmdir(c));
}

TEST_F(named, nested_containers)
{
	const char *r = self->root;
	int i;

	ASSERT_EQ(0, cn_mkdir(P("%s/a", r)));
	ASSERT_EQ(0, cn_mkdir(P("%s/a/b", r)));
	ASSERT_EQ(0, cn_mkdir(P("%s/a/b/c", r)));
	ASSERT_EQ(0, cn_mkdir(P("%s/a/b/c/d", r)));
	EXPECT_EQ(-ENOENT, cn_mkdir(P("%s/x/y", r)));
	for (i = 0; i < ARRAY_SIZE(core_files); i++) {
		EXPECT_TRUE(cn_exists(P("%s/a/b/c/d/%s", r, core_files[i])))
			TH_LOG("%s", core_files[i]);
	}
	EXPECT_FALSE(cn_exists(P("%s/a/b/c/d/release_agent", r)));

	ASSERT_EQ(0, cn_move_self(P("%s/a/b/c/d", r)));
	EXPECT_STREQ("/a/b/c/d", where(0, self->hid));
	ASSERT_EQ(0, cn_move_self(r));
	EXPECT_STREQ("/", where(0, self->hid));

	/* A container with children cannot go. */
	EXPECT_EQ(-EBUSY, cn_rmdir(P("%s/a", r)));
	EXPECT_EQ(-EBUSY, cn_rmdir(P("%s/a/b/c", r)));
	EXPECT_TRUE(cn_exists(P("%s/a/b/c/d/tasks", r)));
	EXPECT_EQ(0, cn_rmdir(P("%s/a/b/c/d", r)));
	EXPECT_EQ(0, cn_rmdir(P("%s/a/b/c", r)));
	EXPECT_EQ(0, cn_rmdir(P("%s/a/b", r)));
	EXPECT_EQ(0, cn_rmdir(P("%s/a", r)));
	EXPECT_EQ(1, cn_tree_dirs(r));
}

TEST_F(named, rmdir_with_tasks_ebusy)
{
	char *c = P("%s/c", self->root);
	long end;
	pid_t pid;
	int ret;

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
	pid_t pid;

	ASSERT_EQ(0, cn_mkdir(P("%s/a", r)));
	ASSERT_EQ(0, cn_mkdir(P("%s/a/x", r)));
	pid = cn_env_sleeper(&self->env);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, cn_move(P("%s/a/x", r), pid));
	ASSERT_EQ(0, rename(P("%s/a/x", r), P("%s/a/y", r)));
	EXPECT_FALSE(cn_exists(P("%s/a/x", r)));
	EXPECT_TRUE(cn_exists(P("%s/a/y/tasks", r)));
	EXPECT_EQ(1, cn_has_task(P("%s/a/y", r), pid));
	EXPECT_STREQ("/a/y", where(pid, self->hid));
}

TEST_F(named, rename_to_other_parent_fails)
{
	const char *r = self->root;
	int ret;

	ASSERT_EQ(0, cn_mkdir(P("%s/a", r)));
	ASSERT_EQ(0, cn_mkdir(P("%s/b", r)));
	ASSERT_EQ(0, cn_mkdir(P("%s/a/x", r)));
	ret = rename(P("%s/a/x", r), P("%s/b/x", r)) ? -errno : 0;
	EXPECT_TRUE(ret == -EINVAL || ret == -EXDEV)
		TH_LOG("rename across parents returned %d", ret);
	EXPECT_TRUE(cn_exists(P("%s/a/x/tasks", r)));
	EXPECT_FALSE(cn_exists(P("%s/b/x", r)));
	ret = rename(P("%s/a/x", r), P("%s/x", r)) ? -errno : 0;
	EXPECT_TRUE(ret == -EINVAL || ret == -EXDEV)
		TH_LOG("rename to the grandparent returned %d", ret);
	EXPECT_TRUE(cn_exists(P("%s/a/x/tasks", r)));
}

TEST_F(named, create_regular_file_fails)
{
	const char *r = self->root;
	int fd;

	fd = open(P("%s/newfile", r), O_CREAT | O_WRONLY, 0644);
	EXPECT_LT(fd, 0);
	if (fd >= 0)
		close(fd);
	EXPECT_FALSE(cn_exists(P("%s/newfile", r)));

	ASSERT_EQ(0, cn_mkdir(P("%s/c", r)));
	fd = open(P("%s/c/newfile", r), O_CREAT | O_WRONLY, 0644);
	EXPECT_LT(fd, 0);
	if (fd >= 0)
		close(fd);
	EXPECT_FALSE(cn_exists(P("%s/c/newfile", r)));
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
	DIR *d, *td;

	pid = spawn_threaded(&self->env, 3, tids);
	ASSERT_GT(pid, 0);

	/* Every thread of the system before reading... */
	d = opendir("/proc");
	ASSERT_NE(NULL, d);
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		td = opendir(P("/proc/%s/task", de->d_name));
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

	n = cn_read_pids(P("%s/tasks", self->root), &tasks);
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
		if (!cn_exists(P("/proc/%d", before[i])))
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
	char *c = P("%s/c", self->root);

	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, cn_write(P("%s/tasks", c), "0"));
	EXPECT_EQ(1, cn_has_task(c, getpid()));
	EXPECT_EQ(0, cn_has_task(self->root, getpid()));
	EXPECT_STREQ("/c", where(0, self->hid));
	EXPECT_STREQ(P("%d", getpid()), S(P("%s/tasks", c)));
	ASSERT_EQ(0, cn_write(P("%s/tasks", self->root), "0"));
	EXPECT_EQ(0, cn_has_task(c, getpid()));
	EXPECT_EQ(1, cn_has_task(self->root, getpid()));
	EXPECT_STREQ("/", where(0, self->hid));
}

TEST_F(named, tasks_move_other_task)
{
	char *c1 = P("%s/c1", self->root), *c2 = P("%s/c2", self->root);
	pid_t pid;

	ASSERT_EQ(0, cn_mkdir(c1));
	ASSERT_EQ(0, cn_mkdir(c2));
	pid = cn_env_sleeper(&self->env);
	ASSERT_GT(pid, 0);
	EXPECT_EQ(1, cn_has_task(self->root, pid));

	ASSERT_EQ(0, cn_move(c1, pid));
	EXPECT_EQ(1, cn_has_task(c1, pid));
	EXPECT_EQ(0, cn_has_task(self->root, pid));
	EXPECT_STREQ("/c1", where(pid, self->hid));
	/* The writer stays where it was. */
	EXPECT_EQ(1, cn_has_task(self->root, getpid()));

	/* As echo writes it: with a newline. */
	ASSERT_EQ(0, cn_writef(P("%s/tasks", c2), "%d\n", pid));
	EXPECT_EQ(0, cn_has_task(c1, pid));
	EXPECT_EQ(1, cn_has_task(c2, pid));
	EXPECT_STREQ("/c2", where(pid, self->hid));

	/* Moving into the container it is in already is fine. */
	EXPECT_EQ(0, cn_move(c2, pid));
	EXPECT_EQ(1, cn_count_tasks(c2));

	ASSERT_EQ(0, cn_move(self->root, pid));
	EXPECT_EQ(1, cn_has_task(self->root, pid));
	EXPECT_EQ(0, cn_count_tasks(c1));
	EXPECT_EQ(0, cn_count_tasks(c2));
	EXPECT_STREQ("/", where(pid, self->hid));
}

TEST_F(named, tasks_unknown_pid_esrch)
{
	char *c = P("%s/c", self->root);
	pid_t pid = unused_pid();

	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, cn_mkdir(c));
	EXPECT_EQ(-ESRCH, cn_move(c, pid));
	EXPECT_EQ(-ESRCH, cn_move_proc(c, pid));
	EXPECT_EQ(0, cn_count_tasks(c));
}

TEST_F(named, tasks_garbage_einval)
{
	static const char * const bad[] = { "abc", "12abc", "0x" };
	char *c = P("%s/c", self->root);
	int i;

	ASSERT_EQ(0, cn_mkdir(c));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, cn_write(P("%s/tasks", c), bad[i]))
			TH_LOG("tasks <- '%s'", bad[i]);
		EXPECT_EQ(-EINVAL, cn_write(P("%s/container.procs", c), bad[i]))
			TH_LOG("container.procs <- '%s'", bad[i]);
	}
	EXPECT_EQ(0, cn_count_tasks(c));
}

TEST_F(named, tasks_negative_pid_fails)
{
	char *c = P("%s/c", self->root);
	int ret;

	ASSERT_EQ(0, cn_mkdir(c));
	ret = cn_write(P("%s/tasks", c), "-1");
	EXPECT_TRUE(ret == -EINVAL || ret == -ESRCH)
		TH_LOG("tasks <- -1 returned %d", ret);
	ret = cn_write(P("%s/tasks", c), P("-%d", getpid()));
	EXPECT_TRUE(ret == -EINVAL || ret == -ESRCH)
		TH_LOG("tasks <- -pid returned %d", ret);
	ret = cn_write(P("%s/container.procs", c), "-1");
	EXPECT_TRUE(ret == -EINVAL || ret == -ESRCH)
		TH_LOG("container.procs <- -1 returned %d", ret);
	EXPECT_EQ(0, cn_count_tasks(c));
	EXPECT_EQ(1, cn_has_task(self->root, getpid()));
}

TEST_F(named, tasks_kthreadd_einval)
{
	char *c = P("%s/c", self->root);

	if (strcmp(S("/proc/2/comm"), "kthreadd"))
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
	char *c = P("%s/c", self->root), *tasks = P("%s/c/tasks", self->root);
	struct move_arg arg = { .cont = c };
	pid_t rootpid, nobodypid;

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
	char *c = P("%s/c", self->root);
	pid_t tids[4], pid, *pids;
	int n, i;

	pid = spawn_threaded(&self->env, 3, tids);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, cn_move(c, tids[2]));

	n = cn_read_pids(P("%s/tasks", c), &pids);
	ASSERT_EQ(1, n);
	EXPECT_EQ(tids[2], pids[0]);
	free(pids);
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(i != 2, cn_has_task(self->root, tids[i]))
			TH_LOG("thread %d", tids[i]);
	}
	/* The thread group of a member is listed in container.procs. */
	EXPECT_STREQ(P("%d", pid), S(P("%s/container.procs", c)));
	EXPECT_STREQ("/c", where(tids[2], self->hid));
	EXPECT_STREQ("/", where(tids[1], self->hid));
	EXPECT_STREQ("/", where(pid, self->hid));
}

TEST_F(named, procs_moves_all_threads)
{
	char *c = P("%s/c", self->root);
	pid_t tids[4], pid, *pids;
	int n, i;

	pid = spawn_threaded(&self->env, 3, tids);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, cn_move_proc(c, pid));

	n = cn_read_pids(P("%s/tasks", c), &pids);
	ASSERT_EQ(4, n);
	EXPECT_TRUE(cn_pids_sorted_unique(pids, n));
	for (i = 0; i < 4; i++) {
		EXPECT_TRUE(cn_pids_contain(pids, n, tids[i]))
			TH_LOG("thread %d not moved", tids[i]);
		EXPECT_EQ(0, cn_has_task(self->root, tids[i]));
		EXPECT_STREQ("/c", where(tids[i], self->hid));
	}
	free(pids);
	EXPECT_STREQ(P("%d", pid), S(P("%s/container.procs", c)));
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
	char *c = P("%s/c", self->root);
	pid_t a[4], b[4], pa, pb, *pids;
	int n;

	pa = spawn_threaded(&self->env, 3, a);
	ASSERT_GT(pa, 0);
	pb = spawn_threaded(&self->env, 3, b);
	ASSERT_GT(pb, 0);
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, cn_move_proc(c, pb));
	ASSERT_EQ(0, cn_move_proc(c, pa));

	n = cn_read_pids(P("%s/container.procs", c), &pids);
	ASSERT_EQ(2, n);
	EXPECT_EQ(pa < pb ? pa : pb, pids[0]);
	EXPECT_EQ(pa < pb ? pb : pa, pids[1]);
	free(pids);
	n = cn_read_pids(P("%s/tasks", c), &pids);
	EXPECT_EQ(8, n);
	EXPECT_TRUE(cn_pids_sorted_unique(pids, n));
	free(pids);

	/* The root's list is sorted and unique too. */
	n = cn_read_pids(P("%s/container.procs", self->root), &pids);
	ASSERT_GT(n, 0);
	EXPECT_TRUE(cn_pids_sorted_unique(pids, n));
	EXPECT_TRUE(cn_pids_contain(pids, n, getpid()));
	EXPECT_FALSE(cn_pids_contain(pids, n, pa));
	free(pids);
}

TEST_F(bare, fork_inherits_in_every_hierarchy)
{
	char *m1, *m2;
	int h1, h2;
	pid_t pid;

	ASSERT_EQ(0, cn_env_mount(&self->env, P("none,name=ct%da", getpid()),
				  &m1));
	ASSERT_EQ(0, cn_env_mount(&self->env, P("none,name=ct%db", getpid()),
				  &m2));
	h1 = cn_hier_id(P("name=ct%da", getpid()));
	h2 = cn_hier_id(P("name=ct%db", getpid()));
	ASSERT_GT(h1, 0);
	ASSERT_GT(h2, 0);
	ASSERT_NE(h1, h2);
	ASSERT_EQ(0, cn_mkdir(P("%s/A1", m1)));
	ASSERT_EQ(0, cn_mkdir(P("%s/B1", m2)));
	ASSERT_EQ(0, cn_mkdir(P("%s/B1/B2", m2)));
	ASSERT_EQ(0, cn_move_self(P("%s/A1", m1)));
	ASSERT_EQ(0, cn_move_self(P("%s/B1/B2", m2)));

	pid = cn_env_sleeper(&self->env);
	ASSERT_GT(pid, 0);
	EXPECT_EQ(1, cn_has_task(P("%s/A1", m1), pid));
	EXPECT_EQ(1, cn_has_task(P("%s/B1/B2", m2), pid));
	EXPECT_EQ(0, cn_has_task(m1, pid));
	EXPECT_EQ(0, cn_has_task(P("%s/B1", m2), pid));
	EXPECT_STREQ("/A1", where(pid, h1));
	EXPECT_STREQ("/B1/B2", where(pid, h2));

	/* The parent leaving does not take the child along. */
	ASSERT_EQ(0, cn_move_self(m1));
	ASSERT_EQ(0, cn_move_self(m2));
	EXPECT_EQ(1, cn_has_task(P("%s/A1", m1), pid));
	EXPECT_EQ(1, cn_has_task(P("%s/B1/B2", m2), pid));
	EXPECT_EQ(0, cn_count_tasks(P("%s/B1", m2)));
}

/* Every task listed exactly once in the tree; @pid at @path. */
static void check_tree(struct __test_metadata *_metadata, const char *root,
		       int hid, const pid_t *pids, const char * const *paths,
		       int npids)
{
	struct cn_member *m;
	int n, i, j, seen;

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
		EXPECT_STREQ(paths[i], where(pids[i], hid));
	}
	free(m);
}

TEST_F(named, one_container_per_hierarchy)
{
	static const char * const dirs[] = { "/a", "/a/b", "/c", "/a/b/d" };
	const char *paths[4];
	const char *r = self->root;
	pid_t pids[4];
	int i, round;

	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, cn_mkdir(P("%s%s", r, dirs[i])))
			TH_LOG("%s", dirs[i]);
	}
	for (i = 0; i < 4; i++) {
		pids[i] = cn_env_sleeper(&self->env);
		ASSERT_GT(pids[i], 0);
	}
	for (round = 0; round < 4; round++) {
		for (i = 0; i < 4; i++) {
			paths[i] = dirs[(i + round) % 4];
			ASSERT_EQ(0, cn_move(P("%s%s", r, paths[i]), pids[i]));
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
	int hd, hn, ids[64], n = 0, i;
	char name[32];

	snprintf(name, sizeof(name), "ct%d", getpid());
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "debug", &m1));
	ASSERT_EQ(0, cn_env_mount(&self->env, P("none,name=%s", name), &m2));
	hd = cn_hier_id("debug");
	hn = cn_hier_id(P("name=%s", name));
	ASSERT_GT(hd, 0);
	ASSERT_GT(hn, 0);
	ASSERT_NE(hd, hn);
	ASSERT_EQ(0, cn_mkdir(P("%s/x", m2)));
	ASSERT_EQ(0, cn_mkdir(P("%s/x/y", m2)));
	ASSERT_EQ(0, cn_move_self(P("%s/x/y", m2)));

	text = cn_read_all("/proc/self/container", 4096);
	ASSERT_NE(NULL, text);
	EXPECT_TRUE(file_has_line("/proc/self/container", P("%d:debug:/", hd)))
		TH_LOG("no '%d:debug:/' in:\n%s", hd, text);
	EXPECT_TRUE(file_has_line("/proc/self/container",
				  P("%d:name=%s:/x/y", hn, name)))
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
	EXPECT_TRUE(file_has_line("/proc/1/container", P("%d:debug:/", hd)));
	EXPECT_TRUE(file_has_line("/proc/1/container",
				  P("%d:name=%s:/", hn, name)));
}

TEST_F(bare, proc_pid_container_subsystems_and_name)
{
	char name[32], *m;
	int hid;

	snprintf(name, sizeof(name), "ct%d", getpid());
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, P("debug,name=%s", name),
					&m));
	hid = cn_hier_id(P("name=%s", name));
	ASSERT_GT(hid, 0);
	EXPECT_EQ(hid, cn_hier_id("debug"));
	EXPECT_TRUE(file_has_line("/proc/self/container",
				  P("%d:debug,name=%s:/", hid, name)))
		TH_LOG("no '%d:debug,name=%s:/' in /proc/self/container",
		       hid, name);
	ASSERT_EQ(0, cn_mkdir(P("%s/z", m)));
	ASSERT_EQ(0, cn_move_self(P("%s/z", m)));
	EXPECT_TRUE(file_has_line("/proc/self/container",
				  P("%d:debug,name=%s:/z", hid, name)));
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

	ASSERT_EQ(0, cn_mkdir(P("%s/a", m)));
	ASSERT_EQ(0, cn_mkdir(P("%s/a/b", m)));
	ASSERT_EQ(0, cn_subsys_info("debug", &hier, &num, &en));
	EXPECT_EQ(3, num);
	ASSERT_EQ(0, cn_rmdir(P("%s/a/b", m)));
	EXPECT_EQ(2, wait_num("debug", 2, 3000));
	ASSERT_EQ(0, cn_rmdir(P("%s/a", m)));
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
	char *c = P("%s/c", root), *f = P("%s/c/%s", root, file);
	int i;

	EXPECT_EQ(0, L(P("%s/%s", root, file)));
	ASSERT_EQ(0, cn_mkdir(c));
	EXPECT_EQ(0, L(f));
	ASSERT_EQ(0, cn_write(f, "1"));
	EXPECT_EQ(1, L(f));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, cn_write(f, bad[i]))
			TH_LOG("%s <- '%s'", file, bad[i]);
		EXPECT_EQ(1, L(f));
	}
	ASSERT_EQ(0, cn_write(f, "0\n"));
	EXPECT_EQ(0, L(f));
	ASSERT_EQ(0, cn_write(f, "1\n"));
	EXPECT_EQ(1, L(f));
	/* As in cgroup v1, any other number sets the flag: it reads 1. */
	ASSERT_EQ(0, cn_write(f, "0"));
	ASSERT_EQ(0, cn_write(f, "2"));
	EXPECT_STREQ("1", S(f));
	ASSERT_EQ(0, cn_write(f, "0"));
	ASSERT_EQ(0, cn_write(f, "0x10"));
	EXPECT_STREQ("1", S(f));
	/* The root's own file. */
	ASSERT_EQ(0, cn_write(P("%s/%s", root, file), "1"));
	EXPECT_EQ(1, L(P("%s/%s", root, file)));
	EXPECT_EQ(-EINVAL, cn_write(P("%s/%s", root, file), "-1"));
	EXPECT_EQ(1, L(P("%s/%s", root, file)));
	ASSERT_EQ(0, cn_write(P("%s/%s", root, file), "0"));
	EXPECT_EQ(0, L(P("%s/%s", root, file)));
}

static void check_bool_inherited(struct __test_metadata *_metadata,
				 const char *r, const char *file)
{
	ASSERT_EQ(0, cn_write(P("%s/%s", r, file), "1"));
	ASSERT_EQ(0, cn_mkdir(P("%s/a", r)));
	EXPECT_EQ(1, L(P("%s/a/%s", r, file)));
	ASSERT_EQ(0, cn_mkdir(P("%s/a/b", r)));
	EXPECT_EQ(1, L(P("%s/a/b/%s", r, file)));
	ASSERT_EQ(0, cn_write(P("%s/a/%s", r, file), "0"));
	ASSERT_EQ(0, cn_mkdir(P("%s/a/c", r)));
	EXPECT_EQ(0, L(P("%s/a/c/%s", r, file)));
	/* Existing children keep their own value. */
	EXPECT_EQ(1, L(P("%s/a/b/%s", r, file)));
	ASSERT_EQ(0, cn_write(P("%s/%s", r, file), "0"));
	ASSERT_EQ(0, cn_mkdir(P("%s/d", r)));
	EXPECT_EQ(0, L(P("%s/d/%s", r, file)));
	EXPECT_EQ(1, L(P("%s/a/b/%s", r, file)));
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
	char *ra = P("%s/release_agent", self->root);
	int fd, err;

	EXPECT_TRUE(cn_exists(ra));
	ASSERT_EQ(0, cn_write(ra, "/tmp/some/agent"));
	EXPECT_STREQ("/tmp/some/agent", S(ra));
	ASSERT_EQ(0, cn_write(ra, "/sbin/other-agent"));
	EXPECT_STREQ("/sbin/other-agent", S(ra));

	/* Only the root has one. */
	ASSERT_EQ(0, cn_mkdir(P("%s/c", self->root)));
	fd = open(P("%s/c/release_agent", self->root), O_RDONLY);
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
	char *agent;

	if (!tmp)
		return NULL;
	agent = P("%s/agent.sh", tmp);
	snprintf(out, sizeof(out), "%s/out", tmp);
	if (write_agent(agent, out))
		return NULL;
	if (cn_write(P("%s/release_agent", root), agent))
		return NULL;
	return out;
}

TEST_F_TIMEOUT(named, release_agent_runs_on_last_exit, 60)
{
	char *c = P("%s/rel", self->root), *out;
	pid_t pid;

	out = setup_agent(_metadata, &self->env, self->root);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, cn_write(P("%s/notify_on_release", c), "1"));
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
	ASSERT_EQ(0, cn_mkdir(P("%s/idle", self->root)));
	ASSERT_EQ(0, cn_write(P("%s/idle/notify_on_release", self->root), "1"));
	cn_sleep_ms(1000);
	EXPECT_FALSE(file_has_line(out, "/idle"));
}

TEST_F_TIMEOUT(named, release_agent_runs_on_last_move_nested, 60)
{
	const char *r = self->root;
	char *out;

	out = setup_agent(_metadata, &self->env, r);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, cn_mkdir(P("%s/p", r)));
	ASSERT_EQ(0, cn_write(P("%s/p/notify_on_release", r), "1"));
	/* Inherited from p. */
	ASSERT_EQ(0, cn_mkdir(P("%s/p/q", r)));
	ASSERT_EQ(1, L(P("%s/p/q/notify_on_release", r)));
	ASSERT_EQ(0, cn_move_self(P("%s/p/q", r)));
	ASSERT_EQ(0, cn_move_self(r));
	EXPECT_TRUE(wait_line(out, "/p/q", 10000))
		TH_LOG("release agent not run with /p/q");
}

TEST_F_TIMEOUT(named, release_agent_needs_notify_on_release, 60)
{
	const char *r = self->root;
	pid_t quiet, loud;
	char *out;

	out = setup_agent(_metadata, &self->env, r);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, cn_mkdir(P("%s/quiet", r)));
	ASSERT_EQ(0, cn_mkdir(P("%s/loud", r)));
	ASSERT_EQ(0, cn_write(P("%s/loud/notify_on_release", r), "1"));
	quiet = cn_env_sleeper(&self->env);
	ASSERT_GT(quiet, 0);
	loud = cn_env_sleeper(&self->env);
	ASSERT_GT(loud, 0);
	ASSERT_EQ(0, cn_move(P("%s/quiet", r), quiet));
	ASSERT_EQ(0, cn_move(P("%s/loud", r), loud));

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
	char *c = P("%s/c", self->root), *tc = P("%s/c/debug.taskcount",
						  self->root);
	pid_t a, b;

	ASSERT_GT(self->hid, 0);
	ASSERT_EQ(0, cn_mkdir(c));
	EXPECT_EQ(0, L(tc));
	a = cn_env_sleeper(&self->env);
	ASSERT_GT(a, 0);
	b = cn_env_sleeper(&self->env);
	ASSERT_GT(b, 0);
	ASSERT_EQ(0, cn_move(c, a));
	EXPECT_EQ(1, L(tc));
	ASSERT_EQ(0, cn_move(c, b));
	EXPECT_EQ(2, L(tc));
	cn_env_kill(&self->env, a);
	EXPECT_EQ(1, wait_long(tc, 1, 2000));
	ASSERT_EQ(0, cn_move(self->root, b));
	EXPECT_EQ(0, L(tc));
	ASSERT_EQ(0, cn_move(c, b));
	EXPECT_EQ(1, L(tc));
	cn_env_kill(&self->env, b);
	EXPECT_EQ(0, wait_long(tc, 0, 2000));
	EXPECT_GE(L(P("%s/debug.taskcount", self->root)), 3);
}

TEST_F(dbg, debug_container_refcount)
{
	char *c = P("%s/c", self->root);
	char *rc = P("%s/c/debug.container_refcount", self->root);
	pid_t a, b;

	ASSERT_EQ(0, cn_mkdir(c));
	EXPECT_EQ(0, L(rc));
	a = cn_env_sleeper(&self->env);
	ASSERT_GT(a, 0);
	b = cn_env_sleeper(&self->env);
	ASSERT_GT(b, 0);
	ASSERT_EQ(0, cn_move(c, a));
	EXPECT_EQ(1, L(rc));
	/* Same containers everywhere: the same css_group. */
	ASSERT_EQ(0, cn_move(c, b));
	EXPECT_EQ(1, L(rc));
	cn_env_kill(&self->env, a);
	cn_env_kill(&self->env, b);
	EXPECT_EQ(0, wait_long(rc, 0, 2000));
	EXPECT_GE(L(P("%s/debug.container_refcount", self->root)), 1);
}

TEST_F(dbg, debug_current_css_group)
{
	char *c = P("%s/c", self->root);
	char root1[64], root2[64], inc[64];
	long ref;

	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, cn_read_str(P("%s/debug.current_css_group", self->root),
				 root1, sizeof(root1)));
	EXPECT_GT(strlen(root1), 0);
	/* It is about the reader, not the file. */
	ASSERT_EQ(0, cn_read_str(P("%s/debug.current_css_group", c),
				 root2, sizeof(root2)));
	EXPECT_STREQ(root1, root2);

	ASSERT_EQ(0, cn_move_self(c));
	ASSERT_EQ(0, cn_read_str(P("%s/debug.current_css_group", self->root),
				 inc, sizeof(inc)));
	EXPECT_STRNE(root1, inc);
	ref = L(P("%s/debug.current_css_group_refcount", self->root));
	EXPECT_NE(BAD_READ, ref);
	EXPECT_GE(ref, 1);

	ASSERT_EQ(0, cn_move_self(self->root));
	ASSERT_EQ(0, cn_read_str(P("%s/debug.current_css_group", self->root),
				 root2, sizeof(root2)));
	EXPECT_STREQ(root1, root2);
	ref = L(P("%s/debug.current_css_group_refcount", self->root));
	EXPECT_GE(ref, 1);
}

TEST_F(dbg, debug_releasable_is_boolean)
{
	char *c = P("%s/c", self->root);
	long v;

	ASSERT_EQ(0, cn_mkdir(c));
	v = L(P("%s/debug.releasable", self->root));
	EXPECT_TRUE(v == 0 || v == 1) TH_LOG("root releasable %ld", v);
	v = L(P("%s/debug.releasable", c));
	EXPECT_TRUE(v == 0 || v == 1) TH_LOG("child releasable %ld", v);
}

/* The core's walks of the tree of states, as debug.descendants shows them. */
static char *walks(const char *dir)
{
	static char buf[4][1024];
	static int next;
	char *b = buf[next++ % 4];
	char *text = cn_read_all(cn_fmt("%s/debug.descendants", dir), 256);

	snprintf(b, sizeof(buf[0]), "%s", text ? text : "<error>");
	free(text);
	return b;
}

TEST_F(dbg, descendants_walks_pre_and_post_order)
{
	char *a = strdup(P("%s/a", self->root));
	char *b = strdup(P("%s/b", a));
	const char *dirs[] = { "b", "b/d", "b/e", "c" };
	int i;

	ASSERT_EQ(0, cn_mkdir(a));
	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		ASSERT_EQ(0, cn_mkdir(P("%s/%s", a, dirs[i])));
	/* Children oldest first; a parent before (pre) or after (post) them. */
	EXPECT_STREQ("pre . b d e c\npost d e b c .\n", walks(a));
	EXPECT_STREQ("pre . d e\npost d e .\n", walks(b));
	EXPECT_STREQ("pre .\npost .\n", walks(P("%s/c", a)));
	EXPECT_STREQ("pre . a b d e c\npost d e b c a .\n", walks(self->root));

	/* A removed container leaves the walks; a new one comes last. */
	ASSERT_EQ(0, cn_rmdir(P("%s/d", b)));
	EXPECT_STREQ("pre . b e c\npost e b c .\n", walks(a));
	ASSERT_EQ(0, rename(P("%s/c", a), P("%s/z", a)));
	ASSERT_EQ(0, cn_mkdir(P("%s/d", b)));
	EXPECT_STREQ("pre . b e d z\npost e d b z .\n", walks(a));
	free(a);
	free(b);
}

TEST_F(dbg, debug_files_read_only)
{
	/* A copy: the loop below uses more cn_fmt() buffers than the ring has. */
	char *c = strdup(P("%s/c", self->root));
	const char *dirs[2] = { self->root, c };
	int i, j, ret;
	pid_t pid;

	ASSERT_EQ(0, cn_mkdir(c));
	pid = cn_env_sleeper(&self->env);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, cn_move(c, pid));
	for (j = 0; j < 2; j++) {
		for (i = 0; i < ARRAY_SIZE(debug_files); i++) {
			char *f = P("%s/%s", dirs[j], debug_files[i]);

			EXPECT_TRUE(cn_exists(f)) TH_LOG("missing %s", f);
			ret = cn_write(f, "0");
			EXPECT_NE(0, ret) TH_LOG("write to %s succeeded", f);
			ret = cn_write(f, "7");
			EXPECT_NE(0, ret) TH_LOG("write to %s succeeded", f);
		}
	}
	EXPECT_EQ(1, L(P("%s/debug.taskcount", c)));
	EXPECT_EQ(1, L(P("%s/debug.container_refcount", c)));
	free(c);
}

TEST_F_TIMEOUT(dbg, tasks_file_2000_processes, 240)
{
	const int want = 2000;
	char *big = P("%s/big", self->root), *t1, *t2, *p1;
	pid_t *pids, *tasks, *roots;
	int n, i, j, nroot, spawned = 0;

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

	n = cn_read_pids(P("%s/tasks", big), &tasks);
	ASSERT_EQ(want, n);
	EXPECT_TRUE(cn_pids_sorted_unique(tasks, n));
	cn_pids_sort(pids, want);
	for (i = 0; i < want; i++)
		if (tasks[i] != pids[i])
			break;
	EXPECT_EQ(want, i) TH_LOG("first difference at %d", i);
	EXPECT_EQ(want, L(P("%s/debug.taskcount", big)));

	/* Small reads must give the same text as big ones. */
	t1 = cn_read_all(P("%s/tasks", big), 65536);
	t2 = cn_read_all(P("%s/tasks", big), 13);
	p1 = cn_read_all(P("%s/container.procs", big), 7);
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
	nroot = cn_read_pids(P("%s/tasks", self->root), &roots);
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
	EXPECT_EQ(0, wait_long(P("%s/debug.taskcount", big), 0, 10000));
	EXPECT_EQ(0, cn_count_tasks(big));
	EXPECT_EQ(0, cn_rmdir(big));
	free(pids);
}

TEST_F_TIMEOUT(named, procs_moves_1000_threads, 120)
{
	const int nthreads = 1000;
	char *c = P("%s/c", self->root);
	pid_t *tids, *tasks, pid;
	int n, i;

	tids = calloc(nthreads + 1, sizeof(*tids));
	ASSERT_NE(NULL, tids);
	pid = spawn_threaded(&self->env, nthreads, tids);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, cn_mkdir(c));
	ASSERT_EQ(0, cn_move_proc(c, pid));

	n = cn_read_pids(P("%s/tasks", c), &tasks);
	ASSERT_EQ(nthreads + 1, n);
	EXPECT_TRUE(cn_pids_sorted_unique(tasks, n));
	cn_pids_sort(tids, nthreads + 1);
	for (i = 0; i < n; i++)
		if (tasks[i] != tids[i])
			break;
	EXPECT_EQ(n, i) TH_LOG("first difference at %d", i);
	EXPECT_STREQ(P("%d", pid), S(P("%s/container.procs", c)));
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
			text = cn_read_all(P("%s/tasks", path), 64);
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
	char *roots[2];
	long deadline;
	char c;

	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "debug", &roots[0]));
	ASSERT_EQ(0, cn_env_mount(&self->env, P("none,name=ct%d", getpid()),
				  &roots[1]));
	hid[0] = cn_hier_id("debug");
	hid[1] = cn_hier_id(P("name=ct%d", getpid()));
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
 * Wait until process @pid has one thread besides its exited (zombie) main
 * thread; that thread's id, or -1.
 */
static pid_t wait_exited_leader(pid_t pid)
{
	long end = cn_now_ms() + 5000;
	char *st;

	do {
		char *all = cn_read_all(P("/proc/%d/status", pid), 4096);
		bool zombie = all && strstr(all, "State:\tZ");

		free(all);
		if (zombie) {
			DIR *d = opendir(P("/proc/%d/task", pid));
			struct dirent *e;
			pid_t tid = -1;

			while (d && (e = readdir(d)))
				if (atoi(e->d_name) > 0 && atoi(e->d_name) != pid)
					tid = atoi(e->d_name);
			if (d)
				closedir(d);
			st = cn_str(P("/proc/%d/task/%d/stat", pid, tid));
			if (tid > 0 && !strstr(st, "error"))
				return tid;
		}
		cn_sleep_ms(10);
	} while (cn_now_ms() < end);
	return -1;
}

/*
 * A process whose main thread exited still moves as a whole through
 * container.procs, is listed there under its pid, and /proc/<pid>/container
 * shows where it is, as in cgroup v1.
 */
TEST_F(named, exited_leader_moves_and_shows)
{
	char *c = strdup(P("%s/c", self->root));
	pid_t pid, tid;

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
	tid = wait_exited_leader(pid);
	ASSERT_GT(tid, 0);
	EXPECT_STREQ("/", where(pid, self->hid));

	ASSERT_EQ(0, cn_writef(P("%s/container.procs", c), "%d", pid));
	EXPECT_EQ(1, cn_has_proc(c, pid));
	EXPECT_EQ(1, cn_has_task(c, tid));
	EXPECT_EQ(0, cn_has_proc(self->root, pid));
	EXPECT_STREQ("/c", where(pid, self->hid));
	EXPECT_STREQ("/c", where(tid, self->hid));
	/* The dead main thread alone cannot be moved. */
	EXPECT_EQ(-ESRCH, cn_writef(P("%s/tasks", self->root), "%d", pid));
	EXPECT_EQ(1, cn_has_task(c, tid));
	/* Back, by the thread's id. */
	ASSERT_EQ(0, cn_writef(P("%s/tasks", self->root), "%d", tid));
	EXPECT_STREQ("/", where(pid, self->hid));
	EXPECT_EQ(0, cn_count_tasks(c));
	free(c);
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
	char *a = strdup(P("%s/a", self->root));
	char *b = strdup(P("%s/b", self->root));
	char deadline[32];
	long end, moves = 0, errors = 0;
	pid_t pid, helper;
	int status, ret;

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
			cn_writef(P("%s/container.procs", a), "%d", pid);
		_exit(0);
	}
	cn_env_track(&self->env, helper);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		ret = cn_writef(P("%s/container.procs", moves % 64 ? a : b),
				"%d", pid);
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
	free(a);
	free(b);
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
	char name[32], *m;
	pid_t pids[3];
	long end, remounts = 0;
	int i, status;

	snprintf(name, sizeof(name), "rcs%d", getpid());
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, P("cpuset,name=%s", name),
					&m));
	end = cn_now_ms() + 4000;
	for (i = 0; i < 3; i++) {
		pids[i] = fork();
		ASSERT_GE(pids[i], 0);
		if (pids[i])
			continue;
		while (cn_now_ms() < end) {
			int fd = open(P("%s/%s", m, files[i]), O_WRONLY);

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
		EXPECT_EQ(0, cn_remount(m, P("none,name=%s", name)));
		EXPECT_EQ(0, cn_remount(m, P("cpuset,name=%s", name)));
		remounts++;
	}
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	}
	TH_LOG("%ld remount pairs", remounts);
	EXPECT_GT(remounts, 5);
	EXPECT_TRUE(cn_exists(P("%s/cpuset.cpus", m)));
	EXPECT_EQ(cn_hier_id(P("name=%s", name)), cn_hier_id("cpuset"));
}

TEST_HARNESS_MAIN
