/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the process containers selftests: mounting hierarchies of the
 * "container" filesystem, reading and writing container files, parsing
 * /proc/<pid>/container and /proc/containers, and keeping track of what a
 * test created so that it can all be removed again.
 */
#ifndef __CONTAINER_UTIL_H
#define __CONTAINER_UTIL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../kselftest.h"	/* __printf() */

#define CN_FSTYPE	"container"
#define CN_MNT_PREFIX	"/tmp/cntest."
#define CN_TMP_PREFIX	"/tmp/cntmp."
#define CN_NOBODY	65534

#define CN_MAX_MOUNTS	8
#define CN_DIR_LEN	64
/* Any path the kernel can show in /proc/<pid>/container, or open. */
#define CN_PATH_LEN	PATH_MAX
/* Pause between removing containers and unmounting, in teardown. */
#define CN_SETTLE_MS	100

/* What cn_long() returns when the file cannot be read as a number. */
#define CN_BAD_READ	LONG_MIN

/* "@dir/@name" in @buf of @len bytes (truncated if too long); @buf. */
char *cn_path(char *buf, size_t len, const char *dir, const char *name);
/* The integer in a file, or CN_BAD_READ. */
long cn_long(const char *path);
/* The trimmed content of a one-line file in @buf, or "<error N>"; @buf. */
char *cn_str(const char *path, char *buf, size_t len);

/*
 * Files of a container by the container's directory and the file's name,
 * which may be a relative path ("c/tasks" is the tasks file of child c).
 * Each builds "@cont/@file" in a local buffer of CN_PATH_LEN bytes; a path
 * that does not fit is -ENAMETOOLONG (CN_BAD_READ, "<error N>", false).
 */
/* The integer in @cont/@file, or CN_BAD_READ: cn_long() of the path. */
long cn_read_long_in(const char *cont, const char *file);
/* The trimmed content of @cont/@file in @buf, or "<error N>"; @buf. */
char *cn_read_str_in(const char *cont, const char *file, char *buf,
		     size_t len);
/* Write @val to @cont/@file in one write(2): 0 or -errno (cn_write()). */
int cn_write_in(const char *cont, const char *file, const char *val);
/* Write the formatted value to @cont/@file: 0 or -errno (cn_writef()). */
int cn_writef_in(const char *cont, const char *file, const char *fmt, ...)
	__printf(3, 4);
/* The ids in @cont/@file, as cn_read_pids() returns them. */
int cn_read_pids_in(const char *cont, const char *file, pid_t **pids);
/* All of @cont/@file as cn_read_all() returns it (malloc()ed, or NULL). */
char *cn_read_all_in(const char *cont, const char *file, size_t chunk);
/* Whether @cont/@file exists (cn_exists()). */
bool cn_exists_in(const char *cont, const char *file);
/* Create child container @name of @cont: 0 or -errno (cn_mkdir()). */
int cn_mkdir_in(const char *cont, const char *name);
/* Remove child container @name of @cont: 0 or -errno (cn_rmdir()). */
int cn_rmdir_in(const char *cont, const char *name);

/* Mounting. */
int cn_mount(const char *opts, char *dir, size_t len);
int cn_umount(const char *dir);
int cn_remount(const char *dir, const char *opts);

/* Files. */
ssize_t cn_read(const char *path, char *buf, size_t size);
char *cn_read_all(const char *path, size_t chunk);
/* The value of @key in the memory.stat of container @cont, or -1. */
long cn_stat_value(const char *cont, const char *key);
/* The value of @key in the "key value" lines of @cont's @file; -1 if none. */
long cn_keyed_value(const char *cont, const char *file, const char *key);
/*
 * Put the folios waiting in every CPU's LRU batch on the LRU lists, where
 * memory.stat counts them (writes /proc/sys/vm/compact_memory, which
 * drains the batches first; it also migrates pages).  0 or -errno.
 */
int cn_lru_drain(void);
/* Pages up to 31 per CPU may wait in LRU batches: in bytes. */
long cn_lru_batch_bytes(void);
int cn_read_long(const char *path, long *val);
int cn_read_str(const char *path, char *buf, size_t size);
int cn_write(const char *path, const char *str);
int cn_writef(const char *path, const char *fmt, ...) __printf(2, 3);
int cn_mkdir(const char *path);
int cn_rmdir(const char *path);
bool cn_exists(const char *path);

/* Membership. */
int cn_parse_pids(const char *text, pid_t **pids);
int cn_read_pids(const char *path, pid_t **pids);
int cn_read_pids_sorted(const char *path, pid_t **pids);
bool cn_pids_sorted_unique(const pid_t *pids, int n);
void cn_pids_sort(pid_t *pids, int n);
bool cn_pids_contain(const pid_t *pids, int n, pid_t pid);
int cn_has_task(const char *cont, pid_t tid);
int cn_has_proc(const char *cont, pid_t tgid);
int cn_move(const char *cont, pid_t tid);
int cn_move_proc(const char *cont, pid_t tgid);
int cn_move_self(const char *cont);
int cn_count_tasks(const char *cont);

/* /proc. */
int cn_proc_path(pid_t pid, int hier_id, char *buf, size_t len);
int cn_hier_id(const char *token);
int cn_hier_count(const char *token);
int cn_subsys_info(const char *name, int *hier_id, int *num, int *enabled);
int cn_wait_subsys_hier(const char *name, int want, long ms);

/* Trees of containers. */
struct cn_member {
	pid_t tid;
	char path[CN_PATH_LEN];
};

/* A container of a tree, by its path. */
struct cn_dir {
	char path[CN_PATH_LEN];
};

int cn_tree_dirs(const char *root);
int cn_tree_members(const char *root, struct cn_member **out);
int cn_tree_list(const char *root, struct cn_dir **out);
int cn_destroy_tree(const char *root);
void cn_cleanup_stale(void);

/* Run a shell command; its exit status, or -1 if it did not exit. */
int cn_run(const char *cmd);

/*
 * Swap on zram0 (256 MiB) for the memory tests, and off again: the other
 * tests want none.  cn_swap_on() returns 0 or -1.
 */
int cn_swap_on(void);
void cn_swap_off(void);

/* Processes. */
pid_t cn_spawn_sleeper(void);
pid_t cn_gettid(void);
void cn_kill_wait(pid_t pid);
int cn_run_as(uid_t uid, int (*fn)(void *arg), void *arg);
/* The other thread of @pid once its main thread exited (zombie); or -1. */
pid_t cn_wait_exited_leader(pid_t pid);
long cn_now_ms(void);
void cn_sleep_ms(long ms);

/*
 * Everything one test created: mounts, child processes and a scratch
 * directory.  cn_env_cleanup() kills the children, moves the caller back to
 * the root of every mount, removes all child containers, unmounts and
 * removes the mount points and the scratch directory.
 */
struct cn_env {
	int nmounts;
	char mounts[CN_MAX_MOUNTS][CN_DIR_LEN];
	pid_t *pids;
	int npids;
	int maxpids;
	char tmpdir[CN_DIR_LEN];
};

void cn_env_init(struct cn_env *env);
int cn_env_mount(struct cn_env *env, const char *opts, char **dir);
int cn_env_mount_retry(struct cn_env *env, const char *opts, char **dir);
int cn_env_umount(struct cn_env *env, const char *dir);
void cn_env_track(struct cn_env *env, pid_t pid);
void cn_env_untrack(struct cn_env *env, pid_t pid);
void cn_env_kill(struct cn_env *env, pid_t pid);
void cn_env_kill_all(struct cn_env *env);
pid_t cn_env_sleeper(struct cn_env *env);
const char *cn_env_tmpdir(struct cn_env *env);
void cn_env_cleanup(struct cn_env *env);

#endif /* __CONTAINER_UTIL_H */
