// Package bothways plans latmap survey's both-ways steps and turns their
// times into nodebw.csv's both-ways row. A link that carries a message
// one way may carry some of it back while it flows: a transport's
// acknowledgements, a half-duplex link, SimGrid's cross traffic (5% of
// each message on its route back, counted there as one of the link's
// flows). Then two nodes sending to each other at once each move less
// than one of them sending alone, as osu_bibw against osu_bw shows on a
// real fabric. One rank of the survey's first host sends to one rank of
// its second alone, then both send to each other at once, twice over
// (after the node fan-out); the best one-way rate over the best
// both-ways rate, less one, is the share of a message's bytes its way
// back carries (mapper/network.Reverse), which the model prices
// on a network found in the survey, whose links are priced from pairs
// measured one way at a time.
package bothways
