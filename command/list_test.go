package command

import "testing"

func TestListScript(t *testing.T) { runScript(t, "list.txt") }
