// Package maxtree is a tournament tree: the largest of k values and
// where it is, updated in O(log k) when one value changes. The placement
// model keeps each node's slowest rank, and the slowest node, in them.
package maxtree
