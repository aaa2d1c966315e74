#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unpack Debian's kernel source once into $PRISTINE and keep it pristine.
# Also create the prepared tree $TREE: a copy of the pristine tree kept as a
# git repository whose first commit (tag "pristine") is the unmodified source,
# so that "make refresh" can see what a developer changed in it.
set -eu
PRISTINE=${PRISTINE:?}
TREE=${TREE:?}
tarball=/usr/src/linux-source-6.12.tar.xz
ver=$(dpkg-query -W -f='${Version}' linux-source-6.12)

if [ "$(cat "$PRISTINE/.pkg-version" 2>/dev/null)" != "$ver" ]; then
	echo "  UNPACK  $tarball ($ver)"
	rm -rf "$PRISTINE" "$TREE" "$TREE.manifest"
	mkdir -p "$PRISTINE.tmp"
	tar -xJf "$tarball" -C "$PRISTINE.tmp" --strip-components=1
	echo "$ver" >"$PRISTINE.tmp/.pkg-version"
	mv "$PRISTINE.tmp" "$PRISTINE"
fi

if [ ! -d "$TREE/.git" ]; then
	echo "  COPY    $TREE (git, first commit = pristine $ver)"
	rm -rf "$TREE" "$TREE.tmp" "$TREE.manifest"
	cp -a "$PRISTINE" "$TREE.tmp"
	rm -f "$TREE.tmp/.pkg-version"
	git -C "$TREE.tmp" init -q
	git -C "$TREE.tmp" add -A -f .
	git -C "$TREE.tmp" -c user.name=harness -c user.email=harness@localhost \
		commit -q -m "Debian linux-source-6.12 $ver (pristine)"
	git -C "$TREE.tmp" tag pristine
	mv "$TREE.tmp" "$TREE"
fi
