// Package fit turns a survey's round trips at several sizes into the
// per-pair latency and bandwidth of fit.csv (T(s) = L + s/B), and
// measures how much measuring pairs at the same time slowed each level.
package fit
