package pubsub

import (
	"slices"

	"github.com/radish-kv/radish/engine"
)

// Kind is the namespace of a subscription.
type Kind uint8

// Kinds of subscription.
const (
	Channel Kind = iota // SUBSCRIBE: a channel of the whole server
	Pattern             // PSUBSCRIBE: every channel matching a glob
	Shard               // SSUBSCRIBE: a sharded channel
	numKinds
)

// Registry is one shard's subscriptions: which of its subscribers (S, the
// shard's connection handle) listen to which channels and patterns, in
// both directions. Owned by the shard's goroutine, but for Filter, which
// other shards read.
type Registry[S comparable] struct {
	chans [numKinds]map[string]*subscribers[S] // Channel and Shard; Pattern's is the index of pats
	pats  []*subscribers[S]                    // patterns in subscription order
	subs  map[S]*own
	// Filter summarises the Channel and Pattern subscriptions for other
	// shards' publishers.
	Filter Filter
}

// subscribers is everyone subscribed to one channel or pattern.
type subscribers[S comparable] struct {
	name string
	pat  []byte // name's bytes, for matching without a conversion
	list []S
}

// own is one subscriber's subscriptions, per kind, in subscription order.
type own struct {
	names [numKinds][]string
	has   [numKinds]map[string]struct{}
}

// NewRegistry returns an empty registry.
func NewRegistry[S comparable]() *Registry[S] {
	r := &Registry[S]{subs: make(map[S]*own)}
	for k := range r.chans {
		r.chans[k] = make(map[string]*subscribers[S])
	}
	return r
}

// Subscribe subscribes s to name; added is false when it already was. n
// is s's count as Redis replies it: channels plus patterns for Channel
// and Pattern, sharded channels for Shard.
func (r *Registry[S]) Subscribe(s S, kind Kind, name []byte) (added bool, n int) {
	o := r.subs[s]
	if o == nil {
		o = &own{}
		r.subs[s] = o
	}
	if o.has[kind] == nil {
		o.has[kind] = make(map[string]struct{})
	}
	if _, ok := o.has[kind][string(name)]; !ok {
		added = true
		key := string(name)
		o.has[kind][key] = struct{}{}
		o.names[kind] = append(o.names[kind], key)
		set := r.chans[kind][key]
		if set == nil {
			set = &subscribers[S]{name: key, pat: []byte(key)}
			r.chans[kind][key] = set
			switch kind {
			case Pattern:
				r.pats = append(r.pats, set)
				r.Filter.patterns.Store(int64(len(r.pats)))
			case Channel:
				r.Filter.add(Hash(name))
			}
		}
		set.list = append(set.list, s)
	}
	return added, o.count(kind)
}

// Unsubscribe unsubscribes s from name; removed is false when it was not
// subscribed. n is as for Subscribe.
func (r *Registry[S]) Unsubscribe(s S, kind Kind, name []byte) (removed bool, n int) {
	o := r.subs[s]
	if o == nil {
		return false, 0
	}
	if _, ok := o.has[kind][string(name)]; ok {
		removed = true
		delete(o.has[kind], string(name))
		i := slices.Index(o.names[kind], string(name))
		o.names[kind] = slices.Delete(o.names[kind], i, i+1)
		r.drop(s, kind, name)
	}
	n = o.count(kind)
	if o.total() == 0 {
		delete(r.subs, s)
	}
	return removed, n
}

// drop removes s from the subscribers of name, and forgets name when no
// one is left.
func (r *Registry[S]) drop(s S, kind Kind, name []byte) {
	set := r.chans[kind][string(name)]
	i := slices.Index(set.list, s)
	set.list = slices.Delete(set.list, i, i+1)
	if len(set.list) > 0 {
		return
	}
	delete(r.chans[kind], string(name))
	switch kind {
	case Pattern:
		i := slices.Index(r.pats, set)
		r.pats = slices.Delete(r.pats, i, i+1)
		r.Filter.patterns.Store(int64(len(r.pats)))
	case Channel:
		r.Filter.remove(Hash(name))
	}
}

// Names returns what s is subscribed to of kind, in subscription order.
// The slice is the registry's: valid until the next change.
func (r *Registry[S]) Names(s S, kind Kind) []string {
	if o := r.subs[s]; o != nil {
		return o.names[kind]
	}
	return nil
}

// Count returns how many subscriptions of kind s holds.
func (r *Registry[S]) Count(s S, kind Kind) int {
	if o := r.subs[s]; o != nil {
		return len(o.names[kind])
	}
	return 0
}

// Drop unsubscribes s from everything (its connection closed) and
// returns the sharded channels it left, which their owners count.
func (r *Registry[S]) Drop(s S) (sharded []string) {
	o := r.subs[s]
	if o == nil {
		return nil
	}
	for k := range numKinds {
		for _, name := range o.names[k] {
			r.drop(s, k, []byte(name))
		}
	}
	delete(r.subs, s)
	return o.names[Shard]
}

// Subscribers returns the subscribers of channel in kind's namespace
// (Channel or Shard). The slice is the registry's: valid until the next
// change.
func (r *Registry[S]) Subscribers(kind Kind, channel []byte) []S {
	if set := r.chans[kind][string(channel)]; set != nil {
		return set.list
	}
	return nil
}

// Patterns returns how many distinct patterns have subscribers here.
func (r *Registry[S]) Patterns() int { return len(r.pats) }

// Len is how many channels (Channel, Shard) or patterns (Pattern) have
// subscribers here.
func (r *Registry[S]) Len(kind Kind) int {
	if kind == Pattern {
		return len(r.pats)
	}
	return len(r.chans[kind])
}

// Matching calls fn for every pattern matching channel (Redis's glob) with
// its subscribers, in subscription order. fn must not change the registry.
func (r *Registry[S]) Matching(channel []byte, fn func(pattern string, subs []S)) {
	for _, set := range r.pats {
		if engine.Match(set.pat, channel, false) {
			fn(set.name, set.list)
		}
	}
}

// Channels appends to dst the channels of kind (Channel, Shard) with
// subscribers here that match pattern (every channel when pattern is
// nil), and the pattern names when kind is Pattern.
func (r *Registry[S]) Channels(dst []string, kind Kind, pattern []byte) []string {
	if kind == Pattern {
		for _, set := range r.pats {
			dst = append(dst, set.name)
		}
		return dst
	}
	for name := range r.chans[kind] {
		if pattern == nil || engine.Match(pattern, []byte(name), false) {
			dst = append(dst, name)
		}
	}
	return dst
}

// NumSub returns how many subscribers channel has in kind's namespace.
func (r *Registry[S]) NumSub(kind Kind, channel []byte) int {
	return len(r.Subscribers(kind, channel))
}

func (o *own) count(kind Kind) int {
	if kind == Shard {
		return len(o.names[Shard])
	}
	return len(o.names[Channel]) + len(o.names[Pattern])
}

func (o *own) total() int {
	return len(o.names[Channel]) + len(o.names[Pattern]) + len(o.names[Shard])
}
