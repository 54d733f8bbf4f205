// Package version holds latmap's version, set at link time by make build
// (-ldflags "-X github.com/latmap/latmap/internal/version.Version=...").
package version
