#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Lay the repository's new files over the prepared tree and apply
# patches/series, touching only the files whose content changes so that
# kbuild rebuilds no more than it must.
#
# The result is built in a scratch folder holding only the files the project
# adds or patches, then copied file by file into $TREE where it differs.
# Files that an earlier run changed and this one does not are put back to
# their pristine state.  A hunk that does not apply stops everything, naming
# the patch and the file.
set -eu
REPO=${REPO:?}
PRISTINE=${PRISTINE:?}
TREE=${TREE:?}
PATCHES=${PATCHES:-$REPO/patches}
. "$(dirname "$0")/series.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stage=$tmp/tree
mkdir "$stage"

overlay_files "$REPO" >"$tmp/overlay"
while read -r f; do
	if [ -e "$PRISTINE/$f" ]; then
		echo "prepare: $f exists upstream: change it with a patch in" \
		     "patches/, not by a copy in the repository" >&2
		exit 1
	fi
	mkdir -p "$stage/$(dirname "$f")"
	cp "$REPO/$f" "$stage/$f"
done <"$tmp/overlay"
rm -f "$tmp/overlay"

series_patches "$PATCHES" | while read -r p; do
	if [ ! -f "$PATCHES/$p" ]; then
		echo "prepare: patches/series names $p, which does not exist" >&2
		exit 1
	fi
	patch_files "$PATCHES/$p" | while read -r f; do
		if [ ! -e "$stage/$f" ] && [ -e "$PRISTINE/$f" ]; then
			mkdir -p "$stage/$(dirname "$f")"
			cp "$PRISTINE/$f" "$stage/$f"
		fi
	done
	if ! out=$(patch -d "$stage" -p1 -F0 -N --no-backup-if-mismatch \
			-r - <"$PATCHES/$p" 2>&1); then
		echo "prepare: patch $p does not apply:" >&2
		echo "$out" | sed 's/^/prepare:   /' >&2
		exit 1
	fi
done

(cd "$stage" && find . -type f | sed 's|^\./||' | sort) >"$tmp/list"
manifest=$TREE.manifest
touch "$manifest"
# Files changed last time but not now: back to pristine (or gone if new).
comm -23 "$manifest" "$tmp/list" | while read -r f; do
	if [ -e "$PRISTINE/$f" ]; then
		cp "$PRISTINE/$f" "$TREE/$f"
	else
		rm -f "$TREE/$f"
	fi
	echo "  RESTORE $f"
done
n=0
while read -r f; do
	if ! cmp -s "$stage/$f" "$TREE/$f"; then
		mkdir -p "$TREE/$(dirname "$f")"
		cp "$stage/$f" "$TREE/$f"
		n=$((n + 1))
	fi
done <"$tmp/list"
mv "$tmp/list" "$manifest"
[ "$n" -eq 0 ] || echo "  PREPARE $n file(s) updated in $TREE"
