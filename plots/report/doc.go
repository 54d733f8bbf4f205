// Package report writes a profile for people: MPInside's five tables
// (elapsed times, Kbytes and requests with send and receive attribute),
// a legend and a summary. It reads profiles through mapper/profile.
package report
