package lzf

import "errors"

// LZF as Redis uses it for strings (RDB_ENC_LZF) and quicklist nodes: the format of liblzf's
// lzf_c.c and lzf_d.c, written here from the format. Compress makes the
// choices of liblzf 3.6 (which Debian's redis-server links; Redis's own
// copy differs only in refusing matches in the last 4 input bytes) with
// HLOG 16 and VERY_FAST, from a clear hash table, so that a DUMP of a
// compressible value is byte for byte Redis's.
//
// The format is a sequence of runs:
//
//	000LLLLL + L+1 bytes           literal run of L+1 bytes
//	LLLooooo oooooooo              back reference of L+2 bytes (L in 1..6)
//	111ooooo LLLLLLLL oooooooo     back reference of L+9 bytes
//
// where the offset o+1 counts back from the output position.

const (
	lzfHLog   = 16
	lzfHSize  = 1 << lzfHLog
	lzfMaxLit = 1 << 5
	lzfMaxOff = 1 << 13
	lzfMaxRef = 1<<8 + 1<<3
)

var errLZF = errors.New("lzf: bad data")

// Table is the compressor's hash table: for each hash of 3 bytes the
// position of their last occurrence, stored as base+position+1 so that
// entries of earlier calls (below base) read as empty without clearing
// 256 KiB per call.
type Table struct {
	h    [lzfHSize]uint32
	base uint32
}

// Compress appends the compression of in to dst if it fits in at most
// max bytes; ok is false when it does not (the caller stores in as it is).
// len(in) must be at least 3 (Redis compresses only strings over 20 bytes).
func (t *Table) Compress(dst, in []byte, max int) (out []byte, ok bool) {
	if max <= 0 || len(in) < 3 {
		return dst, false
	}
	if uint64(t.base)+uint64(len(in))+1 >= 1<<32 {
		*t = Table{}
	}
	base := t.base
	t.base += uint32(len(in)) + 1
	htab := &t.h
	start := len(dst)
	out = append(dst, make([]byte, max)...)[:start]
	buf := out[start : start+max]
	// op is the output length so far; lit the length of the literal run
	// whose header byte is buf[op-lit-1].
	op, lit := 1, 0
	ip, n := 0, len(in)
	pos := func(v uint32) int {
		if v <= base {
			return -1
		}
		return int(v - base - 1)
	}
	at := func(ip int) uint32 { return base + uint32(ip) + 1 }
	idx := func(h uint32) uint32 { return ((h >> (3*8 - lzfHLog)) - h*5) & (lzfHSize - 1) }
	hval := uint32(in[0])<<8 | uint32(in[1])
	for ip < n-2 {
		hval = hval<<8 | uint32(in[ip+2])
		slot := idx(hval)
		ref := pos(htab[slot])
		htab[slot] = at(ip)
		off := ip - ref - 1
		if ref > 0 && off >= 0 && off < lzfMaxOff &&
			in[ref] == in[ip] && in[ref+1] == in[ip+1] && in[ref+2] == in[ip+2] {
			maxLen := min(n-ip-2, lzfMaxRef)
			// Room for the match first, as liblzf checks it: a literal run
			// that just filled up may have left op past the end.
			back := 0
			if lit == 0 {
				back = 1
			}
			if op-back+3+1 >= max {
				return dst, false
			}
			buf[op-lit-1] = byte(lit - 1) // stop run
			op -= back
			ln := lzfMatch(in, ref, ip, maxLen)
			ln -= 2 // octets - 1
			ip++
			if ln < 7 {
				buf[op] = byte(off>>8 + ln<<5)
				op++
			} else {
				buf[op] = byte(off>>8 + 7<<5)
				buf[op+1] = byte(ln - 7)
				op += 2
			}
			buf[op] = byte(off)
			op++
			lit = 0
			op++ // start run
			ip += ln + 1
			if ip >= n-2 {
				break
			}
			ip -= 2
			hval = uint32(in[ip])<<8 | uint32(in[ip+1])
			hval = hval<<8 | uint32(in[ip+2])
			htab[idx(hval)] = at(ip)
			ip++
			hval = hval<<8 | uint32(in[ip+2])
			htab[idx(hval)] = at(ip)
			ip++
			continue
		}
		if op >= max {
			return dst, false
		}
		lit++
		buf[op] = in[ip]
		op++
		ip++
		if lit == lzfMaxLit {
			buf[op-lit-1] = byte(lit - 1)
			lit = 0
			op++
		}
	}
	if op+3 > max {
		return dst, false
	}
	for ip < n {
		lit++
		buf[op] = in[ip]
		op++
		ip++
		if lit == lzfMaxLit {
			buf[op-lit-1] = byte(lit - 1)
			lit = 0
			op++
		}
	}
	buf[op-lit-1] = byte(lit - 1)
	if lit == 0 {
		op--
	}
	return out[:start+op], true
}

// lzfMatch returns how many bytes from in[ip:] equal those from in[ref:]
// (at least 3, which the caller checked), as liblzf counts them: past 16
// it compares 16 more before it looks at maxLen again, so a match may end
// up to 2 bytes past maxLen (never past the input).
func lzfMatch(in []byte, ref, ip, maxLen int) int {
	ln := 2
	if maxLen > 16 {
		for k := 0; k < 16; k++ {
			ln++
			if in[ref+ln] != in[ip+ln] {
				return ln
			}
		}
	}
	for {
		ln++
		if ln >= maxLen || in[ref+ln] != in[ip+ln] {
			return ln
		}
	}
}

// Decompress appends to dst the ulen bytes that in decompresses to; an
// error when in is malformed or does not give exactly ulen bytes.
func Decompress(dst, in []byte, ulen int) ([]byte, error) {
	start := len(dst)
	out := append(dst, make([]byte, ulen)...)
	o := start
	end := start + ulen
	for i := 0; i < len(in); {
		ctrl := int(in[i])
		i++
		if ctrl < 1<<5 {
			n := ctrl + 1
			if i+n > len(in) || o+n > end {
				return dst, errLZF
			}
			o += copy(out[o:], in[i:i+n])
			i += n
			continue
		}
		n := ctrl >> 5
		if n == 7 {
			if i >= len(in) {
				return dst, errLZF
			}
			n += int(in[i])
			i++
		}
		if i >= len(in) {
			return dst, errLZF
		}
		ref := o - (ctrl&0x1f)<<8 - 1 - int(in[i])
		i++
		n += 2
		if ref < start || o+n > end {
			return dst, errLZF
		}
		for k := 0; k < n; k++ { // may overlap: byte by byte
			out[o] = out[ref+k]
			o++
		}
	}
	if o != end {
		return dst, errLZF
	}
	return out, nil
}
