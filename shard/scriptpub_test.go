package shard

import (
	"strings"
	"testing"

	"github.com/radish-kv/radish/pubsub"
)

// TestScriptPublish: a script's PUBLISH on 3 shards answers every
// receiver, channel and pattern, on every shard, and its messages reach
// each of them once, in the script's order, before the caller's next
// reply: a script run on the caller's shard, one sent to its key's
// shard, one held over keys of two shards, and one whose direct run is
// abandoned (an undeclared key of another shard) after it published.
func TestScriptPublish(t *testing.T) {
	k0, k1, k2 := keysOn(0, 3, 1)[0], keysOn(1, 3, 1)[0], keysOn(2, 3, 1)[0]
	evals := []struct {
		args  []string
		reply string
		msgs  []string // on ch
	}{
		{[]string{"EVAL", "return {redis.call('publish','ch','a'), redis.call('publish','ch','b')}", "0"},
			"*2\r\n:4\r\n:4\r\n", []string{"a", "b"}},
		{[]string{"EVAL", "redis.call('set',KEYS[1],'1'); return redis.call('publish','ch','c')", "1", k1},
			":4\r\n", []string{"c"}},
		{[]string{"EVAL", "redis.call('set',KEYS[1],'1'); redis.call('set',KEYS[2],'1'); return {redis.call('publish','ch','d'), redis.call('publish','x','e')}",
			"2", k0, k2}, "*2\r\n:4\r\n:0\r\n", []string{"d"}},
		{[]string{"EVAL", "redis.call('set',KEYS[1],'1'); local n = redis.call('publish','ch','f'); redis.call('get',ARGV[1]); return n",
			"1", k0, k1}, ":4\r\n", []string{"f"}},
	}
	for seed := uint64(1); seed <= 10; seed++ {
		m := newSim(t, 3, seed)
		var subs []*simConn
		for sh := range 3 {
			c := m.dial(sh)
			if got := m.do(c, string(encode([]string{"SUBSCRIBE", "ch"}))); !strings.HasPrefix(got, "*3") {
				t.Fatalf("SUBSCRIBE: %q", got)
			}
			subs = append(subs, c)
		}
		pat := m.dial(1)
		m.do(pat, string(encode([]string{"PSUBSCRIBE", "c*"})))
		caller := m.dial(0)
		var want string
		var cmds [][]string
		for _, e := range evals {
			cmds = append(cmds, e.args)
			want += e.reply
		}
		cmds = append(cmds, []string{"PING"})
		want += "+PONG\r\n"
		if got := m.do(caller, string(encode(cmds...))); got != want {
			t.Fatalf("seed %d: replies %q, want %q", seed, got, want)
		}
		var msgs, pmsgs []byte
		for _, e := range evals {
			for _, msg := range e.msgs {
				msgs = pubsub.AppendMessage(msgs, 2, pubsub.Channel, []byte("ch"), []byte(msg))
				pmsgs = pubsub.AppendPMessage(pmsgs, 2, "c*", []byte("ch"), []byte(msg))
			}
		}
		for sh, c := range subs {
			if got := m.take(c); got != string(msgs) {
				t.Errorf("seed %d: subscriber on shard %d got %q, want %q", seed, sh, got, msgs)
			}
		}
		if got := m.take(pat); got != string(pmsgs) {
			t.Errorf("seed %d: pattern subscriber got %q, want %q", seed, got, pmsgs)
		}
		m.noneLeft()
	}
}
