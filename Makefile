# SPDX-License-Identifier: GPL-2.0
#
# Process containers for Linux 6.12: build, boot and test harness.
#
#   make run      build what is missing, boot, show containers working
#   make check    build, boot, run every selftest; "N passed, N failed"
#   make refresh  turn edits made in build/src back into the repository
#   make series   the work as a patch series in build/series (patches/layout)
#   make series-check  build the kernel after each patch of the series
#   make docs-check  kernel-doc and Sphinx on the documentation, no warning
#   make build-matrix  build robot configurations, W=1 + sparse warnings
#   make bench    instruction-time benchmarks: baseline, containers, cgroup v1
#   make profile  where guest time goes in one benchmark workload
#   make clean    remove build products (not the Debian packages)
#
# Variables: CONFIG=<name> (a configuration below; default containers),
# RUN=<script> (run that script in the guest instead of the demo),
# CHECK_CONFIGS (configurations "make check" boots), BOOT_TIMEOUT, CPUS;
# MATRIX (build-matrix configurations; default all); for profile: MODE
# (a bench mode; default containers), WORKLOAD (default
# anon-fault-per-page), REPS, AGAINST=<config>:<mode> (compare with that);
# for bench and profile: LRU_GEN=<value> (written to
# /sys/kernel/mm/lru_gen/enabled in every guest first, e.g. y; bench's
# table goes to build/bench-lru-gen/).

include scripts/version.mk

CONFIG ?= containers
CHECK_CONFIGS ?= containers debug baseline mixed
CPUS ?= 4

# Configurations: tinyconfig plus these fragments of configs/, in order.
FRAGMENTS_containers := base containers testenv
FRAGMENTS_baseline := base baseline testenv
FRAGMENTS_debug := base containers testenv debug
FRAGMENTS_cgroupv1 := base cgroupv1 testenv
FRAGMENTS_mixed := base mixed testenv

B := $(CURDIR)/build
PRISTINE := $(B)/pristine/linux-source-6.12
TREE := $(B)/src
OBJ = $(B)/obj-$(1)
KERNEL = $(call OBJ,$(1))/arch/x86/boot/bzImage
JOBS := $(shell nproc)

export REPO := $(CURDIR)
export PRISTINE TREE

# ccache with its default per-user cache; the base dir makes compilations
# from another clone of this repository (CI) hit the same entries.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1
KMAKE = $(MAKE) -s -C $(TREE) O=$(call OBJ,$(1)) -j$(JOBS) \
	CC="ccache gcc" LOCALVERSION= KBUILD_BUILD_USER=containers \
	KBUILD_BUILD_HOST=harness KBUILD_BUILD_TIMESTAMP="2026-01-01"

.PHONY: all deps tree prepare kernel-% kernels selftests initramfs run \
	check check-% check-harness refresh series series-check docs-check \
	build-matrix \
	bench profile \
	clean help
.NOTPARALLEL:

all: kernel-$(CONFIG)

help:
	@sed -n '3,15s/^# \{0,1\}//p' Makefile

deps:
	@scripts/deps.sh

tree: deps
	@scripts/unpack.sh

prepare: tree
	@scripts/prepare.sh

kernel-%: prepare
	@test -n "$(FRAGMENTS_$*)" || { echo "no configuration '$*'" >&2; exit 1; }
	@OBJ=$(call OBJ,$*) scripts/kconfig.sh \
		$(foreach f,$(FRAGMENTS_$*),configs/$(f).config)
	@echo "  KBUILD  $* (O=build/obj-$*)"
	@$(call KMAKE,$*) bzImage
	@OBJ=$(call OBJ,$*) scripts/kconfig.sh \
		$(foreach f,$(FRAGMENTS_$*),configs/$(f).config)

SELFTESTS := $(B)/selftests
selftests: prepare
	@echo "  SELFTEST tools/testing/selftests/containers"
	@mkdir -p $(SELFTESTS)
	@$(MAKE) -s -C $(TREE)/tools/testing/selftests/containers \
		OUTPUT=$(SELFTESTS) CC="ccache gcc"
	@$(MAKE) -s --no-print-directory -C $(TREE)/tools/testing/selftests/containers \
		OUTPUT=$(SELFTESTS) emit_tests 2>/dev/null | \
		sed -n 's/^[^:[:space:]]*:\([^:[:space:]]*\)$$/\1/p' >$(SELFTESTS)/list.tmp
	@mv $(SELFTESTS)/list.tmp $(SELFTESTS)/list

initramfs: selftests
	@scripts/initramfs.sh $(B)/initramfs.cpio $(SELFTESTS) $(RUN)

run: kernel-$(CONFIG) initramfs
	@if [ -t 0 ]; then i=1; else i=0; fi; \
	INTERACTIVE=$$i CPUS=$(CPUS) scripts/boot.sh $(call KERNEL,$(CONFIG)) \
		$(B)/initramfs.cpio $(if $(RUN),run,demo) $(B)/log/run-$(CONFIG).log

check: $(foreach c,$(CHECK_CONFIGS),kernel-$(c)) initramfs
	@scripts/check.sh $(foreach c,$(CHECK_CONFIGS),$(c):$(call KERNEL,$(c)))

check-harness: kernel-$(CONFIG) initramfs
	@scripts/test-harness.sh $(call KERNEL,$(CONFIG))

refresh:
	@scripts/refresh.sh

series: prepare
	@scripts/mkseries.sh

# Build the kernel after each patch of the series in turn (bisectability).
series-check: series
	@scripts/series-check.sh $(foreach f,$(FRAGMENTS_containers),configs/$(f).config)

docs-check: prepare
	@scripts/docs-check.sh

# Not part of check: the core alone, each subsystem alone, cgroups beside
# containers, x86_64_defconfig with containers; warnings in our code.
build-matrix: prepare
	@scripts/build-matrix.sh $(MATRIX)

# Not part of check: baseline, containers (in the top and two levels
# down) and upstream cgroup v1, side by side.
bench: kernel-baseline kernel-containers kernel-cgroupv1 initramfs
	@BENCH_LRU_GEN=$(LRU_GEN) scripts/bench.sh $(B)/initramfs.cpio \
		baseline:none:$(call KERNEL,baseline) \
		containers-top:root:$(call KERNEL,containers) \
		containers:containers:$(call KERNEL,containers) \
		containers-memory:memory-only:$(call KERNEL,containers) \
		cgroup-v1:cgroup-v1:$(call KERNEL,cgroupv1)

MODE ?= containers
WORKLOAD ?= anon-fault-per-page
REPS ?= 13
profile: kernel-$(CONFIG) $(if $(AGAINST),kernel-$(firstword \
		$(subst :, ,$(AGAINST)))) initramfs
	@BENCH_LRU_GEN=$(LRU_GEN) scripts/profile.sh $(B)/initramfs.cpio \
		$(call OBJ,$(CONFIG)) $(MODE) \
		$(WORKLOAD) $(REPS) $(AGAINST)

clean:
	rm -rf $(B)/obj-* $(B)/selftests $(B)/initramfs.cpio $(B)/log \
		$(B)/src $(B)/src.manifest $(B)/series $(B)/series-tree \
		$(B)/series-am $(B)/series-check $(B)/bench $(B)/matrix
