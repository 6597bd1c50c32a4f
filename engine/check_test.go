package engine

import (
	"fmt"

	"github.com/radish-kv/radish/engine/slab"
)

// checkDB verifies the tree's invariants and the DB's counters; it returns
// the first violation found.
func checkDB(db *DB) error {
	keys, ttls := 0, 0
	var prev []byte
	var walk func(h slab.Handle, path []byte) error
	walk = func(h slab.Handle, path []byte) error {
		if !db.s.slab.Valid(h) {
			return fmt.Errorf("handle %x not live", h)
		}
		p := db.ptr(h)
		if isLeaf(p) {
			l := db.readLeaf(h)
			if !hasPrefix(l.key, path) {
				return fmt.Errorf("leaf %q under path %q", l.key, path)
			}
			if prev != nil && string(l.key) <= string(prev) {
				return fmt.Errorf("order: %q after %q", l.key, prev)
			}
			prev = append(prev[:0], l.key...)
			if prev == nil {
				prev = []byte{}
			}
			keys++
			if l.hasTTL() != db.s.slab.Tagged(h) {
				return fmt.Errorf("leaf %q ttl %v tagged %v", l.key, l.hasTTL(), db.s.slab.Tagged(h))
			}
			if l.hasTTL() {
				ttls++
			}
			if need := leafSize(len(l.key), l.hasTTL(), ptrValue(&l)); slab.Class(need) != slab.HandleClass(h) {
				return fmt.Errorf("leaf %q in class %d, needs %d", l.key, slab.HandleClass(h), slab.Class(need))
			}
			return nil
		}
		hd := hdrOf(p)
		if hd.kind < nodeN10 || hd.kind > nodeN256 {
			return fmt.Errorf("bad kind %d", hd.kind)
		}
		k := &kinds[hd.kind]
		if slab.ClassSize(slab.HandleClass(h)) < k.size {
			return fmt.Errorf("node kind %d in class size %d", hd.kind, slab.ClassSize(slab.HandleClass(h)))
		}
		entries := int(hd.count)
		if hd.end != slab.Nil {
			entries++
		}
		if entries < 2 {
			return fmt.Errorf("node at %q has %d entries", path, entries)
		}
		if int(hd.count) > k.cap {
			return fmt.Errorf("node over capacity")
		}
		if hd.kind > nodeN10 && int(hd.count) <= shrinkAt[hd.kind] {
			return fmt.Errorf("node kind %d with %d children not shrunk", hd.kind, hd.count)
		}
		// The prefix: inline bytes must equal the min leaf's bytes.
		ml := leafKey(db.minLeaf(h))
		plen := int(hd.plen)
		if len(ml) < len(path)+plen {
			return fmt.Errorf("min leaf %q shorter than path %q + %d", ml, path, plen)
		}
		pf := ml[len(path) : len(path)+plen]
		if in := inlinePrefix(p); string(in) != string(pf[:len(in)]) {
			return fmt.Errorf("inline prefix %q, keys say %q", in, pf)
		}
		np := append(append([]byte(nil), path...), pf...)
		if hd.end != slab.Nil {
			ep := db.ptr(hd.end)
			if !isLeaf(ep) || string(leafKey(ep)) != string(np) {
				return fmt.Errorf("end leaf of %q wrong", np)
			}
			if err := walk(hd.end, np); err != nil {
				return err
			}
		}
		last := -1
		var err error
		n := 0
		forEachChild(p, func(c byte, ch slab.Handle) bool {
			n++
			if int(c) <= last {
				err = fmt.Errorf("child order")
				return false
			}
			last = int(c)
			if findChild(p, c) == nil || *findChild(p, c) != ch {
				err = fmt.Errorf("findChild(%d) disagrees", c)
				return false
			}
			err = walk(ch, append(append([]byte(nil), np...), c))
			return err == nil
		})
		if err == nil && n != int(hd.count) {
			err = fmt.Errorf("count %d, %d children", hd.count, n)
		}
		return err
	}
	if db.root != slab.Nil {
		if err := walk(db.root, nil); err != nil {
			return err
		}
	}
	if keys != db.keys || ttls != db.expires {
		return fmt.Errorf("counted %d keys %d ttl, DB says %d %d", keys, ttls, db.keys, db.expires)
	}
	return nil
}

func ptrValue(l *leaf) *value {
	v := valueOf(l)
	return &v
}

func dumpTree(db *DB, h slab.Handle, indent string) string {
	if h == slab.Nil {
		return indent + "nil\n"
	}
	p := db.ptr(h)
	if isLeaf(p) {
		return fmt.Sprintf("%sleaf %q\n", indent, leafKey(p))
	}
	hd := hdrOf(p)
	s := fmt.Sprintf("%snode kind %d plen %d inline %q count %d\n", indent, hd.kind, hd.plen, inlinePrefix(p), hd.count)
	if hd.end != slab.Nil {
		s += indent + " end:\n" + dumpTree(db, hd.end, indent+"  ")
	}
	forEachChild(p, func(c byte, ch slab.Handle) bool {
		s += fmt.Sprintf("%s [%q]:\n", indent, c) + dumpTree(db, ch, indent+"  ")
		return true
	})
	return s
}
