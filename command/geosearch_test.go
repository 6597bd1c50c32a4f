package command

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGeoWithinBounds compares geoWithin and cells, which reject by
// latBand and lonLimit before the distance, with the test of every point
// by Redis's distances: random circles and boxes (up to the poles and
// across the antimeridian, sizes from 0 to half the globe) and points at
// cell centers near their edge, each side of it, and anywhere. The same
// points must be inside, at the same distance, and each inside point's
// cell must be among those cells keeps in every box that holds it.
func TestGeoWithinBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	sizes := []float64{0, 0.001, 1, 150, 10e3, 200e3, 1000e3, 5000e3, 19000e3}
	var rejected, inside int
	for range 3000 {
		sh := geoShape{lon: r.Float64()*360 - 180, lat: r.Float64()*170.1 - 85.05, radius: sizes[r.IntN(len(sizes))], conversion: 1}
		switch r.IntN(4) {
		case 0:
			sh.lon = 180 - r.Float64()*1e-3
		case 1:
			sh.lat = 85.05 - r.Float64()
		}
		if r.IntN(2) == 0 {
			sh.box, sh.width, sh.height = true, 2*sh.radius, 2*sizes[r.IntN(len(sizes))]
		}
		sh.prepare()
		boxes := geoBoxes(&sh)
		for range 200 {
			lon, lat := r.Float64()*360-180, r.Float64()*170.1-85.05
			if r.IntN(4) != 0 {
				// A point at about the radius (half the width or height) in
				// a random bearing.
				d := sh.radius
				if sh.box && r.IntN(2) == 0 {
					d = sh.height / 2
				}
				d *= (1 + (r.Float64()-0.5)*1e-5) / geoEarthRadius
				b := r.Float64() * 2 * math.Pi
				la := math.Asin(math.Sin(sh.latR)*math.Cos(d) + math.Cos(sh.latR)*math.Sin(d)*math.Cos(b))
				lo := sh.lonR + math.Atan2(math.Sin(b)*math.Sin(d)*math.Cos(sh.latR), math.Cos(d)-math.Sin(sh.latR)*math.Sin(la))
				lon, lat = math.Remainder(lo/geoDegRad, 360), min(max(la/geoDegRad, geoLatMin), geoLatMax)
			}
			score := geoScore(lon, lat)
			lon, lat = geoDecode(score)
			var want float64
			var wantIn bool
			if sh.box {
				want = geoDistance(sh.lon, sh.lat, lon, lat)
				wantIn = geoDistance(lon, lat, sh.lon, lat) <= sh.width/2 && geoDistance(lon, lat, lon, sh.lat) <= sh.height/2
			} else {
				want = geoDistance(sh.lon, sh.lat, lon, lat)
				wantIn = geoEarthRadius*math.Abs(lat*geoDegRad-sh.lat*geoDegRad) <= sh.radius && want <= sh.radius
			}
			d, in := geoWithin(&sh, lon, lat)
			if in != wantIn || in && d != want {
				t.Fatalf("%+v, point %v,%v: within %v at %v, want %v at %v", sh, lon, lat, in, d, wantIn, want)
			}
			if !in {
				if sh.lonLimit < math.Pi {
					rejected++
				}
				continue
			}
			inside++
			for _, b := range boxes {
				lo, hi := b.bits<<(52-b.step*2), (b.bits+1)<<(52-b.step*2)
				if b == (geoBits{}) || uint64(score) < lo || uint64(score) >= hi {
					continue
				}
				if mask, shift := sh.cells(b); mask>>(uint64(score)>>shift&15)&1 == 0 {
					t.Fatalf("%+v, point %v,%v (score %v) inside, but not in box %+v's cells %016b", sh, lon, lat, score, b, mask)
				}
			}
		}
	}
	if inside < 10000 || rejected < 10000 {
		t.Fatalf("%d inside, %d outside with a limit: the points do not test the bounds", inside, rejected)
	}
}

// TestGeoSort compares geoSort, short and long, ascending and descending,
// on distances with many ties, with a stable sort of (distance, order).
func TestGeoSort(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 5, 30, 48, 49, 200} {
		for _, desc := range []bool{false, true} {
			pts := make([]geoPoint, n)
			for i := range pts {
				pts[i] = geoPoint{dist: float64(r.IntN(8)), off: i}
			}
			geoSort(pts, desc)
			for i := 1; i < n; i++ {
				a, b := pts[i-1], pts[i]
				if a.dist == b.dist && a.off > b.off || a.dist != b.dist && (a.dist < b.dist) == desc {
					t.Fatalf("n %d desc %v: %+v before %+v", n, desc, a, b)
				}
			}
		}
	}
}
