#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Tests of the harness itself: a broken patch must stop prepare.sh with a
# message naming the patch and the file; a hung guest, a guest that never
# prints its result, a console with a kernel warning and a run in which no
# test passed must each be reported as failures, never as a pass.
# Usage: test-harness.sh KERNEL
set -u
kernel=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0
result() {
	n=$((n + 1))
	if [ "$1" = ok ]; then echo "ok $n $2"; else echo "not ok $n $2"; bad=$((bad + 1)); fi
}

# 1. A patch whose hunk does not apply.
mkdir -p "$tmp/pristine/kernel" "$tmp/repo/patches" "$tmp/tree"
printf 'one\ntwo\nthree\n' >"$tmp/pristine/kernel/fork.c"
cat >"$tmp/repo/patches/broken.patch" <<'P'
--- a/kernel/fork.c
+++ b/kernel/fork.c
@@ -1,3 +1,3 @@
 one
-TWO
+2
 three
P
echo broken.patch >"$tmp/repo/patches/series"
out=$(REPO=$tmp/repo PRISTINE=$tmp/pristine TREE=$tmp/tree \
      "$here/prepare.sh" 2>&1)
rc=$?
if [ $rc -ne 0 ] && echo "$out" | grep -q 'broken.patch' &&
   echo "$out" | grep -q 'kernel/fork.c'; then
	result ok "prepare: broken patch fails naming patch and file"
else
	result fail "prepare: broken patch (rc=$rc): $out"
fi

# 2. The same patch fixed applies, and only then changes the tree.
sed -i 's/^-TWO/-two/' "$tmp/repo/patches/broken.patch"
REPO=$tmp/repo PRISTINE=$tmp/pristine TREE=$tmp/tree "$here/prepare.sh" >/dev/null 2>&1
if [ "$(sed -n 2p "$tmp/tree/kernel/fork.c" 2>/dev/null)" = 2 ]; then
	result ok "prepare: good patch applies"
else
	result fail "prepare: good patch did not apply"
fi

# 3.-6. Guests that misbehave.
guest() { # name script expected-message
	printf '%s\n' "$2" >"$tmp/run.sh"
	"$here/initramfs.sh" "$tmp/initrd" "$here/../build/selftests" "$tmp/run.sh"
	out=$(BOOT_TIMEOUT=${4:-60} "$here/boot.sh" "$kernel" "$tmp/initrd" "${5:-run}" \
	      "$tmp/log" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && echo "$out" | grep -q "$3"; then
		result ok "boot: $1 is a failure"
	else
		result fail "boot: $1 (rc=$rc)"
		echo "$out" | tail -n 5 | sed 's/^/#   /'
	fi
}
guest "hung guest" 'sleep 100000' 'did not finish within' 30
guest "kernel warning on the console" \
	'echo "WARNING: CPU: 0 PID: 1 at fake.c:1 fake" >/dev/kmsg' \
	'kernel error report'
guest "guest that dies before its result" 'reboot -f' 'without its result'
guest "check with no passing test" 'true' 'no test passed' 60 check-empty

# 7. check.sh must fail, and say so, when a guest reports a failed test.
out=$(INITRD=$tmp/initrd JOB=check-fail "$here/check.sh" "t:$kernel" 2>&1)
rc=$?
if [ $rc -ne 0 ] && echo "$out" | tail -n 1 | grep -q '^3 passed, 1 failed'; then
	result ok "check: a failed test makes check fail"
else
	result fail "check: a failed test (rc=$rc)"
	echo "$out" | tail -n 5 | sed 's/^/#   /'
fi
echo "$((n - bad)) passed, $bad failed"
[ $bad -eq 0 ]
