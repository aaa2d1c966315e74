#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make build-matrix: build the prepared tree (every patch of the series and
# every new file) in the configurations a build robot would try, and report
# the compiler and sparse warnings that fall in the project's code.
#
#   core       tinyconfig + base, CONFIG_CONTAINERS=y and no subsystem
#   <subsys>   the same with that one subsystem (debug, cpuset, ns,
#              cpuacct, mem, pids); mem also with transparent huge pages,
#              whose paths the memory controller charges and moves
#   mixed      configs/mixed.config: CONFIG_CGROUPS=y with cgroup's
#              cpuacct, pids and freezer beside containers' cpuset and
#              memory (the configuration "make check" also boots)
#   defconfig  x86_64_defconfig plus every container option; those that
#              cannot be combined with it are named (Kconfig drops them)
#
# Each configuration is built in full (bzImage, modules where the
# configuration has them) with the normal flags, in its own object
# directory under build/matrix/ (incremental between runs).  Then every
# object built from a C file the project adds or patches is rebuilt with
# W=1 and checked by sparse (C=2 checks it whether or not it is rebuilt).
# This is what a full W=1 C=1 build reports for those objects, for a
# fraction of the time; the project's headers and its hunks in upstream
# headers are compiled as part of them.
#
# A warning counts when it is in a file the project adds (any line) or in
# a line a patch adds to an upstream file (from "git diff" against the
# pristine tree in build/src), or when objtool or modpost names one of the
# project's symbols.  Exit status: non-zero if a configuration does not
# build or any warning counts.
#
# Usage: build-matrix.sh [CONFIG...]   (default: all of the above)
set -u
REPO=${REPO:?}
TREE=${TREE:?}
PRISTINE=${PRISTINE:?}
M=$REPO/build/matrix
JOBS=${JOBS:-$(nproc)}
SUBSYS="debug cpuset ns cpuacct mem pids"
ALL="core $SUBSYS mixed defconfig"

if ! command -v sparse >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q sparse >/dev/null
fi

kmake() {
	local obj=$1
	shift
	make -s -C "$TREE" O="$obj" -j"$JOBS" CC="ccache gcc" LOCALVERSION= \
		KBUILD_BUILD_USER=containers KBUILD_BUILD_HOST=harness \
		KBUILD_BUILD_TIMESTAMP="2026-01-01" "$@"
}

# The fragment of a configuration, and the base config it applies to.
fragment() {
	local name=$1 s
	case $name in
	defconfig)
		echo CONFIG_CONTAINERS=y
		for s in $SUBSYS; do
			echo "CONFIG_CONTAINER_${s^^}=y"
		done
		;;
	mixed)
		cat "$REPO/configs/base.config" "$REPO/configs/mixed.config"
		;;
	*)
		cat "$REPO/configs/base.config"
		echo CONFIG_CONTAINERS=y
		for s in $SUBSYS; do
			if [ "$s" = "$name" ]; then
				echo "CONFIG_CONTAINER_${s^^}=y"
			else
				echo "# CONFIG_CONTAINER_${s^^} is not set"
			fi
		done
		if [ "$name" = mem ]; then
			echo CONFIG_TRANSPARENT_HUGEPAGE=y
		fi
		;;
	esac
}

# Options of the fragment that did not take effect: "CONFIG_X (wanted y)".
dropped() {
	local frag=$1 config=$2 line sym got
	while read -r line; do
		case "$line" in
		CONFIG_*=*) sym=${line%%=*} ;;
		"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *} ;;
		*) continue ;;
		esac
		got=$(grep -E "^($sym=|# $sym is not set)" "$config" || true)
		[ -z "$got" ] && case "$line" in "# "*) got=$line ;; esac
		[ "$got" = "$line" ] || echo "$sym"
	done <"$frag"
}

# The lines each patched upstream file gets from the series, as
# "FILE FIRST LAST", and the files the project adds, as "FILE 1 0" (every
# line): the files of the prepared tree's manifest (what "make prepare"
# laid over the pristine tree) against the pristine tree.
ranges() {
	local f
	while read -r f; do
		if [ ! -e "$PRISTINE/$f" ]; then
			echo "$f 1 0"
			continue
		fi
		diff -U0 "$PRISTINE/$f" "$TREE/$f" | awk -v f="$f" '
			/^@@ / {
				split($3, a, ",")
				start = substr(a[1], 2)
				n = (a[2] == "" ? 1 : a[2])
				if (n > 0) print f, start, start + n - 1
			}'
	done <"$TREE.manifest"
}

# Keep the warnings of the log on stdin that fall in the project's code.
ours() {
	awk -v tree="$TREE/" -v rfile="$M/ranges" '
		BEGIN {
			while ((getline l < rfile) > 0) {
				split(l, r, " ")
				n[r[1]]++
				lo[r[1], n[r[1]]] = r[2]; hi[r[1], n[r[1]]] = r[3]
			}
		}
		/(warning|error):/ {
			line = $0
			sub("^" tree, "", line)
			sub("^(\\.\\./)*(src/)?", "", line)
			if (match(line, /^[^: ]+:[0-9]+:/)) {
				split(substr(line, 1, RLENGTH - 1), p, ":")
				f = p[1]; ln = p[2] + 0
				for (i = 1; i <= n[f]; i++)
					if (hi[f, i] == 0 ||
					    (ln >= lo[f, i] && ln <= hi[f, i])) {
						print line
						break
					}
				next
			}
			# objtool and modpost name symbols, not lines.
			if (line ~ /container/)
				print line
		}'
}

# The objects built from the C files the project adds or patches.
our_objects() {
	local obj=$1 c o cmd
	for c in $(awk '{ print $1 }' "$M/ranges" | sort -u | grep '\.c$'); do
		o=${c%.c}.o
		if [ -f "$obj/$o" ]; then
			echo "$o"
			continue
		fi
		# A C file included by another one (kernel/sched/cputime.c
		# by build_utility.c): the object whose dependencies name it.
		for cmd in $(grep -lE "(^|[ /])$c( |$)" "$obj/$(dirname "$c")"/.*.o.cmd \
			     2>/dev/null); do
			o=$(basename "$cmd" .cmd)
			echo "$(dirname "$c")/${o#.}"
		done
	done | sort -u
}

mkdir -p "$M"
ranges >"$M/ranges"
status=0
summary=""
for name in ${@:-$ALL}; do
	case " $ALL " in
	*" $name "*) ;;
	*) echo "build-matrix: no configuration '$name' ($ALL)" >&2; exit 2 ;;
	esac
	obj=$M/$name
	log=$M/$name.log
	mkdir -p "$obj"
	start=$(date +%s)
	echo "=== build-matrix: $name ($(date +%T)) ==="
	fragment "$name" >"$obj/fragment.config"
	hash=$(cat "$obj/fragment.config" | sha1sum | cut -d' ' -f1)
	if [ ! -f "$obj/.config" ] ||
	   [ "$(cat "$obj/.fragment-hash" 2>/dev/null)" != "$hash" ]; then
		if [ "$name" = defconfig ]; then
			kmake "$obj" x86_64_defconfig >"$log" 2>&1
		else
			kmake "$obj" tinyconfig >"$log" 2>&1
		fi
		"$TREE/scripts/kconfig/merge_config.sh" -m -O "$obj" \
			"$obj/.config" "$obj/fragment.config" >>"$log" 2>&1
		kmake "$obj" olddefconfig >>"$log" 2>&1
		echo "$hash" >"$obj/.fragment-hash"
	fi
	drop=$(dropped "$obj/fragment.config" "$obj/.config" | xargs)
	if [ -n "$drop" ] && [ "$name" != defconfig ]; then
		echo "$name: options did not take effect: $drop"
		status=1
		summary+="$name: bad configuration ($drop)"$'\n'
		continue
	fi
	[ -n "$drop" ] && echo "$name: cannot be combined with it: $drop"
	on=$(grep -o '^CONFIG_CONTAINER[A-Z_]*=y' "$obj/.config" |
	     sed 's/^CONFIG_//; s/=y$//' | xargs)
	echo "$name: $on"

	targets=bzImage
	grep -q '^CONFIG_MODULES=y' "$obj/.config" && targets="bzImage modules"
	if ! kmake "$obj" $targets >>"$log" 2>&1; then
		echo "$name: BUILD FAILED (log: $log)"
		grep -E 'error|Error' "$log" | head -n 20
		status=1
		summary+="$name: build failed"$'\n'
		continue
	fi
	objs=$(our_objects "$obj")
	echo "$name: W=1 C=2 on $(echo "$objs" | wc -w) objects:" $objs \
		>>"$log"
	kmake "$obj" W=1 C=2 $objs >"$log.w1" 2>&1 || {
		echo "$name: W=1 rebuild failed (log: $log.w1)"
		status=1
	}
	found=$(cat "$log" "$log.w1" | ours | sort -u)
	n=0
	[ -n "$found" ] && n=$(echo "$found" | wc -l)
	all=$(grep -cE '(warning|error):' "$log.w1")
	t=$(($(date +%s) - start))
	echo "$name: built in ${t}s; $(echo "$objs" | wc -w) objects with" \
	     "W=1 + sparse: $all warnings in all, $n in the project's code"
	if [ "$n" -gt 0 ]; then
		echo "$found" | sed 's/^/  /'
		status=1
	fi
	summary+="$name: $n warnings in the project's code (${t}s)"$'\n'
done
echo "=== build-matrix summary ==="
printf '%s' "$summary"
exit $status
