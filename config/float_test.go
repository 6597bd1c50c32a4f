package config

import "testing"

func TestParseFloat(t *testing.T) {
	for in, want := range map[string]bool{
		"0.8": true, ".5": true, "1e-1": true, "0x1p-1": true, "0x10": true, "-2": true, "+1": true,
		"": false, "nan": false, "inf": false, "-inf": false, "1e400": false, "1e-400": false,
		"1_0": false, " 1": false, "1 ": false, "1,5": false,
	} {
		if _, ok := parseFloat(in); ok != want {
			t.Errorf("parseFloat(%q) ok = %v, want %v", in, ok, want)
		}
	}
}
