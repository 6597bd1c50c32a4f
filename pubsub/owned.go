package pubsub

import "github.com/radish-kv/radish/engine"

// Owned is what the shard that owns sharded channels (the one their name
// hashes to, as a key's) knows of their subscribers: how many each shard
// holds. A shard keeps its own subscribers in its Registry (kind Shard);
// the owner only counts them, so an SPUBLISH has its reply at once and
// is sent to exactly the shards holding subscribers. Owned by the owning
// shard's goroutine.
type Owned struct {
	m map[string]*homes
}

// homes counts one channel's subscribers per shard.
type homes struct {
	per   []int32 // indexed by shard
	total int
}

// Add adds delta to the subscribers shard home holds for channel (of n
// shards).
func (o *Owned) Add(channel []byte, home, n, delta int) {
	if o.m == nil {
		o.m = make(map[string]*homes)
	}
	h := o.m[string(channel)]
	if h == nil {
		h = &homes{per: make([]int32, n)}
		o.m[string(channel)] = h
	}
	h.per[home] += int32(delta)
	h.total += delta
	if h.total <= 0 {
		delete(o.m, string(channel))
	}
}

// Homes returns the subscribers of channel per shard (nil when none) and
// their total. The slice is Owned's: valid until the next Add.
func (o *Owned) Homes(channel []byte) (per []int32, total int) {
	if h := o.m[string(channel)]; h != nil {
		return h.per, h.total
	}
	return nil, 0
}

// Len is how many sharded channels owned here have subscribers.
func (o *Owned) Len() int { return len(o.m) }

// Channels appends to dst the channels with subscribers that match
// pattern (all when nil).
func (o *Owned) Channels(dst []string, pattern []byte) []string {
	for name := range o.m {
		if pattern == nil || engine.Match(pattern, []byte(name), false) {
			dst = append(dst, name)
		}
	}
	return dst
}
