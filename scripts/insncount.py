#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Instructions per kernel function from scripts/insncount.c's output.

  insncount.py per-op SYSTEM_MAP LO HI OPS OUT
      The counts of boot HI minus those of boot LO (the same workload run
      more times), divided by OPS (the operations HI ran more), per
      function: what one operation costs, boot and set-up cancelled out.
      Writes OUT ("instructions function" lines, most first).
  insncount.py diff A B [N]
      Two such files side by side: the N functions whose cost changed
      most from A to B, and the totals.
"""
import bisect
import collections
import sys


def load_map(path):
    syms = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 3 and p[1] in "tTwW":
                syms.append((int(p[0], 16), p[2]))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def per_function(path, addrs, names):
    c = collections.Counter()
    with open(path) as f:
        for line in f:
            vaddr, ninsns, count = line.split()
            i = bisect.bisect_right(addrs, int(vaddr, 16)) - 1
            c[names[i] if i >= 0 else "?"] += int(ninsns) * int(count)
    return c


def per_op(smap, lo, hi, ops, out):
    addrs, names = load_map(smap)
    a = per_function(lo, addrs, names)
    b = per_function(hi, addrs, names)
    d = {k: (b[k] - a[k]) / float(ops) for k in set(a) | set(b)}
    rows = sorted(d.items(), key=lambda kv: -kv[1])
    with open(out, "w") as f:
        f.write("%.1f total\n" % sum(d.values()))
        for k, v in rows:
            if abs(v) >= 0.05:
                f.write("%.1f %s\n" % (v, k))


def read(path):
    d, total = {}, 0.0
    with open(path) as f:
        for line in f:
            v, k = line.split()
            if k == "total":
                total = float(v)
            else:
                d[k] = float(v)
    return total, d


def diff(a_path, b_path, n):
    ta, a = read(a_path)
    tb, b = read(b_path)
    print("%10s %10s %10s" % ("A", "B", "B - A") + "  instructions per op")
    print("%10.1f %10.1f %10.1f  total (%+.2f%%)" %
          (ta, tb, tb - ta, 100.0 * (tb - ta) / ta if ta else 0.0))
    keys = set(a) | set(b)
    rows = sorted(keys, key=lambda k: -abs(b.get(k, 0) - a.get(k, 0)))
    for k in rows[:n]:
        dv = b.get(k, 0) - a.get(k, 0)
        if abs(dv) >= 0.5:
            print("%10.1f %10.1f %10.1f  %s" % (a.get(k, 0), b.get(k, 0),
                                               dv, k))


def main():
    if len(sys.argv) == 7 and sys.argv[1] == "per-op":
        per_op(*sys.argv[2:])
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "diff":
        diff(sys.argv[2], sys.argv[3],
             int(sys.argv[4]) if len(sys.argv) == 5 else 40)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
