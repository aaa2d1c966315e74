#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make series-check: is the series of build/series bisectable?  Apply its
# patches one at a time to a pristine tree (build/series-check/src) and
# build the kernel after each, with the "containers" fragments (every
# option of the project that exists at that point is on; the ones a later
# patch adds are listed and ignored).  Fails on the first patch after which
# the kernel does not build.  The object directory is kept between patches
# and between runs, so each step rebuilds only what the patch changed.
# Usage: series-check.sh FRAGMENT...
set -eu
REPO=${REPO:?}
TREE=${TREE:?}
B=$REPO/build
SERIES=$B/series
SRC=$B/series-check/src
OBJ=$B/series-check/obj
LOGS=$B/series-check/log
JOBS=${JOBS:-$(nproc)}

die() { echo "series-check: $*" >&2; exit 1; }

patches=$(ls "$SERIES"/0*.patch 2>/dev/null | grep -v 0000-cover-letter) ||
	die "no patches in build/series: run make series"
mkdir -p "$LOGS" "$OBJ"

# A clone of the prepared tree's pristine branch; files a step does not
# change keep their modification times, so make rebuilds only the rest.
if [ ! -d "$SRC/.git" ]; then
	git -c advice.detachedHead=false clone -q --shared --branch pristine \
		"$TREE" "$SRC"
fi
export GIT_AUTHOR_NAME=series-check GIT_AUTHOR_EMAIL=series-check@localhost
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
git -C "$SRC" am --abort >/dev/null 2>&1 || true
git -C "$SRC" fetch -q "$TREE" pristine
git -C "$SRC" checkout -q -f -B check FETCH_HEAD
git -C "$SRC" clean -q -fdx

kmake() {
	make -s -C "$SRC" O="$OBJ" -j"$JOBS" CC="ccache gcc" LOCALVERSION= \
		KBUILD_BUILD_USER=containers KBUILD_BUILD_HOST=harness \
		KBUILD_BUILD_TIMESTAMP="2026-01-01" "$@"
}

n=0
total=$(echo "$patches" | wc -l)
start=$(date +%s)
for p in $patches; do
	n=$((n + 1))
	name=$(basename "$p" .patch)
	log=$LOGS/$name.log
	git -C "$SRC" am -q "$p" >"$log" 2>&1 ||
		die "[$n/$total] $name does not apply (log: $log)"
	# Configuration: tinyconfig and the fragments; options that do not
	# exist yet are dropped by olddefconfig.  While the memory controller
	# still excludes the multi-gen LRU (until the patch that gives it
	# container lruvecs), build without the latter, so that the
	# controller is compiled at its own step.
	: >"$OBJ/step.config"
	if grep -q 'depends on MMU && !MEMCG && !LRU_GEN' "$SRC/init/Kconfig"; then
		echo '# CONFIG_LRU_GEN is not set' >"$OBJ/step.config"
	fi
	kmake tinyconfig >>"$log" 2>&1
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$OBJ" "$OBJ/.config" \
		"$@" "$OBJ/step.config" >>"$log" 2>&1
	kmake olddefconfig >>"$log" 2>&1
	missing=$(grep -h '^CONFIG_.*=y' "$@" | while read -r line; do
		grep -qx "$line" "$OBJ/.config" || printf ' %s' "${line%=y}"
	done)
	t0=$(date +%s)
	if ! kmake bzImage >>"$log" 2>&1; then
		grep -E 'error|Error' "$log" | head -n 20 >&2
		die "[$n/$total] the kernel does not build after $name (log: $log)"
	fi
	echo "  SERIES-CHECK [$n/$total] $name: builds ($(( $(date +%s) - t0 )) s)${missing:+; not yet:$missing}"
done
echo "  SERIES-CHECK all $total patches build, one after another," \
     "in $(( $(date +%s) - start )) s"
