// Package atomicdir writes a directory of result files so that a crash never
// leaves half a result: files go to a temporary sibling directory that is
// renamed into place only when every file was written.
package atomicdir
