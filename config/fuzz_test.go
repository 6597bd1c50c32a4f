package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad: any configuration file, with any options after it and any
// text on standard input ("-"), loads or fails with an error, never a
// panic.
func FuzzLoad(f *testing.F) {
	f.Add("port 7000\nsave \"3600 1 300 100\"\nmaxmemory 1gb\nuser u on >p ~* +@all\n", "--shards\x002", "")
	f.Add("include /nonexistent\nrename-command GET \"\"\n", "-", "appendonly yes\n")
	f.Add("bind 127.0.0.1 -::1\nclient-output-buffer-limit normal 0 0 0 replica 256mb 64mb 60\n", "--save\x00", "")
	f.Add("\"unclosed\n'x\x00y'\nport\n", "--port\x00-1\x00--port", "")
	f.Fuzz(func(t *testing.T, file, opts, stdin string) {
		path := filepath.Join(t.TempDir(), "radish.conf")
		if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
			t.Fatal(err)
		}
		args := []string{path}
		if opts != "" {
			args = append(args, strings.Split(opts, "\x00")...)
		}
		c, err := loadAt(args, strings.NewReader(stdin), t.TempDir())
		if (c == nil) == (err == nil) {
			t.Fatalf("load = %v, %v", c, err)
		}
	})
}
