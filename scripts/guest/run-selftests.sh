#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run every selftest binary listed in /selftests/list as one TAP stream
# (each binary a subtest with its own kselftest TAP output, indented by "# "
# lines), then add up the harness totals into the sentinel line the host
# checks:  HARNESS-RESULT: passed=N failed=N skipped=N
cd /selftests || exit 1
# On a kernel with kmemleak (the debug configuration), forget what boot
# left behind, so that the scan after the tests reports only their leaks.
kml=/sys/kernel/debug/kmemleak
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
if [ -e $kml ]; then
	echo scan >$kml
	echo clear >$kml
fi
# SELFTESTS_ONLY (from selftests= on the kernel command line) picks some.
if [ -n "${SELFTESTS_ONLY:-}" ]; then
	echo "$SELFTESTS_ONLY" | tr ',' '\n' >/tmp/list.only
	grep -xFf /tmp/list.only list >/tmp/list
else
	cp list /tmp/list
fi
n=$(wc -l </tmp/list)
echo "TAP version 13"
echo "1..$n"
i=0 pass=0 fail=0 skip=0
# A name in selftests= that is not a test (renamed, dropped) is a failure,
# not a smaller run that passes.
if [ -n "${SELFTESTS_ONLY:-}" ] &&
   [ "$(wc -l </tmp/list.only)" -ne "$n" ]; then
	echo "# selftests=$SELFTESTS_ONLY names a test that is not in the list"
	fail=1
fi
while read -r t; do
	i=$((i + 1))
	out=/tmp/out.$i
	echo "# selftests: containers: $t"
	timeout ${SELFTEST_TIMEOUT:-300} ./$t >$out 2>&1
	rc=$?
	sed 's/^/# /' $out
	tot=$(grep '^# Totals:' $out | tail -n 1)
	p=$(echo "$tot" | sed -n 's/.*Totals: pass:\([0-9]*\).*/\1/p')
	f=$(echo "$tot" | sed -n 's/.* fail:\([0-9]*\).*/\1/p')
	s=$(echo "$tot" | sed -n 's/.* skip:\([0-9]*\).*/\1/p')
	e=$(echo "$tot" | sed -n 's/.* error:\([0-9]*\).*/\1/p')
	if [ -z "$tot" ] && [ $rc -eq 4 ]; then
		# KSFT_SKIP before any test: the kernel lacks the feature.
		p=0 f=0 s=1 e=0
	elif [ -z "$tot" ]; then
		# Crashed or timed out before printing its totals.
		p=0 f=1 s=0 e=0
	elif [ $rc -ne 0 ] && [ $((${f:-0} + ${e:-0})) -eq 0 ]; then
		f=1
	fi
	pass=$((pass + ${p:-0})) fail=$((fail + ${f:-0} + ${e:-0}))
	skip=$((skip + ${s:-0}))
	if [ $rc -eq 4 ]; then
		echo "ok $i selftests: containers: $t # SKIP"
	elif [ $rc -eq 0 ]; then
		echo "ok $i selftests: containers: $t"
	else
		echo "not ok $i selftests: containers: $t # exit=$rc"
	fi
done </tmp/list
if [ -e $kml ]; then
	# Objects freed by RCU or workqueues need a moment; scan twice.
	sleep 2
	echo scan >$kml
	echo scan >$kml
	leaks=$(grep -c '^unreferenced object' $kml)
	echo "# kmemleak: $leaks unreferenced objects after the tests"
	if [ "$leaks" -gt 0 ]; then
		head -n 60 $kml | sed 's/^/# /'
		fail=$((fail + 1))
	fi
fi
echo "HARNESS-RESULT: passed=$pass failed=$fail skipped=$skip"
