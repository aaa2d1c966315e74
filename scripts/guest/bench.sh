#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest side of "make bench": set up what the mode asks for, run the
# benchmark program, report.  Usage: bench.sh MODE [WORKLOAD [REPS]]
# (only that workload, that many times: for scripts/profile.sh).  Modes:
#   none        no containers at all (baseline kernel)
#   root        the container hierarchy mounted, the workload in its top
#   containers  the workload two levels down, every subsystem bound
#   cgroup-v1   the same with the cgroup v1 filesystem
#   memory-only the workload two levels down, only the memory subsystem
#               bound (what the memory controller costs without cpuset)
mode=$1
only=${2:-}
reps=${3:-}
ctl=cpuset,cpuacct,memory,pids
[ "$mode" = memory-only ] && ctl=memory
mnt=/tmp/bench-hier
dir=
setup_tree() {	# $1 = filesystem type
	mkdir -p $mnt
	mount -t "$1" -o $ctl none $mnt || return 1
	mkdir -p $mnt/l1/l2 || return 1
	for d in $mnt/l1 $mnt/l1/l2; do
		if [ -e $d/cpuset.cpus ]; then
			cat $mnt/cpuset.cpus >$d/cpuset.cpus
			cat $mnt/cpuset.mems >$d/cpuset.mems
		fi
		echo 900M >$d/memory.limit_in_bytes
		[ -e $d/pids.max ] && echo 100000 >$d/pids.max
	done
	echo $$ >$mnt/l1/l2/tasks || return 1
	dir=$mnt/l1/l2
}
case "$mode" in
none)	;;
root)	mkdir -p $mnt && mount -t container -o $ctl none $mnt && dir=$mnt ;;
containers|memory-only) setup_tree container ;;
cgroup-v1) setup_tree cgroup ;;
*)	echo "bench: unknown mode '$mode'" ;;
esac
if [ "$mode" != none ] && [ -z "$dir" ]; then
	echo "HARNESS-RESULT: bench setup failed"
	exit 0
fi
# A block-backed filesystem for the page cache reads (brd, from testenv).
ext=
if [ -b /dev/ram0 ] && mke2fs -q /dev/ram0 >/dev/null 2>&1; then
	mkdir -p /mnt/bench-ext2 && mount -t ext2 /dev/ram0 /mnt/bench-ext2 &&
		ext=/mnt/bench-ext2
fi
# bench_lru_gen=<value> (make bench LRU_GEN=y): the multi-gen LRU's switch.
lru_gen=$(sed -n 's/.*bench_lru_gen=\([^ ]*\).*/\1/p' /proc/cmdline)
if [ -n "$lru_gen" ] &&
   ! echo "$lru_gen" >/sys/kernel/mm/lru_gen/enabled 2>/dev/null; then
	echo "HARNESS-RESULT: bench setup failed (lru_gen)"
	exit 0
fi
echo "BENCH-MODE $mode $(grep -c ^processor /proc/cpuinfo) cpus," \
     "lru_gen $(cat /sys/kernel/mm/lru_gen/enabled 2>/dev/null || echo -)"
/selftests/bench ${ext:+-e $ext} ${dir:+-c $dir} ${only:+-w $only} \
	${reps:+-n $reps}
echo "HARNESS-RESULT: bench done"
