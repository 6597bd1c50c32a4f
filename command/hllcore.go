package command

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// This file is Redis's HyperLogLog representation, byte for byte, so that
// a value built here is the string Redis builds from the same inputs and
// a value copied from Redis keeps working (hyperloglog.c of Redis 7.0).
//
// An HLL is a string: a 16-byte header ("HYLL", the encoding byte, three
// unused bytes, the cached cardinality as 8 bytes little endian whose top
// bit set means "stale"), then 16384 registers of 6 bits. Dense: the
// registers packed least significant bit first, 12288 bytes. Sparse: a run
// length code of opcodes ZERO (00xxxxxx: 1..64 zero registers), XZERO
// (01xxxxxx yyyyyyyy: 1..16384 zero registers) and VAL (1vvvvvxx: 1..4
// registers of value 1..32). An element's register is the low 14 bits of
// its MurmurHash64A (seed 0xadc83b19); its value is the position of the
// first 1 bit in the other 50 bits, plus one.

const (
	hllP         = 14
	hllQ         = 64 - hllP
	hllRegisters = 1 << hllP
	hllPMask     = hllRegisters - 1
	hllBits      = 6
	hllRegMax    = 1<<hllBits - 1
	hllHdrSize   = 16
	hllDenseSize = hllHdrSize + (hllRegisters*hllBits+7)/8
	hllDense     = 0
	hllSparse    = 1
	hllMaxEnc    = 1

	hllSparseValMaxValue = 32
	hllSparseValMaxLen   = 4
	hllSparseZeroMaxLen  = 64
	hllSparseXZeroMaxLen = 16384

	hllAlphaInf = 0.721347520444481703680 // 0.5/ln(2)
)

// Error texts of the HyperLogLog commands.
const (
	errNotHLL     = "WRONGTYPE Key is not a valid HyperLogLog string value."
	errHLLCorrupt = "INVALIDOBJ Corrupted HLL object detected"
)

// murmurHash64A is Redis's MurmurHash64A (MurmurHash2, 64-bit, read
// little endian whatever the machine).
func murmurHash64A(key []byte, seed uint64) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	h := seed ^ uint64(len(key))*m
	for len(key) >= 8 {
		k := binary.LittleEndian.Uint64(key)
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
		key = key[8:]
	}
	if len(key) > 0 {
		for i := len(key) - 1; i >= 0; i-- {
			h ^= uint64(key[i]) << (8 * i)
		}
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}

// hllPatLen returns ele's register and the length of its 000..1 pattern.
func hllPatLen(ele []byte) (index int, count uint8) {
	hash := murmurHash64A(ele, 0xadc83b19)
	index = int(hash & hllPMask)
	hash >>= hllP
	hash |= 1 << hllQ // the loop of Redis ends at Q+1
	return index, uint8(bits.TrailingZeros64(hash) + 1)
}

// hllValid reports whether b is an HLL header Redis accepts
// (isHLLObjectOrReply): magic, a known encoding, a dense one of the exact
// size.
func hllValid(b []byte) bool {
	return len(b) >= hllHdrSize && string(b[:4]) == "HYLL" && b[4] <= hllMaxEnc &&
		(b[4] != hllDense || len(b) == hllDenseSize)
}

// hllInvalidate marks the cached cardinality stale.
func hllInvalidate(b []byte) { b[15] |= 0x80 }

// hllNew appends an empty sparse HLL (Redis's createHLLObject) to dst.
func hllNew(dst []byte) []byte {
	dst = append(dst, "HYLL"...)
	dst = append(dst, hllSparse, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	for left := hllRegisters; left > 0; {
		n := min(left, hllSparseXZeroMaxLen)
		dst = append(dst, byte((n-1)>>8)|0x40, byte(n-1))
		left -= n
	}
	return dst
}

// denseGet reads register i of dense registers r; a byte past r reads as
// 0, as Redis reads the string's terminator.
func denseGet(r []byte, i int) uint8 {
	byt, fb := i*hllBits/8, uint(i*hllBits&7)
	b0 := uint(r[byt])
	var b1 uint
	if byt+1 < len(r) {
		b1 = uint(r[byt+1])
	}
	return uint8((b0>>fb | b1<<(8-fb)) & hllRegMax)
}

// denseSet writes v to register i of dense registers r.
func denseSet(r []byte, i int, v uint8) {
	byt, fb := i*hllBits/8, uint(i*hllBits&7)
	r[byt] &^= byte(hllRegMax << fb)
	r[byt] |= byte(uint(v) << fb)
	if byt+1 < len(r) {
		r[byt+1] &^= byte(hllRegMax >> (8 - fb))
		r[byt+1] |= byte(uint(v) >> (8 - fb))
	}
}

// denseSetMax raises register i to count if it is smaller; 1 if it did.
func denseSetMax(r []byte, i int, count uint8) int {
	if count > denseGet(r, i) {
		denseSet(r, i, count)
		return 1
	}
	return 0
}

// Sparse opcodes.
func spIsZero(b byte) bool  { return b&0xc0 == 0 }
func spIsXZero(b byte) bool { return b&0xc0 == 0x40 }
func spIsVal(b byte) bool   { return b&0x80 != 0 }
func spZeroLen(b byte) int  { return int(b&0x3f) + 1 }
func spValValue(b byte) int { return int(b>>2&0x1f) + 1 }
func spValLen(b byte) int   { return int(b&3) + 1 }
func spVal(v, n int) byte   { return byte((v-1)<<2|(n-1)) | 0x80 }

// spXZeroLen reads the XZERO at s[p], its second byte 0 past the end (the
// string's terminator, in Redis).
func spXZeroLen(s []byte, p int) int {
	var lo int
	if p+1 < len(s) {
		lo = int(s[p+1])
	}
	return (int(s[p]&0x3f)<<8 | lo) + 1
}

// spZeros appends a ZERO or XZERO of n registers.
func spZeros(dst []byte, n int) []byte {
	if n > hllSparseZeroMaxLen {
		return append(dst, byte((n-1)>>8)|0x40, byte(n-1))
	}
	return append(dst, byte(n-1))
}

// hllSparseRegs decodes sparse opcodes into regs (one byte a register), as
// Redis's hllSparseToDense and hllMerge walk them; with merge a register
// keeps the larger value. ok false: the registers walked are not exactly
// 16384, or a VAL run reaches past the last (Redis's fix of
// CVE-2025-32023, in Debian's 7.0.15, refuses it where it once stopped).
func hllSparseRegs(ops []byte, regs *[hllRegisters]uint8, merge bool) bool {
	idx := 0
	for p := 0; p < len(ops); {
		switch b := ops[p]; {
		case spIsZero(b):
			idx += spZeroLen(b)
			p++
		case spIsXZero(b):
			idx += spXZeroLen(ops, p)
			p += 2
		default:
			n, v := spValLen(b), uint8(spValValue(b))
			if n+idx > hllRegisters {
				return false
			}
			for ; n > 0; n-- {
				if !merge || v > regs[idx] {
					regs[idx] = v
				}
				idx++
			}
			p++
		}
	}
	return idx == hllRegisters
}

// hllToDense converts the sparse HLL s into the dense one (header kept,
// cached cardinality included), in s's buffer; ok false: corrupt.
func hllToDense(s []byte) ([]byte, bool) {
	if s[4] == hllDense {
		return s, true
	}
	var regs [hllRegisters]uint8
	if !hllSparseRegs(s[hllHdrSize:], &regs, false) {
		return s, false
	}
	s = append(s[:hllHdrSize], make([]byte, hllDenseSize-hllHdrSize)...)
	s[4] = hllDense
	r := s[hllHdrSize:]
	for i, v := range regs {
		if v != 0 {
			denseSet(r, i, v)
		}
	}
	return s, true
}

// hllSparseSet is Redis's hllSparseSet: it raises register index of the
// sparse HLL s to count, splitting the opcode that covers it and merging
// equal neighbours after, and turns s dense when count does not fit a VAL
// or s would grow past maxBytes. It returns s (grown or converted in its
// buffer) and 1 if the register changed, 0 if not, -1 if s is corrupt.
func hllSparseSet(s []byte, index int, count uint8, maxBytes int) ([]byte, int) {
	if count > hllSparseValMaxValue {
		return hllPromote(s, index, count)
	}
	if cap(s)-len(s) < 3 {
		s = append(s, 0, 0, 0)[:len(s)]
	}
	end := len(s)
	p, first, span, prev := hllHdrSize, 0, 0, -1
	for p < end {
		oplen := 1
		switch b := s[p]; {
		case spIsZero(b):
			span = spZeroLen(b)
		case spIsVal(b):
			span = spValLen(b)
		default:
			span = spXZeroLen(s, p)
			oplen = 2
		}
		if index <= first+span-1 {
			break
		}
		prev = p
		p += oplen
		first += span
	}
	if span == 0 || p >= end {
		return s, -1
	}
	b := s[p]
	next := p + 1
	if spIsXZero(b) {
		next = p + 2
	}
	if next >= end {
		next = -1
	}
	isZero, isXZero := spIsZero(b), spIsXZero(b)
	var runLen int
	switch {
	case isZero:
		runLen = spZeroLen(b)
	case isXZero:
		runLen = spXZeroLen(s, p)
	default:
		runLen = spValLen(b)
		if spValValue(b) >= int(count) {
			return s, 0
		}
	}
	if runLen == 1 && !isXZero {
		s[p] = spVal(int(count), 1)
	} else {
		var seqBuf [5]byte
		seq := seqBuf[:0]
		last := first + span - 1
		if isZero || isXZero {
			if index != first {
				seq = spZeros(seq, index-first)
			}
			seq = append(seq, spVal(int(count), 1))
			if index != last {
				seq = spZeros(seq, last-index)
			}
		} else {
			cur := spValValue(b)
			if index != first {
				seq = append(seq, spVal(cur, index-first))
			}
			seq = append(seq, spVal(int(count), 1))
			if index != last {
				seq = append(seq, spVal(cur, last-index))
			}
		}
		oldLen := 1
		if isXZero {
			oldLen = 2
		}
		delta := len(seq) - oldLen
		if delta > 0 && len(s)+delta > maxBytes {
			return hllPromote(s, index, count)
		}
		if delta > 0 {
			s = s[:end+delta]
		}
		if delta != 0 && next >= 0 {
			copy(s[next+delta:], s[next:end])
		}
		s = s[:end+delta]
		copy(s[p:], seq)
		end += delta
	}
	// Merge adjacent VALs of one value, scanning up to 5 opcodes from the
	// one before the change.
	p = hllHdrSize
	if prev >= 0 {
		p = prev
	}
	for scan := 5; p < end && scan > 0; scan-- {
		switch b := s[p]; {
		case spIsXZero(b):
			p += 2
			continue
		case spIsZero(b):
			p++
			continue
		}
		if p+1 < end && spIsVal(s[p+1]) {
			v1, v2 := spValValue(s[p]), spValValue(s[p+1])
			if n := spValLen(s[p]) + spValLen(s[p+1]); v1 == v2 && n <= hllSparseValMaxLen {
				s[p+1] = spVal(v1, n)
				copy(s[p:], s[p+1:end])
				end--
				s = s[:end]
				continue // try the merged VAL with the next one
			}
		}
		p++
	}
	hllInvalidate(s)
	return s, 1
}

// hllPromote turns s dense and sets the register there (which must change).
func hllPromote(s []byte, index int, count uint8) ([]byte, int) {
	s, ok := hllToDense(s)
	if !ok {
		return s, -1
	}
	denseSetMax(s[hllHdrSize:], index, count)
	return s, 1
}

// hllAdd adds ele to the HLL s (dense in place, sparse possibly grown or
// converted): 1 if a register changed, 0 if not, -1 if s is corrupt.
func hllAdd(s, ele []byte, maxBytes int) ([]byte, int) {
	index, count := hllPatLen(ele)
	switch s[4] {
	case hllDense:
		return s, denseSetMax(s[hllHdrSize:], index, count)
	case hllSparse:
		return hllSparseSet(s, index, count, maxBytes)
	}
	return s, -1
}

// hllHisto adds the histogram of register values of the HLL s to h; ok
// false: a sparse s whose opcodes do not cover 16384 registers.
func hllHisto(s []byte, h *[64]int) bool {
	r := s[hllHdrSize:]
	if s[4] == hllDense {
		for i := range hllRegisters {
			h[denseGet(r, i)]++
		}
		return true
	}
	idx := 0
	for p := 0; p < len(r); {
		switch b := r[p]; {
		case spIsZero(b):
			n := spZeroLen(b)
			idx += n
			h[0] += n
			p++
		case spIsXZero(b):
			n := spXZeroLen(r, p)
			idx += n
			h[0] += n
			p += 2
		default:
			n := spValLen(b)
			idx += n
			h[spValValue(b)] += n
			p++
		}
	}
	return idx == hllRegisters
}

// hllEstimate is Redis's cardinality estimate from a register histogram
// (Otmar Ertl's improved estimator, arXiv:1702.01284).
func hllEstimate(h *[64]int) uint64 {
	m := float64(hllRegisters)
	z := m * hllTau((m-float64(h[hllQ+1]))/m)
	for j := hllQ; j >= 1; j-- {
		z += float64(h[j])
		z *= 0.5
	}
	z += m * hllSigma(float64(h[0])/m)
	return uint64(math.Round(hllAlphaInf * m * m / z))
}

func hllSigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		zPrime := z
		z += x * y
		y += y
		if zPrime == z {
			return z
		}
	}
}

func hllTau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		zPrime := z
		y *= 0.5
		d := 1 - x
		z -= d * d * y
		if zPrime == z {
			return z / 3
		}
	}
}

// hllCount estimates the cardinality of the HLL s; ok false: corrupt.
func hllCount(s []byte) (uint64, bool) {
	var h [64]int
	ok := hllHisto(s, &h)
	return hllEstimate(&h), ok
}

// hllMerge raises regs to the registers of the valid HLL s; ok false: a
// corrupt sparse s.
func hllMerge(regs *[hllRegisters]uint8, s []byte) bool {
	if s[4] == hllDense {
		r := s[hllHdrSize:]
		for i := range regs {
			if v := denseGet(r, i); v > regs[i] {
				regs[i] = v
			}
		}
		return true
	}
	return hllSparseRegs(s[hllHdrSize:], regs, true)
}

// hllCountRegs estimates the cardinality of registers held one a byte.
func hllCountRegs(regs *[hllRegisters]uint8) uint64 {
	var h [64]int
	for _, v := range regs {
		h[v&63]++
	}
	return hllEstimate(&h)
}
