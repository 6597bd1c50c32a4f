package shard

import "testing"

// TestPublishAfterQuietTurns: a turn that changed none of the shard's
// counters still publishes what a client's close changed (its
// subscriptions here), and what a hop changed is published by the turn
// that ran it, before its reply reaches the client.
func TestPublishAfterQuietTurns(t *testing.T) {
	m := newSim(t, 2, 1)
	if err := m.g.conf.Set([][2]string{{"migrate-connections", "no"}}); err != nil {
		t.Fatal(err)
	}
	home, owner := m.g.shards[0], m.g.shards[1]
	sub := m.dial(0)
	if got := m.do(sub, resp2("SUBSCRIBE ch")); got == "" {
		t.Fatal("no reply to SUBSCRIBE")
	}
	if n := home.stats.pub.channels.Load(); n != 1 {
		t.Fatalf("pubsub_channels %d after SUBSCRIBE, want 1", n)
	}
	c := m.dial(0)
	k := keysOn(1, 2, 1)[0]
	if got := m.do(c, resp2("SET "+k+" v")); got != "+OK\r\n" {
		t.Fatalf("SET: %q", got)
	}
	if n := owner.stats.pub.keys[0].Load(); n != 1 {
		t.Fatalf("owner's keys %d once SET's reply was home, want 1", n)
	}
	if n := home.stats.pub.hops.Load(); n != 1 {
		t.Fatalf("home's hops %d, want 1", n)
	}
	for range 3 {
		m.turn(0) // quiet: nothing to publish
	}
	m.hangup(sub)
	m.turn(0)
	if n := home.stats.pub.channels.Load(); n != 0 {
		t.Fatalf("pubsub_channels %d after the subscriber closed, want 0", n)
	}
}
