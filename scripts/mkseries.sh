#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Turn the repository into the patch series of patches/layout, as
# git format-patch files with a cover letter in build/series/, and check
# it: every new file and every patch of patches/series used exactly once,
# the series ends in the very tree the harness builds (build/src), and
# "git am" of the files onto a pristine tree gives that tree again.
# checkpatch --strict runs on every patch; its findings are printed.
set -eu
REPO=${REPO:?}
PRISTINE=${PRISTINE:?}
TREE=${TREE:?}
B=$REPO/build
OUT=$B/series
WORK=$B/series-tree
AM=$B/series-am
layout=$REPO/patches/layout
. "$(dirname "$0")/series.sh"

die() { echo "series: $*" >&2; exit 1; }

name=$(git -C "$REPO" config user.name || echo "Process containers")
email=$(git -C "$REPO" config user.email || echo "containers@localhost")
export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z"
export GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. Everything must be placed exactly once.
overlay_files "$REPO" >"$tmp/files"
series_patches "$REPO/patches" | sort >"$tmp/diffs"
sed -n 's/^file[[:space:]]\+//p' "$layout" | sort >"$tmp/lfiles"
sed -n 's/^diff[[:space:]]\+//p' "$layout" | sort >"$tmp/ldiffs"
bad=0
for kind in files diffs; do
	missing=$(comm -23 "$tmp/$kind" "$tmp/l$kind")
	extra=$(comm -13 "$tmp/$kind" "$tmp/l$kind" | sort -u)
	dup=$(uniq -d "$tmp/l$kind")
	[ -n "$missing" ] && { echo "series: in no patch of patches/layout:" \
		$missing >&2; bad=1; }
	[ -n "$extra" ] && { echo "series: patches/layout names what does" \
		"not exist:" $extra >&2; bad=1; }
	[ -n "$dup" ] && { echo "series: more than once in patches/layout:" \
		$dup >&2; bad=1; }
done
[ $bad -eq 0 ] || exit 1

# 2. Build the series as commits on the pristine tree.
rm -rf "$WORK" "$OUT" "$AM"
git -c advice.detachedHead=false clone -q --shared --branch pristine "$TREE" "$WORK"
git -C "$WORK" checkout -q -b series

commit() {	# $1 = slug, $2 = message file
	[ -n "$1" ] || return 0
	git -C "$WORK" add -A -f .
	if git -C "$WORK" diff --cached --quiet; then
		die "patch '$1' of patches/layout changes nothing"
	fi
	git -C "$WORK" commit -q -F "$2"
}

slug= msg=
n=0
while read -r kw arg; do
	case "$kw" in
	""|"#"*) continue ;;
	patch)
		commit "$slug" "$msg"
		slug=$arg msg=
		n=$((n + 1))
		;;
	msg)
		msg=$REPO/patches/messages/$arg
		[ -f "$msg" ] || die "no message file patches/messages/$arg"
		;;
	diff)
		if [ -z "$msg" ]; then
			msg=$tmp/msg.$n
			sed '/^---$/,$d' "$REPO/patches/$arg" >"$msg"
		fi
		out=$(patch -d "$WORK" -p1 -F0 -N --no-backup-if-mismatch \
			-r - <"$REPO/patches/$arg" 2>&1) ||
			die "patch '$slug': $arg does not apply: $out"
		;;
	file)
		mkdir -p "$WORK/$(dirname "$arg")"
		cp "$REPO/$arg" "$WORK/$arg"
		;;
	*) die "patches/layout: unknown line '$kw $arg'" ;;
	esac
done <"$layout"
commit "$slug" "$msg"

# 3. The result is the prepared tree.
while read -r f; do
	cmp -s "$WORK/$f" "$TREE/$f" ||
		die "$f differs from the prepared tree (run make prepare?)"
done <"$TREE.manifest"
if [ -n "$(git -C "$WORK" diff --name-only pristine series |
	   grep -vxFf "$TREE.manifest")" ]; then
	die "the series changes files the prepared tree does not"
fi

# 4. The patch files, with the cover letter.
git -C "$WORK" format-patch -q --cover-letter --subject-prefix=PATCH \
	-o "$OUT" pristine..series
cover=$OUT/0000-cover-letter.patch
subject=$(head -n 1 "$REPO/patches/messages/cover-letter")
python3 - "$cover" "$subject" "$REPO/patches/messages/cover-letter" \
	"$B/bench/table.md" <<'EOF'
import os, sys
cover, subject, body_file, bench = sys.argv[1:5]
s = open(cover).read()
body = open(body_file).read().split('\n', 2)[2]
if os.path.exists(bench):
    body = body.replace('@BENCH@', open(bench).read())
else:
    body = body.replace('@BENCH@', '(no benchmark table yet: run make bench)')
s = s.replace('*** SUBJECT HERE ***', subject)
s = s.replace('*** BLURB HERE ***', body.rstrip('\n'))
open(cover, 'w').write(s)
EOF

# 5. git am onto a pristine tree gives the same tree.
git -c advice.detachedHead=false clone -q --shared --branch pristine "$TREE" "$AM"
git -C "$AM" am -q $(ls "$OUT"/*.patch | grep -v 0000-cover-letter)
if [ "$(git -C "$AM" rev-parse 'HEAD^{tree}')" != \
     "$(git -C "$WORK" rev-parse 'series^{tree}')" ]; then
	die "git am of build/series gives another tree"
fi
rm -rf "$AM"

# 6. checkpatch.
total=0
for p in "$OUT"/0*.patch; do
	case "$p" in *0000-cover-letter.patch) continue ;; esac
	res=$("$TREE/scripts/checkpatch.pl" --strict -q "$p" \
		2>/dev/null | sed -n 's/^total: \(.*\)/\1/p' || true)
	echo "  CHECKPATCH $(basename "$p"): ${res:-clean}"
done
echo "  SERIES  $(ls "$OUT" | wc -l) files in build/series" \
     "($n patches and a cover letter); git am gives the prepared tree"
