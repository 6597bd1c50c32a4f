package rdb

import (
	"encoding/binary"
	"math"
	"strconv"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/lzf"
	"github.com/radish-kv/radish/num"
)

// Reader reads RDB values from a byte slice (a DUMP payload, later a
// mapped file) from its current offset. Every length it reads is checked
// against the bytes that remain before anything is allocated for it. A
// slice it returns aliases the input or its own scratch buffer: valid
// until its next call.
type Reader struct {
	b   []byte
	off int
	buf []byte // LZF output and formatted integers
}

// NewReader returns a Reader at the start of b.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// Offset returns how many bytes have been read.
func (r *Reader) Offset() int { return r.off }

func (r *Reader) remaining() int { return len(r.b) - r.off }

var errTruncated = errFormat("truncated")

// ReadByte reads one byte (an object type, an opcode).
func (r *Reader) ReadByte() (byte, error) {
	if r.off >= len(r.b) {
		return 0, errTruncated
	}
	c := r.b[r.off]
	r.off++
	return c, nil
}

// ReadFull reads n bytes (an expiry, a header); the slice aliases the
// input.
func (r *Reader) ReadFull(n int) ([]byte, error) { return r.take(n) }

func (r *Reader) take(n int) ([]byte, error) {
	if n < 0 || n > r.remaining() {
		return nil, errTruncated
	}
	s := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return s, nil
}

// ReadLen reads a length (see AppendLen); encoded reports a string
// encoding byte 11xxxxxx instead, with the encoding in n.
func (r *Reader) ReadLen() (n uint64, encoded bool, err error) {
	c, err := r.ReadByte()
	if err != nil {
		return 0, false, err
	}
	switch c >> 6 {
	case 0:
		return uint64(c & 0x3f), false, nil
	case 1:
		d, err := r.ReadByte()
		if err != nil {
			return 0, false, err
		}
		return uint64(c&0x3f)<<8 | uint64(d), false, nil
	case 3:
		return uint64(c & 0x3f), true, nil
	}
	switch c {
	case 0x80:
		b, err := r.take(4)
		if err != nil {
			return 0, false, err
		}
		return uint64(binary.BigEndian.Uint32(b)), false, nil
	case 0x81:
		b, err := r.take(8)
		if err != nil {
			return 0, false, err
		}
		return binary.BigEndian.Uint64(b), false, nil
	}
	return 0, false, errFormat("bad length encoding")
}

// count reads an element count: at least 1, and no more than the bytes
// left (every element takes one at least).
func (r *Reader) count() (int, error) {
	n, enc, err := r.ReadLen()
	switch {
	case err != nil:
		return 0, err
	case enc:
		return 0, errFormat("encoded length")
	case n == 0:
		return 0, errFormat("empty value")
	case n > uint64(r.remaining()):
		return 0, errTruncated
	}
	return int(n), nil
}

// ReadString reads a string in any of its encodings (plain, integer,
// LZF). The result aliases the input or the Reader's scratch buffer.
func (r *Reader) ReadString() ([]byte, error) {
	n, enc, err := r.ReadLen()
	if err != nil {
		return nil, err
	}
	if !enc {
		if n > uint64(r.remaining()) {
			return nil, errTruncated
		}
		return r.take(int(n))
	}
	switch n {
	case encInt8:
		b, err := r.take(1)
		if err != nil {
			return nil, err
		}
		return r.formatInt(int64(int8(b[0]))), nil
	case encInt16:
		b, err := r.take(2)
		if err != nil {
			return nil, err
		}
		return r.formatInt(int64(int16(binary.LittleEndian.Uint16(b)))), nil
	case encInt32:
		b, err := r.take(4)
		if err != nil {
			return nil, err
		}
		return r.formatInt(int64(int32(binary.LittleEndian.Uint32(b)))), nil
	case encLZF:
		clen, e1, err := r.ReadLen()
		if err != nil {
			return nil, err
		}
		ulen, e2, err := r.ReadLen()
		if err != nil {
			return nil, err
		}
		// A back reference of 3 bytes gives at most 264: no more than 88
		// bytes out per byte in.
		if e1 || e2 || clen == 0 || clen > uint64(r.remaining()) || ulen == 0 || ulen > 88*clen {
			return nil, errFormat("bad LZF lengths")
		}
		c, _ := r.take(int(clen))
		out, err := lzf.Decompress(r.buf[:0], c, int(ulen))
		if err != nil {
			return nil, errFormat("bad LZF data")
		}
		r.buf = out
		return out, nil
	}
	return nil, errFormat("unknown string encoding")
}

func (r *Reader) formatInt(v int64) []byte {
	r.buf = strconv.AppendInt(r.buf[:0], v, 10)
	return r.buf
}

// readBinaryDouble reads a score of RDB_TYPE_ZSET_2: 8 bytes, little
// endian.
func (r *Reader) readBinaryDouble() (float64, error) {
	b, err := r.take(8)
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
}

// readTextDouble reads a score of RDB_TYPE_ZSET: a length byte (253 NaN,
// 254 +inf, 255 -inf) and that many bytes of text.
func (r *Reader) readTextDouble() (float64, error) {
	n, err := r.ReadByte()
	if err != nil {
		return 0, err
	}
	switch n {
	case 253:
		return math.NaN(), nil
	case 254:
		return math.Inf(1), nil
	case 255:
		return math.Inf(-1), nil
	}
	b, err := r.take(int(n))
	if err != nil {
		return 0, err
	}
	return parseScore(b)
}

// parseScore reads a score stored as text (strtod's grammar).
func parseScore(b []byte) (float64, error) {
	f, _, ok := num.ParseStrtod(b)
	if !ok {
		return 0, errFormat("bad score")
	}
	return f, nil
}

// ReadObject reads the object encoding of a value of RDB type t (the type
// byte already read) into a Record of the engine's serialization, with
// Data a fresh slice and neither Raw nor Text set: the engine gives the
// value the encoding its contents call for, as Redis does on load.
// Duplicate members, fields or elements, empty values and NaN scores are
// errors, as are the types Radish does not have (UnsupportedError).
func (r *Reader) ReadObject(t byte) (engine.Record, error) {
	switch t {
	case TypeString:
		s, err := r.ReadString()
		if err != nil {
			return engine.Record{}, err
		}
		return engine.Record{Type: engine.TypeString, Data: append([]byte(nil), s...)}, nil
	case TypeModulePreGA, TypeModule2:
		return engine.Record{}, &UnsupportedError{Type: t}
	case TypeStreamListpacks, TypeStreamListpacks2, TypeStreamListpacks3:
		return r.readStream(t)
	}
	if t >= TypeHashMetadata && t <= typeLast {
		return engine.Record{}, &UnsupportedError{Type: t}
	}
	var b builder
	var err error
	switch t {
	case TypeList:
		b.start(engine.TypeList)
		err = r.eachString(1, b.add)
	case TypeSet:
		b.start(engine.TypeSet)
		err = r.eachString(1, b.addUnique)
	case TypeHash:
		b.start(engine.TypeHash)
		err = r.eachString(2, b.addPairs)
	case TypeZSet, TypeZSet2:
		b.start(engine.TypeZSet)
		err = r.readZSet(&b, t == TypeZSet2)
	case TypeHashZipmap:
		b.start(engine.TypeHash)
		err = r.blob(func(s []byte) (int, error) {
			return zipmapEach(s, func(f, v []byte) error {
				if err := b.addPairs(f); err != nil {
					return err
				}
				return b.addPairs(v)
			})
		})
	case TypeListZiplist:
		b.start(engine.TypeList)
		err = r.blob(func(s []byte) (int, error) { return zlEach(s, b.add) })
	case TypeSetIntset:
		b.start(engine.TypeSet)
		err = r.blob(func(s []byte) (int, error) { return intsetEach(s, b.add) })
	case TypeZSetZiplist:
		b.start(engine.TypeZSet)
		err = r.blob(func(s []byte) (int, error) { return zlEach(s, b.addScored) })
	case TypeHashZiplist:
		b.start(engine.TypeHash)
		err = r.blob(func(s []byte) (int, error) { return zlEach(s, b.addPairs) })
	case TypeHashListpack:
		b.start(engine.TypeHash)
		err = r.blob(func(s []byte) (int, error) { return lpEach(s, b.addPairs) })
	case TypeZSetListpack:
		b.start(engine.TypeZSet)
		err = r.blob(func(s []byte) (int, error) { return lpEach(s, b.addScored) })
	case TypeSetListpack:
		b.start(engine.TypeSet)
		err = r.blob(func(s []byte) (int, error) { return lpEach(s, b.addUnique) })
	case TypeListQuicklist, TypeListQuicklist2:
		b.start(engine.TypeList)
		err = r.readQuicklist(&b, t == TypeListQuicklist2)
	default:
		return engine.Record{}, errFormat("unknown value type " + strconv.Itoa(int(t)))
	}
	if err != nil {
		return engine.Record{}, err
	}
	return b.finish()
}

// eachString reads a count of groups of per strings and passes each string
// to fn.
func (r *Reader) eachString(per int, fn func([]byte) error) error {
	n, err := r.count()
	if err != nil {
		return err
	}
	for i := 0; i < n*per; i++ {
		s, err := r.ReadString()
		if err != nil {
			return err
		}
		if err := fn(s); err != nil {
			return err
		}
	}
	return nil
}

func (r *Reader) readZSet(b *builder, binary bool) error {
	n, err := r.count()
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		m, err := r.ReadString()
		if err != nil {
			return err
		}
		if err := b.addUnique(m); err != nil {
			return err
		}
		var s float64
		if binary {
			s, err = r.readBinaryDouble()
		} else {
			s, err = r.readTextDouble()
		}
		if err != nil {
			return err
		}
		if err := b.score(s); err != nil {
			return err
		}
	}
	return nil
}

// blob reads a string holding a compact structure and walks it with each,
// which returns the number of elements it saw.
func (r *Reader) blob(each func([]byte) (int, error)) error {
	s, err := r.ReadString()
	if err != nil {
		return err
	}
	_, err = each(s)
	return err
}

// readQuicklist reads a list of nodes: ziplists (RDB_TYPE_LIST_QUICKLIST)
// or, in version 2, a container then a listpack or one plain element.
// Empty nodes are skipped, as Redis does.
func (r *Reader) readQuicklist(b *builder, v2 bool) error {
	n, err := r.count()
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		container := uint64(containerPacked)
		if v2 {
			c, enc, err := r.ReadLen()
			if err != nil {
				return err
			}
			if enc || (c != containerPlain && c != containerPacked) {
				return errFormat("bad quicklist container")
			}
			container = c
		}
		s, err := r.ReadString()
		if err != nil {
			return err
		}
		switch {
		case container == containerPlain:
			err = b.add(s)
		case v2:
			_, err = lpEach(s, b.add)
		default:
			_, err = zlEach(s, b.add)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// builder writes a Record (engine.RecordBuilder) and checks what it is
// given: no duplicate member or field, no NaN score, pairs complete.
type builder struct {
	engine.RecordBuilder
	odd  bool // a pair's first half was added
	seen map[string]struct{}
}

func (b *builder) start(t engine.Type) {
	b.Start(t)
}

func (b *builder) add(s []byte) error {
	b.Add(s)
	return nil
}

// addUnique adds a set member or a sorted-set member; a repeated one is
// an error.
func (b *builder) addUnique(s []byte) error {
	if b.seen == nil {
		b.seen = make(map[string]struct{})
	}
	if _, dup := b.seen[string(s)]; dup {
		return errFormat("duplicate member")
	}
	b.seen[string(s)] = struct{}{}
	return b.add(s)
}

// addPairs takes a hash's fields and values in turn.
func (b *builder) addPairs(s []byte) error {
	if b.odd {
		b.odd = false
		b.Value(s)
		return nil
	}
	b.odd = true
	return b.addUnique(s)
}

// addScored takes a sorted set's members and scores (as text or integer
// entries) in turn.
func (b *builder) addScored(s []byte) error {
	if b.odd {
		b.odd = false
		f, err := parseScore(s)
		if err != nil {
			return err
		}
		return b.score(f)
	}
	b.odd = true
	return b.addUnique(s)
}

func (b *builder) score(s float64) error {
	if math.IsNaN(s) {
		return errFormat("NaN score")
	}
	b.Score(s)
	return nil
}

func (b *builder) finish() (engine.Record, error) {
	if b.odd {
		return engine.Record{}, errFormat("odd number of elements")
	}
	if b.Len() == 0 {
		return engine.Record{}, errFormat("empty value")
	}
	return b.Record(), nil
}
