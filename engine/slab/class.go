package slab

import "math/bits"

// Size classes (see doc.go): class 0 is reserved (Nil), classes 1..15 step
// by 8 bytes from 16 to 128, classes 16..23 by 16 bytes up to 256, classes
// 24..55 by four per doubling up to MaxSmall (64 KiB); LargeClass (56) holds
// one mapping per block.
const (
	numClasses = 57
	chunk      = 2 << 20 // bytes of blocks per page: one huge page, chunk-aligned
	osPage     = 4096
	// hugeAfter is the number of pages a class maps before its next ones
	// are advised for huge pages when mapped (see doc.go, Huge pages).
	hugeAfter = 16
)

var (
	classSizes   [numClasses]int
	smallClassOf [1024/8 + 1]uint8 // class of sizes 1..1024, indexed by (size+7)>>3
)

func init() {
	for c := 1; c < LargeClass; c++ {
		classSizes[c] = computeClassSize(c)
	}
	for i := range smallClassOf {
		smallClassOf[i] = uint8(computeClassOf(i * 8))
	}
}

func computeClassSize(c int) int {
	switch {
	case c <= 15:
		return 8 + 8*c
	case c <= 23:
		return 128 + 16*(c-15)
	default:
		k := 8 + (c-24)/4
		q := (c-24)%4 + 1
		return 1<<k + q*(1<<(k-2))
	}
}

func computeClassOf(size int) int {
	switch {
	case size <= 16:
		return 1
	case size <= 128:
		return (size+7)>>3 - 1
	case size <= 256:
		return 15 + (size-128+15)>>4
	case size <= MaxSmall:
		k := bits.Len(uint(size-1)) - 1 // 1<<k < size <= 1<<(k+1)
		step := 1 << (k - 2)
		q := (size - 1<<k + step - 1) >> (k - 2)
		return 23 + (k-8)*4 + q
	default:
		return LargeClass
	}
}

func classOf(size int) int {
	if uint(size) <= 1024 {
		return int(smallClassOf[(size+7)>>3])
	}
	if size < 0 || size > MaxSize {
		panic("slab: size out of range")
	}
	return computeClassOf(size)
}

func classSize(c int) int {
	if c < 0 || c >= numClasses {
		return 0
	}
	return classSizes[c]
}
