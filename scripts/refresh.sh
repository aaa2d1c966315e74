#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Turn edits made in the prepared tree back into the repository:
#  - new files of the project (those under the overlay folders that are not
#    upstream) are copied back to their place in the repository;
#  - edits to upstream files are written back into the patch of patches/series
#    that last touches the file (its description is kept);
#  - an upstream file that no patch touches yet goes into the patch named by
#    NEW=<name>.patch (appended to the series when new), or refresh stops and
#    lists such files.
set -eu
REPO=${REPO:?}
PRISTINE=${PRISTINE:?}
TREE=${TREE:?}
PATCHES=${PATCHES:-$REPO/patches}
NEW=${NEW:-}
. "$(dirname "$0")/series.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. New files of the project.
git -C "$TREE" ls-files --others -- $OVERLAY_DIRS |
while read -r f; do
	if ! cmp -s "$TREE/$f" "$REPO/$f"; then
		mkdir -p "$REPO/$(dirname "$f")"
		cp "$TREE/$f" "$REPO/$f"
		echo "  NEWFILE $f"
	fi
done

# 2. Upstream files changed in the tree.
git -C "$TREE" diff --name-only pristine -- . | sort >"$tmp/changed"
mapfile -t patches < <(series_patches "$PATCHES")
: >"$tmp/owned"
for p in "${patches[@]}"; do
	patch_files "$PATCHES/$p" >>"$tmp/owned"
done
sort -u -o "$tmp/owned" "$tmp/owned"
comm -23 "$tmp/changed" "$tmp/owned" >"$tmp/orphans"
if [ -s "$tmp/orphans" ]; then
	if [ -z "$NEW" ]; then
		echo "refresh: these upstream files changed but no patch touches" \
		     "them; rerun with NEW=<name>.patch:" >&2
		sed 's/^/refresh:   /' "$tmp/orphans" >&2
		exit 1
	fi
	if [ ! -f "$PATCHES/$NEW" ]; then
		printf 'DESCRIBE ME\n\nSigned-off-by: %s <%s>\n---\n' \
		       "$(git -C "$REPO" config user.name || echo nobody)" \
		       "$(git -C "$REPO" config user.email || echo nobody)" \
		       >"$PATCHES/$NEW"
		echo "$NEW" >>"$PATCHES/series"
		patches+=("$NEW")
	fi
	# Mention the files so that the replay below regenerates them.
	while read -r f; do
		printf -- '--- a/%s\n+++ b/%s\n' "$f" "$f" >>"$tmp/extra"
	done <"$tmp/orphans"
fi

# Replay the series; $tmp/s/<i> holds the touched files after patch i.
mkdir -p "$tmp/s/0"
all=$(for p in "${patches[@]}"; do patch_files "$PATCHES/$p"; done |
      sort -u; if [ -f "$tmp/extra" ]; then cat "$tmp/orphans"; fi)
for f in $all; do
	[ -e "$PRISTINE/$f" ] || continue
	mkdir -p "$tmp/s/0/$(dirname "$f")"
	cp "$PRISTINE/$f" "$tmp/s/0/$f"
done
i=0
for p in "${patches[@]}"; do
	cp -a "$tmp/s/$i" "$tmp/s/$((i + 1))"
	i=$((i + 1))
	grep -q '^--- ' "$PATCHES/$p" || continue
	patch -d "$tmp/s/$i" -p1 -F0 -N -s --no-backup-if-mismatch -r - \
		<"$PATCHES/$p" >/dev/null
done

# Last patch of the series that touches each file.
i=0
for p in "${patches[@]}"; do
	i=$((i + 1))
	{ patch_files "$PATCHES/$p"
	  [ "$p" = "$NEW" ] && [ -f "$tmp/extra" ] && cat "$tmp/orphans"
	} | sort -u | while read -r f; do echo "$f $i"; done
done >"$tmp/last.all"
for f in $all; do
	grep "^$f " "$tmp/last.all" | tail -n 1
done >"$tmp/last"

i=0
for p in "${patches[@]}"; do
	i=$((i + 1))
	out=$tmp/new.patch
	# Keep the description: everything before the first diff.
	awk '/^(diff |--- a\/|--- \/dev\/null|Index: )/ { exit } { print }' \
		"$PATCHES/$p" >"$out"
	{ patch_files "$PATCHES/$p"
	  [ "$p" = "$NEW" ] && [ -f "$tmp/extra" ] && cat "$tmp/orphans"
	} | sort -u >"$tmp/files"
	while read -r f; do
		if [ "$(grep "^$f " "$tmp/last" | cut -d' ' -f2)" = "$i" ]; then
			new=$TREE/$f
		else
			new=$tmp/s/$i/$f
		fi
		diff -u --label "a/$f" --label "b/$f" "$tmp/s/$((i - 1))/$f" \
			"$new" >>"$out" || true
	done <"$tmp/files"
	if ! cmp -s "$out" "$PATCHES/$p"; then
		cp "$out" "$PATCHES/$p"
		echo "  REFRESH patches/$p"
	fi
done
