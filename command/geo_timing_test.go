package command

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// BenchmarkGeoSearch: GEOSEARCH FROMLONLAT BYRADIUS 200 km ASC COUNT 10
// in a set of 100k members at random places on the globe (about 25 in
// the circle), as benchmarks/types.sh runs it.
func BenchmarkGeoSearch(b *testing.B) {
	env := newScriptEnv()
	defer env.store.Close()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 100000 {
		lon := strconv.FormatFloat(r.Float64()*360-180, 'f', 6, 64)
		lat := strconv.FormatFloat(r.Float64()*160-80, 'f', 6, 64)
		env.run(words("GEOADD", "geo", lon, lat, "p:"+strconv.Itoa(i)))
	}
	cmd := words("GEOSEARCH", "geo", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC", "COUNT", "10")
	b.ReportAllocs()
	b.ResetTimer()
	defer cpuTimer(b)()
	for i := 0; i < b.N; i++ {
		env.run(cmd)
	}
}
