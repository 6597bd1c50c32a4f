package acl

import (
	"bytes"
	"encoding/binary"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/engine"
)

// Reason is why a check failed, ordered as Redis ranks them when no
// selector allows a command (ACL_DENIED_*): the highest is reported.
type Reason uint8

// Reasons.
const (
	OK Reason = iota
	DeniedCmd
	DeniedKey
	DeniedAuth
	DeniedChannel
)

// String is the reason as ACL LOG prints it.
func (r Reason) String() string {
	switch r {
	case DeniedCmd:
		return "command"
	case DeniedKey:
		return "key"
	case DeniedAuth:
		return "auth"
	case DeniedChannel:
		return "channel"
	}
	return "unknown"
}

// Check reports whether u may run spec with args (args[0] is the command
// name). When not, it says why and the index in args of the key or
// channel refused (0 for a command refused). It does not allocate; for a
// user that AllowsAll it is one flag test.
func (u *User) Check(spec *command.Spec, args [][]byte) (Reason, int) {
	if u.all {
		return OK, 0
	}
	return u.check(spec, args)
}

func (u *User) check(spec *command.Spec, args [][]byte) (Reason, int) {
	worst, at := DeniedCmd, 0
	for _, s := range u.sels {
		r, i := s.check(spec, args)
		if r == OK {
			return OK, 0
		}
		if r > worst || r == worst && i > at {
			worst, at = r, i
		}
	}
	return worst, at
}

func (s *selector) check(spec *command.Spec, args [][]byte) (Reason, int) {
	if s.flags&selAllCommands == 0 && spec.Flags&command.NoAuth == 0 && !s.bit(spec.ID()) {
		first := s.first[spec.ID()]
		if len(args) < 2 || len(first) == 0 {
			return DeniedCmd, 0
		}
		ok := false
		for _, a := range first {
			if bytes.EqualFold(args[1], []byte(a)) {
				ok = true
				break
			}
		}
		if !ok {
			return DeniedCmd, 0
		}
	}
	if s.flags&selAllKeys == 0 && spec.HasKeys() {
		var buf [8]command.KeyRange
		rs, _ := spec.KeyRanges(args, buf[:0])
		for _, r := range rs {
			need := need(spec.KeyFlagsOf(r, args))
			for i := r.First; i <= r.Last; i += r.Step {
				if !s.keyOK(args[i], need) {
					return DeniedKey, i
				}
			}
		}
	}
	if s.flags&selAllChannels == 0 && spec.Flags&command.PubSub != 0 {
		from, literal := 0, false
		switch command.PubSubOf(spec) {
		case command.PSPublish, command.PSSPublish:
			if !s.channelOK(args[1], false) {
				return DeniedChannel, 1
			}
		case command.PSSubscribe, command.PSSSubscribe:
			from = 1
		case command.PSPSubscribe:
			from, literal = 1, true
		}
		for i := from; from > 0 && i < len(args); i++ {
			if !s.channelOK(args[i], literal) {
				return DeniedChannel, i
			}
		}
	}
	return OK, 0
}

// need is the permission a key's key-spec flags require: ACCESS reads,
// INSERT, DELETE and UPDATE write.
func need(f command.KeyFlag) Perm {
	var p Perm
	if f&command.KeyAccess != 0 {
		p |= PermRead
	}
	if f&(command.KeyInsert|command.KeyDelete|command.KeyUpdate) != 0 {
		p |= PermWrite
	}
	return p
}

// keyOK reports whether a pattern allowing need matches key. A key of 8
// bytes or more is read as a word once, and a prefix pattern whose head
// differs is passed over without a call (the usual case: one user's
// patterns are tenants' prefixes, and most differ from any one key).
func (s *selector) keyOK(key []byte, need Perm) bool {
	var w uint64
	long := len(key) >= 8
	if long {
		w = binary.LittleEndian.Uint64(key)
	}
	for i := range s.keys {
		k := &s.keys[i]
		if k.perm&need != need || long && k.prefix && w&k.mask != k.head {
			continue
		}
		if k.match(key) {
			return true
		}
	}
	return false
}

// channelOK checks a channel (glob-matched by the patterns) or, literal,
// a PSUBSCRIBE pattern (which must be one of the patterns as written).
func (s *selector) channelOK(ch []byte, literal bool) bool {
	for _, p := range s.channels {
		if literal && bytes.Equal(p, ch) || !literal && engine.Match(p, ch, false) {
			return true
		}
	}
	return false
}

// FullReadAccess implements command.UserAccess (Redis's
// ACLUserCheckCmdWithUnrestrictedKeyAccess for reads).
func (u *User) FullReadAccess(spec *command.Spec, args [][]byte) bool {
	for _, s := range u.sels {
		if r, _ := s.check(spec, args); r == OK && s.readsAll() {
			return true
		}
	}
	return false
}

// readsAll reports whether the selector may read every key.
func (s *selector) readsAll() bool {
	if s.flags&selAllKeys != 0 {
		return true
	}
	for _, k := range s.keys {
		if k.perm&PermRead != 0 && string(k.pattern) == "*" {
			return true
		}
	}
	return false
}

// CheckChannel reports whether u may use channel; literal: it is a
// pattern subscription, which a channel pattern must name as written.
func (u *User) CheckChannel(ch []byte, literal bool) bool {
	for _, s := range u.sels {
		if s.flags&selAllChannels != 0 || s.channelOK(ch, literal) {
			return true
		}
	}
	return false
}
