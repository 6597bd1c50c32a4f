//go:build !amd64

package engine

import "unsafe"

// prefetch is a hint; without an assembly version it does nothing.
func prefetch(p unsafe.Pointer) {}
