package command

import "testing"

func TestZSetScript(t *testing.T) { runScript(t, "zset.txt") }

// TestZSetSetsScript covers sets as inputs of ZUNION and friends; it needs
// the set family's rows.
func TestZSetSetsScript(t *testing.T) {
	if Lookup([]byte("sadd")) == nil {
		t.Skip("SADD is not registered yet")
	}
	runScript(t, "zset_sets.txt")
}
