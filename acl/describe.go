package acl

import (
	"math"
	"strings"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/net/resp"
)

// describeCommands is a selector's command rules as ACL LIST and ACL
// GETUSER print them: +@all or -@all (whether future commands are
// allowed), then the categories that fit best, then single commands, as
// Redis 7.0's ACLDescribeSelectorCommandRules computes them. Applying the
// result to an empty selector gives the same bitmap.
func (s *selector) describeCommands() string {
	var b strings.Builder
	fake := &selector{cmds: make([]uint64, len(s.cmds))}
	additive := !s.bit(catalog.future)
	if additive {
		b.WriteString("-@all ")
	} else {
		b.WriteString("+@all ")
		fake.all(true)
	}
	temp := &selector{cmds: append([]uint64(nil), s.cmds...)}
	var applied [32]bool
	for {
		best, minDiff, maxSame := -1, math.MaxInt, 0
		for j := range Categories {
			if applied[j] {
				continue
			}
			on, off := temp.count(1 << j)
			diff, same := off, on
			if !additive {
				diff, same = on, off
			}
			if same > diff && (diff < minDiff || diff == minDiff && same > maxSame) {
				best, minDiff, maxSame = j, diff, same
			}
		}
		if best < 0 {
			break
		}
		fake.changeCategory(1<<best, additive)
		temp.changeCategory(1<<best, !additive)
		if additive {
			b.WriteString("+@")
		} else {
			b.WriteString("-@")
		}
		b.WriteString(Categories[best])
		b.WriteByte(' ')
		applied[best] = true
	}
	walk(func(spec *command.Spec) {
		id := spec.ID()
		if user := s.bit(id); user != fake.bit(id) {
			if user {
				b.WriteByte('+')
			} else {
				b.WriteByte('-')
			}
			b.WriteString(spec.Name)
			b.WriteByte(' ')
			fake.change(spec, user)
		}
		if !s.bit(id) {
			for _, a := range s.first[id] {
				b.WriteString("+" + spec.Name + "|" + a + " ")
			}
		}
	})
	return strings.TrimSuffix(b.String(), " ")
}

// count counts the commands of category b this selector allows and denies.
func (s *selector) count(b uint32) (on, off int) {
	for id, c := range catalog.cats {
		if c&b != 0 {
			if s.bit(id) {
				on++
			} else {
				off++
			}
		}
	}
	return on, off
}

func (k keyPattern) String() string {
	switch k.perm {
	case PermRead:
		return "%R~" + string(k.pattern)
	case PermWrite:
		return "%W~" + string(k.pattern)
	}
	return "~" + string(k.pattern)
}

// keysText is the selector's key patterns joined by spaces (ACL GETUSER).
func (s *selector) keysText() string {
	if s.flags&selAllKeys != 0 {
		return "~*"
	}
	parts := make([]string, len(s.keys))
	for i, k := range s.keys {
		parts[i] = k.String()
	}
	return strings.Join(parts, " ")
}

// channelsText is the selector's channel patterns joined by spaces.
func (s *selector) channelsText() string {
	if s.flags&selAllChannels != 0 {
		return "&*"
	}
	parts := make([]string, len(s.channels))
	for i, c := range s.channels {
		parts[i] = "&" + string(c)
	}
	return strings.Join(parts, " ")
}

// describe is the selector as ACL LIST prints it.
func (s *selector) describe() string {
	var b strings.Builder
	if s.flags&selAllKeys != 0 {
		b.WriteString("~* ")
	} else {
		for _, k := range s.keys {
			b.WriteString(k.String())
			b.WriteByte(' ')
		}
	}
	if s.flags&selAllChannels != 0 {
		b.WriteString("&* ")
	} else {
		b.WriteString("resetchannels ")
		for _, c := range s.channels {
			b.WriteString("&" + string(c) + " ")
		}
	}
	b.WriteString(s.describeCommands())
	return b.String()
}

// Describe is the user's rules as ACL LIST prints them (after "user
// <name> "): applied to a new user, they give this one.
func (u *User) Describe() string {
	var b strings.Builder
	for _, f := range userFlagNames {
		if u.flags&f.f != 0 {
			b.WriteString(f.name + " ")
		}
	}
	for _, p := range u.passwords {
		b.WriteString("#" + p + " ")
	}
	for i, s := range u.sels {
		if i == 0 {
			b.WriteString(s.describe())
		} else {
			b.WriteString(" (" + s.describe() + ")")
		}
	}
	return b.String()
}

// WriteGetUser writes ACL GETUSER's reply for u.
func (u *User) WriteGetUser(w *resp.Writer) {
	w.Map(6)
	w.BulkString("flags")
	n := 0
	for _, f := range userFlagNames {
		if u.flags&f.f != 0 {
			n++
		}
	}
	w.Set(n)
	for _, f := range userFlagNames {
		if u.flags&f.f != 0 {
			w.BulkString(f.name)
		}
	}
	w.BulkString("passwords")
	w.Array(len(u.passwords))
	for _, p := range u.passwords {
		w.BulkString(p)
	}
	u.sels[0].writeFields(w)
	w.BulkString("selectors")
	w.Array(len(u.sels) - 1)
	for _, s := range u.sels[1:] {
		w.Map(3)
		s.writeFields(w)
	}
}

func (s *selector) writeFields(w *resp.Writer) {
	w.BulkString("commands")
	w.BulkString(s.describeCommands())
	w.BulkString("keys")
	w.BulkString(s.keysText())
	w.BulkString("channels")
	w.BulkString(s.channelsText())
}
