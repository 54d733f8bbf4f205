// Package stats holds the small statistics latmap's packages share, so that
// a survey, a topology and a placement all mean the same thing by "median".
package stats
