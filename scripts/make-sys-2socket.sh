#!/bin/sh
# make-sys-2socket.sh OUT — write the hand-made sysfs fixture of a 2-socket,
# 8-CPU machine: CPUs interleaved across sockets (even CPUs on socket 0, odd
# on socket 1, as many BIOSes number them), one NUMA node and one L3 per
# socket, and no cache "id" files (kernels before 4.14 had none).
set -eu
out=${1:?usage: make-sys-2socket.sh OUTDIR}
c=$out/devices/system/cpu
n=$out/devices/system/node
mkdir -p "$c" "$n/node0" "$n/node1"
echo 0-7 >"$c/online"; echo 0-7 >"$c/possible"; echo 0-7 >"$c/present"
echo 0-1 >"$n/online"; echo 0-1 >"$n/possible"
echo 0,2,4,6 >"$n/node0/cpulist"; echo 1,3,5,7 >"$n/node1/cpulist"
echo "10 21" >"$n/node0/distance"; echo "21 10" >"$n/node1/distance"
for cpu in 0 1 2 3 4 5 6 7; do
	s=$((cpu % 2))
	d=$c/cpu$cpu
	mkdir -p "$d/topology"
	echo $s >"$d/topology/physical_package_id"
	echo $((cpu / 2)) >"$d/topology/core_id"
	echo 0 >"$d/topology/die_id"
	for i in 0 1 2 3; do
		mkdir -p "$d/cache/index$i"
	done
	echo 1 >"$d/cache/index0/level"; echo Data >"$d/cache/index0/type"; echo $cpu >"$d/cache/index0/shared_cpu_list"
	echo 1 >"$d/cache/index1/level"; echo Instruction >"$d/cache/index1/type"; echo $cpu >"$d/cache/index1/shared_cpu_list"
	echo 2 >"$d/cache/index2/level"; echo Unified >"$d/cache/index2/type"; echo $cpu >"$d/cache/index2/shared_cpu_list"
	echo 3 >"$d/cache/index3/level"; echo Unified >"$d/cache/index3/type"
	if [ $s = 0 ]; then echo 0,2,4,6 >"$d/cache/index3/shared_cpu_list"; else echo 1,3,5,7 >"$d/cache/index3/shared_cpu_list"; fi
done
