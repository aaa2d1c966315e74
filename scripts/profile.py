#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sample the guest's instruction pointer through QMP while it runs.

Usage: profile.py SOCKET SYSTEM_MAP OUT [INTERVAL_MS]

Connects to qemu's QMP socket, asks "info registers" every INTERVAL_MS
(default 2) until qemu goes away, and writes to OUT one line per symbol:
samples, percent, symbol (kernel text by System.map; "[user]" for user
space; "[idle]" when the CPU is halted).  Run with the kernel booted with
nokaslr.  A statistical profile of where guest time goes; under -icount
the guest's progress is tied to the host's, so samples are close to
uniform in guest instructions.
"""
import bisect
import collections
import json
import re
import socket
import sys
import time


def load_map(path):
    addrs, names = [], []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3 or parts[1] not in "tTwW":
                continue
            addrs.append(int(parts[0], 16))
            names.append(parts[2])
    order = sorted(range(len(addrs)), key=addrs.__getitem__)
    return [addrs[i] for i in order], [names[i] for i in order]


def connect(path):
    for _ in range(200):
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(path)
            return s
        except OSError:
            time.sleep(0.05)
    sys.exit("profile: no QMP socket at " + path)


def main():
    sock_path, map_path, out = sys.argv[1:4]
    interval = float(sys.argv[4]) / 1000 if len(sys.argv) > 4 else 0.002
    addrs, names = load_map(map_path)
    s = connect(sock_path)
    f = s.makefile("rw")
    f.readline()
    f.write(json.dumps({"execute": "qmp_capabilities"}) + "\n")
    f.flush()
    f.readline()
    cmd = json.dumps({"execute": "human-monitor-command",
                      "arguments": {"command-line": "info registers"}})
    counts = collections.Counter()
    total = 0
    rip_re = re.compile(r"RIP=([0-9a-f]+)")
    try:
        while True:
            f.write(cmd + "\n")
            f.flush()
            while True:
                line = f.readline()
                if not line:
                    raise EOFError
                reply = json.loads(line)
                if "return" in reply:
                    break
            text = reply["return"]
            m = rip_re.search(text)
            if not m:
                continue
            rip = int(m.group(1), 16)
            if "HLT=1" in text:
                sym = "[idle]"
            elif rip < 0xffff800000000000:
                sym = "[user]"
            else:
                i = bisect.bisect_right(addrs, rip) - 1
                sym = names[i] if i >= 0 else "[unknown]"
            counts[sym] += 1
            total += 1
            time.sleep(interval)
    except (EOFError, OSError, ValueError):
        pass
    with open(out, "w") as o:
        for sym, n in counts.most_common():
            o.write("%7d %6.2f%% %s\n" % (n, 100.0 * n / max(total, 1), sym))
    print("profile: %d samples in %s" % (total, out))


if __name__ == "__main__":
    main()
