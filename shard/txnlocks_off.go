//go:build radish_nolocks

package shard

// txnLocks is off: an EXEC runs without taking its keys' locks. For e2e's
// linearizability check only (see txnlocks.go).
const txnLocks = false
