package command

import "testing"

func TestHashScript(t *testing.T) { runScript(t, "hash.txt") }
func TestSetScript(t *testing.T)  { runScript(t, "set.txt") }
