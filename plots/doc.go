// Package plots renders latency surveys as pictures with gonum/plot: the
// rank x rank latency surface (heat map or 3-D surface), per-level latency
// histograms, and two surveys side by side on one colour scale.
package plots
