package slab

import "math/bits"

// hbits is a set of slot indexes kept as a three-level bitmap with a fan-out
// of 512 (one cache line of 8 words) per level:
//
//	l0 bit i:  slot i is in the set
//	l1 bit g:  l0 words [8g, 8g+8) are not all zero
//	l2 bit g:  l1 words [8g, 8g+8) are not all zero
//
// For MaxSlots = 1<<25: l0 has 1<<19 words, l1 1024 words, l2 2 words, so
// first and random scan at most 2+8+8 words. Slices grow with the class.
type hbits struct {
	l0, l1, l2 []uint64
}

func roundUp(n, m int) int { return (n + m - 1) / m * m }

// grow makes room for slots [0, n); new slots are not in the set.
func (b *hbits) grow(n int) {
	w0 := roundUp((n+63)/64, 8)
	w1 := roundUp((w0/8+63)/64, 8)
	w2 := (w1/8 + 63) / 64
	b.l0 = growWords(b.l0, w0)
	b.l1 = growWords(b.l1, w1)
	b.l2 = growWords(b.l2, w2)
}

func growWords(s []uint64, n int) []uint64 {
	if len(s) >= n {
		return s
	}
	if cap(s) >= n {
		return s[:n]
	}
	return append(s, make([]uint64, n-len(s))...)
}

func (b *hbits) has(i uint32) bool {
	return b.l0[i>>6]&(1<<(i&63)) != 0
}

func (b *hbits) set(i uint32) {
	w := i >> 6
	b.l0[w] |= 1 << (i & 63)
	g1 := w >> 3
	b.l1[g1>>6] |= 1 << (g1 & 63)
	g2 := g1 >> 9
	b.l2[g2>>6] |= 1 << (g2 & 63)
}

func (b *hbits) clear(i uint32) {
	w := i >> 6
	b.l0[w] &^= 1 << (i & 63)
	if b.l0[w] != 0 {
		return
	}
	g1 := w >> 3
	if !groupZero(b.l0, g1) {
		return
	}
	b.l1[g1>>6] &^= 1 << (g1 & 63)
	g2 := g1 >> 9
	if !groupZero(b.l1, g2) {
		return
	}
	b.l2[g2>>6] &^= 1 << (g2 & 63)
}

func groupZero(s []uint64, g uint32) bool {
	x := s[g*8 : g*8+8 : g*8+8]
	return x[0]|x[1]|x[2]|x[3]|x[4]|x[5]|x[6]|x[7] == 0
}

// setRange adds slots [lo, hi) to the set.
func (b *hbits) setRange(lo, hi uint32) {
	for i := lo; i < hi; {
		if i&63 == 0 && hi-i >= 64 {
			b.l0[i>>6] = ^uint64(0)
			i += 64
			continue
		}
		b.l0[i>>6] |= 1 << (i & 63)
		i++
	}
	if lo >= hi {
		return
	}
	for g1 := lo >> 9; g1 <= (hi-1)>>9; g1++ {
		b.l1[g1>>6] |= 1 << (g1 & 63)
		g2 := g1 >> 9
		b.l2[g2>>6] |= 1 << (g2 & 63)
	}
}

// reset empties the set and drops its memory.
func (b *hbits) reset() { *b = hbits{} }

// first returns the lowest slot in the set.
func (b *hbits) first() (uint32, bool) {
	for j, x := range b.l2 {
		if x == 0 {
			continue
		}
		g2 := uint32(j*64 + bits.TrailingZeros64(x))
		g1 := firstInGroup(b.l1, g2)
		w := firstInGroup(b.l0, g1)
		return w, true
	}
	return 0, false
}

// firstInGroup returns the index of the lowest set bit in words
// [8g, 8g+8) of s, counted from the start of s. The group must be nonzero.
func firstInGroup(s []uint64, g uint32) uint32 {
	x := s[g*8 : g*8+8 : g*8+8]
	for k, w := range x {
		if w != 0 {
			return (g*8+uint32(k))*64 + uint32(bits.TrailingZeros64(w))
		}
	}
	panic("slab: summary bit set over an empty group")
}

// random returns a member chosen by rnd, descending through l2, l1, l0 and
// taking at each level the set bit of rank ⌊r·n/2^21⌋ among the n set bits
// of the current group, r being the next 21 bits of a mix of rnd.
func (b *hbits) random(rnd uint64) (uint32, bool) {
	r := mix64(rnd)
	g2, ok := pickBit(b.l2, r&(1<<21-1))
	if !ok {
		return 0, false
	}
	base := g2 * 8
	g1, _ := pickBit(b.l1[base:base+8:base+8], (r>>21)&(1<<21-1))
	g1 += base * 64
	base = g1 * 8
	w, _ := pickBit(b.l0[base:base+8:base+8], (r>>42)&(1<<21-1))
	return base*64 + w, true
}

// pickBit returns the position of the set bit of rank ⌊r·n/2^21⌋ in ws,
// n being the number of set bits, or false when ws is all zero.
func pickBit(ws []uint64, r uint64) (uint32, bool) {
	var cnt [8]int // ws is at most 8 words: a group, or l2 (2 words)
	n := 0
	for j, w := range ws {
		cnt[j&7] = bits.OnesCount64(w)
		n += cnt[j&7]
	}
	if n == 0 {
		return 0, false
	}
	k := int(r * uint64(n) >> 21)
	for j, w := range ws {
		if c := cnt[j&7]; k >= c {
			k -= c
			continue
		}
		return uint32(j*64 + select64(w, k)), true
	}
	panic("slab: unreachable")
}

// select64 returns the position of the k-th (from 0) set bit of w; k must be
// below OnesCount64(w). Broadword: per-byte prefix counts find the byte,
// a table finds the bit within it.
func select64(w uint64, k int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	c := w - (w>>1)&0x5555555555555555
	c = c&0x3333333333333333 + (c>>2)&0x3333333333333333
	c = (c + c>>4) & 0x0f0f0f0f0f0f0f0f
	c *= ones // byte i: set bits in bytes 0..i (at most 64)
	// High bit of byte i set iff prefix count i <= k: those bytes come first.
	le := ((uint64(k)*ones | highs) - c) & highs
	b := uint(bits.OnesCount64(le)) * 8
	before := int((c << 8 >> b) & 0xff)
	return int(b) + int(selectInByte[(w>>b)&0xff][k-before])
}

// selectInByte[x][k] is the position of the k-th set bit of the byte x.
var selectInByte = func() (t [256][8]uint8) {
	for x := range 256 {
		k := 0
		for i := range 8 {
			if x&(1<<i) != 0 {
				t[x][k] = uint8(i)
				k++
			}
		}
	}
	return t
}()

// mix64 is the splitmix64 finalizer: it spreads any input (a counter, a
// weak generator's output) over all 64 bits.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// nextClear returns the first slot in [from, to) not in the set, or to.
func (b *hbits) nextClear(from, to uint32) uint32 {
	for i := from; i < to; {
		w := ^b.l0[i>>6] >> (i & 63)
		if w != 0 {
			i += uint32(bits.TrailingZeros64(w))
			return min(i, to)
		}
		i = (i | 63) + 1
	}
	return to
}

// nextSet returns the first slot in [from, to) in the set, or to.
func (b *hbits) nextSet(from, to uint32) uint32 {
	for i := from; i < to; {
		w := b.l0[i>>6] >> (i & 63)
		if w != 0 {
			i += uint32(bits.TrailingZeros64(w))
			return min(i, to)
		}
		i = (i | 63) + 1
	}
	return to
}
