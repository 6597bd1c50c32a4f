package rdb

import (
	"encoding/binary"
	"strconv"

	"github.com/radish-kv/radish/num"
)

// Listpacks (Redis's listpack.c), written and read here from the format:
//
//	total bytes (uint32 LE) | element count (uint16 LE, 65535: unknown)
//	| entries | 0xFF
//
// An entry is its encoding and data, then backlen: the size of the first
// two, 7 bits per byte, read from its last byte backwards (a set high bit
// means another byte precedes). Encodings by first byte:
//
//	0xxxxxxx            7-bit unsigned integer
//	10xxxxxx            string of up to 63 bytes
//	110xxxxx x          13-bit signed integer
//	1110xxxx x          string of up to 4095 bytes
//	0xF0 len(4 LE)      longer string
//	0xF1/F2/F3/F4       16/24/32/64-bit signed integer, little endian
//
// A string that is a canonical int64 (Redis's string2ll) is stored as an
// integer, as lpAppend does.

const (
	lpHdr       = 6
	lpEOF       = 0xff
	lpUnknownN  = 65535
	lpStr6      = 0x80
	lpInt13     = 0xc0
	lpStr12     = 0xe0
	lpStr32     = 0xf0
	lpInt16     = 0xf1
	lpInt24     = 0xf2
	lpInt32     = 0xf3
	lpInt64     = 0xf4
	lpMaxBacker = 5
)

// lpWriter builds one listpack in buf.
type lpWriter struct {
	buf []byte
	n   int
}

func (w *lpWriter) reset(buf []byte) {
	w.buf = append(buf[:0], 0, 0, 0, 0, 0, 0)
	w.n = 0
}

// lpEntrySize is the size of the entry lpAppend would write for s.
func lpEntrySize(s []byte) int {
	var l int
	if v, ok := num.ParseInt(s); ok {
		l = lpIntSize(v)
	} else {
		l = lpStrHdrSize(len(s)) + len(s)
	}
	return l + lpBacklenSize(l)
}

func lpIntSize(v int64) int {
	switch {
	case v >= 0 && v <= 127:
		return 1
	case v >= -4096 && v <= 4095:
		return 2
	case v >= -32768 && v <= 32767:
		return 3
	case v >= -8388608 && v <= 8388607:
		return 4
	case v >= -2147483648 && v <= 2147483647:
		return 5
	}
	return 9
}

func lpStrHdrSize(n int) int {
	switch {
	case n < 64:
		return 1
	case n < 4096:
		return 2
	}
	return 5
}

func lpBacklenSize(l int) int {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	}
	return 5
}

// add appends s as an entry (as an integer when it is one).
func (w *lpWriter) add(s []byte) {
	if v, ok := num.ParseInt(s); ok {
		w.addInt(v)
		return
	}
	b := w.buf
	at := len(b)
	switch n := len(s); {
	case n < 64:
		b = append(b, lpStr6|byte(n))
	case n < 4096:
		b = append(b, lpStr12|byte(n>>8), byte(n))
	default:
		b = append(b, lpStr32)
		b = binary.LittleEndian.AppendUint32(b, uint32(n))
	}
	b = append(b, s...)
	w.buf = lpAppendBacklen(b, len(b)-at)
	w.n++
}

func (w *lpWriter) addInt(v int64) {
	b := w.buf
	at := len(b)
	switch lpIntSize(v) {
	case 1:
		b = append(b, byte(v))
	case 2:
		u := uint64(v) & (1<<13 - 1)
		b = append(b, lpInt13|byte(u>>8), byte(u))
	case 3:
		b = append(b, lpInt16)
		b = binary.LittleEndian.AppendUint16(b, uint16(v))
	case 4:
		b = append(b, lpInt24, byte(v), byte(v>>8), byte(v>>16))
	case 5:
		b = append(b, lpInt32)
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	default:
		b = append(b, lpInt64)
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	w.buf = lpAppendBacklen(b, len(b)-at)
	w.n++
}

// lpAppendBacklen appends the backlen of an entry of l bytes
// (lpEncodeBacklen): the high part first, every byte but the first with
// its high bit set.
func lpAppendBacklen(b []byte, l int) []byte {
	k := lpBacklenSize(l)
	for i := k - 1; i >= 0; i-- {
		c := byte(l>>(7*i)) & 127
		if i != k-1 {
			c |= 128
		}
		b = append(b, c)
	}
	return b
}

// finish writes the end byte and the header and returns the listpack.
func (w *lpWriter) finish() []byte {
	w.buf = append(w.buf, lpEOF)
	binary.LittleEndian.PutUint32(w.buf, uint32(len(w.buf)))
	binary.LittleEndian.PutUint16(w.buf[4:], uint16(min(w.n, lpUnknownN)))
	return w.buf
}

// lpEach calls fn with every element of listpack lp, in order: a string
// element aliases lp, an integer is formatted into scratch (valid until the
// next call of fn). It checks the whole structure (header, every entry's
// encoding and backlen, the count unless unknown, the end byte) and
// returns the number of elements, or an error.
func lpEach(lp []byte, fn func(e []byte) error) (int, error) {
	if len(lp) < lpHdr+1 || int(binary.LittleEndian.Uint32(lp)) != len(lp) || lp[len(lp)-1] != lpEOF {
		return 0, errFormat("bad listpack header")
	}
	want := int(binary.LittleEndian.Uint16(lp[4:]))
	var scratch [20]byte
	n := 0
	for o := lpHdr; ; n++ {
		if o >= len(lp) {
			return 0, errFormat("listpack without end")
		}
		c := lp[o]
		if c == lpEOF {
			if o != len(lp)-1 || (want != lpUnknownN && want != n) {
				return 0, errFormat("bad listpack count")
			}
			return n, nil
		}
		var e []byte
		var l int // encoding + data
		var iv int64
		isInt := true
		rest := lp[o:]
		switch {
		case c&0x80 == 0:
			iv, l = int64(c), 1
		case c&0xc0 == lpStr6:
			l = 1 + int(c&0x3f)
			isInt = false
		case c&0xe0 == lpInt13:
			if len(rest) < 2 {
				return 0, errFormat("truncated listpack")
			}
			u := int64(c&0x1f)<<8 | int64(rest[1])
			if u >= 1<<12 {
				u -= 1 << 13
			}
			iv, l = u, 2
		case c&0xf0 == lpStr12:
			if len(rest) < 2 {
				return 0, errFormat("truncated listpack")
			}
			l = 2 + (int(c&0x0f)<<8 | int(rest[1]))
			isInt = false
		case c == lpStr32:
			if len(rest) < 5 {
				return 0, errFormat("truncated listpack")
			}
			sl := binary.LittleEndian.Uint32(rest[1:])
			if uint64(sl) > uint64(len(rest)) {
				return 0, errFormat("truncated listpack")
			}
			l = 5 + int(sl)
			isInt = false
		case c == lpInt16:
			if len(rest) < 3 {
				return 0, errFormat("truncated listpack")
			}
			iv, l = int64(int16(binary.LittleEndian.Uint16(rest[1:]))), 3
		case c == lpInt24:
			if len(rest) < 4 {
				return 0, errFormat("truncated listpack")
			}
			u := int32(uint32(rest[1])<<8|uint32(rest[2])<<16|uint32(rest[3])<<24) >> 8
			iv, l = int64(u), 4
		case c == lpInt32:
			if len(rest) < 5 {
				return 0, errFormat("truncated listpack")
			}
			iv, l = int64(int32(binary.LittleEndian.Uint32(rest[1:]))), 5
		case c == lpInt64:
			if len(rest) < 9 {
				return 0, errFormat("truncated listpack")
			}
			iv, l = int64(binary.LittleEndian.Uint64(rest[1:])), 9
		default:
			return 0, errFormat("bad listpack entry encoding")
		}
		bl := lpBacklenSize(l)
		if l+bl > len(rest)-1 { // the end byte must follow
			return 0, errFormat("truncated listpack")
		}
		if isInt {
			e = strconv.AppendInt(scratch[:0], iv, 10)
		} else {
			e = rest[lpStrHdrSizeOf(c):l]
		}
		var chk [lpMaxBacker]byte
		if string(lpAppendBacklen(chk[:0], l)) != string(rest[l:l+bl]) {
			return 0, errFormat("bad listpack backlen")
		}
		if err := fn(e); err != nil {
			return 0, err
		}
		o += l + bl
	}
}

// lpStrHdrSizeOf is the header size of a string entry by its first byte.
func lpStrHdrSizeOf(c byte) int {
	switch {
	case c&0xc0 == lpStr6:
		return 1
	case c&0xf0 == lpStr12:
		return 2
	}
	return 5
}
