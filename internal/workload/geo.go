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
// GEOADD with its options, GEOPOS, GEODIST in every unit, GEOHASH, and the
// searches with their options, storing into a key of either shard
// (STOREDIST is left out: its scores are distances computed with Go's
// trigonometry, which may differ from glibc's in the last bits).
func (g *Gen) geo(s string) []string {
	key := geoKeys[g.r.IntN(len(geoKeys))]
	if g.r.IntN(12) == 0 {
		key = s
	}
	member := func() string { return geoPlaces[g.r.IntN(len(geoPlaces))][2] }
	switch g.r.IntN(9) {
	case 6, 7, 8:
		return g.geoSearch(key)
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

// geoSearch returns a GEOSEARCH, GEOSEARCHSTORE, GEORADIUS or
// GEORADIUSBYMEMBER (or an _RO form) around key's places.
func (g *Gen) geoSearch(key string) []string {
	p := geoPlaces[g.r.IntN(9)]
	unit := g.pick("m", "km", "KM", "mi", "ft")
	dist := g.pick("0", "10", "200", "1000", "5000", "20000")
	if unit == "m" || unit == "ft" {
		dist += "000"
	}
	var args []string
	switch g.r.IntN(5) {
	case 0, 1:
		args = []string{"GEOSEARCH", key}
		if g.r.IntN(3) == 0 {
			args = []string{"GEOSEARCHSTORE", geoKeys[g.r.IntN(len(geoKeys))], key}
		}
		if g.r.IntN(2) == 0 {
			args = append(args, "FROMLONLAT", p[0], p[1])
		} else {
			args = append(args, "FROMMEMBER", p[2])
		}
		if g.r.IntN(2) == 0 {
			args = append(args, "BYRADIUS", dist, unit)
		} else {
			args = append(args, "BYBOX", dist, g.pick("10", "300", "4000"), unit)
		}
	case 2, 3:
		args = []string{g.pick("GEORADIUS", "GEORADIUS_RO"), key, p[0], p[1], dist, unit}
	default:
		args = []string{g.pick("GEORADIUSBYMEMBER", "GEORADIUSBYMEMBER_RO"), key, p[2], dist, unit}
	}
	store := args[0] == "GEOSEARCHSTORE" || args[0] == "GEORADIUS" || args[0] == "GEORADIUSBYMEMBER"
	for _, o := range []string{"WITHDIST", "WITHCOORD", "WITHHASH", "ASC", "DESC"} {
		if g.r.IntN(4) == 0 {
			args = append(args, o)
		}
	}
	if g.r.IntN(3) == 0 {
		args = append(args, "COUNT", g.pick("1", "2", "0"))
		if g.r.IntN(3) == 0 {
			args = append(args, "ANY")
		}
	}
	if store && args[0] != "GEOSEARCHSTORE" && g.r.IntN(3) == 0 {
		args = append(args, "STORE", geoKeys[g.r.IntN(len(geoKeys))])
	}
	return args
}
