// Package csvfile reads the small CSV files of latmap's directories:
// one with an exact header, checked row by row with the line in errors,
// and one a directory may lack.
package csvfile
