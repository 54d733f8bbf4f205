#!/bin/sh
# capture-sys.sh OUT — copy the parts of /sys that mapper.SysFS reads
# (CPU topology, caches, NUMA nodes) into OUT, as a test fixture:
#   scripts/capture-sys.sh testdata/sys/NAME
set -eu
out=${1:?usage: capture-sys.sh OUTDIR}
src=${SYSROOT:-/sys}
cd "$src"
for f in devices/system/cpu/online devices/system/cpu/possible devices/system/cpu/present \
	devices/system/cpu/cpu[0-9]*/topology/physical_package_id \
	devices/system/cpu/cpu[0-9]*/topology/core_id \
	devices/system/cpu/cpu[0-9]*/topology/die_id \
	devices/system/cpu/cpu[0-9]*/cache/index[0-9]*/level \
	devices/system/cpu/cpu[0-9]*/cache/index[0-9]*/type \
	devices/system/cpu/cpu[0-9]*/cache/index[0-9]*/id \
	devices/system/cpu/cpu[0-9]*/cache/index[0-9]*/size \
	devices/system/cpu/cpu[0-9]*/cache/index[0-9]*/shared_cpu_list \
	devices/system/node/online devices/system/node/possible \
	devices/system/node/node[0-9]*/cpulist \
	devices/system/node/node[0-9]*/distance; do
	[ -r "$f" ] || continue
	mkdir -p "$out/$(dirname "$f")"
	cat "$f" >"$out/$f"
done
