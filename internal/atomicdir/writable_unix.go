//go:build unix

package atomicdir

import "syscall"

// writable fails when this process may not create files in dir (a
// directory without write permission, a read-only file system).
func writable(dir string) error {
	const wx = 0x2 | 0x1 // W_OK | X_OK
	return syscall.Access(dir, wx)
}
