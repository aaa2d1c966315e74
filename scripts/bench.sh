#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: boot each configuration BOOTS times under qemu -icount
# shift=0 (guest time counts instructions) with one CPU, run the benchmark
# program in the guest, and print the table of per-operation medians side
# by side; also written to build/bench/table.md.  With BENCH_LRU_GEN set
# (make bench LRU_GEN=y), the guests write it to the multi-gen LRU's
# switch first, and the table goes to build/bench-lru-gen/ instead.
# Usage: bench.sh INITRD NAME:MODE:KERNEL...
set -eu
here=$(cd "$(dirname "$0")" && pwd)
LRU_GEN=${BENCH_LRU_GEN:-}
out=$here/../build/bench${LRU_GEN:+-lru-gen}
initrd=$1
shift
BOOTS=${BOOTS:-3}
# Guest time counts instructions, so boots running side by side do not
# disturb each other's figures: run as many at once as there are cores.
PAR=${BENCH_JOBS:-$(nproc)}
mkdir -p "$out"
rm -f "$out"/*.raw "$out"/*.log

run_one() {	# name mode kernel boot
	local log=$out/$1.$4.log
	if ! ICOUNT=1 CPUS=1 APPEND="norandmaps bench_mode=$2${LRU_GEN:+ bench_lru_gen=$LRU_GEN}" \
		BOOT_TIMEOUT=1800 \
		"$here/boot.sh" "$3" "$initrd" bench "$log" >/dev/null 2>&1; then
		echo "bench: $1 boot $4 failed (console: $log)" >&2
		return 1
	fi
	if grep -q '^BENCH-FAIL' "$log" || ! grep -q '^BENCH-DONE' "$log"; then
		echo "bench: $1 boot $4: a workload failed (console: $log)" >&2
		return 1
	fi
}

cols=()
jobs=()
for arg; do
	IFS=: read -r name mode kernel <<<"$arg"
	cols+=("$name")
	for b in $(seq 1 "$BOOTS"); do
		jobs+=("$name $mode $kernel $b")
	done
done
start=$(date +%s)
running=0
fail=0
for j in "${jobs[@]}"; do
	if [ $running -ge "$PAR" ]; then
		wait -n || fail=1
		running=$((running - 1))
	fi
	set -- $j
	echo "  BENCH   $1 boot $4/$BOOTS"
	run_one "$@" &
	running=$((running + 1))
done
while [ $running -gt 0 ]; do
	wait -n || fail=1
	running=$((running - 1))
done
[ $fail = 0 ] || exit 1
echo "  BENCH   ${#jobs[@]} boots in $(( $(date +%s) - start )) s"
for c in "${cols[@]}"; do
	for b in $(seq 1 "$BOOTS"); do
		grep '^BENCH ' "$out/$c.$b.log" | sed "s/^/$b /"
	done >"$out/$c.raw"
done
python3 - "$out" "$LRU_GEN" "${cols[@]}" <<'PY'
import statistics, sys
out, lru_gen, cols = sys.argv[1], sys.argv[2], sys.argv[3:]
data = {}	# workload -> col -> [boot medians]
order = []
for c in cols:
    for line in open(f"{out}/{c}.raw"):
        _, _, w, med, lo, hi = line.split()
        if w not in order:
            order.append(w)
        data.setdefault(w, {}).setdefault(c, []).append(int(med))
def cell(v):
    if not v:
        return "-"
    m = statistics.median(v)
    spread = (max(v) - min(v)) / m * 100 if m else 0
    return f"{m / 1000:.2f} us ±{spread:.1f}%"
def ratio(w, a, b):
    va, vb = data[w].get(a), data[w].get(b)
    if not va or not vb:
        return "-"
    return f"{statistics.median(va) / statistics.median(vb):.3f}"
hdr = ["workload"] + cols
ratios = [("containers-top", "baseline"), ("containers-memory", "baseline"),
          ("containers", "baseline"),
          ("containers", "cgroup-v1")]
ratios = [r for r in ratios if r[0] in cols and r[1] in cols]
hdr += [f"{a}/{b}" for a, b in ratios]
lines = ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
for w in order:
    row = [w] + [cell(data[w].get(c)) for c in cols]
    row += [ratio(w, a, b) for a, b in ratios]
    lines.append("| " + " | ".join(row) + " |")
note = (f"Median instruction-time per operation (qemu -icount shift=0, 1 CPU) "
        f"over the medians of {len(next(iter(data.values()))[cols[0]])} boots "
        f"x 7 repetitions; ± is the spread (max - min) of the boot medians "
        f"relative to their median."
        + (f"  Multi-gen LRU switched on ({lru_gen}) in every guest."
           if lru_gen else ""))
text = note + "\n\n" + "\n".join(lines) + "\n"
open(f"{out}/table.md", "w").write(text)
print(text)
PY
