package rdb

import (
	"encoding/binary"
	"strconv"
)

// Formats Radish only reads, from files of older Redis versions, written
// here from their format.
//
// Ziplist (ziplist.c, RDB versions before 10):
//
//	total bytes (uint32 LE) | offset of the last entry (uint32 LE)
//	| element count (uint16 LE, 65535: unknown) | entries | 0xFF
//
// An entry is prevlen (1 byte below 254, else 0xFE and uint32 LE: the
// size of the previous entry), an encoding and the data:
//
//	00xxxxxx | 01xxxxxx x (big endian) | 0x80 len(4 BE)   string
//	0xC0 / 0xD0 / 0xE0 / 0xF0 / 0xFE   int16/32/64/24/8, little endian
//	0xF1..0xFD                         the integer 0..12
//
// Zipmap (zipmap.c, hashes before RDB 4):
//
//	count byte | (len key, len free-byte value free)* | 0xFF
//
// with lengths of 1 byte below 254, else 0xFE and uint32 LE.
//
// Intset (intset.c): width (uint32 LE: 2, 4 or 8) | count (uint32 LE) |
// strictly ascending integers of that width, little endian.

const zlHdr = 10

// zlEach calls fn with every element of ziplist zl, in order, as lpEach
// does for listpacks, after checking each entry and the header.
func zlEach(zl []byte, fn func(e []byte) error) (int, error) {
	if len(zl) < zlHdr+1 || int(binary.LittleEndian.Uint32(zl)) != len(zl) || zl[len(zl)-1] != 0xff {
		return 0, errFormat("bad ziplist header")
	}
	tail := int(binary.LittleEndian.Uint32(zl[4:]))
	want := int(binary.LittleEndian.Uint16(zl[8:]))
	var scratch [20]byte
	n, prev, last := 0, 0, zlHdr
	for o := zlHdr; ; n++ {
		if o >= len(zl) {
			return 0, errFormat("ziplist without end")
		}
		if zl[o] == 0xff {
			if o != len(zl)-1 || (want != 65535 && want != n) || (n > 0 && tail != last) || (n == 0 && tail != zlHdr) {
				return 0, errFormat("bad ziplist count or tail")
			}
			return n, nil
		}
		rest := zl[o:]
		// prevlen
		p, h := int(rest[0]), 1
		if p == 0xfe {
			if len(rest) < 5 {
				return 0, errFormat("truncated ziplist")
			}
			p, h = int(binary.LittleEndian.Uint32(rest[1:])), 5
		}
		if p != prev {
			return 0, errFormat("bad ziplist prevlen")
		}
		if h >= len(rest) {
			return 0, errFormat("truncated ziplist")
		}
		c := rest[h]
		var e []byte
		var l int // entry size
		isInt, iv := true, int64(0)
		need := func(k int) bool { return h+1+k <= len(rest)-1 }
		switch {
		case c>>6 == 0:
			sl := int(c & 0x3f)
			if !need(sl) {
				return 0, errFormat("truncated ziplist")
			}
			e, l, isInt = rest[h+1:h+1+sl], h+1+sl, false
		case c>>6 == 1:
			if !need(1) {
				return 0, errFormat("truncated ziplist")
			}
			sl := int(c&0x3f)<<8 | int(rest[h+1])
			if !need(1 + sl) {
				return 0, errFormat("truncated ziplist")
			}
			e, l, isInt = rest[h+2:h+2+sl], h+2+sl, false
		case c>>6 == 2:
			if !need(4) {
				return 0, errFormat("truncated ziplist")
			}
			sl := uint64(binary.BigEndian.Uint32(rest[h+1:]))
			if sl > uint64(len(rest)) || !need(4+int(sl)) {
				return 0, errFormat("truncated ziplist")
			}
			e, l, isInt = rest[h+5:h+5+int(sl)], h+5+int(sl), false
		case c == 0xc0:
			if !need(2) {
				return 0, errFormat("truncated ziplist")
			}
			iv, l = int64(int16(binary.LittleEndian.Uint16(rest[h+1:]))), h+3
		case c == 0xd0:
			if !need(4) {
				return 0, errFormat("truncated ziplist")
			}
			iv, l = int64(int32(binary.LittleEndian.Uint32(rest[h+1:]))), h+5
		case c == 0xe0:
			if !need(8) {
				return 0, errFormat("truncated ziplist")
			}
			iv, l = int64(binary.LittleEndian.Uint64(rest[h+1:])), h+9
		case c == 0xf0:
			if !need(3) {
				return 0, errFormat("truncated ziplist")
			}
			iv = int64(int32(uint32(rest[h+1])<<8|uint32(rest[h+2])<<16|uint32(rest[h+3])<<24) >> 8)
			l = h + 4
		case c == 0xfe:
			if !need(1) {
				return 0, errFormat("truncated ziplist")
			}
			iv, l = int64(int8(rest[h+1])), h+2
		case c >= 0xf1 && c <= 0xfd:
			iv, l = int64(c&0x0f)-1, h+1
		default:
			return 0, errFormat("bad ziplist entry encoding")
		}
		if isInt {
			e = strconv.AppendInt(scratch[:0], iv, 10)
		}
		if err := fn(e); err != nil {
			return 0, err
		}
		last, prev = o, l
		o += l
	}
}

// zipmapEach calls fn with every field and value of zipmap zm.
func zipmapEach(zm []byte, fn func(f, v []byte) error) (int, error) {
	if len(zm) < 2 {
		return 0, errFormat("bad zipmap")
	}
	o, n := 1, 0
	readLen := func() (int, bool) {
		if o >= len(zm) {
			return 0, false
		}
		c := int(zm[o])
		if c < 254 {
			o++
			return c, true
		}
		if c == 255 || o+5 > len(zm) {
			return 0, false
		}
		v := binary.LittleEndian.Uint32(zm[o+1:])
		o += 5
		if uint64(v) > uint64(len(zm)) {
			return 0, false
		}
		return int(v), true
	}
	for {
		if o >= len(zm) {
			return 0, errFormat("zipmap without end")
		}
		if zm[o] == 0xff {
			if o != len(zm)-1 || (zm[0] < 254 && int(zm[0]) != n) {
				return 0, errFormat("bad zipmap count")
			}
			return n, nil
		}
		kl, ok := readLen()
		if !ok || o+kl > len(zm) {
			return 0, errFormat("truncated zipmap")
		}
		k := zm[o : o+kl]
		o += kl
		vl, ok := readLen()
		if !ok || o+1+vl > len(zm) {
			return 0, errFormat("truncated zipmap")
		}
		free := int(zm[o])
		o++
		v := zm[o : o+vl]
		o += vl + free
		if o > len(zm) {
			return 0, errFormat("truncated zipmap")
		}
		if err := fn(k, v); err != nil {
			return 0, err
		}
		n++
	}
}

// intsetEach calls fn with every member of intset is (formatted), after
// checking its header, size and order.
func intsetEach(is []byte, fn func(e []byte) error) (int, error) {
	if len(is) < 8 {
		return 0, errFormat("bad intset header")
	}
	w := int(binary.LittleEndian.Uint32(is))
	cnt := uint64(binary.LittleEndian.Uint32(is[4:]))
	if (w != 2 && w != 4 && w != 8) || cnt*uint64(w) != uint64(len(is)-8) {
		return 0, errFormat("bad intset header")
	}
	var scratch [20]byte
	var prev int64
	for i := 0; i < int(cnt); i++ {
		o := 8 + i*w
		var v int64
		switch w {
		case 2:
			v = int64(int16(binary.LittleEndian.Uint16(is[o:])))
		case 4:
			v = int64(int32(binary.LittleEndian.Uint32(is[o:])))
		default:
			v = int64(binary.LittleEndian.Uint64(is[o:]))
		}
		if i > 0 && v <= prev {
			return 0, errFormat("intset out of order")
		}
		prev = v
		if err := fn(strconv.AppendInt(scratch[:0], v, 10)); err != nil {
			return 0, err
		}
	}
	return int(cnt), nil
}
