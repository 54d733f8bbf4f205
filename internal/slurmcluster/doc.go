// Package slurmcluster runs a real Slurm cluster on a virtual cluster for
// tests: munged with a generated key, slurmctld in the host's network
// namespace listening on the bridge, and one slurmd per virtual node,
// started in the node's network namespace (nsenter, so that /sys and the
// cgroup tree stay the host's) inside its own UTS and mount namespaces,
// with the node's name as host name and a private tmpfs as the node's
// TmpFS (PMIx's per-step directories of different nodes would collide in
// one). Ports, state and sockets are the cluster's own, so several can run
// at once and nothing of the host's Slurm is touched.
package slurmcluster
