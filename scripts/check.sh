#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot each configuration given as NAME:KERNEL with the selftests, and add up
# the results into the final "N passed, N failed" line.  Non-zero exit on any
# failure, including a boot that hung or a console with a kernel report.
set -u
here=$(cd "$(dirname "$0")" && pwd)
log=$here/../build/log
initrd=${INITRD:-$here/../build/initramfs.cpio}
job=${JOB:-check}	# the harness's own tests use other jobs
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
pass=0 fail=0 skip=0
failed=""
for arg; do
	name=${arg%%:*} kernel=${arg#*:}
	echo "=== check: $name ($(date +%T)) ==="
	start=$(date +%s)
	# Only the baseline configuration is built without containers.
	want=1
	[ "$name" = baseline ] && want=0
	# KASAN's shadow and kmemleak take memory the memory tests count on.
	mem=1024
	[ "$name" = debug ] && mem=2048
	# The debug kernel's run takes 700-900 s here: give it room, and
	# its slowest program (test_memory) more than the guest's 300 s.
	timeout=600
	per=
	if [ "$name" = debug ]; then
		timeout=1500
		per=" selftest_timeout=600"
	fi
	# cgroups beside containers: the test of the two side by side (the
	# others assume subsystems this configuration gives to cgroups).
	only=
	[ "$name" = mixed ] && only=" selftests=test_boot,test_mixed"
	MEM_MB=${MEM_MB:-$mem} BOOT_TIMEOUT=${BOOT_TIMEOUT:-$timeout} \
	APPEND="${APPEND:-} expect_containers=$want$only$per" \
		"$here/boot.sh" "$kernel" "$initrd" "$job" \
		"$log/check-$name.log" >"$tmp"
	r=$?
	out=$(tail -n 1 "$tmp")
	p=$(echo "$out" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
	f=$(echo "$out" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
	s=$(echo "$out" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
	[ -z "$f" ] && f=1
	[ "$r" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	pass=$((pass + ${p:-0})) fail=$((fail + f)) skip=$((skip + ${s:-0}))
	# Name what failed, so that the tail of the output is enough to start.
	if [ "$f" -gt 0 ]; then
		# The harness's own lines (file:line:test:) carry the
		# TH_LOG explanations and the seeds that replay a failure.
		failed+=$(grep -hE '^(# )*not ok|^# # [A-Za-z0-9_-]+\.c:[0-9]+:|^# # +FAIL|^boot: ' \
			"$log/check-$name.log" 2>/dev/null | grep -v ' # SKIP' |
			head -n 60 | sed "s/^/$name: /")$'\n'
	fi
	echo "=== $name: ${p:-0} passed, $f failed, ${s:-0} skipped" \
	     "in $(($(date +%s) - start))s (console: build/log/check-$name.log) ==="
done
[ "$skip" -gt 0 ] && echo "($skip skipped)"
[ -n "$failed" ] && printf 'failures:\n%s' "$failed"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
