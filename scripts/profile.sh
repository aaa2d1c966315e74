#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make profile: boot one kernel as "make bench" does (one CPU, -icount
# shift=0), run one workload of the benchmark program many times and
# sample the guest's instruction pointer meanwhile (scripts/profile.py).
# Usage: profile.sh INITRD OBJDIR MODE WORKLOAD [REPS]
# Writes build/profile/<config>-<mode>-<workload>.txt, most samples first.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
initrd=$1 obj=$2 mode=$3 workload=$4 reps=${5:-40}
out=$here/../build/profile
mkdir -p "$out"
name=$(basename "$obj" | sed 's/^obj-//')-$mode-$workload
sock=$out/$name.qmp
rm -f "$sock"
ICOUNT=1 CPUS=1 BOOT_TIMEOUT=1800 \
	APPEND="nokaslr bench_mode=$mode bench_only=$workload bench_reps=$reps" \
	QEMU_EXTRA="-qmp unix:$sock,server=on,wait=off" \
	"$here/boot.sh" "$obj/arch/x86/boot/bzImage" "$initrd" bench \
	"$out/$name.log" >/dev/null &
boot=$!
python3 "$here/profile.py" "$sock" "$obj/System.map" "$out/$name.txt"
wait $boot || { echo "profile: the boot failed: $out/$name.log" >&2; exit 1; }
grep '^BENCH ' "$out/$name.log" || true
head -n 40 "$out/$name.txt"
