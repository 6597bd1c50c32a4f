package rdb

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/lzf"
	"github.com/radish-kv/radish/num"
)

// Encoder writes values in the RDB object encoding of version 10, the
// encodings Redis 7.0 picks for the same contents and limits. It keeps
// scratch buffers between calls and belongs to one goroutine.
type Encoder struct {
	// Limits are the thresholds of the compact encodings: the server's, as
	// the engine uses them (see engine.Limits).
	Limits engine.Limits
	// Compress is rdbcompression: strings (and listpacks) over 20 bytes
	// are stored LZF-compressed when that makes them shorter.
	Compress bool

	lzf     *lzf.Table
	lp      lpWriter
	scratch []byte
	elems   []int
}

// NewEncoder returns an Encoder for the given limits, compressing as
// Redis does by default.
func NewEncoder(lim engine.Limits) *Encoder {
	return &Encoder{Limits: lim, Compress: true}
}

// AppendLen appends n in RDB's length encoding: 6 bits in one byte, 14
// bits in two, then 0x80 and 32 bits or 0x81 and 64 bits, big endian.
func AppendLen(dst []byte, n uint64) []byte {
	switch {
	case n < 1<<6:
		return append(dst, byte(n))
	case n < 1<<14:
		return append(dst, 0x40|byte(n>>8), byte(n))
	case n <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(dst, 0x80), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(dst, 0x81), n)
}

// AppendString appends s as rdbSaveRawString does: a canonical integer of
// up to 11 characters that fits 32 bits as an integer encoding, else (with
// Compress, over 20 bytes, when it saves at least 4 bytes) LZF, else the
// length and the bytes.
func (e *Encoder) AppendString(dst, s []byte) []byte {
	if len(s) <= 11 {
		if v, ok := num.ParseInt(s); ok {
			switch {
			case v >= math.MinInt8 && v <= math.MaxInt8:
				return append(dst, 0xc0|encInt8, byte(v))
			case v >= math.MinInt16 && v <= math.MaxInt16:
				return binary.LittleEndian.AppendUint16(append(dst, 0xc0|encInt16), uint16(v))
			case v >= math.MinInt32 && v <= math.MaxInt32:
				return binary.LittleEndian.AppendUint32(append(dst, 0xc0|encInt32), uint32(v))
			}
		}
	}
	if e.Compress && len(s) > 20 {
		if e.lzf == nil {
			e.lzf = new(lzf.Table)
		}
		if c, ok := e.lzf.Compress(e.scratch[:0], s, len(s)-4); ok {
			e.scratch = c
			dst = append(dst, 0xc0|encLZF)
			dst = AppendLen(dst, uint64(len(c)))
			dst = AppendLen(dst, uint64(len(s)))
			return append(dst, c...)
		}
	}
	return append(AppendLen(dst, uint64(len(s))), s...)
}

// Type returns the RDB type AppendObject writes r as.
func (e *Encoder) Type(r engine.Record) byte {
	switch r.Type {
	case engine.TypeString:
		return TypeString
	case engine.TypeList:
		return TypeListQuicklist2
	case engine.TypeSet:
		if e.intset(r) {
			return TypeSetIntset
		}
		return TypeSet
	case engine.TypeHash:
		if !r.Raw && e.small(r, e.Limits.HashMaxListpackEntries, e.Limits.HashMaxListpackValue, true) {
			return TypeHashListpack
		}
		return TypeHash
	case engine.TypeZSet:
		if !r.Raw && e.small(r, e.Limits.ZSetMaxListpackEntries, e.Limits.ZSetMaxListpackValue, false) {
			return TypeZSetListpack
		}
		return TypeZSet2
	case engine.TypeStream:
		return TypeStreamListpacks2
	}
	panic("rdb: record of unknown type")
}

// intset reports whether set record r is an intset in Redis 7.0: not
// converted, every member a canonical integer, few enough.
func (e *Encoder) intset(r engine.Record) bool {
	if r.Raw || r.Elements(nil) > e.Limits.SetMaxIntsetEntries {
		return false
	}
	ok := true
	r.Elements(func(m, _ []byte, _ float64) {
		if _, isInt := num.ParseInt(m); !isInt {
			ok = false
		}
	})
	return ok
}

// small reports whether a hash (vals) or sorted set record fits a
// listpack under the given limits.
func (e *Encoder) small(r engine.Record, entries, value int, vals bool) bool {
	if r.Elements(nil) > entries {
		return false
	}
	ok := true
	r.Elements(func(m, v []byte, _ float64) {
		if len(m) > value || (vals && len(v) > value) {
			ok = false
		}
	})
	return ok
}

// AppendValue appends r's type byte and object encoding (what DUMP's
// payload starts with).
func (e *Encoder) AppendValue(dst []byte, r engine.Record) []byte {
	return e.AppendObject(append(dst, e.Type(r)), r)
}

// AppendObject appends the object encoding of r, of type e.Type(r) (the
// byte is not written: in a file the key comes between them). r must be a
// valid record of a non-empty value.
func (e *Encoder) AppendObject(dst []byte, r engine.Record) []byte {
	t := e.Type(r)
	switch t {
	case TypeString:
		return e.AppendString(dst, r.Data)
	case TypeListQuicklist2:
		return e.appendList(dst, r)
	case TypeSetIntset:
		return e.appendIntset(dst, r)
	case TypeHashListpack:
		e.lp.reset(e.lp.buf)
		r.Elements(func(f, v []byte, _ float64) {
			e.lp.add(f)
			e.lp.add(v)
		})
		return e.AppendString(dst, e.lp.finish())
	case TypeZSetListpack:
		return e.appendZSetListpack(dst, r)
	case TypeStreamListpacks2:
		return e.appendStream(dst, r)
	case TypeZSet2:
		// Highest score first, as Redis writes it (its loader then inserts
		// each at the head).
		e.elems = e.elems[:0]
		dst = AppendLen(dst, uint64(r.Elements(nil)))
		start := len(dst)
		r.Elements(func(m, _ []byte, s float64) {
			e.elems = append(e.elems, len(dst))
			dst = e.AppendString(dst, m)
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(s))
		})
		// Reverse the elements in place, through scratch.
		body := append(e.scratch[:0], dst[start:]...)
		e.scratch = body
		dst = dst[:start]
		end := len(body)
		for i := len(e.elems) - 1; i >= 0; i-- {
			o := e.elems[i] - start
			dst = append(dst, body[o:end]...)
			end = o
		}
		return dst
	}
	// Plain set or hash: a count, then each string.
	dst = AppendLen(dst, uint64(r.Elements(nil)))
	r.Elements(func(m, v []byte, _ float64) {
		dst = e.AppendString(dst, m)
		if t == TypeHash {
			dst = e.AppendString(dst, v)
		}
	})
	return dst
}

// appendList writes a quicklist of listpack nodes, split where Redis 7.0
// splits a list built by pushes at the tail (_quicklistNodeAllowInsert
// with list-max-listpack-size as fill), and an element of at least the
// packed threshold as a plain node of its own, after which a new node
// starts (_quicklistPush, __quicklistInsertPlainNode).
func (e *Encoder) appendList(dst []byte, r engine.Record) []byte {
	fill := min(max(e.Limits.ListMaxListpackSize, -5), 1<<15-1)
	large := largeElement()
	// First pass: node sizes, to write the node count first; a plain
	// node counts 0.
	e.elems = e.elems[:0] // elements per node
	sz, cnt := 0, 0
	r.Elements(func(v, _ []byte, _ float64) {
		if len(v) >= large {
			if cnt > 0 {
				e.elems = append(e.elems, cnt)
			}
			e.elems = append(e.elems, 0)
			cnt = 0
			return
		}
		if cnt == 0 || !allowInsert(sz, cnt, len(v), fill) {
			if cnt > 0 {
				e.elems = append(e.elems, cnt)
			}
			sz, cnt = lpHdr+1, 0
		}
		sz += lpEntrySize(v)
		cnt++
	})
	if cnt > 0 {
		e.elems = append(e.elems, cnt)
	}
	dst = AppendLen(dst, uint64(len(e.elems)))
	node, left := 0, e.elems[0]
	e.lp.reset(e.lp.buf)
	r.Elements(func(v, _ []byte, _ float64) {
		if left == 0 {
			dst = AppendLen(dst, containerPlain)
			dst = e.AppendString(dst, v)
		} else {
			e.lp.add(v)
			if left--; left > 0 {
				return
			}
			dst = AppendLen(dst, containerPacked)
			dst = e.AppendString(dst, e.lp.finish())
			e.lp.reset(e.lp.buf)
		}
		if node++; node < len(e.elems) {
			left = e.elems[node]
		}
	})
	return dst
}

// allowInsert is Redis 7.0's test for adding an element of sz bytes to a
// node of nodeSz bytes and count elements (_quicklistNodeAllowInsert): its
// size estimate (8 bytes of overhead) within the byte limit of a negative
// fill, or, under the 8 KiB safety limit, at most fill elements (at least
// one per node).
func allowInsert(nodeSz, count, sz, fill int) bool {
	newSz := nodeSz + sz + 8
	if fill < 0 {
		return newSz <= 4096<<(-fill-1)
	}
	return newSz <= 8192 && count+1 <= max(fill, 1)
}

func (e *Encoder) appendIntset(dst []byte, r engine.Record) []byte {
	vals := make([]int64, 0, r.Elements(nil))
	r.Elements(func(m, _ []byte, _ float64) {
		v, _ := num.ParseInt(m)
		vals = append(vals, v)
	})
	slices.Sort(vals)
	w := 2
	for _, v := range vals {
		switch {
		case v < math.MinInt32 || v > math.MaxInt32:
			w = 8
		case (v < math.MinInt16 || v > math.MaxInt16) && w < 4:
			w = 4
		}
	}
	b := binary.LittleEndian.AppendUint32(e.scratch[:0], uint32(w))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(vals)))
	for _, v := range vals {
		switch w {
		case 2:
			b = binary.LittleEndian.AppendUint16(b, uint16(v))
		case 4:
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		default:
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
	}
	// AppendString compresses through scratch: hand it a copy.
	e.lp.buf = append(e.lp.buf[:0], b...)
	e.scratch = b
	return e.AppendString(dst, e.lp.buf)
}

type zelem struct {
	m []byte
	s float64
}

// appendZSetListpack writes member, score pairs ordered by score then
// member; the score as zzlInsertAt stores it (see appendScore).
func (e *Encoder) appendZSetListpack(dst []byte, r engine.Record) []byte {
	els := make([]zelem, 0, r.Elements(nil))
	r.Elements(func(m, _ []byte, s float64) { els = append(els, zelem{m, s}) })
	slices.SortStableFunc(els, func(a, b zelem) int {
		if a.s != b.s {
			if a.s < b.s {
				return -1
			}
			return 1
		}
		return bytes.Compare(a.m, b.m)
	})
	e.lp.reset(e.lp.buf)
	for _, el := range els {
		e.lp.add(el.m)
		e.appendScore(el.s)
	}
	return e.AppendString(dst, e.lp.finish())
}

// appendScore adds a sorted-set score to the listpack being built: an
// integral score within ±2^62 (Redis's double2ll; -0 too) as an integer
// entry, any other as its "%.17g" text (Redis 7.0's d2string; "inf").
func (e *Encoder) appendScore(s float64) {
	if s == math.Trunc(s) && s >= -(1<<62) && s <= 1<<62 {
		e.lp.addInt(int64(s))
		return
	}
	e.scratch = num.AppendDouble(e.scratch[:0], s)
	e.lp.add(e.scratch)
}
