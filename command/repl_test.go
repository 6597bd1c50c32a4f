package command

import (
	"testing"

	"github.com/radish-kv/radish/errtext"
)

// TestWaitArgs: WAIT's arguments are read as redis-server 7.0 reads them
// (string2ll: no '+', no leading zero, no "-0"; numreplicas first), with
// its error texts; REPLICAOF's port too, one text for every bad port.
func TestWaitArgs(t *testing.T) {
	for _, tc := range []struct {
		need, ms string
		err      string
	}{
		{"0", "0", ""},
		{"2", "100", ""},
		{"007", "0", errtext.NotInt},
		{"+1", "0", errtext.NotInt},
		{"-0", "0", errtext.NotInt},
		{"x", "y", errtext.NotInt},
		{"x", "-1", errtext.NotInt},
		{"1", "+0", errtext.TimeoutNotInt},
		{"1", "1.5", errtext.TimeoutNotInt},
		{"0", "-1", errtext.TimeoutNegative},
	} {
		if _, _, err := WaitArgs([][]byte{[]byte("WAIT"), []byte(tc.need), []byte(tc.ms)}); err != tc.err {
			t.Errorf("WAIT %s %s: %q, want %q", tc.need, tc.ms, err, tc.err)
		}
	}
	for port, want := range map[string]string{"6379": "", "+6379": "ERR Invalid master port", "06379": "ERR Invalid master port",
		"x": "ERR Invalid master port", "65536": "ERR Invalid master port"} {
		if _, _, err := ReplicaOfArgs([][]byte{[]byte("REPLICAOF"), []byte("localhost"), []byte(port)}); err != want {
			t.Errorf("REPLICAOF localhost %s: %q, want %q", port, err, want)
		}
	}
}
