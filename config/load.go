package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// RedisVersion is the Redis release whose behaviour and texts we follow; it
// appears in the FATAL CONFIG FILE ERROR banner.
const RedisVersion = "7.0.15"

// Version is radish's own version, printed by --version. Set it at link
// time with -ldflags "-X github.com/radish-kv/radish/config.Version=...".
var Version = "0.0.0-dev"

// ErrHelp and ErrVersion are returned by Load for -h/--help and
// -v/--version: print Usage or VersionLine to stdout and exit 0.
var (
	ErrHelp    = errors.New("config: help requested")
	ErrVersion = errors.New("config: version requested")
)

// maxIncludeDepth bounds nesting even without a cycle (a glob that matches
// a growing set, say).
const maxIncludeDepth = 32

// FileError is a bad configuration line, reported as Redis does. Line is
// 1-based within the file that holds it (command-line options count as
// lines after the config file, as in Redis). File is the file that holds
// the line ("" for the main text); it is not part of Error(), which is
// Redis's text exactly, without Redis's leading blank line.
type FileError struct {
	File string
	Line int
	Text string // the line, trimmed
	Msg  string
	seq  int // the line's place among every line read
}

func (e *FileError) Error() string {
	return fmt.Sprintf("*** FATAL CONFIG FILE ERROR (Redis %s) ***\nReading the configuration file, at line %d\n>>> '%s'\n%s",
		RedisVersion, e.Line, e.Text, e.Msg)
}

// loadState is what one Load carries across lines and included files.
type loadState struct {
	saveLoaded bool     // a save line replaced the default rules already
	stack      []string // absolute paths of the files being read, for the cycle guard
	// last is the line that last set each parameter, to report a value
	// refused once every line is read.
	last map[*param]*FileError
	n    int // lines applied so far
	// ignored are the foreign directives seen, once each, in order.
	ignored []string
}

// refused checks the final values: the first refused one, in the order
// its line was read, is the error, reported at that line.
func (ld *loadState) refused(s *Snapshot) error {
	var first *FileError
	for _, p := range params {
		at := ld.last[p]
		if at == nil {
			continue
		}
		msg := ""
		if p.refuse != nil {
			msg = p.refuse(s)
		}
		if p.name == "dir" && msg == "" {
			msg = dirError(s.Dir)
		}
		if msg != "" && (first == nil || at.seq < first.seq) {
			e := *at
			e.Msg = msg
			first = &e
		}
	}
	if first == nil {
		return nil
	}
	return first
}

// Load builds a Config from redis-server style arguments (os.Args[1:]):
//
//	[configfile | -] [--name value...] [-]
//
// A first argument not starting with '-' is the config file; "-" first or
// last reads config text from stdin after the file. Each --name starts a
// directive and the words after it are its values, appended after the file
// as lines (so they override it, and errors count lines after the file).
// -h/--help and -v/--version (first argument, or any --help/--version
// option name) return ErrHelp or ErrVersion.
func Load(args []string) (*Config, error) {
	return load(args, os.Stdin)
}

func load(args []string, stdin io.Reader) (*Config, error) {
	return loadAt(args, stdin, "/")
}

// loadAt is load with root as the filesystem root where the cgroup files
// are read (a fake tree in tests).
func loadAt(args []string, stdin io.Reader, root string) (*Config, error) {
	if len(args) > 0 {
		switch args[0] {
		case "-h", "--help":
			return nil, ErrHelp
		case "-v", "--version":
			return nil, ErrVersion
		}
	}
	j := 0
	file := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		file = args[0]
		j = 1
	}
	options, fromStdin, err := argvOptions(args, j)
	if err != nil {
		return nil, err
	}
	s := defaults()
	ld := &loadState{last: make(map[*param]*FileError)}
	var text strings.Builder
	if file != "" {
		abs, err := filepath.Abs(file)
		if err != nil {
			return nil, err
		}
		file = abs
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("Fatal error, can't open config file '%s': %s", file, strerror(err))
		}
		text.Write(b)
		ld.stack = append(ld.stack, file)
	}
	if fromStdin {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("Fatal error, can't read config from stdin: %s", strerror(err))
		}
		text.Write(b)
	}
	text.WriteByte('\n')
	text.WriteString(options)
	if err := ld.parse(s, text.String(), ""); err != nil {
		return nil, err
	}
	if err := ld.refused(s); err != nil {
		return nil, err
	}
	// Read once: MemoryBudget must stay cheap, and a limit changed under a
	// running process is rare enough to need a restart.
	s.cgroupMem = cgroupMemoryLimit(root)
	c := newConfig(s)
	c.file = file
	c.ignored = ld.ignored
	return c, nil
}

// argvOptions turns the arguments after the config file into config text,
// one directive a line, as redis-server's main does (values quoted with
// Repr; "--save" followed by another option or nothing means save "").
func argvOptions(args []string, j int) (opts string, fromStdin bool, err error) {
	var b strings.Builder
	handledLast := true
	for ; j < len(args); j++ {
		a := args[j]
		switch {
		case a == "-" && (j == 0 || j == len(args)-1):
			fromStdin = true
		case handledLast && strings.HasPrefix(a, "--"):
			if a == "--help" {
				return "", false, ErrHelp
			}
			if a == "--version" {
				return "", false, ErrVersion
			}
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(a[2:])
			b.WriteByte(' ')
			words, _ := SplitArgs(a)
			if len(words) == 1 { // only a name, like --port: a value must follow
				handledLast = false
				next := j+1 < len(args) && strings.HasPrefix(args[j+1], "--")
				if strings.EqualFold(a, "--save") && (next || j == len(args)-1) {
					b.WriteString(`""`)
					handledLast = true
				}
			}
		default:
			b.WriteString(Repr(a))
			b.WriteByte(' ')
			handledLast = true
		}
	}
	return b.String(), fromStdin, nil
}

// parse applies config text to s line by line as Redis's
// loadServerConfigFromString does. file names the text's file for
// FileError.File and relative includes ("" = the main text).
func (ld *loadState) parse(s *Snapshot, text, file string) error {
	lines := strings.Split(text, "\n")
	for i, raw := range lines {
		line := strings.Trim(raw, " \t\r\n")
		if line == "" || line[0] == '#' {
			continue
		}
		fail := func(msg string) error {
			return &FileError{File: file, Line: i + 1, Text: line, Msg: msg}
		}
		args, ok := SplitArgs(line)
		if !ok {
			return fail(errQuotes)
		}
		if len(args) == 0 {
			continue
		}
		name := strings.ToLower(args[0])
		if name == "include" && len(args) == 2 {
			if err := ld.include(s, args[1], fail); err != nil {
				return err
			}
			continue
		}
		if name == "user" {
			// Redis's special directive: one line per user, applied by
			// package acl at start.
			if len(args) < 2 {
				return fail(errArgs)
			}
			s.Users = append(slices.Clip(s.Users), args[1:])
			continue
		}
		p := byName[name]
		if p == nil {
			f, ok := foreign[name]
			if !ok {
				return fail(errDirective)
			}
			if f.inert != nil && !f.inert(args[1:]) {
				return fail(f.why)
			}
			if !slices.Contains(ld.ignored, name) {
				ld.ignored = append(ld.ignored, name)
			}
			continue
		}
		vals := args[1:]
		if p.multiArg {
			if len(vals) == 1 && vals[0] != "" {
				vals, ok = SplitArgs(vals[0])
				if !ok {
					return fail(errQuotes)
				}
			}
		} else if len(vals) != 1 {
			return fail(errArgs)
		}
		if msg := p.apply(s, vals, ld); msg != "" {
			return fail(msg)
		}
		ld.n++
		ld.last[p] = &FileError{File: file, Line: i + 1, Text: line, seq: ld.n}
	}
	return nil
}

// include reads a file (or every file a glob pattern matches, in name
// order) relative to the configured dir, as Redis does after its chdir.
func (ld *loadState) include(s *Snapshot, pattern string, fail func(string) error) error {
	if !filepath.IsAbs(pattern) {
		pattern = filepath.Join(s.Dir, pattern)
	}
	files := []string{pattern}
	if strings.ContainsAny(pattern, "*?[") {
		m, err := filepath.Glob(pattern)
		if err != nil {
			return fmt.Errorf("Fatal error, can't open config file '%s': %s", pattern, err)
		}
		files = m // sorted; no match includes nothing
	}
	for _, f := range files {
		f = filepath.Clean(f)
		for _, open := range ld.stack {
			if open == f {
				return fail(fmt.Sprintf("include cycle: '%s' is already being read", f))
			}
		}
		if len(ld.stack) >= maxIncludeDepth {
			return fail(fmt.Sprintf("includes nested deeper than %d files", maxIncludeDepth))
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("Fatal error, can't open config file '%s': %s", f, strerror(err))
		}
		ld.stack = append(ld.stack, f)
		err = ld.parse(s, string(b), f)
		ld.stack = ld.stack[:len(ld.stack)-1]
		if err != nil {
			return err
		}
	}
	return nil
}

// defaults returns a Snapshot holding every parameter's default.
func defaults() *Snapshot {
	s := &Snapshot{}
	for _, p := range params {
		args := []string{p.defaultText()}
		if p.multiArg {
			args, _ = SplitArgs(args[0])
		}
		if p.name == "dir" {
			s.Dir = args[0] // already absolute; parseDir would stat it
			continue
		}
		if msg := p.apply(s, args, nil); msg != "" {
			panic("config: bad default for " + p.name + ": " + msg)
		}
	}
	return s
}

// VersionLine is what --version prints.
func VersionLine() string {
	return fmt.Sprintf("Radish server v=%s (Redis %s compatible)", Version, RedisVersion)
}

// Usage writes the --help text: the command line and every parameter with
// its default.
func Usage(w io.Writer) {
	fmt.Fprint(w, `Usage: radish-server [/path/to/radish.conf] [options] [-]
       radish-server - (read config from stdin)
       radish-server -v or --version
       radish-server -h or --help

Examples:
       radish-server (run the server with default config)
       radish-server /etc/radish/6379.conf
       radish-server --port 7777
       radish-server --bind 127.0.0.1 ::1 --maxmemory 1gb
       radish-server /etc/radish.conf --loglevel verbose

Options (in the config file write them without the leading --):
`)
	for _, p := range params {
		mode := ""
		switch p.mode {
		case Immutable, Protected:
			mode = " (start only)"
		}
		var extra string
		if p.kind == KindEnum {
			extra = " [" + strings.Join(p.enum, "|") + "]"
		}
		if p.refuse != nil {
			mode += " (the only value accepted)"
		}
		fmt.Fprintf(w, "       --%-27s default %s%s%s\n", p.name, Repr(p.defaultText()), extra, mode)
	}
}
