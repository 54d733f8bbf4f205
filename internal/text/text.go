// Package text holds the little wording helpers latmap's messages share.
package text

import "fmt"

// Count says n of a thing in English: "1 host", "4 hosts", "0 hosts".
func Count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
