package shard

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/internal/workload"
	"github.com/radish-kv/radish/router"
)

// TestScriptEffectsReplay runs the differential workload with most
// commands wrapped in scripts (keys declared or not, so scripts run
// directly, are undone and run again on another shard, or held over
// every shard) on 3 shards, then replays the effects on fresh shards:
// the data must be the same. An undone run that left effects behind, or
// an EVAL propagated as itself, would replay wrong. The effects of a
// script that wrote several keys on a shard must come wrapped in
// MULTI ... EXEC, and an undone run must leave none.
func TestScriptEffectsReplay(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			m := newSim(t, 3, seed+1)
			m.jitter = true
			log := record(m.g)
			c := m.dial(int(seed % 3))
			gen := workload.New(rand.New(rand.NewPCG(seed, 11)))
			r := rand.New(rand.NewPCG(seed, 12))
			inMulti := false
			// A script that writes {w}c on its shard, then meets a key of
			// another: its direct run is undone, and its writes reach
			// the effects only from its held run (written back).
			far := "far"
			for router.ShardOf([]byte(far), 3) == router.ShardOf([]byte("{w}c"), 3) {
				far += "x"
			}
			for sent := 0; sent < 2000; {
				batch := gen.Batch(32)
				sent += len(batch)
				for i, args := range batch {
					switch strings.ToUpper(args[0]) {
					case "MULTI":
						inMulti = true
					case "EXEC", "DISCARD":
						inMulti = false
					}
					if !inMulti {
						batch[i] = inScript(r, args)
					}
				}
				// Two writes in one script: a transaction of effects.
				batch = append(batch, []string{"EVAL", "redis.call('incr', KEYS[1]); return redis.call('incr', KEYS[2])",
					"2", "{w}a", "{w}b"},
					[]string{"EVAL", "redis.call('incr', KEYS[1]); return redis.call('incr', ARGV[1])", "1", "{w}c", far})
				m.write(c, encodeBatch(batch))
				m.replies(c, len(batch))
			}
			m.settle()
			now := m.now.UnixMilli()
			want := state(m.g, now)
			for _, s := range m.g.shards {
				s.flushEffects()
			}
			fresh := newSim(t, 3, seed)
			replay(t, fresh.g, log)
			if got := state(fresh.g, now); got != want {
				t.Fatalf("replayed state differs:\n got:\n%s\nwant:\n%s", got, want)
			}
			wrapped := 0
			for _, l := range log {
				for i, e := range l {
					name := strings.ToUpper(string(e.args[0]))
					if strings.HasPrefix(name, "EVAL") || strings.HasPrefix(name, "FCALL") {
						t.Fatalf("a script was propagated as itself: %q", e.args)
					}
					if len(e.args) > 1 && string(e.args[1]) == "{w}c" && e.eff.Cause != command.CauseMoved {
						t.Fatalf("an undone run left an effect: %q", e.args)
					}
					if name == "MULTI" && i+3 < len(l) && string(l[i+1].args[1]) == "{w}a" &&
						string(l[i+2].args[1]) == "{w}b" && strings.ToUpper(string(l[i+3].args[0])) == "EXEC" {
						wrapped++
					}
				}
			}
			if wrapped == 0 {
				t.Fatal("no script's effects were wrapped in MULTI ... EXEC")
			}
			checkReplayable(t, log)
		})
	}
}

// inScript returns args, or a script that runs them (its keys declared
// or not). Each command name gets its own script text, so that one that
// spread over shards does not make every other command's script take
// every shard.
func inScript(r *rand.Rand, args []string) []string {
	bs := make([][]byte, len(args))
	for i, a := range args {
		bs[i] = []byte(a)
	}
	spec, errText := command.Resolve(bs)
	if spec == nil || errText != "" || spec.AllShards || spec.Route != nil || spec.Flags&command.NoScript != 0 ||
		r.IntN(4) == 0 {
		return args
	}
	out := []string{"EVAL", "return redis.call(unpack(ARGV)) -- " + spec.Name, "0"}
	if idx, ok := spec.Keys(bs, nil); ok && len(idx) > 0 && r.IntN(2) == 0 {
		out = []string{"EVAL", out[1], "1", args[idx[0]]}
	}
	return append(out, args...)
}
