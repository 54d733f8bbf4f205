// Package probe plans a survey phase of flows at once and reads its
// steps (issue 69): which flows between a job's hosts cross a common
// link the way their bytes go, found by moving flows together and
// seeing which are slowed, where the round trips cannot tell which way
// traffic goes.
//
// Flows are probed by class, not one by one. A flow's class is its
// source's router and its destination host: where every switch forwards
// by destination (an InfiniBand subnet manager's tables, indexed by
// destination LID; shortest paths built as a tree from each destination)
// two flows of one class cross the same links past their source's own.
// Classes by the two routers alone are not enough: routes between two
// routers differ by destination host even where every route is minimal
// (placement's BenchmarkSimClassProbe: such a probe misjudged 754 of an
// Aries fragment's 21,840 pairs of flows, 1,638 of which share; by
// destination, none). With k
// hosts a router this is nearly k^2 fewer pairs to try than every pair
// of flows. Adaptive routing (Aries, Slingshot, InfiniBand's AR, LMC
// above 0) has no fixed route a class could stand for.
//
// The pairs of classes are cleared by group testing: each step moves a
// random matching of the hosts at once (every host in one flow), and a
// flow not slowed shares no link with the others of its step, so every
// two classes with a flow not slowed in one step are cleared ("neither
// slowed": a flow slowed elsewhere may leave its share of a common link
// to the other, so one unslowed flow clears nothing). The pairs never
// cleared are then moved two at a time.
//
// What counts as slowed is the caller's threshold (Clearer.Step), and it
// must come from the links' speeds: where a shared link is faster than
// the hosts' own (Tartu's FDR10 cables under 4xQDR adapters), two flows
// on it slow each other 1.6x, not 2x, and a threshold of 1.7 finds no
// sharing at all.
package probe
