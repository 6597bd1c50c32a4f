package command

import (
	"testing"

	"github.com/radish-kv/radish/engine"
)

// TestObjectAccessClock: OBJECT IDLETIME counts seconds since the last read
// or write (OBJECT itself, EXISTS and TYPE do not touch; TOUCH does), and
// OBJECT FREQ reports the LFU counter.
func TestObjectAccessClock(t *testing.T) {
	env := newScriptEnv()
	defer env.store.Close()
	env.run(words("SET", "k", "v"))
	step := func(ms int64, cmd ...string) string {
		env.ctx.Now += ms
		return string(env.run(words(cmd...)))
	}
	if got := step(7000, "OBJECT", "IDLETIME", "k"); got != ":7\r\n" {
		t.Fatalf("IDLETIME after 7 s = %q", got)
	}
	step(0, "EXISTS", "k")
	step(0, "TYPE", "k")
	if got := step(1000, "OBJECT", "IDLETIME", "k"); got != ":8\r\n" {
		t.Fatalf("IDLETIME after non-touching commands = %q", got)
	}
	step(0, "GET", "k")
	if got := step(2000, "OBJECT", "IDLETIME", "k"); got != ":2\r\n" {
		t.Fatalf("IDLETIME 2 s after GET = %q", got)
	}
	if got := step(3000, "TOUCH", "k", "nokey"); got != ":1\r\n" {
		t.Fatalf("TOUCH = %q", got)
	}
	if got := step(0, "OBJECT", "IDLETIME", "k"); got != ":0\r\n" {
		t.Fatalf("IDLETIME after TOUCH = %q", got)
	}

	env.store.SetMaxMemory(0, engine.AllKeysLFU, 5)
	env.store.SetLFU(0, 1) // log factor 0: every access counts
	env.run(words("SET", "f", "v"))
	if got := step(0, "OBJECT", "FREQ", "f"); got != ":5\r\n" {
		t.Fatalf("FREQ of a new key = %q", got)
	}
	for i := 0; i < 10; i++ {
		env.run(words("GET", "f"))
	}
	if got := step(0, "OBJECT", "FREQ", "f"); got != ":15\r\n" {
		t.Fatalf("FREQ after 10 GETs = %q", got)
	}
	if got := step(3*60_000, "OBJECT", "FREQ", "f"); got != ":12\r\n" {
		t.Fatalf("FREQ 3 minutes later = %q", got)
	}
}
