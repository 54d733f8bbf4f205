// Package text holds the little wording helpers latmap's messages share:
// counts with their noun, percentages, byte sizes written and parsed as
// --sizes takes them, host lists and command lines quoted for a shell.
package text
