// Package schedule holds the orders in which latmap survey's ranks meet:
// the circle method's concurrent rounds, mmpi's one pair at a time, lists
// of pairs, and the isolation sample every rank draws alike.
package schedule
