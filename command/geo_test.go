package command

import "testing"

func TestGeoScript(t *testing.T) { runScript(t, "geo.txt") }
