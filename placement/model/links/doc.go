// Package links is the model's pricing of the network, link by link:
// the routes between nodes over a network description's links and each
// link's capacity (Routes, NewRoutes), the share of the declared
// bandwidths the survey measured (StreamShares, PairShares, ClassShares:
// every declared link is priced at the median), the incremental state of
// the links' loads as the solver exchanges ranks (Loads, with each
// rank's costliest pair, Pairs), the flow-level max-min sharing of the
// links a prediction uses (Table.Fluid), and the nodes that drive
// several links at once (Spread, Near, ShiftRows). placement/model's
// evaluator reaches it through one value, Net (New).
package links
