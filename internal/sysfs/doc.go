// Package sysfs reads where a cpu sits (socket, NUMA node, L3 cache) from
// /sys/devices/system/cpu and /sys/devices/system/node under a root that
// tests point at captured trees (testdata/sys). The survey and the
// interposer use the same rules, so their ranks.csv agree on a cpu.
package sysfs
