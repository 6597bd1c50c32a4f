package acl

import (
	"sync"

	"github.com/radish-kv/radish/net/resp"
)

// Contexts of an ACL LOG entry: where the refused command came from.
const (
	CtxToplevel = "toplevel"
	CtxMulti    = "multi"
	CtxLua      = "lua"
)

// logEntry is one ACL LOG entry (Redis 7.0's ACLLogEntry).
type logEntry struct {
	count    int64
	reason   Reason
	context  string
	object   string
	username string
	ms       int64 // unix ms of its last update
	cinfo    string
}

// logGroupMs is how close in time a denial must come to an entry like it
// to count in it rather than make a new one.
const logGroupMs = 60000

// Log is the ACL LOG: the latest denials, newest first, like ones
// grouped. It is safe for concurrent use; only refused commands write it.
type Log struct {
	mu      sync.Mutex
	entries []*logEntry
	max     int
}

// SetMax sets acllog-max-len, dropping the oldest entries past it.
func (l *Log) SetMax(n int) {
	l.mu.Lock()
	l.max = n
	l.trim()
	l.mu.Unlock()
}

func (l *Log) trim() {
	if len(l.entries) > l.max {
		clear(l.entries[l.max:])
		l.entries = l.entries[:l.max]
	}
}

// Add records a denial at now (unix ms): reason, context (CtxToplevel
// ...), object (the command's full name, the key, the channel, or the
// AUTH command's name), the user's name and the client's CLIENT LIST
// line. An entry of the last ten alike (same reason, context, object and
// user, within a minute) counts it instead, as in Redis.
func (l *Log) Add(reason Reason, context, object, username, cinfo string, now int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, e := range l.entries[:min(10, len(l.entries))] {
		d := e.ms - now
		if d < 0 {
			d = -d
		}
		if e.reason == reason && e.context == context && d <= logGroupMs && e.object == object && e.username == username {
			e.count++
			e.ms, e.cinfo = now, cinfo
			copy(l.entries[1:i+1], l.entries[:i])
			l.entries[0] = e
			return
		}
	}
	e := &logEntry{count: 1, reason: reason, context: context, object: object, username: username, ms: now, cinfo: cinfo}
	l.entries = append(l.entries, nil)
	copy(l.entries[1:], l.entries)
	l.entries[0] = e
	l.trim()
}

// Reset empties the log (ACL LOG RESET).
func (l *Log) Reset() {
	l.mu.Lock()
	l.entries = nil
	l.mu.Unlock()
}

// Write writes ACL LOG's reply: the count newest entries, each a map of
// Redis 7.0's seven fields.
func (l *Log) Write(w *resp.Writer, count int, now int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	count = min(max(count, 0), len(l.entries))
	w.Array(count)
	for _, e := range l.entries[:count] {
		w.Map(7)
		w.BulkString("count")
		w.Int(e.count)
		w.BulkString("reason")
		w.BulkString(e.reason.String())
		w.BulkString("context")
		w.BulkString(e.context)
		w.BulkString("object")
		w.BulkString(e.object)
		w.BulkString("username")
		w.BulkString(e.username)
		w.BulkString("age-seconds")
		w.Double(float64(now-e.ms) / 1000)
		w.BulkString("client-info")
		w.BulkString(e.cinfo)
	}
}
