package engine

import "github.com/radish-kv/radish/engine/slab"

// Exporter receives the keys of ExportAfter.
type Exporter interface {
	// Export is given a live key and its value as ExportAppend gives it;
	// it returns whether the walk goes on. key and r.Data are borrowed for
	// the call, and it must not modify the Store.
	Export(key []byte, r Record, idle int64, freq int) bool
}

// ExportAfter hands to e every live key after from (every key when
// hasFrom is false), in lexicographic order, with its value, until
// e.Export returns false: one walk of the tree, no lookup per key (a
// snapshot's writer). The values' bytes are written over buf, which
// ExportAfter returns as it grew, for reuse. It allocates nothing.
func (db *DB) ExportAfter(from []byte, hasFrom bool, now int64, buf []byte, e Exporter) []byte {
	db.s.seen(now)
	w := &db.w
	w.reset(db, now)
	w.bound, w.hasBound = from, hasFrom
	w.exp, w.buf = e, buf
	w.run()
	buf = w.buf
	w.exp, w.buf = nil, nil
	return buf
}

// exportLeaf is ExportAppend of the live leaf h.
func (db *DB) exportLeaf(h slab.Handle, dst []byte) (r Record, idle int64, freq int, out []byte) {
	l := db.readLeaf(h)
	r = Record{Type: leafTyp(l.flags), ExpireAt: l.expireAt()}
	start := len(dst)
	if r.Type != TypeString {
		x, _ := l.extRef()
		dst = objTypes[r.Type].export(db, l.enc(), x, dst)
		r.Raw = l.enc() == encHashtable || l.enc() == encSkiplist
	} else {
		dst = append(dst, db.stringBytes(&l)...)
		r.Raw, r.Text = l.enc() == encRaw, l.enc() == encEmbstr
	}
	r.Data = dst[start:]
	clock := getClock(l.b)
	return r, int64(db.s.idleMs(clock) / 1000), int(db.s.lfuDecr(clock)), dst
}

// ImportNew is Import of a key the caller knows db does not hold (a load
// in key order into an empty database: each key is past the last one):
// the key is linked into the tree in one walk, without looking it up
// first. A key db holds would be linked twice: the tree would be broken.
func (db *DB) ImportNew(key []byte, r Record) {
	db.absent = true
	db.Import(key, r)
	db.absent = false
}
