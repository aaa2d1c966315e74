#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make profile: where one benchmark workload spends its instructions, per
# kernel function, counted exactly.  Boots the kernel as "make bench" does
# (one CPU, -icount shift=0) with the insncount TCG plugin
# (scripts/insncount.c), twice: the workload run LO and HI times.  The
# difference of the two counts, divided by the operations the second boot
# ran more, is what one operation costs, boot and set-up cancelled out.
#
# Usage: profile.sh INITRD OBJDIR MODE WORKLOAD [REPS [AGAINST]]
#   REPS     HI (default 13; LO is 3)
#   AGAINST  CONFIG:MODE of a second profile to compare with, e.g.
#            baseline:none: prints the functions whose cost differs most.
# Writes build/profile/<config>-<mode>-<workload>.txt: the instructions
# per operation, then one "instructions function" line each, most first.
# With BENCH_LRU_GEN set (make profile LRU_GEN=y), the guests switch the
# multi-gen LRU on first, and the names end in -lru-gen.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
initrd=$1 obj=$2 mode=$3 workload=$4 hi=${5:-13} against=${6:-}
lo=3
LRU_GEN=${BENCH_LRU_GEN:-}
out=$here/../build/profile
mkdir -p "$out"
plugin=$out/insncount.so
if [ ! -f "$plugin" ] || [ "$here/insncount.c" -nt "$plugin" ]; then
	gcc -shared -fPIC -O2 -Wall -o "$plugin" "$here/insncount.c"
fi
[ "$hi" -gt "$lo" ] || { echo "profile: REPS must be more than $lo" >&2; exit 1; }

boot() {	# objdir mode reps name
	local args="bench_mode=$2 bench_only=$workload"

	args+=${LRU_GEN:+" bench_lru_gen=$LRU_GEN"}
	ICOUNT=1 CPUS=1 BOOT_TIMEOUT=1800 \
		APPEND="nokaslr norandmaps $args bench_reps=$3" \
		QEMU_EXTRA="-plugin $plugin,out=$out/$4.$3.counts" \
		"$here/boot.sh" "$1/arch/x86/boot/bzImage" "$initrd" bench \
		"$out/$4.$3.log" >/dev/null
}

profile() {	# objdir mode -> writes $out/<name>.txt, prints its name
	local name ops
	name=$(basename "$1" | sed 's/^obj-//')-$2-$workload${LRU_GEN:+-lru-gen}
	boot "$1" "$2" $lo "$name" & local b1=$!
	boot "$1" "$2" "$hi" "$name" & local b2=$!
	wait $b1 && wait $b2 || {
		echo "profile: a boot failed: $out/$name.*.log" >&2; exit 1; }
	ops=$(awk -v w="$workload" '$1 == "BENCH-OPS" && $2 == w { print $3 }' \
		"$out/$name.$hi.log")
	[ -n "$ops" ] || { echo "profile: no BENCH-OPS line for $workload" \
		"in $out/$name.$hi.log" >&2; exit 1; }
	python3 "$here/insncount.py" per-op "$1/System.map" \
		"$out/$name.$lo.counts" "$out/$name.$hi.counts" \
		$((ops * (hi - lo))) "$out/$name.txt"
	grep '^BENCH ' "$out/$name.$hi.log" >&2
	echo "$out/$name.txt"
}

mine=$(profile "$obj" "$mode")
if [ -z "$against" ]; then
	head -n 41 "$mine"
	exit 0
fi
IFS=: read -r aconf amode <<<"$against"
theirs=$(profile "$(dirname "$obj")/obj-$aconf" "$amode")
echo "A = $(basename "$theirs" .txt), B = $(basename "$mine" .txt)"
python3 "$here/insncount.py" diff "$theirs" "$mine" 40
