// Package ports prices nodes that drive several links at once (a torus
// node's links, a node with several adapters): Spread keeps each node's
// bytes to and from its near nodes (Near) apart, so that near traffic
// spread over several nodes counts over as many links as the fan-out
// measured (network.FanOut), and ShiftRows picks the node phase's shift
// steps out of nodebw.csv's rows.
package ports
