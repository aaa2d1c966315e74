#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest's initramfs (newc cpio): busybox-static, /init, the demo and
# the statically linked selftests.  Usage: initramfs.sh OUT.cpio SELFTESTS_DIR
# [RUN_SCRIPT]
set -eu
out=$1 tests=$2 run=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
chmod 755 "$root"	# mktemp made it 0700: it becomes the guest's /

mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,etc,root,selftests}
cp /bin/busybox "$root/bin/busybox"
for a in $(/bin/busybox --list); do
	[ "$a" = busybox ] || ln -s busybox "$root/bin/$a"
done
install -m 755 "$here/guest/init" "$root/init"
install -m 755 "$here/guest/demo.sh" "$root/demo.sh"
install -m 755 "$here/guest/run-selftests.sh" "$root/selftests/run.sh"
install -m 755 "$here/guest/bench.sh" "$root/bench.sh"
echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
echo 'nobody:x:65534:65534:nobody:/:/bin/false' >>"$root/etc/passwd"
echo 'root:x:0:' >"$root/etc/group"
: >"$root/selftests/list"
for t in $(cat "$tests/list"); do
	install -m 755 "$tests/$t" "$root/selftests/$t"
	echo "$t" >>"$root/selftests/list"
done
# The benchmark program is built with the tests but is not one.
[ -x "$tests/bench" ] && install -m 755 "$tests/bench" "$root/selftests/bench"
[ -n "$run" ] && install -m 755 "$run" "$root/run.sh"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
