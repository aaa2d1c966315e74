#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: boot each configuration BOOTS times under qemu -icount
# shift=0 (guest time counts instructions) with one CPU, run the benchmark
# program in the guest, and print the table of per-operation medians side
# by side; also written to build/bench/table.md.
# Usage: bench.sh INITRD NAME:MODE:KERNEL...
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$here/../build/bench
initrd=$1
shift
BOOTS=${BOOTS:-3}
mkdir -p "$out"
rm -f "$out"/*.raw
cols=()
for arg; do
	IFS=: read -r name mode kernel <<<"$arg"
	cols+=("$name")
	for b in $(seq 1 "$BOOTS"); do
		log=$out/$name.$b.log
		echo "  BENCH   $name boot $b/$BOOTS"
		if ! ICOUNT=1 CPUS=1 APPEND="bench_mode=$mode" BOOT_TIMEOUT=1800 \
			"$here/boot.sh" "$kernel" "$initrd" bench "$log" >/dev/null; then
			echo "bench: $name boot $b failed (console: $log)" >&2
			exit 1
		fi
		grep -q '^BENCH-DONE' "$log" ||
			{ echo "bench: $name boot $b did not finish" >&2; exit 1; }
		grep '^BENCH ' "$log" | tr -d '\r' | sed "s/^/$b /" >>"$out/$name.raw"
	done
done
python3 - "$out" "${cols[@]}" <<'PY'
import statistics, sys
out, cols = sys.argv[1], sys.argv[2:]
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
ratios = [("containers", "baseline"), ("containers", "cgroup-v1")]
ratios = [r for r in ratios if r[0] in cols and r[1] in cols]
hdr += [f"{a}/{b}" for a, b in ratios]
lines = ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
for w in order:
    row = [w] + [cell(data[w].get(c)) for c in cols]
    row += [ratio(w, a, b) for a, b in ratios]
    lines.append("| " + " | ".join(row) + " |")
note = (f"Median instruction-time per operation (qemu -icount shift=0, 1 CPU) "
        f"over the medians of {len(next(iter(data.values()))[cols[0]])} boots "
        f"x 7 repetitions; ± is the spread of the boot medians.")
text = note + "\n\n" + "\n".join(lines) + "\n"
open(f"{out}/table.md", "w").write(text)
print(text)
PY
