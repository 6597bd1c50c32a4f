package script

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/radish-kv/radish/engine"
)

// loaded lists what p (and the functions in it) loads with the LOADKs
// fastCalls wrote, in order: call, pcall, call/void, pcall/void.
func loaded(r *Runtime, p *lua.FunctionProto) []string {
	var out []string
	for _, i := range p.Code {
		if opcode(i) != lua.OP_LOADK {
			continue
		}
		switch p.Constants[argBx(i)] {
		case r.calls.call:
			out = append(out, "call")
		case r.calls.pcall:
			out = append(out, "pcall")
		case r.calls.callVoid:
			out = append(out, "call/void")
		case r.calls.pcallVoid:
			out = append(out, "pcall/void")
		}
	}
	for _, q := range p.FunctionPrototypes {
		out = append(out, loaded(r, q)...)
	}
	return out
}

// TestFastCalls: redis.call and redis.pcall are loaded as constants, and
// as their variants that make no reply where the call is a statement,
// only where nothing else can reach the CALL.
func TestFastCalls(t *testing.T) {
	store := engine.NewStore(16)
	defer store.Close()
	h := &storeHost{store: store}
	r := New(&Registry{}, nil)
	for _, c := range []struct {
		body  string
		want  []string
		reply string
	}{
		{"redis.call('set', 'a', 'b')", []string{"call/void"}, "$-1\r\n"},
		{"local v = redis.call('get', 'a'); return v", []string{"call"}, "$1\r\nb\r\n"},
		{"return redis.call('get', 'a')", []string{"call"}, "$1\r\nb\r\n"},
		{"redis.pcall('set', 'a', 'b'); server.pcall('nosuch')", []string{"pcall/void", "pcall/void"}, "$-1\r\n"},
		{"redis.call('set', 'a', KEYS[1] and 'c' or 'd'); return redis.call('get', 'a')", []string{"call/void", "call"}, "$1\r\nc\r\n"},
		{"redis.call('set', 'a', redis.call('get', 'a') .. 'x'); return redis.call('get', 'a')", []string{"call/void", "call", "call"}, "$2\r\ncx\r\n"},
		{"if redis.call('exists', 'a') == 1 then redis.call('del', 'a') end; return redis.call('exists', 'a')", []string{"call", "call/void", "call"}, ":0\r\n"},
		{"for i = 1, 3 do redis.call('incr', 'n') end; return redis.call('get', 'n')", []string{"call/void", "call"}, "$1\r\n3\r\n"},
		{"redis.call('set', 'a', (function() return 'f' end)()); return redis.call('get', 'a')", []string{"call", "call"}, "$1\r\nf\r\n"},
		{"local f = redis.call; f('set', 'a', 'g'); return f('get', 'a')", []string{"call"}, "$1\r\ng\r\n"},
		{"local function f(k) redis.call('set', k, 'h') end; f('a'); return redis.call('get', 'a')", []string{"call", "call/void"}, "$1\r\nh\r\n"},
		{"local redis = {call = function() return 1 end}; redis.call('x'); return redis.call('y')", nil, ":1\r\n"},
		{"return redis.pcall('nosuch').err", []string{"pcall"}, "$44\r\nERR Unknown Redis command called from script\r\n"},
		{"redis.call('nosuch')", []string{"call/void"}, "-ERR Unknown Redis command called from script script: %s, on @user_script:1.\r\n"},
		{"redis.call('set', 'a')", []string{"call/void"}, "-ERR Wrong number of args calling Redis command from script script: %s, on @user_script:1.\r\n"},
		{"redis.call('set', 'a', 'b')\nredis.call('lpush', 'a', 'x')", []string{"call/void", "call/void"}, "-WRONGTYPE Operation against a key holding the wrong kind of value script: %s, on @user_script:2.\r\n"},
	} {
		s, errText := r.Load([]byte(c.body))
		if errText != "" {
			t.Fatalf("%s: %s", c.body, errText)
		}
		if got := loaded(r, s.fn.Proto); !slices.Equal(got, c.want) {
			t.Errorf("%s: loads %q, want %q", c.body, got, c.want)
		}
		want := c.reply
		if strings.Contains(want, "%s") {
			want = fmt.Sprintf(want, s.SHA)
		}
		if got := eval(t, r, h, 2, false, c.body, []string{"k"}, nil); got != want {
			t.Errorf("%s: replies %q, want %q", c.body, got, want)
		}
	}
}
