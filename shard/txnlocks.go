//go:build !radish_nolocks

package shard

// txnLocks: an EXEC takes its keys' locks. A server built with the tag
// radish_nolocks runs transactions without them (txnlocks_off.go), so
// that e2e's linearizability check shows it can fail; as a constant, the
// switch costs the real server nothing.
const txnLocks = true
