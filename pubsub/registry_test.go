package pubsub

import (
	"slices"
	"testing"
)

func TestRegistryCounts(t *testing.T) {
	r := NewRegistry[int]()
	steps := []struct {
		sub   int
		kind  Kind
		name  string
		on    bool
		added bool
		n     int
	}{
		{1, Channel, "a", true, true, 1},
		{1, Channel, "a", true, false, 1},
		{1, Pattern, "a*", true, true, 2},
		{1, Shard, "s", true, true, 1}, // sharded channels count apart
		{2, Channel, "a", true, true, 1},
		{1, Channel, "b", false, false, 2},
		{1, Channel, "a", false, true, 1},
		{1, Pattern, "a*", false, true, 0},
		{1, Shard, "s", false, true, 0},
	}
	for i, st := range steps {
		var changed bool
		var n int
		if st.on {
			changed, n = r.Subscribe(st.sub, st.kind, []byte(st.name))
		} else {
			changed, n = r.Unsubscribe(st.sub, st.kind, []byte(st.name))
		}
		if changed != st.added || n != st.n {
			t.Fatalf("step %d: changed %v count %d, want %v %d", i, changed, n, st.added, st.n)
		}
	}
	if got := r.Subscribers(Channel, []byte("a")); !slices.Equal(got, []int{2}) {
		t.Fatalf("subscribers of a: %v", got)
	}
	if r.Patterns() != 0 || r.Filter.Wants(Hash([]byte("zzz"))) {
		t.Fatal("a pattern is left")
	}
}

func TestRegistryMatchingAndDrop(t *testing.T) {
	r := NewRegistry[int]()
	r.Subscribe(1, Pattern, []byte("news.*"))
	r.Subscribe(2, Pattern, []byte("news.*"))
	r.Subscribe(2, Pattern, []byte("h[ae]llo"))
	r.Subscribe(2, Channel, []byte("news.eu"))
	r.Subscribe(2, Shard, []byte("s1"))
	var got []string
	r.Matching([]byte("news.eu"), func(p string, subs []int) { got = append(got, p, string(rune('0'+len(subs)))) })
	if want := []string{"news.*", "2"}; !slices.Equal(got, want) {
		t.Fatalf("matching news.eu: %v, want %v", got, want)
	}
	if !r.Filter.Wants(Hash([]byte("anything"))) {
		t.Fatal("a shard with patterns must want every channel")
	}
	if sharded := r.Drop(2); !slices.Equal(sharded, []string{"s1"}) {
		t.Fatalf("dropped sharded channels %v", sharded)
	}
	if r.Count(2, Channel) != 0 || len(r.Subscribers(Channel, []byte("news.eu"))) != 0 || r.Patterns() != 1 {
		t.Fatal("drop left subscriptions behind")
	}
	r.Drop(1)
	if r.Patterns() != 0 || r.Filter.patterns.Load() != 0 {
		t.Fatal("patterns left")
	}
}

// TestFilter: a bucket's bit stays while any of its channels has a
// subscriber, and goes with the last.
func TestFilter(t *testing.T) {
	r := NewRegistry[int]()
	a := []byte("a")
	// b shares a's bucket.
	var b []byte
	for i := 0; ; i++ {
		b = []byte{byte('b' + i%20), byte(i), byte(i >> 8), byte(i >> 16)}
		if Hash(b)%filterBits == Hash(a)%filterBits {
			break
		}
	}
	if r.Filter.Wants(Hash(a)) {
		t.Fatal("an empty registry wants a")
	}
	r.Subscribe(1, Channel, a)
	r.Subscribe(2, Channel, b)
	r.Unsubscribe(1, Channel, a)
	if !r.Filter.Wants(Hash(a)) {
		t.Fatal("the bucket's bit went while b is subscribed")
	}
	r.Unsubscribe(2, Channel, b)
	if r.Filter.Wants(Hash(a)) {
		t.Fatal("the bit stayed after the last channel of its bucket")
	}
}

func TestFrames(t *testing.T) {
	cases := []struct{ got, want string }{
		{string(AppendMessage(nil, 2, Channel, []byte("ch"), []byte("hi"))), "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n"},
		{string(AppendMessage(nil, 3, Shard, []byte("ch"), []byte("hi"))), ">3\r\n$8\r\nsmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n"},
		{string(AppendPMessage(nil, 3, "c*", []byte("ch"), []byte("hi"))),
			">4\r\n$8\r\npmessage\r\n$2\r\nc*\r\n$2\r\nch\r\n$2\r\nhi\r\n"},
		{string(AppendSubscription(nil, 2, "unsubscribe", nil, true, 0)), "*3\r\n$11\r\nunsubscribe\r\n$-1\r\n:0\r\n"},
		{string(AppendSubscription(nil, 3, "subscribe", []byte("a"), false, 1)), ">3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestOwned(t *testing.T) {
	var o Owned
	o.Add([]byte("s"), 1, 3, 1)
	o.Add([]byte("s"), 2, 3, 2)
	per, total := o.Homes([]byte("s"))
	if total != 3 || !slices.Equal(per, []int32{0, 1, 2}) {
		t.Fatalf("homes %v total %d", per, total)
	}
	if got := o.Channels(nil, []byte("s*")); !slices.Equal(got, []string{"s"}) {
		t.Fatalf("channels %v", got)
	}
	o.Add([]byte("s"), 1, 3, -1)
	o.Add([]byte("s"), 2, 3, -2)
	if _, total := o.Homes([]byte("s")); total != 0 || len(o.Channels(nil, nil)) != 0 {
		t.Fatal("channel left")
	}
}
