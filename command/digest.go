package command

import (
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"

	"github.com/radish-kv/radish/engine"
)

// DEBUG DIGEST and DEBUG DIGEST-VALUE, with Redis's digest algorithm
// (debug.c), so that the same data gives the same digest on Radish and on
// Redis: a key's digest mixes (SHA1 of the running digest XOR SHA1 of the
// bytes) its name, its type number and its value's elements, XORs in
// (d ^= SHA1 of the bytes) order-free parts (set members, the digests of
// hash fields and values, of sorted-set members and scores), and XORs
// "!!expire!!" when the key has a TTL (not the time). A database's part
// is the XOR of the SHA1s of its keys' digests; the dataset's digest
// mixes each non-empty database's number (big-endian uint32) in
// ascending order, then XORs in that database's part.
//
// Each shard holds part of every database, and XOR is order-free, so the
// shards compute their databases' XORs (cmdDebugDigest) and the router's
// MergeDigest mixes them with DatasetDigest; DIGEST-VALUE runs on every
// shard too, each answering zeros for the keys it does not hold, and
// MergeXor XORs the answers.

// Digest is a SHA1-sized digest.
type Digest [sha1.Size]byte

// xor is Redis's xorDigest: d ^= SHA1(b).
func (d *Digest) xor(b []byte) {
	h := sha1.Sum(b)
	for i := range d {
		d[i] ^= h[i]
	}
}

// mix is Redis's mixDigest: d = SHA1(d ^ SHA1(b)).
func (d *Digest) mix(b []byte) {
	d.xor(b)
	*d = sha1.Sum(d[:])
}

// Xor XORs o into d.
func (d *Digest) Xor(o *Digest) {
	for i := range d {
		d[i] ^= o[i]
	}
}

// digestScore formats a sorted-set score as Redis's digest does
// ("%.17g").
func digestScore(buf []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(buf, "inf"...)
	case math.IsInf(f, -1):
		return append(buf, "-inf"...)
	}
	return strconv.AppendFloat(buf, f, 'g', 17, 64)
}

// keyDigest is Redis's digest of one key (its name mixed in when withName
// is set, as DEBUG DIGEST does and DIGEST-VALUE does not): false when the
// key does not exist.
func keyDigest(db *engine.DB, key []byte, now int64, withName bool) (Digest, bool) {
	var d Digest
	rec, ok := db.Export(key, now)
	if !ok {
		return d, false
	}
	if withName {
		d.mix(key)
	}
	var typ [4]byte
	binary.BigEndian.PutUint32(typ[:], uint32(rec.Type-engine.TypeString))
	if rec.Type == engine.TypeStream {
		binary.BigEndian.PutUint32(typ[:], 6) // OBJ_STREAM; 5 is OBJ_MODULE
	}
	d.mix(typ[:])
	var buf []byte
	switch rec.Type {
	case engine.TypeString:
		d.mix(rec.Data)
	case engine.TypeList:
		rec.Elements(func(m, _ []byte, _ float64) { d.mix(m) })
	case engine.TypeSet:
		rec.Elements(func(m, _ []byte, _ float64) { d.xor(m) })
	case engine.TypeHash, engine.TypeZSet:
		rec.Elements(func(m, v []byte, score float64) {
			var e Digest
			e.mix(m)
			if rec.Type == engine.TypeZSet {
				buf = digestScore(buf[:0], score)
				v = buf
			}
			e.mix(v)
			d.xor(e[:])
		})
	case engine.TypeStream:
		// Each entry's ID as "ms.seq", then its fields and values.
		sr, _ := engine.OpenStreamRecord(rec.Data)
		for id, fv, ok := sr.Next(); ok; id, fv, ok = sr.Next() {
			buf = strconv.AppendUint(buf[:0], id.Ms, 10)
			buf = append(buf, '.')
			d.mix(strconv.AppendUint(buf, id.Seq, 10))
			for _, s := range fv {
				d.mix(s)
			}
		}
	}
	if rec.ExpireAt > 0 {
		d.xor([]byte("!!expire!!"))
	}
	return d, true
}

// DatasetDigest is Redis's computeDatasetDigest from the XOR of each
// database's key digests: dbs[i] is database i's, present[i] whether it
// holds any key.
func DatasetDigest(dbs []Digest, present []bool) Digest {
	var final Digest
	for i := range dbs {
		if !present[i] {
			continue
		}
		var id [4]byte
		binary.BigEndian.PutUint32(id[:], uint32(i))
		final.mix(id[:])
		final.Xor(&dbs[i])
	}
	return final
}

// cmdDebugDigest is this shard's part of DEBUG DIGEST: an array with one
// element per database, null when the shard holds no key of it, else the
// XOR of the SHA1s of its keys' digests in hex (MergeDigest combines the parts).
func cmdDebugDigest(c *Ctx, args [][]byte) {
	if len(args) != 2 {
		kvDebugSyntax(c, args)
		return
	}
	n := c.Store.Databases()
	c.W.Array(n)
	var keys [][]byte
	for i := range n {
		db := c.Store.DB(i)
		keys = keys[:0]
		db.Keys([]byte("*"), c.Now, func(k []byte) bool {
			keys = append(keys, append([]byte(nil), k...))
			return true
		})
		if len(keys) == 0 {
			c.W.Null()
			continue
		}
		var x Digest
		for _, k := range keys {
			if d, ok := keyDigest(db, k, c.Now, true); ok {
				x.xor(d[:])
			}
		}
		c.W.Simple(hex.EncodeToString(x[:]))
	}
}

// cmdDebugDigestValue is DEBUG DIGEST-VALUE key [key ...] on one shard:
// each key's value digest in hex, zeros for a key this shard does not
// hold (MergeXor combines the shards' answers).
func cmdDebugDigestValue(c *Ctx, args [][]byte) {
	c.W.Array(len(args) - 2)
	for _, k := range args[2:] {
		d, _ := keyDigest(c.DB, k, c.Now, false)
		c.W.Simple(hex.EncodeToString(d[:]))
	}
}
