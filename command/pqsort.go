package command

// pqsort is Redis's pqsort (pqsort.c, NetBSD's qsort with its recursion
// pruned to the part of the array that holds positions lo..hi): SORT
// with BY and a LIMIT that does not cover every element sorts with it,
// and since it is not stable, the order it leaves equal elements in is
// part of SORT's reply (an ALPHA sort BY weights some elements share).
// Only a[lo..hi] is sorted when it returns.
func pqsort[T any](a []T, cmp func(x, y T) int, lo, hi int) {
	pqsortRange(a, 0, len(a), cmp, lo, hi)
}

// pqsortRange sorts the n elements from a[base]; lo and hi stay absolute.
func pqsortRange[T any](a []T, base, n int, cmp func(x, y T) int, lo, hi int) {
	at := func(i, j int) int { return cmp(a[i], a[j]) }
	swap := func(i, j int) { a[i], a[j] = a[j], a[i] }
	vecswap := func(i, j, k int) {
		for ; k > 0; k-- {
			swap(i, j)
			i++
			j++
		}
	}
	med3 := func(x, y, z int) int {
		if at(x, y) < 0 {
			switch {
			case at(y, z) < 0:
				return y
			case at(x, z) < 0:
				return z
			}
			return x
		}
		switch {
		case at(y, z) > 0:
			return y
		case at(x, z) < 0:
			return x
		}
		return z
	}
	for {
		if n < 7 {
			for pm := base + 1; pm < base+n; pm++ {
				for pl := pm; pl > base && at(pl-1, pl) > 0; pl-- {
					swap(pl, pl-1)
				}
			}
			return
		}
		pm := base + n/2
		if n > 7 {
			pl, pn := base, base+n-1
			if n > 40 {
				d := n / 8
				pl = med3(pl, pl+d, pl+2*d)
				pm = med3(pm-d, pm, pm+d)
				pn = med3(pn-2*d, pn-d, pn)
			}
			pm = med3(pl, pm, pn)
		}
		swap(base, pm)
		pa, pb := base+1, base+1
		pc, pd := base+n-1, base+n-1
		for {
			for pb <= pc {
				r := at(pb, base)
				if r > 0 {
					break
				}
				if r == 0 {
					swap(pa, pb)
					pa++
				}
				pb++
			}
			for pb <= pc {
				r := at(pc, base)
				if r < 0 {
					break
				}
				if r == 0 {
					swap(pc, pd)
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			swap(pb, pc)
			pb++
			pc--
		}
		pn := base + n
		r := min(pa-base, pb-pa)
		vecswap(base, pb-r, r)
		r = min(pd-pc, pn-pd-1)
		vecswap(pb, pn-r, r)
		if r = pb - pa; r > 1 && overlaps(base, base+r-1, lo, hi) {
			pqsortRange(a, base, r, cmp, lo, hi)
		}
		r = pd - pc
		if r <= 1 {
			return
		}
		base, n = pn-r, r
		if !overlaps(base, base+r-1, lo, hi) {
			return
		}
	}
}

// overlaps reports whether positions l..r meet lo..hi, as pqsort's
// pruning tests it.
func overlaps(l, r, lo, hi int) bool { return !(lo < l && hi < l || lo > r && hi > r) }
