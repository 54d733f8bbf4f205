// Package sweep is a survey's size sweep (sweep.csv): a few rank pairs,
// one of each kind the survey has (two cores of one socket, two sockets
// of one node, two nodes: the second host and the last in rank order),
// each timed at every size from 64 bytes to the survey's largest (at
// least 1 MiB) in steps of two. The all-pairs survey measures every pair
// at two or three sizes and fits a line through them; an MPI library's
// time is not a line between them (eager and rendezvous protocols, copy
// paths and the fabric's packetisation change with size), and the sweep
// says by how much, so a model can price a message of any size.
package sweep
