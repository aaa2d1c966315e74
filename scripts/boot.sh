#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot a kernel and initramfs under qemu (TCG), run one job, and judge the
# console.  Usage: boot.sh KERNEL INITRD JOB LOG
# Environment: CPUS (4), MEM_MB (1024, split over two NUMA nodes),
# BOOT_TIMEOUT seconds (600), APPEND (extra kernel arguments),
# INTERACTIVE=1 (serial console on the terminal, no time bound),
# ICOUNT=1 (instruction-counted time, for benchmarks), QEMU_EXTRA (more
# qemu arguments, split at spaces), ACCEL (the -accel value, tcg).
#
# Exit status 0 only when the guest printed its result sentinel, the
# console shows no kernel error report, and, for JOB=check, at least one
# test passed and none failed.
set -u
kernel=$1 initrd=$2 job=$3 log=$4
cpus=${CPUS:-4}
mem=${MEM_MB:-1024}
half=$((mem / 2))
timeout=${BOOT_TIMEOUT:-600}

# numa=fake=2: two memory nodes without ACPI SRAT parsing (which would
# need CONFIG_PCI); the cpuset tests need them.
# brd: one lazily allocated 320 MiB RAM disk for the page cache tests.
append="console=ttyS0 panic=-1 panic_on_warn=1 oops=panic numa=fake=2"
append="$append brd.rd_nr=1 brd.rd_size=327680"
append="$append job=$job expect_cpus=$cpus ${APPEND:-}"
[ "${INTERACTIVE:-0}" = 1 ] && append="$append shell=1"

# Before QEMU 9, multi-threaded TCG may run a text_poke_bp() int3 after
# the patch (scripts/deps.sh): single-threaded TCG then.
accel=${ACCEL:-tcg}
qver=$(qemu-system-x86_64 --version | sed -n 's/^QEMU emulator version \([0-9]*\).*/\1/p')
[ -z "${ACCEL:-}" ] && [ "${qver:-0}" -lt 9 ] && accel=tcg,thread=single
qemu=(qemu-system-x86_64 -accel "$accel" -nographic -no-reboot
      -smp "$cpus" -m "${mem}M"
      -object memory-backend-ram,id=m0,size=${half}M
      -object memory-backend-ram,id=m1,size=$((mem - half))M
      -kernel "$kernel" -initrd "$initrd" -append "$append")
# Half of the CPUs on each node; with one CPU, node 1 has memory only.
if [ "$cpus" -ge 2 ]; then
	qemu+=(-numa node,nodeid=0,cpus=0-$((cpus / 2 - 1)),memdev=m0
	       -numa node,nodeid=1,cpus=$((cpus / 2))-$((cpus - 1)),memdev=m1)
else
	qemu+=(-numa node,nodeid=0,cpus=0,memdev=m0
	       -numa node,nodeid=1,memdev=m1)
fi
[ "${ICOUNT:-0}" = 1 ] && qemu+=(-icount shift=0)
# shellcheck disable=SC2206
[ -n "${QEMU_EXTRA:-}" ] && qemu+=(${QEMU_EXTRA})

mkdir -p "$(dirname "$log")"
if [ "${INTERACTIVE:-0}" = 1 ]; then
	"${qemu[@]}" 2>&1 | tee "$log"
else
	timeout -k 10 "$timeout" "${qemu[@]}" </dev/null 2>&1 | tr -d '\r' | tee "$log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "boot: FAIL: the guest did not finish within ${timeout}s;" \
		     "last console lines:" >&2
		tail -n 20 "$log" | sed 's/^/boot:   /' >&2
		exit 1
	fi
fi

fail=0
if ! grep -q '^HARNESS-BOOTED' "$log"; then
	echo "boot: FAIL: the guest never reached /init" >&2
	fail=1
elif ! grep -q '^HARNESS-RESULT:' "$log"; then
	echo "boot: FAIL: the guest job ended without its result line" >&2
	fail=1
fi
bad='(BUG:|WARNING:|Oops|Call Trace|Kernel panic|kernel BUG|UBSAN:|KASAN:|'
bad+='possible (recursive|circular) locking|inconsistent lock state|'
bad+='suspicious RCU usage|INFO: rcu_.*stall|blocked for more than|'
bad+='new suspected memory leak|general protection fault|'
bad+='Unable to handle kernel)'
# The OOM killer's report (of a memory container's OOM, which the memory
# tests cause on purpose) has a stack dump: a "Call Trace:" within a few
# lines of "invoked oom-killer:" is that report, not an error; so is the
# dump of a victim the OOM reaper could not reap (it was in exit, waiting
# for its mmap_lock: the victim still dies).
reports=$(awk '/invoked oom-killer:|oom_reaper: unable to reap/ { oom = NR }
	/Call Trace:/ && oom && NR - oom <= 4 { next }
	{ print NR ":" $0 }' "$log" | grep -E "$bad")
if [ -n "$reports" ]; then
	echo "boot: FAIL: the console shows a kernel error report:" >&2
	echo "$reports" | head -n 10 | sed 's/^/boot:   /' >&2
	fail=1
fi
case $job in check*) is_check=1 ;; *) is_check=0 ;; esac
if [ $is_check = 1 ]; then
	res=$(grep '^HARNESS-RESULT:' "$log" | tail -n 1)
	p=$(echo "$res" | sed -n 's/.*passed=\([0-9]*\).*/\1/p')
	f=$(echo "$res" | sed -n 's/.*failed=\([0-9]*\).*/\1/p')
	s=$(echo "$res" | sed -n 's/.*skipped=\([0-9]*\).*/\1/p')
	p=${p:-0} f=${f:-0}
	if [ "$p" -eq 0 ]; then
		echo "boot: FAIL: no test passed" >&2
		fail=1
	fi
	[ $fail -ne 0 ] && [ "$f" -eq 0 ] && f=1
	echo "${p} passed, ${f} failed, ${s:-0} skipped"
	[ "$f" -eq 0 ] || fail=1
fi
exit $fail
