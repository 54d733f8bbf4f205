// Package driver turns the flag values of the commands that read files
// and print (topo, plot, compare, import mmpi) into calls of the model
// and the pictures, as pprof keeps such code in its driver: the model
// packages take typed options, never flag strings.
package driver
