// SPDX-License-Identifier: GPL-2.0
/*
 * The memory subsystem on the charge paths besides the plain 4 KiB fault:
 * transparent huge pages (fault, split, MADV_COLLAPSE), huge tmpfs pages,
 * userfaultfd, page migration between NUMA nodes and swap-in.  Each test
 * moves itself into a fresh container, does the work there and checks
 * memory.usage_in_bytes and memory.stat before, during and after: every
 * page is charged once, a folio that changes form keeps its charge, and
 * nothing stays charged once the memory is gone.
 *
 * Needs CONFIG_TRANSPARENT_HUGEPAGE, CONFIG_USERFAULTFD, two NUMA nodes
 * and zram (the test environment's configuration); a test whose feature
 * is missing is skipped.
 *
 * Loop and if bodies holding an EXPECT_*() or ASSERT_*() keep their braces
 * even when they are one statement: the harness macros are two statements.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <linux/mempolicy.h>
#include <linux/userfaultfd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "container_util.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE	25
#endif

#define KB		1024L
#define MB		(1024L * 1024)
#define HPAGE		(2 * MB)
#define PAGE		4096L
/* What the test process itself may charge besides the memory under test. */
#define SLACK		(1 * MB)
/* What may stay charged once it is freed: far less than one huge page. */
#define NOISE		(256 * KB)

#define THP_SYSFS	"/sys/kernel/mm/transparent_hugepage/enabled"

/* A value from /proc/meminfo, in bytes, or -1. */
static long meminfo_bytes(const char *key)
{
	char *text = cn_read_all("/proc/meminfo", 4096), *p;
	long v = -1;

	if (!text)
		return -1;
	p = strstr(text, key);
	if (p && p[strlen(key)] == ':')
		v = atol(p + strlen(key) + 1) * KB;
	free(text);
	return v;
}

/* @len bytes of fresh anonymous memory aligned to a huge page, or NULL. */
static char *map_aligned(size_t len)
{
	char *p = mmap(NULL, len + HPAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t a;

	if (p == MAP_FAILED)
		return NULL;
	a = ((uintptr_t)p + HPAGE - 1) & ~(HPAGE - 1);
	/* Give back the unaligned ends. */
	if (a > (uintptr_t)p)
		munmap(p, a - (uintptr_t)p);
	munmap((char *)a + len, (uintptr_t)p + HPAGE - a);
	return (char *)a;
}

static void touch(char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += PAGE)
		p[i] = 1;
}

FIXTURE(paths) {
	struct cn_env env;
	char *root;
	char c[CN_PATH_LEN];
	char mnt[CN_PATH_LEN];	/* a tmpfs of the test's, if not empty */
};

FIXTURE_SETUP(paths)
{
	cn_cleanup_stale();
	cn_env_init(&self->env);
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "memory", &self->root));
	snprintf(self->c, sizeof(self->c), "%s/c", self->root);
	ASSERT_EQ(0, cn_mkdir(self->c));
}

FIXTURE_TEARDOWN(paths)
{
	if (self->mnt[0])
		umount2(self->mnt, MNT_DETACH);
	/* Moves the test back to the top before it removes the container. */
	cn_env_cleanup(&self->env);
}

static long usage(const char *cont)
{
	return cn_read_long_in(cont, "memory.usage_in_bytes");
}

/*
 * Wait up to a second for usage to come down to @max at most: folios
 * that per-CPU LRU batches still hold are freed a little later.
 */
static long usage_settles(const char *cont, long max)
{
	long start = cn_now_ms(), u;

	while ((u = usage(cont)) > max && cn_now_ms() - start < 1000)
		cn_sleep_ms(10);
	return u;
}

TEST_F_TIMEOUT(paths, thp_fault_charges_huge_folio_then_split, 60)
{
	long u0, u1, u2;
	char *p;
	int i;

	if (access(THP_SYSFS, F_OK))
		SKIP(return, "no transparent huge pages");
	p = map_aligned(HPAGE);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, madvise(p, HPAGE, MADV_HUGEPAGE));
	ASSERT_EQ(0, cn_move_self(self->c));
	u0 = usage(self->c);

	/* One touch faults in a whole 2 MiB folio, charged at once. */
	p[0] = 1;
	u1 = usage(self->c);
	/*
	 * Make every page non-zero: a split maps pages that are all zero
	 * to the shared zero page and frees them.
	 */
	touch(p, HPAGE);
	EXPECT_EQ(HPAGE, cn_stat_value(self->c, "rss_huge"));
	EXPECT_GE(u1 - u0, HPAGE);
	EXPECT_LE(u1 - u0, HPAGE + SLACK);
	TH_LOG("THP fault: usage +%ld kB, rss_huge %ld kB", (u1 - u0) / KB,
	       cn_stat_value(self->c, "rss_huge") / KB);

	/*
	 * khugepaged must not collapse the pieces again meanwhile (a new
	 * huge folio, charged before the old pages go: seen once, +2 MiB,
	 * in a slow guest); the folio that is there stays huge.
	 */
	ASSERT_EQ(0, madvise(p, HPAGE, MADV_NOHUGEPAGE));
	EXPECT_EQ(HPAGE, cn_stat_value(self->c, "rss_huge"));
	/* MADV_COLD on half of it splits it: 512 folios, same charge. */
	for (i = 0; i < 10 && cn_stat_value(self->c, "rss_huge"); i++)
		if (madvise(p, HPAGE / 2, MADV_COLD))
			break;
	EXPECT_EQ(0, cn_stat_value(self->c, "rss_huge"));
	EXPECT_GE(cn_stat_value(self->c, "rss"), HPAGE);
	u2 = usage(self->c);
	EXPECT_GE(u2, u1 - PAGE);
	EXPECT_LE(u2, u1 + SLACK);

	/*
	 * Each of the split folios is charged on its own: with the first
	 * one freed, the other 511 are still anonymous memory.
	 */
	ASSERT_EQ(0, munmap(p, PAGE));
	EXPECT_LE(usage_settles(self->c, u2 - PAGE), u2 - PAGE);
	EXPECT_GE(cn_stat_value(self->c, "rss"), HPAGE - PAGE);
	EXPECT_LT(cn_stat_value(self->c, "cache"), NOISE);

	/* Each of the split folios is uncharged when freed. */
	ASSERT_EQ(0, munmap(p + PAGE, HPAGE - PAGE));
	EXPECT_LE(usage_settles(self->c, u0 + NOISE), u0 + NOISE);
	EXPECT_LT(cn_stat_value(self->c, "rss"), SLACK);
}

TEST_F_TIMEOUT(paths, collapse_charges_huge_folio_once, 60)
{
	long u0, u1, u2;
	int i, ret;
	char *p;

	if (access(THP_SYSFS, F_OK))
		SKIP(return, "no transparent huge pages");
	p = map_aligned(HPAGE);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, cn_move_self(self->c));
	u0 = usage(self->c);

	/* Without MADV_HUGEPAGE ("madvise" mode) the faults take 4 KiB. */
	touch(p, HPAGE);
	u1 = usage(self->c);
	EXPECT_EQ(0, cn_stat_value(self->c, "rss_huge"));
	EXPECT_GE(u1 - u0, HPAGE);
	EXPECT_LE(u1 - u0, HPAGE + SLACK);

	/*
	 * khugepaged's collapse, run synchronously: a new huge folio is
	 * charged and the 512 small ones it replaces are uncharged.
	 */
	for (i = 0; i < 10; i++) {
		ret = madvise(p, HPAGE, MADV_COLLAPSE);
		if (!ret || errno != EAGAIN)
			break;
		cn_sleep_ms(10);
	}
	ASSERT_EQ(0, ret) TH_LOG("MADV_COLLAPSE: %s", strerror(errno));
	EXPECT_EQ(HPAGE, cn_stat_value(self->c, "rss_huge"));
	u2 = usage_settles(self->c, u1 + SLACK);
	TH_LOG("collapse: usage %+ld kB before, %+ld kB after",
	       (u1 - u0) / KB, (u2 - u0) / KB);
	EXPECT_GE(u2 - u0, HPAGE);
	EXPECT_LE(u2 - u0, HPAGE + SLACK);

	ASSERT_EQ(0, munmap(p, HPAGE));
	EXPECT_LE(usage_settles(self->c, u0 + NOISE), u0 + NOISE);
	EXPECT_EQ(0, cn_stat_value(self->c, "rss_huge"));
}

TEST_F_TIMEOUT(paths, huge_tmpfs_charged_and_uncharged, 60)
{
	const char *dir = cn_env_tmpdir(&self->env);
	char *mnt = self->mnt, file[CN_PATH_LEN + 8];
	long u0, u1, huge0, huge1;
	char *buf;
	int fd;

	if (access(THP_SYSFS, F_OK))
		SKIP(return, "no transparent huge pages");
	ASSERT_NE(NULL, dir);
	snprintf(mnt, sizeof(self->mnt), "%s/huge", dir);
	snprintf(file, sizeof(file), "%s/f", mnt);
	ASSERT_EQ(0, mkdir(mnt, 0700));
	ASSERT_EQ(0, mount("none", mnt, "tmpfs", 0, "huge=always,size=64m"));
	buf = malloc(8 * MB);
	ASSERT_NE(NULL, buf);
	memset(buf, 'h', 8 * MB);
	huge0 = meminfo_bytes("ShmemHugePages");
	ASSERT_EQ(0, cn_move_self(self->c));
	u0 = usage(self->c);

	fd = open(file, O_WRONLY | O_CREAT, 0600);
	ASSERT_LE(0, fd);
	ASSERT_EQ(8 * MB, write(fd, buf, 8 * MB));
	close(fd);
	u1 = usage(self->c);
	huge1 = meminfo_bytes("ShmemHugePages");
	TH_LOG("8 MiB on huge tmpfs: usage +%ld kB, ShmemHugePages +%ld kB",
	       (u1 - u0) / KB, (huge1 - huge0) / KB);
	/* The file is in huge folios, charged to the writer's container. */
	EXPECT_GE(huge1 - huge0, 6 * MB);
	EXPECT_GE(u1 - u0, 8 * MB);
	EXPECT_LE(u1 - u0, 8 * MB + SLACK);
	EXPECT_GE(cn_stat_value(self->c, "shmem"), 8 * MB);

	ASSERT_EQ(0, unlink(file));
	EXPECT_LE(usage_settles(self->c, u0 + NOISE), u0 + NOISE);
	EXPECT_EQ(0, cn_stat_value(self->c, "shmem"));
	free(buf);
}

TEST_F_TIMEOUT(paths, userfaultfd_copy_charged_zeropage_not, 60)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct uffdio_copy copy = { 0 };
	struct uffdio_zeropage zero = { 0 };
	long len = 8 * MB, u0, u1, u2;
	char *src, *dst;
	int uffd;

	if (access("/proc/sys/vm/unprivileged_userfaultfd", F_OK))
		SKIP(return, "no userfaultfd");
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	ASSERT_LE(0, uffd);
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_API, &api));
	/* The source is touched before the move: not charged to c. */
	src = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	dst = mmap(NULL, 2 * len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, src);
	ASSERT_NE(MAP_FAILED, dst);
	/* 4 KiB folios throughout, whatever the THP settings. */
	ASSERT_EQ(0, madvise(dst, 2 * len, MADV_NOHUGEPAGE));
	memset(src, 'u', len);
	reg.range.start = (uintptr_t)dst;
	reg.range.len = 2 * len;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &reg));
	ASSERT_EQ(0, cn_move_self(self->c));
	u0 = usage(self->c);

	/* UFFDIO_COPY allocates, charges and maps 2048 new pages. */
	copy.dst = (uintptr_t)dst;
	copy.src = (uintptr_t)src;
	copy.len = len;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_COPY, &copy));
	ASSERT_EQ(len, copy.copy);
	u1 = usage(self->c);
	EXPECT_GE(u1 - u0, len);
	EXPECT_LE(u1 - u0, len + SLACK);
	EXPECT_EQ('u', dst[len - 1]);

	/* UFFDIO_ZEROPAGE maps the shared zero page: nothing to charge. */
	zero.range.start = (uintptr_t)dst + len;
	zero.range.len = len;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_ZEROPAGE, &zero));
	ASSERT_EQ(len, zero.zeropage);
	u2 = usage(self->c);
	EXPECT_LE(u2, u1 + SLACK / 4);
	TH_LOG("UFFDIO_COPY of 8 MiB: usage +%ld kB; UFFDIO_ZEROPAGE: %+ld kB",
	       (u1 - u0) / KB, (u2 - u1) / KB);

	ASSERT_EQ(0, munmap(dst, 2 * len));
	EXPECT_LE(usage_settles(self->c, u0 + NOISE), u0 + NOISE);
	close(uffd);
	munmap(src, len);
}

/*
 * Move @n pages from @p on to @node; 0 when every one landed there.  A
 * page of a large folio stands for the whole folio.
 */
static int move_to_node(char *p, long n, int node)
{
	void **pages = calloc(n, sizeof(*pages));
	int *nodes = calloc(n, sizeof(*nodes));
	int *status = calloc(n, sizeof(*status));
	long i, bad = 0;

	if (!pages || !nodes || !status) {
		bad = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		pages[i] = p + i * PAGE;
		nodes[i] = node;
	}
	if (syscall(__NR_move_pages, 0, n, pages, nodes, status, MPOL_MF_MOVE))
		bad = -errno;
	for (i = 0; !bad && i < n; i++)
		if (status[i] != node)
			bad = status[i] < 0 ? status[i] : -EAGAIN;
out:
	free(pages);
	free(nodes);
	free(status);
	return bad;
}

/* The node the page at @p is on, or a negative errno. */
static int node_of(char *p)
{
	void *page = p;
	int status;

	if (syscall(__NR_move_pages, 0, 1, &page, NULL, &status, 0))
		return -errno;
	return status;
}

TEST_F_TIMEOUT(paths, migration_moves_the_charge, 120)
{
	long len = 8 * MB, n = len / PAGE, u0, u1, u2, in1;
	char *small, *huge;
	int from, to, i;

	if (access("/sys/devices/system/node/node1", F_OK))
		SKIP(return, "one NUMA node");
	if (access(THP_SYSFS, F_OK))
		SKIP(return, "no transparent huge pages");
	small = map_aligned(len);
	huge = map_aligned(HPAGE);
	ASSERT_NE(NULL, small);
	ASSERT_NE(NULL, huge);
	ASSERT_EQ(0, madvise(small, len, MADV_NOHUGEPAGE));
	ASSERT_EQ(0, madvise(huge, HPAGE, MADV_HUGEPAGE));
	ASSERT_EQ(0, cn_move_self(self->c));
	u0 = usage(self->c);
	touch(small, len);
	touch(huge, HPAGE);
	u1 = usage(self->c);
	in1 = cn_stat_value(self->c, "pgpgin");
	EXPECT_GE(u1 - u0, len + HPAGE);
	EXPECT_LE(u1 - u0, len + HPAGE + SLACK);

	/* Every page to the other node and back: the charge goes along. */
	from = node_of(small);
	ASSERT_LE(0, from);
	to = !from;
	for (i = 0; i < 2; i++) {
		int node = i ? from : to;

		EXPECT_EQ(0, move_to_node(small, n, node));
		EXPECT_EQ(0, move_to_node(huge, 1, node));
		EXPECT_EQ(node, node_of(small + len - PAGE));
		EXPECT_EQ(node, node_of(huge + HPAGE - PAGE));
		u2 = usage_settles(self->c, u1 + SLACK);
		EXPECT_GE(u2, u1 - PAGE);
		EXPECT_LE(u2, u1 + SLACK);
		EXPECT_GE(cn_stat_value(self->c, "rss"), len + HPAGE);
	}
	/* Migration charges nothing new: it moves the old folio's charge. */
	EXPECT_LE(cn_stat_value(self->c, "pgpgin") - in1, SLACK / PAGE);
	TH_LOG("migrated %ld MiB there and back: usage %+ld kB",
	       (len + HPAGE) / MB, (u2 - u1) / KB);

	ASSERT_EQ(0, munmap(small, len));
	ASSERT_EQ(0, munmap(huge, HPAGE));
	EXPECT_LE(usage_settles(self->c, u0 + NOISE), u0 + NOISE);
}

/* Anonymous memory swapped out to zram and back in. */
FIXTURE(swapin) {
	struct cn_env env;
	char *root;
	char c[CN_PATH_LEN];
};

FIXTURE_SETUP(swapin)
{
	cn_cleanup_stale();
	cn_env_init(&self->env);
	ASSERT_EQ(0, cn_swap_on());
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "memory", &self->root));
	snprintf(self->c, sizeof(self->c), "%s/c", self->root);
	ASSERT_EQ(0, cn_mkdir(self->c));
}

FIXTURE_TEARDOWN(swapin)
{
	cn_env_cleanup(&self->env);
	cn_swap_off();
}

struct swapin_result {
	long u0, u1, u2, u3, sum;
	int err;
};

/* In a child in @cont: touch, page out and read back 8 MiB of anon. */
static void swapin_child(const char *cont, int fd)
{
	struct swapin_result r = { 0 };
	long len = 8 * MB, i;
	char *p;

	p = map_aligned(len);
	if (!p || madvise(p, len, MADV_NOHUGEPAGE) || cn_move_self(cont))
		r.err = 1;
	r.u0 = usage(cont);
	if (!r.err)
		memset(p, 's', len);
	r.u1 = usage(cont);
	/* Swap space is not charged: a page written out leaves usage. */
	if (!r.err && madvise(p, len, MADV_PAGEOUT))
		r.err = 2;
	r.u2 = usage_settles(cont, r.u0 + len / 4);
	/* Reading it back charges each page again, through swap-in. */
	for (i = 0; !r.err && i < len; i += PAGE)
		r.sum += p[i];
	r.u3 = usage(cont);
	if (write(fd, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	_exit(0);
}

TEST_F_TIMEOUT(swapin, swapped_out_uncharged_swapped_in_charged, 120)
{
	struct swapin_result r;
	long len = 8 * MB;
	int fds[2], status;
	pid_t pid;

	ASSERT_EQ(0, pipe(fds));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		swapin_child(self->c, fds[1]);
	ASSERT_EQ(sizeof(r), read(fds[0], &r, sizeof(r)));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, r.err);
	TH_LOG("8 MiB anonymous: usage +%ld kB, paged out +%ld kB, swapped in +%ld kB",
	       (r.u1 - r.u0) / KB, (r.u2 - r.u0) / KB, (r.u3 - r.u0) / KB);
	EXPECT_GE(r.u1 - r.u0, len);
	EXPECT_LE(r.u2, r.u0 + len / 4);
	EXPECT_GE(r.u3 - r.u0, len);
	EXPECT_LE(r.u3 - r.u0, len + SLACK);
	EXPECT_EQ('s' * (len / PAGE), r.sum);
	/*
	 * The child is gone: freed swap cache went with its pages, and
	 * force_empty lets stragglers go.  (Pages of a task that stays
	 * would be charged to the container again if swapped back in:
	 * the swap map remembers their owner.)
	 */
	ASSERT_EQ(0, cn_write_in(self->c, "memory.force_empty", "0"));
	EXPECT_EQ(0, usage(self->c));
	close(fds[0]);
	close(fds[1]);
}

/*
 * FUSE's splice move.  A FUSE server that answers a read with
 * splice(SPLICE_F_MOVE) from a file of its own hands the kernel that
 * file's page cache folios, and fuse_try_move_page() puts them into the
 * FUSE file's page cache in place of the folios the reader allocated
 * (replace_page_cache_folio()).  The folio that moves in is charged
 * already, to the container that read it into the source file's cache,
 * and keeps that charge; the folio it replaces is uncharged when freed.
 * Charging the moved folio a second time would leave the first owner
 * with pages that no longer exist.
 *
 * The server here is a minimal FUSE daemon on the raw protocol: one
 * regular file "f" whose contents are those of a file on ext2 (on the
 * RAM disk, shared with test_memory).
 */
#define EXT_DEV		"/dev/ram0"
#define EXT_MNT		"/tmp/cnram"
#define FUSE_PAGES	16
#define FUSE_INO	2

static int ext2_mounted(void)
{
	mkdir(EXT_MNT, 0755);
	if (!cn_run("grep -q " EXT_MNT " /proc/mounts"))
		return 0;
	if (cn_run("mke2fs -q " EXT_DEV " >/dev/null 2>&1") ||
	    cn_run("mount -t ext2 " EXT_DEV " " EXT_MNT))
		return -1;
	return 0;
}

/* Pages of @path in the page cache. */
static int cached_pages(const char *path, long len)
{
	unsigned char vec[FUSE_PAGES];
	int fd, i, n = -1;
	void *p;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	if (!mincore(p, len, vec))
		for (i = n = 0; i < len / PAGE; i++)
			n += vec[i] & 1;
	munmap(p, len);
	return n;
}

static void fuse_fill_attr(struct fuse_attr *a, uint64_t ino)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->nlink = 1;
	a->blksize = PAGE;
	if (ino == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
	} else {
		a->mode = S_IFREG | 0444;
		a->size = FUSE_PAGES * PAGE;
		a->blocks = a->size / 512;
	}
}

static int fuse_reply(int fd, uint64_t unique, int error,
		      const void *out, size_t len)
{
	struct fuse_out_header oh = {
		.len = sizeof(oh) + len, .error = error, .unique = unique,
	};
	struct iovec iov[2] = {
		{ .iov_base = &oh, .iov_len = sizeof(oh) },
		{ .iov_base = (void *)out, .iov_len = len },
	};

	return writev(fd, iov, len ? 2 : 1) == oh.len ? 0 : -1;
}

/*
 * Answer a READ by splicing from @src: the reply header goes into the
 * pipe first, then the source's page cache pages, all moved on.
 */
static int fuse_reply_splice(int fd, uint64_t unique, int src, int pipefd[2],
			     const struct fuse_read_in *in)
{
	struct fuse_out_header oh = { .unique = unique };
	loff_t off = in->offset;
	size_t n = 0, want = 0;
	ssize_t r;

	if (in->offset < FUSE_PAGES * PAGE)
		want = FUSE_PAGES * PAGE - in->offset;
	if (want > in->size)
		want = in->size;
	oh.len = sizeof(oh) + want;
	if (write(pipefd[1], &oh, sizeof(oh)) != sizeof(oh))
		return -1;
	while (n < want) {
		r = splice(src, &off, pipefd[1], NULL, want - n, 0);
		if (r <= 0)
			return -1;
		n += r;
	}
	for (n = 0; n < oh.len; n += r) {
		r = splice(pipefd[0], NULL, fd, NULL, oh.len - n, SPLICE_F_MOVE);
		if (r <= 0)
			return -1;
	}
	return 0;
}

/* The daemon's loop, until the file system is unmounted. */
static void fuse_serve(int fd, int src)
{
	static char buf[(1 << 20) + PAGE];
	struct fuse_in_header *ih = (void *)buf;
	void *arg = buf + sizeof(*ih);
	struct fuse_init_out init = { 0 };
	struct fuse_entry_out entry = { 0 };
	struct fuse_attr_out attr = { 0 };
	struct fuse_open_out open_out = { 0 };
	int pipefd[2], err;
	ssize_t n;

	if (pipe(pipefd) || fcntl(pipefd[1], F_SETPIPE_SZ, 1 << 20) < 0)
		_exit(2);
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(*ih))
			_exit(n < 0 && errno == ENODEV ? 0 : 3);
		switch (ih->opcode) {
		case FUSE_INIT:
			init.major = FUSE_KERNEL_VERSION;
			init.minor = FUSE_KERNEL_MINOR_VERSION;
			init.max_readahead =
				((struct fuse_init_in *)arg)->max_readahead;
			init.max_write = 1 << 17;
			init.time_gran = 1;
			err = fuse_reply(fd, ih->unique, 0, &init, sizeof(init));
			break;
		case FUSE_LOOKUP:
			if (ih->nodeid != FUSE_ROOT_ID || strcmp(arg, "f")) {
				err = fuse_reply(fd, ih->unique, -ENOENT, NULL, 0);
				break;
			}
			entry.nodeid = FUSE_INO;
			entry.entry_valid = 3600;
			entry.attr_valid = 3600;
			fuse_fill_attr(&entry.attr, FUSE_INO);
			err = fuse_reply(fd, ih->unique, 0, &entry, sizeof(entry));
			break;
		case FUSE_GETATTR:
			attr.attr_valid = 3600;
			fuse_fill_attr(&attr.attr, ih->nodeid);
			err = fuse_reply(fd, ih->unique, 0, &attr, sizeof(attr));
			break;
		case FUSE_OPEN:
			err = fuse_reply(fd, ih->unique, 0, &open_out,
					 sizeof(open_out));
			break;
		case FUSE_READ:
			err = fuse_reply_splice(fd, ih->unique, src, pipefd, arg);
			break;
		case FUSE_FLUSH:
		case FUSE_RELEASE:
			err = fuse_reply(fd, ih->unique, 0, NULL, 0);
			break;
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			err = 0;
			break;
		default:
			err = fuse_reply(fd, ih->unique, -ENOSYS, NULL, 0);
			break;
		}
		if (err)
			_exit(4);
	}
}

/* In a child moved into @cont: read @path whole; 0 if every byte is right. */
static int read_in(const char *cont, const char *path)
{
	static char buf[FUSE_PAGES * PAGE];
	int status, fd, i;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (cn_move_self(cont))
			_exit(1);
		fd = open(path, O_RDONLY);
		if (fd < 0 || read(fd, buf, sizeof(buf)) != sizeof(buf))
			_exit(2);
		for (i = 0; i < FUSE_PAGES; i++)
			if (buf[i * PAGE] != 'a' + i ||
			    buf[(i + 1) * PAGE - 1] != 'a' + i)
				_exit(3);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

FIXTURE(fuse) {
	struct cn_env env;
	char *root;
	char src[CN_PATH_LEN];
	char mnt[CN_PATH_LEN];
	bool mounted;
	pid_t server;
};

FIXTURE_SETUP(fuse)
{
	char page[PAGE];
	int fd, i;

	cn_cleanup_stale();
	cn_env_init(&self->env);
	if (access("/dev/fuse", F_OK))
		mknod("/dev/fuse", S_IFCHR | 0666, makedev(10, 229));
	ASSERT_EQ(0, ext2_mounted());
	snprintf(self->src, sizeof(self->src), "%s/fuse-src", EXT_MNT);
	fd = open(self->src, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	for (i = 0; i < FUSE_PAGES; i++) {
		memset(page, 'a' + i, sizeof(page));
		ASSERT_EQ(PAGE, write(fd, page, sizeof(page)));
	}
	close(fd);
	sync();
	ASSERT_EQ(0, cn_write("/proc/sys/vm/drop_caches", "3"));
	ASSERT_EQ(0, cn_env_mount_retry(&self->env, "memory", &self->root));
	snprintf(self->mnt, sizeof(self->mnt), "%s/fuse",
		 cn_env_tmpdir(&self->env));
	ASSERT_EQ(0, mkdir(self->mnt, 0755));
}

FIXTURE_TEARDOWN(fuse)
{
	int status;

	if (self->mounted)
		umount2(self->mnt, MNT_DETACH);
	if (self->server > 0) {
		kill(self->server, SIGKILL);
		waitpid(self->server, &status, 0);
	}
	rmdir(self->mnt);
	unlink(self->src);
	cn_env_cleanup(&self->env);
}

TEST_F_TIMEOUT(fuse, splice_move_keeps_the_one_charge, 120)
{
	char a[CN_PATH_LEN], b[CN_PATH_LEN], f[CN_PATH_LEN];
	long len = FUSE_PAGES * PAGE, ua0, ua, ub;
	int fd, src, status, moved;
	char opts[128];

	cn_path(a, sizeof(a), self->root, "a");
	cn_path(b, sizeof(b), self->root, "b");
	cn_path(f, sizeof(f), self->mnt, "f");
	ASSERT_EQ(0, cn_mkdir(a));
	ASSERT_EQ(0, cn_mkdir(b));
	fd = open("/dev/fuse", O_RDWR);
	if (fd < 0)
		SKIP(return, "no /dev/fuse (CONFIG_FUSE_FS): %s", strerror(errno));
	src = open(self->src, O_RDONLY);
	ASSERT_LE(0, src);

	/* The source's page cache is charged to a, by a task there. */
	ASSERT_EQ(0, read_in(a, self->src));
	ASSERT_EQ(FUSE_PAGES, cached_pages(self->src, len));
	/* Per-CPU LRU batches hold references that would stop the steal. */
	ASSERT_EQ(0, cn_lru_drain());
	/* The file's pages, and a few of ext2's metadata (indirect blocks). */
	ua0 = usage_settles(a, len + 4 * PAGE);
	ASSERT_LE(len, ua0);
	ASSERT_GE(len + 4 * PAGE, ua0);

	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
	ASSERT_EQ(0, mount("cntest", self->mnt, "fuse", MS_NOSUID | MS_NODEV,
			   opts));
	self->mounted = true;
	self->server = fork();
	ASSERT_LE(0, self->server);
	if (!self->server)
		fuse_serve(fd, src);
	close(fd);

	/* A task in b reads the FUSE file: the pages move, with a's charge. */
	ASSERT_EQ(0, read_in(b, f));
	moved = FUSE_PAGES - cached_pages(self->src, len);
	ua = usage(a);
	ub = usage_settles(b, (FUSE_PAGES - moved) * PAGE);
	TH_LOG("%d of %d pages moved: a %ld kB, b %ld kB", moved, FUSE_PAGES,
	       ua / KB, ub / KB);
	ASSERT_LT(0, moved);
	EXPECT_EQ(ua0, ua);
	EXPECT_EQ((FUSE_PAGES - moved) * PAGE, ub);

	/* Once the FUSE file's cache is gone, nobody is charged. */
	ASSERT_EQ(0, umount(self->mnt));
	self->mounted = false;
	ASSERT_EQ(self->server, waitpid(self->server, &status, 0));
	self->server = 0;
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(src);
	ASSERT_EQ(0, cn_write("/proc/sys/vm/drop_caches", "3"));
	EXPECT_EQ(0, usage_settles(a, 0));
	EXPECT_EQ(0, usage_settles(b, 0));
	EXPECT_EQ(0, cn_rmdir(a));
	EXPECT_EQ(0, cn_rmdir(b));
}

TEST_HARNESS_MAIN
