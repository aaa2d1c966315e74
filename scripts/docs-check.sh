#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The documentation of the project, checked as "make htmldocs" would:
# scripts/kernel-doc -none -Wall on every new source file (no output
# allowed), then Documentation/admin-guide/containers.rst built by Sphinx
# with the kernel's kernel-doc extension, warnings as errors.  Installs
# Debian's python3-sphinx when it is missing.
set -eu
TREE=${TREE:?}
REPO=${REPO:?}
out=$REPO/build/docs
fail=0

cd "$REPO"
for f in $(git ls-files 'include/linux/container*.h' 'kernel/container/*' \
	   'kernel/sched/container_*.c' 'mm/container_*.c' | grep '\.[ch]$'); do
	msg=$("$TREE/scripts/kernel-doc" -none -Wall "$TREE/$f" 2>&1) || true
	if [ -n "$msg" ]; then
		echo "$msg"
		fail=1
	fi
done

if ! command -v sphinx-build >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-sphinx \
		>/dev/null
fi
rm -rf "$out"
mkdir -p "$out/src"
cp scripts/docs/conf.py Documentation/admin-guide/containers.rst "$out/src/"
if ! KSRC=$TREE sphinx-build -q -W --keep-going -b html "$out/src" \
	"$out/html"; then
	fail=1
fi
if [ $fail = 0 ]; then
	echo "docs-check: kernel-doc and Sphinx without warnings ($out/html/containers.html)"
fi
exit $fail
