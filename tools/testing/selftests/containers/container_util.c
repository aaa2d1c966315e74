// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers for the process containers selftests.  All functions that can
 * fail return 0 (or a count) on success and -errno on failure, and never
 * print anything: the tests decide what a failure means.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "container_util.h"

int cn_mount(const char *opts, char *dir, size_t len)
{
	int err;

	if (snprintf(dir, len, "%sXXXXXX", CN_MNT_PREFIX) >= (int)len)
		return -ENAMETOOLONG;
	if (!mkdtemp(dir))
		return -errno;
	if (mount("none", dir, CN_FSTYPE, 0, opts)) {
		err = errno;
		rmdir(dir);
		return -err;
	}
	return 0;
}

int cn_umount(const char *dir)
{
	if (umount(dir))
		return -errno;
	rmdir(dir);
	return 0;
}

int cn_remount(const char *dir, const char *opts)
{
	if (mount("none", dir, CN_FSTYPE, MS_REMOUNT, opts))
		return -errno;
	return 0;
}

ssize_t cn_read(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	int fd, err;

	if (!size)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			close(fd);
			return -err;
		}
		if (!n)
			break;
		len += n;
	}
	buf[len] = '\0';
	close(fd);
	return len;
}

/*
 * Read a whole file of any size with reads of @chunk bytes each (small
 * chunks exercise the kernel's handling of the file position).  Returns a
 * malloc()ed NUL terminated string, or NULL with errno set.
 */
char *cn_read_all(const char *path, size_t chunk)
{
	size_t len = 0, cap = 4096;
	char *buf, *tmp;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = malloc(cap);
	if (!buf)
		goto fail;
	for (;;) {
		if (len + chunk + 1 > cap) {
			cap = 2 * (len + chunk + 1);
			tmp = realloc(buf, cap);
			if (!tmp)
				goto fail;
			buf = tmp;
		}
		n = read(fd, buf + len, chunk);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (!n)
			break;
		len += n;
	}
	buf[len] = '\0';
	close(fd);
	return buf;
fail:
	err = errno;
	free(buf);
	close(fd);
	errno = err;
	return NULL;
}

long cn_stat_value(const char *cont, const char *key)
{
	return cn_keyed_value(cont, "memory.stat", key);
}

long cn_keyed_value(const char *cont, const char *file, const char *key)
{
	char *text = cn_read_all_in(cont, file, 4096), *p;
	size_t len = strlen(key);
	long v = -1;

	if (!text)
		return -1;
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, key, len) && p[len] == ' ') {
			v = atol(p + len + 1);
			break;
		}
	}
	free(text);
	return v;
}

int cn_lru_drain(void)
{
	return cn_write("/proc/sys/vm/compact_memory", "1");
}

long cn_lru_batch_bytes(void)
{
	return 31L * sysconf(_SC_PAGESIZE) * sysconf(_SC_NPROCESSORS_CONF);
}

int cn_read_long(const char *path, long *val)
{
	char buf[128], *end;
	ssize_t n;

	n = cn_read(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	errno = 0;
	*val = strtol(buf, &end, 0);
	if (end == buf || errno)
		return -EINVAL;
	while (*end == '\n' || *end == ' ' || *end == '\t')
		end++;
	return *end ? -EINVAL : 0;
}

/* Read a one-line file, without its trailing whitespace. */
int cn_read_str(const char *path, char *buf, size_t size)
{
	ssize_t n = cn_read(path, buf, size);

	if (n < 0)
		return n;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' ||
			 buf[n - 1] == '\t'))
		buf[--n] = '\0';
	return 0;
}

/* One open(2) and one write(2): the errno of whichever failed. */
int cn_write(const char *path, const char *str)
{
	size_t len = strlen(str);
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, str, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	close(fd);
	return ret;
}

int cn_writef(const char *path, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return cn_write(path, buf);
}

int cn_mkdir(const char *path)
{
	return mkdir(path, 0755) ? -errno : 0;
}

int cn_rmdir(const char *path)
{
	return rmdir(path) ? -errno : 0;
}

bool cn_exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

/*
 * Parse one positive decimal id per line.  Returns the count and a
 * malloc()ed array in file order, or -EINVAL if a line is malformed.
 */
int cn_parse_pids(const char *text, pid_t **pids)
{
	int n = 0, cap = 64;
	const char *p = text;
	pid_t *arr, *tmp;
	char *end;
	long v;

	arr = malloc(cap * sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	while (*p) {
		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p || errno || v <= 0 || v > INT_MAX ||
		    (*end != '\n' && *end != '\0')) {
			free(arr);
			return -EINVAL;
		}
		if (n == cap) {
			cap *= 2;
			tmp = realloc(arr, cap * sizeof(*arr));
			if (!tmp) {
				free(arr);
				return -ENOMEM;
			}
			arr = tmp;
		}
		arr[n++] = v;
		p = *end ? end + 1 : end;
	}
	*pids = arr;
	return n;
}

int cn_read_pids(const char *path, pid_t **pids)
{
	char *text = cn_read_all(path, 4096);
	int n;

	if (!text)
		return -errno;
	n = cn_parse_pids(text, pids);
	free(text);
	return n;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

void cn_pids_sort(pid_t *pids, int n)
{
	qsort(pids, n, sizeof(*pids), cmp_pid);
}

int cn_read_pids_sorted(const char *path, pid_t **pids)
{
	int n = cn_read_pids(path, pids);

	if (n > 0)
		cn_pids_sort(*pids, n);
	return n;
}

bool cn_pids_sorted_unique(const pid_t *pids, int n)
{
	int i;

	for (i = 1; i < n; i++)
		if (pids[i - 1] >= pids[i])
			return false;
	return true;
}

bool cn_pids_contain(const pid_t *pids, int n, pid_t pid)
{
	int i;

	for (i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

static int has_id(const char *cont, const char *file, pid_t id)
{
	char path[CN_PATH_LEN];
	pid_t *pids;
	int n, ret;

	snprintf(path, sizeof(path), "%s/%s", cont, file);
	n = cn_read_pids(path, &pids);
	if (n < 0)
		return n;
	ret = cn_pids_contain(pids, n, id);
	free(pids);
	return ret;
}

/* 1 if thread @tid is listed in @cont's tasks, 0 if not, or -errno. */
int cn_has_task(const char *cont, pid_t tid)
{
	return has_id(cont, "tasks", tid);
}

int cn_has_proc(const char *cont, pid_t tgid)
{
	return has_id(cont, "container.procs", tgid);
}

int cn_move(const char *cont, pid_t tid)
{
	char path[CN_PATH_LEN];

	snprintf(path, sizeof(path), "%s/tasks", cont);
	return cn_writef(path, "%d", tid);
}

int cn_move_proc(const char *cont, pid_t tgid)
{
	char path[CN_PATH_LEN];

	snprintf(path, sizeof(path), "%s/container.procs", cont);
	return cn_writef(path, "%d", tgid);
}

int cn_move_self(const char *cont)
{
	return cn_move(cont, cn_gettid());
}

int cn_count_tasks(const char *cont)
{
	char path[CN_PATH_LEN];
	pid_t *pids;
	int n;

	snprintf(path, sizeof(path), "%s/tasks", cont);
	n = cn_read_pids(path, &pids);
	if (n >= 0)
		free(pids);
	return n;
}

static FILE *open_proc_container(pid_t pid)
{
	char path[64];

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/container", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/container");
	return fopen(path, "re");
}

/*
 * Split a "ID:SUBSYSTEMS:PATH" line in place.  Returns the id, or -1 if
 * the line does not have that shape.
 */
static int split_line(char *line, char **subsys, char **path)
{
	char *end, *c;
	long id;

	id = strtol(line, &end, 10);
	if (end == line || *end != ':')
		return -1;
	*subsys = end + 1;
	c = strchr(*subsys, ':');
	if (!c)
		return -1;
	*c = '\0';
	*path = c + 1;
	c = strchr(*path, '\n');
	if (c)
		*c = '\0';
	return id;
}

/* The path of @pid (0: self) in hierarchy @hier_id. */
int cn_proc_path(pid_t pid, int hier_id, char *buf, size_t len)
{
	char *line = NULL, *subsys, *path;
	int ret = -ENOENT;
	size_t cap = 0;
	FILE *f;

	f = open_proc_container(pid);
	if (!f)
		return -errno;
	/* Lines as long as the paths: no fixed-size line buffer. */
	while (getline(&line, &cap, f) > 0) {
		if (split_line(line, &subsys, &path) != hier_id)
			continue;
		ret = snprintf(buf, len, "%s", path) >= (int)len ?
		      -ENAMETOOLONG : 0;
		break;
	}
	free(line);
	fclose(f);
	return ret;
}

static bool has_token(const char *list, const char *token)
{
	size_t len = strlen(token);
	const char *p = list;

	while (*p) {
		if (!strncmp(p, token, len) && (p[len] == ',' || !p[len]))
			return true;
		p = strchr(p, ',');
		if (!p)
			break;
		p++;
	}
	return false;
}

static int scan_hier(const char *token, int *count)
{
	char *line = NULL, *subsys, *path;
	int id, found = -ENOENT;
	size_t cap = 0;
	FILE *f;

	*count = 0;
	f = open_proc_container(0);
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		id = split_line(line, &subsys, &path);
		if (id < 0 || !has_token(subsys, token))
			continue;
		if (found < 0)
			found = id;
		(*count)++;
	}
	free(line);
	fclose(f);
	return found;
}

/*
 * The id of the hierarchy whose subsystem list in /proc/self/container
 * holds @token: a subsystem name ("debug") or "name=NAME".
 */
int cn_hier_id(const char *token)
{
	int count;

	return scan_hier(token, &count);
}

/* How many lines of /proc/self/container hold @token. */
int cn_hier_count(const char *token)
{
	int count, ret;

	ret = scan_hier(token, &count);
	return ret < 0 && ret != -ENOENT ? ret : count;
}

/* One subsystem's line of /proc/containers; *enabled is -1 if absent. */
int cn_subsys_info(const char *name, int *hier_id, int *num, int *enabled)
{
	char line[256], sub[64];
	int ret = -ENOENT, h, c, e, n;
	FILE *f;

	f = fopen("/proc/containers", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		n = sscanf(line, "%63s %d %d %d", sub, &h, &c, &e);
		if (n < 3 || strcmp(sub, name))
			continue;
		*hier_id = h;
		*num = c;
		*enabled = n == 4 ? e : -1;
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

/*
 * Poll /proc/containers for up to @ms milliseconds until subsystem @name is
 * bound to hierarchy @want (0: unbound).  Returns the last id seen, or
 * -errno.
 */
int cn_wait_subsys_hier(const char *name, int want, long ms)
{
	long end = cn_now_ms() + ms;
	int hier, num, en, ret;

	for (;;) {
		ret = cn_subsys_info(name, &hier, &num, &en);
		if (ret)
			return ret;
		if (hier == want || cn_now_ms() > end)
			return hier;
		cn_sleep_ms(20);
	}
}

/*
 * The tree walkers never truncate a path: a tree they cannot walk whole is
 * an error (-ENAMETOOLONG), not a smaller tree.
 */
static int join(char *buf, const char *dir, const char *name)
{
	int n = snprintf(buf, CN_PATH_LEN, "%s/%s", dir, name);

	return n < 0 || n >= CN_PATH_LEN ? -ENAMETOOLONG : 0;
}

/* Whether entry @de of the open directory @d is a subdirectory. */
static bool is_subdir(DIR *d, const struct dirent *de)
{
	struct stat st;

	if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
		return false;
	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	return !fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
	       S_ISDIR(st.st_mode);
}

/* Number of containers under and including @root, or -errno. */
int cn_tree_dirs(const char *root)
{
	char *path = malloc(CN_PATH_LEN);
	struct dirent *de;
	int n = 1, ret = 0;
	DIR *d;

	if (!path)
		return -ENOMEM;
	d = opendir(root);
	if (!d) {
		free(path);
		return -errno;
	}
	while ((de = readdir(d))) {
		if (!is_subdir(d, de))
			continue;
		ret = join(path, root, de->d_name);
		if (!ret)
			ret = cn_tree_dirs(path);
		if (ret < 0)
			break;
		n += ret;
		ret = 0;
	}
	closedir(d);
	free(path);
	return ret < 0 ? ret : n;
}

struct members {
	struct cn_member *arr;
	int n, cap;
};

static int collect(const char *root, const char *rel, struct members *m)
{
	char *path, *sub;
	struct cn_member *tmp;
	struct dirent *de;
	pid_t *pids;
	int i, n, ret;
	DIR *d;

	path = malloc(2 * CN_PATH_LEN);
	if (!path)
		return -ENOMEM;
	sub = path + CN_PATH_LEN;
	/* rel is "" or starts with '/': the path is root + rel. */
	ret = snprintf(path, CN_PATH_LEN, "%s%s/tasks", root, rel) >=
	      CN_PATH_LEN ? -ENAMETOOLONG : 0;
	n = ret ? ret : cn_read_pids(path, &pids);
	if (n < 0) {
		free(path);
		return n;
	}
	for (i = 0; i < n; i++) {
		if (m->n == m->cap) {
			m->cap = m->cap ? 2 * m->cap : 256;
			tmp = realloc(m->arr, m->cap * sizeof(*tmp));
			if (!tmp) {
				free(pids);
				free(path);
				return -ENOMEM;
			}
			m->arr = tmp;
		}
		m->arr[m->n].tid = pids[i];
		snprintf(m->arr[m->n].path, CN_PATH_LEN, "%s",
			 *rel ? rel : "/");
		m->n++;
	}
	free(pids);

	snprintf(path, CN_PATH_LEN, "%s%s", root, rel);
	d = opendir(path);
	if (!d) {
		ret = -errno;
		free(path);
		return ret;
	}
	while (!ret && (de = readdir(d))) {
		if (!is_subdir(d, de))
			continue;
		ret = join(sub, rel, de->d_name);
		if (!ret)
			ret = collect(root, sub, m);
	}
	closedir(d);
	free(path);
	return ret;
}

/*
 * Every (tid, container path) pair of the tree at @root, the path relative
 * to the root as /proc/<pid>/container shows it.  Returns the count.
 */
int cn_tree_members(const char *root, struct cn_member **out)
{
	struct members m = { 0 };
	int ret;

	ret = collect(root, "", &m);
	if (ret) {
		free(m.arr);
		return ret;
	}
	*out = m.arr;
	return m.n;
}

struct dirs {
	struct cn_dir *arr;
	int n, cap;
};

static int list(const char *dir, struct dirs *l)
{
	struct cn_dir *tmp;
	struct dirent *de;
	int ret = 0;
	char *sub;
	DIR *d;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		tmp = realloc(l->arr, l->cap * sizeof(*tmp));
		if (!tmp)
			return -ENOMEM;
		l->arr = tmp;
	}
	if (snprintf(l->arr[l->n++].path, CN_PATH_LEN, "%s", dir) >=
	    CN_PATH_LEN)
		return -ENAMETOOLONG;
	sub = malloc(CN_PATH_LEN);
	if (!sub)
		return -ENOMEM;
	d = opendir(dir);
	if (!d) {
		free(sub);
		return -errno;
	}
	while (!ret && (de = readdir(d))) {
		if (!is_subdir(d, de))
			continue;
		ret = join(sub, dir, de->d_name);
		if (!ret)
			ret = list(sub, l);
	}
	closedir(d);
	free(sub);
	return ret;
}

/*
 * @root and every container below it, parents before their children, in
 * *@out (malloc()ed: free() it).  Returns the count, or -errno.
 */
int cn_tree_list(const char *root, struct cn_dir **out)
{
	struct dirs l = { 0 };
	int ret;

	ret = list(root, &l);
	if (ret) {
		free(l.arr);
		return ret;
	}
	*out = l.arr;
	return l.n;
}

/* Move whatever is left in @dir to @root, so that @dir can be removed. */
static void evacuate(const char *root, const char *dir)
{
	pid_t *pids;
	int i, n;

	n = cn_read_pids_in(dir, "tasks", &pids);
	if (n <= 0)
		return;
	for (i = 0; i < n; i++)
		cn_move(root, pids[i]);
	free(pids);
}

static int destroy(const char *root, const char *dir, int *removed)
{
	int ret = 0, err, tries;
	struct dirent *de;
	char *path;
	DIR *d;

	path = malloc(CN_PATH_LEN);
	if (!path)
		return -ENOMEM;
	d = opendir(dir);
	if (!d) {
		free(path);
		return errno == ENOENT ? 0 : -errno;
	}
	while ((de = readdir(d))) {
		if (!is_subdir(d, de))
			continue;
		err = join(path, dir, de->d_name);
		if (err) {
			ret = ret ? ret : err;
			continue;
		}
		err = destroy(root, path, removed);
		if (err && !ret)
			ret = err;
		/* Tasks may take a moment to leave (exiting, being moved). */
		for (tries = 0; tries < 200; tries++) {
			if (!rmdir(path)) {
				(*removed)++;
				err = 0;
				break;
			}
			err = errno == ENOENT ? 0 : -errno;
			if (err != -EBUSY)
				break;
			evacuate(root, path);
			cn_sleep_ms(10);
		}
		if (err && !ret)
			ret = err;
	}
	closedir(d);
	free(path);
	return ret;
}

/*
 * Remove every container below @root (not @root itself).  Returns how many
 * were removed, or the first error.
 */
int cn_destroy_tree(const char *root)
{
	int removed = 0, ret;

	ret = destroy(root, root, &removed);
	return ret ? ret : removed;
}

/* Mount @opts, remove every child container, unmount. */
static void empty_hierarchy(const char *opts)
{
	char dir[CN_DIR_LEN];

	if (cn_mount(opts, dir, sizeof(dir)))
		return;
	cn_move_proc(dir, getpid());
	if (cn_destroy_tree(dir) > 0)
		cn_sleep_ms(CN_SETTLE_MS);
	if (umount(dir))
		umount2(dir, MNT_DETACH);
	rmdir(dir);
}

/*
 * Hierarchies that a failed test unmounted while they still had children
 * live on and keep their subsystems.  Mount those that bind debug or are
 * named like the tests' ones (ct*) again, by their subsystem set and name,
 * and empty them so that their last umount destroys them.
 */
static void cleanup_orphans(void)
{
	char *line = NULL, opts[1100], *subsys, *path;
	char (*list)[1100] = NULL, (*tmp)[1100];
	int n = 0, i, hier, num, en;
	size_t cap = 0;
	FILE *f;

	f = open_proc_container(0);
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		if (split_line(line, &subsys, &path) <= 0)
			continue;
		if (!has_token(subsys, "debug") &&
		    strncmp(subsys, "name=ct", 7) &&
		    !strstr(subsys, ",name=ct"))
			continue;
		snprintf(opts, sizeof(opts), "%s%s",
			 strncmp(subsys, "name=", 5) ? "" : "none,", subsys);
		tmp = realloc(list, (n + 1) * sizeof(*list));
		if (!tmp)
			break;
		list = tmp;
		memcpy(list[n++], opts, sizeof(opts));
	}
	free(line);
	fclose(f);
	for (i = 0; i < n; i++)
		empty_hierarchy(list[i]);
	free(list);

	/* Not listed but still bound: an unnamed debug hierarchy? */
	if (!cn_subsys_info("debug", &hier, &num, &en) && hier > 0)
		empty_hierarchy("debug");
}

/*
 * Unmount whatever an earlier, killed test left mounted at CN_MNT_PREFIX*,
 * and destroy hierarchies it left behind, so that their subsystems are free
 * again.
 */
void cn_cleanup_stale(void)
{
	char line[1024], dev[256], dir[256], type[64];
	char (*dirs)[256] = NULL, (*tmp)[256];
	bool settle = false;
	int n = 0, i;
	FILE *f;

	f = fopen("/proc/self/mounts", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %255s %63s", dev, dir, type) != 3)
			continue;
		if (strcmp(type, CN_FSTYPE) ||
		    strncmp(dir, CN_MNT_PREFIX, strlen(CN_MNT_PREFIX)))
			continue;
		tmp = realloc(dirs, (n + 1) * sizeof(*dirs));
		if (!tmp)
			break;
		dirs = tmp;
		snprintf(dirs[n++], sizeof(dirs[0]), "%s", dir);
	}
	fclose(f);
	for (i = n - 1; i >= 0; i--) {
		cn_move_proc(dirs[i], getpid());
		if (cn_destroy_tree(dirs[i]) > 0)
			settle = true;
	}
	if (settle)
		cn_sleep_ms(CN_SETTLE_MS);
	for (i = n - 1; i >= 0; i--) {
		if (umount(dirs[i]))
			umount2(dirs[i], MNT_DETACH);
		rmdir(dirs[i]);
	}
	free(dirs);
	cleanup_orphans();
}

pid_t cn_gettid(void)
{
	return syscall(SYS_gettid);
}

/* A child that does nothing until it is killed (or its parent dies). */
pid_t cn_spawn_sleeper(void)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		for (;;)
			pause();
	}
	return pid;
}

void cn_kill_wait(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/*
 * Run @fn in a child process with all ids set to @uid (which drops every
 * capability).  Returns what @fn returned (0 or -errno), or -1000 if the
 * child could not change ids or did not exit normally.
 */
int cn_run_as(uid_t uid, int (*fn)(void *arg), void *arg)
{
	int status, ret;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1000;
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
		    setresuid(uid, uid, uid))
			_exit(255);
		ret = fn(arg);
		_exit(ret < 0 && ret > -255 ? -ret : ret ? 254 : 0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1000;
	if (!WIFEXITED(status) || WEXITSTATUS(status) >= 254)
		return -1000;
	return -WEXITSTATUS(status);
}

long cn_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void cn_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

void cn_env_init(struct cn_env *env)
{
	memset(env, 0, sizeof(*env));
}

int cn_env_mount(struct cn_env *env, const char *opts, char **dir)
{
	char *slot;
	int ret;

	if (env->nmounts == CN_MAX_MOUNTS)
		return -ENOSPC;
	slot = env->mounts[env->nmounts];
	ret = cn_mount(opts, slot, CN_DIR_LEN);
	if (ret)
		return ret;
	env->nmounts++;
	if (dir)
		*dir = slot;
	return 0;
}

/*
 * Like cn_env_mount(), but retry for a while on EBUSY: for mounts that
 * expect their subsystems free, when an earlier test's hierarchy may still
 * be on its way out.
 */
int cn_env_mount_retry(struct cn_env *env, const char *opts, char **dir)
{
	long end = cn_now_ms() + 3000;
	int ret;

	while ((ret = cn_env_mount(env, opts, dir)) == -EBUSY &&
	       cn_now_ms() < end)
		cn_sleep_ms(50);
	return ret;
}

/*
 * Unmount one of the env's mounts (without removing its containers).  The
 * string @dir points to may be reused afterwards.
 */
int cn_env_umount(struct cn_env *env, const char *dir)
{
	char copy[CN_DIR_LEN];
	int i, ret;

	snprintf(copy, sizeof(copy), "%s", dir);
	for (i = 0; i < env->nmounts; i++)
		if (!strcmp(env->mounts[i], copy))
			break;
	if (i == env->nmounts)
		return -ENOENT;
	ret = cn_umount(copy);
	if (ret)
		return ret;
	for (; i < env->nmounts - 1; i++)
		memcpy(env->mounts[i], env->mounts[i + 1], CN_DIR_LEN);
	env->nmounts--;
	return 0;
}

void cn_env_track(struct cn_env *env, pid_t pid)
{
	pid_t *tmp;

	if (pid <= 0)
		return;
	if (env->npids == env->maxpids) {
		env->maxpids = env->maxpids ? 2 * env->maxpids : 16;
		tmp = realloc(env->pids, env->maxpids * sizeof(*tmp));
		if (!tmp) {
			/* Cannot track it: better lose the child now. */
			cn_kill_wait(pid);
			env->maxpids = env->npids;
			return;
		}
		env->pids = tmp;
	}
	env->pids[env->npids++] = pid;
}

void cn_env_untrack(struct cn_env *env, pid_t pid)
{
	int i;

	for (i = 0; i < env->npids; i++) {
		if (env->pids[i] == pid) {
			env->pids[i] = env->pids[--env->npids];
			return;
		}
	}
}

/* Kill and reap one tracked child. */
void cn_env_kill(struct cn_env *env, pid_t pid)
{
	cn_kill_wait(pid);
	cn_env_untrack(env, pid);
}

/* Kill every tracked child first, then reap them all. */
void cn_env_kill_all(struct cn_env *env)
{
	int i;

	for (i = 0; i < env->npids; i++)
		kill(env->pids[i], SIGKILL);
	for (i = 0; i < env->npids; i++)
		while (waitpid(env->pids[i], NULL, 0) < 0 && errno == EINTR)
			;
	free(env->pids);
	env->pids = NULL;
	env->npids = 0;
	env->maxpids = 0;
}

pid_t cn_env_sleeper(struct cn_env *env)
{
	pid_t pid = cn_spawn_sleeper();

	cn_env_track(env, pid);
	return pid;
}

const char *cn_env_tmpdir(struct cn_env *env)
{
	if (!env->tmpdir[0]) {
		snprintf(env->tmpdir, sizeof(env->tmpdir), "%sXXXXXX",
			 CN_TMP_PREFIX);
		if (!mkdtemp(env->tmpdir)) {
			env->tmpdir[0] = '\0';
			return NULL;
		}
	}
	return env->tmpdir;
}

static void remove_tmpdir(const char *dir)
{
	char path[CN_PATH_LEN];
	struct dirent *de;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

void cn_env_cleanup(struct cn_env *env)
{
	bool settle = false;
	int i;

	cn_env_kill_all(env);
	for (i = 0; i < env->nmounts; i++)
		if (cn_move_proc(env->mounts[i], getpid()))
			cn_move_self(env->mounts[i]);
	for (i = env->nmounts - 1; i >= 0; i--)
		if (cn_destroy_tree(env->mounts[i]) > 0)
			settle = true;
	/*
	 * Give removed containers a moment to be freed, in case that is
	 * deferred, so that the umount below finds no children left.
	 */
	if (settle)
		cn_sleep_ms(CN_SETTLE_MS);
	for (i = env->nmounts - 1; i >= 0; i--) {
		if (umount(env->mounts[i]))
			umount2(env->mounts[i], MNT_DETACH);
		rmdir(env->mounts[i]);
	}
	env->nmounts = 0;

	if (env->tmpdir[0]) {
		remove_tmpdir(env->tmpdir);
		env->tmpdir[0] = '\0';
	}
}

int cn_run(const char *cmd)
{
	int ret = system(cmd);

	return WIFEXITED(ret) ? WEXITSTATUS(ret) : -1;
}

int cn_swap_on(void)
{
	if (!cn_run("grep -q zram0 /proc/swaps"))
		return 0;
	/* The size can be set once only, until the device is reset. */
	if (cn_long("/sys/block/zram0/disksize") == 0 &&
	    cn_write("/sys/block/zram0/disksize", "256M"))
		return -1;
	if (cn_run("mkswap /dev/zram0 >/dev/null 2>&1") ||
	    cn_run("swapon /dev/zram0"))
		return -1;
	return 0;
}

void cn_swap_off(void)
{
	cn_run("swapoff /dev/zram0 2>/dev/null");
}

char *cn_path(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
	return buf;
}

long cn_long(const char *path)
{
	long v;

	return cn_read_long(path, &v) ? CN_BAD_READ : v;
}

char *cn_str(const char *path, char *buf, size_t len)
{
	int ret;

	ret = cn_read_str(path, buf, len);
	if (ret)
		snprintf(buf, len, "<error %d>", ret);
	return buf;
}

/* "@cont/@file" in @path of CN_PATH_LEN bytes: 0, or -ENAMETOOLONG. */
static int path_in(char *path, const char *cont, const char *file)
{
	int n = snprintf(path, CN_PATH_LEN, "%s/%s", cont, file);

	return n < 0 || n >= CN_PATH_LEN ? -ENAMETOOLONG : 0;
}

long cn_read_long_in(const char *cont, const char *file)
{
	char path[CN_PATH_LEN];

	if (path_in(path, cont, file))
		return CN_BAD_READ;
	return cn_long(path);
}

char *cn_read_str_in(const char *cont, const char *file, char *buf,
		     size_t len)
{
	char path[CN_PATH_LEN];
	int ret = path_in(path, cont, file);

	if (ret) {
		snprintf(buf, len, "<error %d>", ret);
		return buf;
	}
	return cn_str(path, buf, len);
}

int cn_write_in(const char *cont, const char *file, const char *val)
{
	char path[CN_PATH_LEN];
	int ret = path_in(path, cont, file);

	return ret ? ret : cn_write(path, val);
}

int cn_writef_in(const char *cont, const char *file, const char *fmt, ...)
{
	char path[CN_PATH_LEN], buf[256];
	int ret = path_in(path, cont, file);
	va_list ap;

	if (ret)
		return ret;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return cn_write(path, buf);
}

int cn_read_pids_in(const char *cont, const char *file, pid_t **pids)
{
	char path[CN_PATH_LEN];
	int ret = path_in(path, cont, file);

	return ret ? ret : cn_read_pids(path, pids);
}

char *cn_read_all_in(const char *cont, const char *file, size_t chunk)
{
	char path[CN_PATH_LEN];
	int ret = path_in(path, cont, file);

	if (ret) {
		errno = -ret;
		return NULL;
	}
	return cn_read_all(path, chunk);
}

bool cn_exists_in(const char *cont, const char *file)
{
	char path[CN_PATH_LEN];

	return !path_in(path, cont, file) && cn_exists(path);
}

int cn_mkdir_in(const char *cont, const char *name)
{
	char path[CN_PATH_LEN];
	int ret = path_in(path, cont, name);

	return ret ? ret : cn_mkdir(path);
}

int cn_rmdir_in(const char *cont, const char *name)
{
	char path[CN_PATH_LEN];
	int ret = path_in(path, cont, name);

	return ret ? ret : cn_rmdir(path);
}

/*
 * Every test program that links this file needs the container filesystem:
 * on a kernel without it (CONFIG_CONTAINERS=n), report a skip in TAP and
 * exit with KSFT_SKIP before the harness starts.
 */
static void __attribute__((constructor)) cn_require_fs(void)
{
	char *fs = cn_read_all("/proc/filesystems", 4096);
	bool found = fs && strstr(fs, "\t" CN_FSTYPE "\n");

	free(fs);
	if (found)
		return;
	printf("TAP version 13\n1..0 # SKIP no %s filesystem in this kernel\n",
	       CN_FSTYPE);
	exit(4);
}

/*
 * Wait until process @pid has one thread besides its exited (zombie) main
 * thread; that thread's id, or -1.
 */
pid_t cn_wait_exited_leader(pid_t pid)
{
	long end = cn_now_ms() + 5000;
	char path[64], st[CN_PATH_LEN];

	do {
		char *all;
		bool zombie;

		snprintf(path, sizeof(path), "/proc/%d/status", pid);
		all = cn_read_all(path, 4096);
		zombie = all && strstr(all, "State:\tZ");
		free(all);
		if (zombie) {
			struct dirent *e;
			pid_t tid = -1;
			DIR *d;

			snprintf(path, sizeof(path), "/proc/%d/task", pid);
			d = opendir(path);
			while (d && (e = readdir(d)))
				if (atoi(e->d_name) > 0 && atoi(e->d_name) != pid)
					tid = atoi(e->d_name);
			if (d)
				closedir(d);
			snprintf(path, sizeof(path), "/proc/%d/task/%d/stat",
				 pid, tid);
			cn_str(path, st, sizeof(st));
			if (tid > 0 && !strstr(st, "error"))
				return tid;
		}
		cn_sleep_ms(10);
	} while (cn_now_ms() < end);
	return -1;
}
