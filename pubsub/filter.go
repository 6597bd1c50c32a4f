package pubsub

import (
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
)

// filterBits is the size of a Filter's bitmap: 512 bytes per shard.
const filterBits = 4096

// Filter is the compact summary of one shard's subscriptions that the
// other shards' publishers read: a bitmap of the hashes of the channels it
// has subscribers for (one bit per bucket, set while any channel of the
// bucket has one) and its number of patterns. A publisher sends a message
// to a shard only when Wants says it may have a receiver; a false positive
// costs one entry in a batch that shard was maybe sent anyway, never a
// wrong count (the receiving shard counts what it delivered).
//
// The bits and the pattern count are atomics that the owning shard stores
// before the reply of the SUBSCRIBE that changed them is written, so a
// publisher that saw that reply sees the bit. buckets is the owner's.
type Filter struct {
	bits     [filterBits / 64]atomic.Uint64
	patterns atomic.Int64
	buckets  [filterBits]uint32 // channels per bit, the owner's only
}

// Hash is the hash Filter buckets channels by.
func Hash(channel []byte) uint64 { return xxhash.Sum64(channel) }

// Wants reports whether the shard may have a subscriber for a channel
// with hash h: a channel subscriber in its bucket, or any pattern. Safe
// from any goroutine.
func (f *Filter) Wants(h uint64) bool {
	if f.patterns.Load() > 0 {
		return true
	}
	b := h % filterBits
	return f.bits[b/64].Load()&(1<<(b%64)) != 0
}

func (f *Filter) add(h uint64) {
	b := h % filterBits
	if f.buckets[b]++; f.buckets[b] == 1 {
		f.bits[b/64].Or(1 << (b % 64))
	}
}

func (f *Filter) remove(h uint64) {
	b := h % filterBits
	if f.buckets[b]--; f.buckets[b] == 0 {
		f.bits[b/64].And(^uint64(1 << (b % 64)))
	}
}
