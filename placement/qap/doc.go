// Package qap is a general Quadratic Assignment Problem local search
// (iterated 2-exchange with restarts) and its QAPLIB reader: latmap place
// --qaplib FILE, the check of the search on instances with published
// optima. Rank placement has its own solver (placement/solve); this one
// stays beside it as the reference the solver's exchanges were checked on.
package qap
