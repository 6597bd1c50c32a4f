package workload

import "strconv"

// geoKeys hold geo sets (sorted sets of geohash scores), on two shards.
var geoKeys = []string{"g1", "{t}g2"}

// geoPlaces are members and positions, a few of them invalid.
var geoPlaces = [][3]string{
	{"13.361389", "38.115556", "Palermo"}, {"15.087269", "37.502669", "Catania"},
	{"2.3522", "48.8566", "Paris"}, {"-73.9857", "40.7484", "NY"}, {"151.2093", "-33.8688", "Sydney"},
	{"-180", "-85.05112878", "SW"}, {"180", "85.05112878", "NE"}, {"0", "0", "Null"},
	{"13.5", "38.2", "Near"}, {"181", "0", "Bad"}, {"0", "86", "Bad"}, {"x", "1", "Bad"},
}

// geo returns a geo command on a geo key (now and then the string key s):
// GEOADD with its options, GEOPOS, GEODIST in every unit, GEOHASH.
func (g *Gen) geo(s string) []string {
	key := geoKeys[g.r.IntN(len(geoKeys))]
	if g.r.IntN(12) == 0 {
		key = s
	}
	member := func() string { return geoPlaces[g.r.IntN(len(geoPlaces))][2] }
	switch g.r.IntN(6) {
	case 0, 1:
		args := []string{"GEOADD", key}
		for _, o := range []string{"NX", "XX", "CH"} {
			if g.r.IntN(5) == 0 {
				args = append(args, o)
			}
		}
		for range 1 + g.r.IntN(3) {
			p := geoPlaces[g.r.IntN(len(geoPlaces))]
			lon, lat := p[0], p[1]
			if g.r.IntN(4) == 0 { // a position of its own, cell rounding shows
				lon = strconv.FormatFloat(g.r.Float64()*360-180, 'f', 6, 64)
				lat = strconv.FormatFloat(g.r.Float64()*170-85, 'f', 6, 64)
			}
			args = append(args, lon, lat, p[2])
		}
		return args
	case 2:
		return []string{"GEOPOS", key, member(), member()}
	case 3:
		args := []string{"GEODIST", key, member(), member()}
		if g.r.IntN(2) == 0 {
			args = append(args, g.pick("m", "KM", "ft", "mi", "yd"))
		}
		return args
	default:
		return []string{"GEOHASH", key, member(), member()}
	}
}
