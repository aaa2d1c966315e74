// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile input: every writable control file of the core and of every
 * subsystem gets a table of bad writes (empty, blanks, negative, 2^64 and
 * beyond, a page of digits, trailing garbage, binary bytes, an embedded
 * NUL, a write at an offset).  Each must fail with EINVAL and leave the
 * value read back unchanged.  Also malformed mount options, bad
 * container names and writes to read-only files.
 *
 * Loop and if bodies holding an EXPECT_*() or ASSERT_*() keep their braces
 * even when they are one statement: the harness macros are two statements.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "container_util.h"

/* Write @len bytes of @buf at @off; 0 or -errno. */
static int write_raw(const char *path, const void *buf, size_t len, off_t off)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = off ? pwrite(fd, buf, len, off) : write(fd, buf, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	close(fd);
	return ret;
}

struct bad {
	const char *what;
	const char *buf;
	size_t len;	/* 0: strlen(buf) */
	off_t off;
};

static const struct bad common_bad[] = {
	{ "blanks", "   " },
	{ "letters", "abc" },
	{ "number then garbage", "1x" },
	{ "2^64", "18446744073709551616" },
	{ "beyond 2^64", "99999999999999999999999999" },
	{ "binary", "\x01\x02\xff", 3 },
	{ "embedded NUL", "1\0001", 3 },
	{ "at an offset", "1", 0, 5 },
	{ "minus then garbage", "-x" },
};

/*
 * The writable files of a container, the writes that must fail on top of
 * common_bad, and whether an empty write is valid for the file.
 */
struct target {
	const char *file;
	bool empty_ok;
	const char *extra[4];
};

static const struct target targets[] = {
	{ "notify_on_release", false, { "-1" } },
	{ "container.clone_children", false, { "-1" } },
	{ "tasks", false, { "-1", "1 2" } },
	{ "container.procs", false, { "-1", "1 2" } },
	{ "cpuset.cpus", true, { "-1", "1 2", "3-1", "9999" } },
	{ "cpuset.mems", true, { "-1", "1 2", "99" } },
	{ "cpuset.cpu_exclusive", false, { "-1" } },
	{ "cpuset.mem_exclusive", false, { "-1" } },
	{ "cpuacct.usage", false, { "5", "-1" } },
	{ "memory.limit_in_bytes", false, { "-2", "1k2", "0x" } },
	{ "memory.soft_limit_in_bytes", false, { "-2", "1k2", "0x" } },
	{ "memory.max_usage_in_bytes", false, { "1", "-1" } },
	{ "memory.failcnt", false, { "1", "-1" } },
	{ "pids.max", false, { "-1", "max1", "4194305" } },
};

FIXTURE(hostile) {
	struct cn_env env;
	char *root;
	char c[CN_PATH_LEN];
};

FIXTURE_SETUP(hostile)
{
	cn_cleanup_stale();
	cn_env_init(&self->env);
	ASSERT_EQ(0, cn_env_mount_retry(&self->env,
					"cpuset,cpuacct,memory,pids,debug",
					&self->root));
	snprintf(self->c, sizeof(self->c), "%s/c", self->root);
	ASSERT_EQ(0, cn_mkdir(self->c));
	/* Values that differ from the defaults, to see them stay. */
	ASSERT_EQ(0, cn_write_in(self->c, "cpuset.cpus", "1"));
	ASSERT_EQ(0, cn_write_in(self->c, "cpuset.mems", "0"));
	ASSERT_EQ(0, cn_write_in(self->c, "memory.limit_in_bytes", "64M"));
	ASSERT_EQ(0, cn_write_in(self->c, "pids.max", "50"));
}

FIXTURE_TEARDOWN(hostile)
{
	cn_env_cleanup(&self->env);
}

/* The whole content of a file, or "<error>". */
static char *content(const char *path)
{
	char *s = cn_read_all(path, 4096);

	return s ? s : strdup("<error>");
}

static void try_bad(struct __test_metadata *_metadata, const char *path,
		    const char *what, const void *buf, size_t len, off_t off)
{
	char *before = content(path), *after;
	int ret = write_raw(path, buf, len, off);

	after = content(path);
	EXPECT_EQ(-EINVAL, ret)
		TH_LOG("%s: %s: got %d", path, what, ret);
	EXPECT_STREQ(before, after) TH_LOG("%s: %s changed it", path, what);
	free(before);
	free(after);
}

TEST_F(hostile, bad_writes_einval_and_unchanged)
{
	static char digits[4096 + 1];
	unsigned int i, j;

	memset(digits, '7', sizeof(digits) - 1);
	for (i = 0; i < ARRAY_SIZE(targets); i++) {
		const struct target *t = &targets[i];
		char path[CN_PATH_LEN];

		cn_path(path, sizeof(path), self->c, t->file);

		ASSERT_TRUE(cn_exists(path)) TH_LOG("%s", path);
		for (j = 0; j < ARRAY_SIZE(common_bad); j++) {
			const struct bad *b = &common_bad[j];

			/* Blanks are an empty value, valid where empty is. */
			if (t->empty_ok && !strcmp(b->what, "blanks"))
				continue;

			try_bad(_metadata, path, b->what, b->buf,
				b->len ? b->len : strlen(b->buf), b->off);
		}
		if (!t->empty_ok)
			try_bad(_metadata, path, "empty", "\n", 1, 0);
		try_bad(_metadata, path, "a page of digits", digits,
			sizeof(digits) - 1, 0);
		for (j = 0; j < 4 && t->extra[j]; j++)
			try_bad(_metadata, path, t->extra[j], t->extra[j],
				strlen(t->extra[j]), 0);
	}
}

TEST_F(hostile, release_agent_too_long_einval)
{
	char path[CN_PATH_LEN], val[CN_PATH_LEN];
	size_t len = 4096 + 16;
	char *buf = malloc(len);

	cn_path(path, sizeof(path), self->root, "release_agent");
	ASSERT_NE(NULL, buf);
	memset(buf, 'a', len);
	buf[0] = '/';
	/* kernfs passes one page at most: the rest is a write at an offset. */
	EXPECT_NE(0, write_raw(path, buf, len, 0));
	EXPECT_STREQ("", cn_str(path, val, sizeof(val)));
	try_bad(_metadata, path, "embedded NUL", "/a\0b", 4, 0);
	free(buf);
}

TEST_F(hostile, read_only_files_eacces)
{
	static const char * const ro[] = {
		"cpuset.effective_cpus", "cpuset.effective_mems",
		"cpuacct.usage_percpu", "cpuacct.stat", "memory.usage_in_bytes",
		"memory.stat", "pids.current", "pids.events",
		"debug.taskcount",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ro); i++) {
		EXPECT_EQ(-EACCES, cn_write_in(self->c, ro[i], "0"))
			TH_LOG("%s", ro[i]);
	}
}

TEST_F(hostile, bad_container_names)
{
	char name[300], ok[CN_PATH_LEN], bad[CN_PATH_LEN];

	EXPECT_EQ(-EEXIST, cn_mkdir(self->c));
	EXPECT_EQ(-EEXIST, cn_mkdir_in(self->c, "."));
	EXPECT_EQ(-EEXIST, cn_mkdir_in(self->c, ".."));
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	EXPECT_EQ(-ENAMETOOLONG, cn_mkdir_in(self->c, name));
	/* A newline would break /proc/<pid>/container. */
	EXPECT_EQ(-EINVAL, cn_mkdir_in(self->c, "a\nb"));
	ASSERT_EQ(0, cn_mkdir_in(self->c, "ok"));
	cn_path(ok, sizeof(ok), self->c, "ok");
	cn_path(bad, sizeof(bad), self->c, "o\nk");
	EXPECT_EQ(-EINVAL, rename(ok, bad) ? -errno : 0);
	/* 255 bytes and an x: one byte too long. */
	name[255] = 'x';
	name[256] = '\0';
	cn_path(bad, sizeof(bad), self->c, name);
	EXPECT_EQ(-ENAMETOOLONG, rename(ok, bad) ? -errno : 0);
	ASSERT_EQ(0, cn_rmdir_in(self->c, "ok"));
	/* A name may not shadow a control file either. */
	EXPECT_EQ(-EEXIST, cn_mkdir_in(self->c, "tasks"));
	EXPECT_EQ(1, cn_tree_dirs(self->c));
}

static int try_mount(const char *opts)
{
	char dir[] = "/tmp/cnhostileXXXXXX";
	int ret = 0;

	if (!mkdtemp(dir))
		return -errno;
	if (mount("none", dir, CN_FSTYPE, 0, opts))
		ret = -errno;
	else
		umount(dir);
	rmdir(dir);
	return ret;
}

TEST(malformed_mount_options)
{
	static const char * const bad[] = {
		"name=", "name=a/b", "none", "nosuch", "cpuset,nosuch",
		"release_agent", "name=x,name=y", "none,cpuset,name=z",
		"name=\x01",
	};
	char longname[200], opts[256];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, try_mount(bad[i]))
			TH_LOG("'%s'", bad[i]);
	}
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	snprintf(opts, sizeof(opts), "none,name=%s", longname);
	EXPECT_EQ(-EINVAL, try_mount(opts));
}

TEST_HARNESS_MAIN
