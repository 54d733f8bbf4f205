// Package derate is the share of a network description's declared
// bandwidths that the survey measured: the node phase's streams from one
// node to another, or else the pairs' fit of round trip against size,
// each over the narrowest link the description declares on its route.
// The routed model (placement/model) prices every declared link at the
// median.
package derate
