#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What "make run" shows: the LWN example of two hierarchies, a shell moved
# into a container, a container pinned to one CPU and CPU accounting.
echo "Process containers demo on $(uname -r), $(nproc) CPUs"
if ! grep -qw container /proc/filesystems; then
	echo "This kernel has no container filesystem (CONFIG_CONTAINERS=n)."
	echo "HARNESS-RESULT: demo done"
	exit 0
fi

has() { awk -v s="$1" '$1 == s { f = 1 } END { exit !f }' /proc/containers; }
show() { echo "\$ $*"; sh -c "$*" 2>&1 | sed 's/^/  /'; }
burn() { i=0; while [ $i -lt "$1" ]; do i=$((i + 1)); done; }

# Hierarchy 1: CPU placement and accounting, with Guests and System.
opts=
for s in cpuset cpuacct; do
	has $s && opts="${opts:+$opts,}$s"
done
mkdir -p /dev/container/cpu /dev/container/dbg
show mount -t container -o "${opts:-none,name=cpu}" none /dev/container/cpu
# Hierarchy 2: every other subsystem (here: debug and ns).
show mount -t container none /dev/container/dbg
show cat /proc/containers
show grep container /proc/mounts

cd /dev/container/cpu
mkdir Guests System Guests/vm1
if has cpuset; then
	last=$(($(nproc) - 1))
	echo 0 > System/cpuset.mems
	echo 0 > System/cpuset.cpus
	echo 0 > Guests/cpuset.mems
	echo 1-$last > Guests/cpuset.cpus
	echo 0 > Guests/vm1/cpuset.mems
	echo $last > Guests/vm1/cpuset.cpus
	echo "System is pinned to CPU 0, Guests to 1-$last, vm1 to CPU $last:"
	show cat System/cpuset.cpus Guests/cpuset.cpus Guests/vm1/cpuset.cpus
fi
show ls /dev/container/cpu/Guests

echo "Moving this shell ($$) into /Guests/vm1:"
echo $$ > Guests/vm1/tasks
show cat /proc/self/container
show cat Guests/vm1/tasks
show grep Cpus_allowed_list /proc/self/status
if has cpuacct; then
	echo "Some work in /Guests/vm1, then in /System:"
	burn 200000
	echo $$ > System/tasks
	burn 50000
	show cat Guests/vm1/cpuacct.usage System/cpuacct.usage \
		Guests/cpuacct.usage
fi
echo $$ > tasks
cd /
echo "HARNESS-RESULT: demo done"
