package shard

import "testing"

// TestSimACL: the users are one state for every shard. A change applies
// to the next command of a connection on any shard; ACL DELUSER closes
// the user's connections on every shard, idle ones too, in their shards'
// next turn, and ACL SETUSER keeps them.
func TestSimACL(t *testing.T) {
	m := newSim(t, 3, 7)
	do := func(c *simConn, args ...string) string { return m.do(c, string(encode(args))) }
	admin := m.dial(0)
	if got := do(admin, "ACL", "SETUSER", "app", "on", ">pw", "~*", "+@all"); got != "+OK\r\n" {
		t.Fatal(got)
	}
	var conns []*simConn
	for i := range 3 {
		c := m.dial(i)
		if got := do(c, "AUTH", "app", "pw"); got != "+OK\r\n" {
			t.Fatalf("AUTH on shard %d: %q", i, got)
		}
		conns = append(conns, c)
	}
	do(admin, "ACL", "SETUSER", "app", "-get", "resetkeys", "~k*")
	for i, c := range conns {
		if got := do(c, "GET", "k"); got != "-NOPERM this user has no permissions to run the 'get' command\r\n" {
			t.Errorf("GET on shard %d after -get: %q", i, got)
		}
		if got := do(c, "SET", "other", "v"); got != "-NOPERM this user has no permissions to access one of the keys used as arguments\r\n" {
			t.Errorf("SET other on shard %d after resetkeys ~k*: %q", i, got)
		}
		if got := do(c, "SET", "k1", "v"); got != "+OK\r\n" {
			t.Errorf("SET k1 on shard %d: %q", i, got)
		}
	}
	if got := do(admin, "ACL", "DELUSER", "app"); got != ":1\r\n" {
		t.Fatal(got)
	}
	for i := range 3 {
		m.turn(i)
	}
	m.settle()
	for i, c := range conns {
		if !c.closed {
			t.Errorf("the connection of the deleted user on shard %d is open", i)
		}
	}
	if got := do(admin, "PING"); got != "+PONG\r\n" {
		t.Errorf("the default user's connection: %q", got)
	}
}
