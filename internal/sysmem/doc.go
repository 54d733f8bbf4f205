// Package sysmem says how much memory a process may still take: the
// kernel's MemAvailable, lowered to what the cgroup (v2 memory.max or v1
// limit_in_bytes) leaves. Readers of large inputs ask it before they
// allocate, so they can refuse with a clear error instead of being killed.
package sysmem
