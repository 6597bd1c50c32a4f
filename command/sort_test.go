package command

import "testing"

func TestSortScript(t *testing.T) { runScript(t, "sort.txt") }
