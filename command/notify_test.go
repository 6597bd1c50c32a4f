package command

import "testing"

// TestKeyEventsRows: every row the event table names exists and writes.
func TestKeyEventsRows(t *testing.T) {
	for name := range keyEvents {
		s := LookupFull([]byte(name))
		if s == nil || s.Flags&Write == 0 {
			t.Errorf("keyEvents names %q, which is no write row", name)
		}
	}
}
