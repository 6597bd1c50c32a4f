package script

import (
	"testing"

	"github.com/radish-kv/radish/engine"
)

// TestKeysRefilled: the KEYS and ARGV tables a run reuses from the last
// (refill) are what fresh ones would be, whatever the last run did to
// them: entries changed, added past the end, removed, string keys, a
// metatable.
func TestKeysRefilled(t *testing.T) {
	store := engine.NewStore(16)
	defer store.Close()
	h := &storeHost{store: store}
	r := New(&Registry{}, nil)
	const show = "local n = 0; for _ in pairs(KEYS) do n = n + 1 end; local m = 0; for _ in pairs(ARGV) do m = m + 1 end; " +
		"return {n, #KEYS, m, #ARGV, getmetatable(KEYS) == nil, getmetatable(ARGV) == nil, KEYS[1] or false, KEYS[2] or false, ARGV[1] or false, ARGV[2] or false}"
	for _, mess := range []string{
		"KEYS[1] = 'x'; ARGV[2] = 'y'",
		"KEYS[3] = 'c'; ARGV[9] = 'z'",
		"KEYS[2] = nil; ARGV[1] = nil",
		"table.remove(KEYS); table.remove(ARGV, 1)",
		"KEYS.name = 1; ARGV[0] = 1",
		"ARGV[1.5] = 1; KEYS[-1] = 2",
		"setmetatable(KEYS, {__index = function() return 'm' end}); setmetatable(ARGV, {})",
		"table.insert(KEYS, 'd'); table.insert(ARGV, 1, 'e')",
		"KEYS.name = 1; KEYS.name = nil",
		"",
	} {
		for _, keys := range [][]string{{"a", "b"}, {"a"}, nil, {"a", "b"}} {
			eval(t, r, h, 2, false, mess, keys, []string{"1", "2"})
			eval(t, r, h, 2, false, mess, []string{"a", "b", "c"}, []string{"1"})
			fresh := New(&Registry{}, nil)
			want := eval(t, fresh, h, 2, false, show, keys, []string{"p", "q"})
			if got := eval(t, r, h, 2, false, show, keys, []string{"p", "q"}); got != want {
				t.Errorf("after %q, with KEYS %q: %q, want %q", mess, keys, got, want)
			}
		}
	}
}

// TestReplyStrings: a call's bulk strings, status texts and small
// integers are the values Redis gives, reused or not.
func TestReplyStrings(t *testing.T) {
	store := engine.NewStore(16)
	defer store.Close()
	h := &storeHost{store: store}
	r := New(&Registry{}, nil)
	const body = "redis.call('set', KEYS[1], ARGV[1]); local a = redis.call('get', KEYS[1]); " +
		"local s = redis.call('set', KEYS[1], ARGV[1] .. 'x'); local b = redis.call('get', KEYS[1]); " +
		"return {a, b, s.ok, redis.call('incrby', 'n', ARGV[2]), type(s)}"
	for _, c := range []struct{ v, n, want string }{
		{"v", "1", "*5\r\n$1\r\nv\r\n$2\r\nvx\r\n$2\r\nOK\r\n:1\r\n$5\r\ntable\r\n"},
		{"v", "254", "*5\r\n$1\r\nv\r\n$2\r\nvx\r\n$2\r\nOK\r\n:255\r\n$5\r\ntable\r\n"},
		{"v", "1", "*5\r\n$1\r\nv\r\n$2\r\nvx\r\n$2\r\nOK\r\n:256\r\n$5\r\ntable\r\n"},
		{"w", "-300", "*5\r\n$1\r\nw\r\n$2\r\nwx\r\n$2\r\nOK\r\n:-44\r\n$5\r\ntable\r\n"},
	} {
		if got := eval(t, r, h, 2, false, body, []string{"k"}, []string{c.v, c.n}); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.v, c.n, got, c.want)
		}
	}
}
