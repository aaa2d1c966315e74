// SPDX-License-Identifier: GPL-2.0
/*
 * insncount: a QEMU TCG plugin (plugin API version 2, QEMU 9 and newer)
 * that counts how often each translation block of the guest runs and
 * writes, at exit, "vaddr ninsns count" for every block whose address is
 * at or above "min" (default: the kernel's text mapping).  For
 * "make profile" (scripts/profile.sh): exact instruction counts per
 * kernel function, where sampling the guest's instruction pointer under
 * -icount gives a few hundred samples per run.
 *
 * Debian's qemu-system-x86 loads plugins but ships no qemu-plugin.h: the
 * few entry points used are declared here.
 *
 * Build: gcc -shared -fPIC -O2 -o insncount.so insncount.c
 * Use:   qemu-system-x86_64 ... -plugin ./insncount.so,out=FILE[,min=HEX]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_scoreboard;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef struct {
	struct qemu_plugin_scoreboard *score;
	size_t offset;
} qemu_plugin_u64;
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*udata_cb)(qemu_plugin_id_t id, void *udata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_scoreboard *qemu_plugin_scoreboard_new(size_t size);
uint64_t qemu_plugin_u64_sum(qemu_plugin_u64 entry);
void qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(struct qemu_plugin_tb *tb,
							enum qemu_plugin_op op,
							qemu_plugin_u64 entry,
							uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb cb,
				    void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 2;

/* A block's count is its slot in a per-vCPU array, summed at exit. */
struct block {
	uint64_t vaddr;
	uint64_t ninsns;
	size_t slot;
	struct block *next;
};

#define NBUCKETS (1u << 20)
#define NSLOTS (1u << 21)
static struct block **table;
static struct qemu_plugin_scoreboard *counts;
static size_t nslots;
static uint64_t min_addr = 0xffffffff80000000ull;
static char out_path[4096] = "insncount.out";

static struct block *lookup(uint64_t vaddr, uint64_t n)
{
	uint64_t h = (vaddr * 0x9E3779B97F4A7C15ull) >> 44;
	struct block *b;

	for (b = table[h & (NBUCKETS - 1)]; b; b = b->next)
		if (b->vaddr == vaddr && b->ninsns == n)
			return b;
	if (nslots == NSLOTS)
		return NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->vaddr = vaddr;
	b->ninsns = n;
	b->slot = nslots++;
	b->next = table[h & (NBUCKETS - 1)];
	table[h & (NBUCKETS - 1)] = b;
	return b;
}

static qemu_plugin_u64 slot_of(const struct block *b)
{
	qemu_plugin_u64 e = { counts, b->slot * sizeof(uint64_t) };

	return e;
}

static void trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	struct block *b;

	if (vaddr < min_addr)
		return;
	b = lookup(vaddr, qemu_plugin_tb_n_insns(tb));
	if (!b) {
		fprintf(stderr, "insncount: more than %u blocks\n", NSLOTS);
		exit(1);
	}
	qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb,
		QEMU_PLUGIN_INLINE_ADD_U64, slot_of(b), 1);
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	FILE *f = fopen(out_path, "w");
	unsigned int i;
	struct block *b;

	if (!f)
		return;
	for (i = 0; i < NBUCKETS; i++)
		for (b = table[i]; b; b = b->next) {
			uint64_t count = qemu_plugin_u64_sum(slot_of(b));

			if (count)
				fprintf(f, "%llx %llu %llu\n",
					(unsigned long long)b->vaddr,
					(unsigned long long)b->ninsns,
					(unsigned long long)count);
		}
	fclose(f);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			snprintf(out_path, sizeof(out_path), "%s", argv[i] + 4);
		else if (!strncmp(argv[i], "min=", 4))
			min_addr = strtoull(argv[i] + 4, NULL, 16);
	}
	table = calloc(NBUCKETS, sizeof(*table));
	counts = qemu_plugin_scoreboard_new(NSLOTS * sizeof(uint64_t));
	if (!table || !counts)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
