package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestLogFormat: log-format json (the default) writes one JSON object per
// line with zap's fields; console writes text lines with the same
// messages; Valkey's legacy is read as console.
func TestLogFormat(t *testing.T) {
	for _, format := range []string{"json", "console", "legacy"} {
		s := start(t, "--log-format", format)
		s.stop()
		b, err := os.ReadFile(s.log)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		found := false
		for _, line := range lines {
			var v map[string]any
			isJSON := json.Unmarshal([]byte(line), &v) == nil
			if isJSON != (format == "json") {
				t.Errorf("log-format %s: %q", format, line)
			}
			found = found || strings.Contains(line, "ready to accept connections")
		}
		if !found {
			t.Errorf("log-format %s: no start line in\n%s", format, b)
		}
	}
}
