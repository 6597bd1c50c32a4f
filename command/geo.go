package command

import (
	"math"
	"strconv"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// This file is the geo family on sorted sets: a member's score is the
// 52-bit geohash of its position (26 bits of longitude and of latitude
// interleaved, latitude in the even bits, over Redis's Web Mercator bounds),
// so that GEOADD's scores, GEOPOS's rounding and GEOHASH's strings are
// Redis's to the digit (geohash.c and geo.c of Redis 7.0).

func init() { register(geoSpecs...) }

var geoSpecs = []*Spec{
	{
		Name: "geoadd", Arity: -5,
		Flags: Write | DenyOOM,
		ACL:   []string{"geo"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdGeoAdd,
		Summary: "Add one or more geospatial items in the geospatial index represented using a sorted set",
		Since:   "3.2.0", Group: "geo",
		Complexity: "O(log(N)) for each item added, where N is the number of elements in the sorted set.",
		History:    [][2]string{{"6.2.0", "Added the `CH`, `NX` and `XX` options."}},
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "condition", Type: "oneof", Since: "6.2.0", Flags: ArgOptional, Args: []Arg{
				{Name: "nx", Type: "pure-token", Token: "NX"},
				{Name: "xx", Type: "pure-token", Token: "XX"},
			}},
			{Name: "change", Type: "pure-token", Token: "CH", Since: "6.2.0", Flags: ArgOptional},
			{Name: "longitude_latitude_member", Type: "block", Flags: ArgMultiple, Args: []Arg{
				{Name: "longitude", Type: "double"},
				{Name: "latitude", Type: "double"},
				{Name: "member", Type: "string"},
			}},
		},
	},
	{
		Name: "geopos", Arity: -2,
		Flags: ReadOnly,
		ACL:   []string{"geo"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdGeoPos,
		Summary: "Returns longitude and latitude of members of a geospatial index",
		Since:   "3.2.0", Group: "geo",
		Complexity: "O(N) where N is the number of members requested.",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "member", Type: "string", Flags: ArgMultiple},
		},
	},
	{
		Name: "geodist", Arity: -4,
		Flags: ReadOnly,
		ACL:   []string{"geo"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdGeoDist,
		Summary: "Returns the distance between two members of a geospatial index",
		Since:   "3.2.0", Group: "geo",
		Complexity: "O(log(N))",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "member1", Type: "string"},
			{Name: "member2", Type: "string"},
			{Name: "unit", Type: "oneof", Flags: ArgOptional, Args: geoUnitArgs},
		},
	},
	{
		Name: "geohash", Arity: -2,
		Flags: ReadOnly,
		ACL:   []string{"geo"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdGeoHash,
		Summary: "Returns members of a geospatial index as standard geohash strings",
		Since:   "3.2.0", Group: "geo",
		Complexity: "O(log(N)) for each member requested, where N is the number of elements in the sorted set.",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "member", Type: "string", Flags: ArgMultiple},
		},
	},
}

var geoUnitArgs = []Arg{
	{Name: "m", Type: "pure-token", Token: "M"},
	{Name: "km", Type: "pure-token", Token: "KM"},
	{Name: "ft", Type: "pure-token", Token: "FT"},
	{Name: "mi", Type: "pure-token", Token: "MI"},
}

// Redis's geo constants.
const (
	geoStep        = 26 // bits per coordinate: 52-bit scores
	geoLatMin      = -85.05112878
	geoLatMax      = 85.05112878
	geoLongMin     = -180.0
	geoLongMax     = 180.0
	geoEarthRadius = 6372797.560856 // meters
	geoDegRad      = math.Pi / 180.0
)

// interleave64 spreads the bits of x over the even bits of the result and
// those of y over the odd ones.
func interleave64(x, y uint32) uint64 {
	spread := func(v uint64) uint64 {
		v = (v | v<<16) & 0x0000FFFF0000FFFF
		v = (v | v<<8) & 0x00FF00FF00FF00FF
		v = (v | v<<4) & 0x0F0F0F0F0F0F0F0F
		v = (v | v<<2) & 0x3333333333333333
		return (v | v<<1) & 0x5555555555555555
	}
	return spread(uint64(x)) | spread(uint64(y))<<1
}

// deinterleave64 is interleave64's inverse: x (even bits) in the low 32
// bits, y in the high.
func deinterleave64(b uint64) uint64 {
	squash := func(v uint64) uint64 {
		v &= 0x5555555555555555
		v = (v | v>>1) & 0x3333333333333333
		v = (v | v>>2) & 0x0F0F0F0F0F0F0F0F
		v = (v | v>>4) & 0x00FF00FF00FF00FF
		v = (v | v>>8) & 0x0000FFFF0000FFFF
		return (v | v>>16) & 0x00000000FFFFFFFF
	}
	return squash(b) | squash(b>>1)<<32
}

// geoEncode is Redis's geohashEncode over the ranges [longMin, longMax]
// and [latMin, latMax] with step bits per coordinate.
func geoEncode(longMin, longMax, latMin, latMax, lon, lat float64, step uint) uint64 {
	latOff := (lat - latMin) / (latMax - latMin)
	longOff := (lon - longMin) / (longMax - longMin)
	latOff *= float64(uint64(1) << step)
	longOff *= float64(uint64(1) << step)
	return interleave64(uint32(latOff), uint32(longOff))
}

// geoScore is the score GEOADD gives a position (already range-checked).
func geoScore(lon, lat float64) float64 {
	return float64(geoEncode(geoLongMin, geoLongMax, geoLatMin, geoLatMax, lon, lat, geoStep))
}

// geoDecode returns the center of the cell a score's geohash names, as
// Redis's geohashDecodeToLongLatWGS84 computes it.
func geoDecode(score float64) (lon, lat float64) {
	sep := deinterleave64(uint64(score))
	ilat, ilon := uint32(sep), uint32(sep>>32)
	const cells = float64(uint64(1) << geoStep)
	latScale, longScale := geoLatMax-geoLatMin, geoLongMax-geoLongMin
	latMin := geoLatMin + (float64(ilat)*1.0/cells)*latScale
	latMax := geoLatMin + (float64(uint64(ilat)+1)*1.0/cells)*latScale
	lonMin := geoLongMin + (float64(ilon)*1.0/cells)*longScale
	lonMax := geoLongMin + (float64(uint64(ilon)+1)*1.0/cells)*longScale
	lon = min(max((lonMin+lonMax)/2, geoLongMin), geoLongMax)
	lat = min(max((latMin+latMax)/2, geoLatMin), geoLatMax)
	return lon, lat
}

// geoDistance is Redis 7.0's haversine distance in meters.
func geoDistance(lon1, lat1, lon2, lat2 float64) float64 {
	lat1r, lon1r := lat1*geoDegRad, lon1*geoDegRad
	lat2r, lon2r := lat2*geoDegRad, lon2*geoDegRad
	u := math.Sin((lat2r - lat1r) / 2)
	v := math.Sin((lon2r - lon1r) / 2)
	return 2.0 * geoEarthRadius * math.Asin(math.Sqrt(u*u+math.Cos(lat1r)*math.Cos(lat2r)*v*v))
}

// geoUnit parses a distance unit into meters per unit; ok false: the
// error is written.
func geoUnit(c *Ctx, b []byte) (float64, bool) {
	switch {
	case kvIs(b, "m"):
		return 1, true
	case kvIs(b, "km"):
		return 1000, true
	case kvIs(b, "ft"):
		return 0.3048, true
	case kvIs(b, "mi"):
		return 1609.34, true
	}
	c.W.Error("ERR unsupported unit provided. please use M, KM, FT, MI")
	return 0, false
}

// geoLonLat parses a longitude and a latitude and checks them against
// Redis's bounds; ok false: the error is written.
func geoLonLat(c *Ctx, lonArg, latArg []byte) (lon, lat float64, ok bool) {
	if lon, ok = num.ParseDouble(lonArg); !ok {
		c.W.Error(errtext.NotFloat)
		return 0, 0, false
	}
	if lat, ok = num.ParseDouble(latArg); !ok {
		c.W.Error(errtext.NotFloat)
		return 0, 0, false
	}
	if lon < geoLongMin || lon > geoLongMax || lat < geoLatMin || lat > geoLatMax {
		c.W.Error("ERR invalid longitude,latitude pair " + cFormatF(lon) + "," + cFormatF(lat))
		return 0, 0, false
	}
	return lon, lat, true
}

// cFormatF is C's printf "%f".
func cFormatF(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// CmdGeoAdd is GEOADD key [NX|XX] [CH] longitude latitude member [...]:
// ZADD with each position's geohash as score; every position is checked
// before any is added.
func CmdGeoAdd(c *Ctx, args [][]byte) {
	flags, ch := 0, false
	i := 2
	for ; i < len(args); i++ {
		switch a := args[i]; {
		case kvIs(a, "nx"):
			flags |= engine.ZAddNX
		case kvIs(a, "xx"):
			flags |= engine.ZAddXX
		case kvIs(a, "ch"):
			ch = true
		default:
			goto points
		}
	}
points:
	n := len(args) - i
	if n == 0 || n%3 != 0 || flags == engine.ZAddNX|engine.ZAddXX {
		c.W.Error(errtext.Syntax)
		return
	}
	n /= 3
	for j := 0; j < n; j++ {
		if _, _, ok := geoLonLat(c, args[i+3*j], args[i+3*j+1]); !ok {
			return
		}
	}
	r, err := c.DB.ZAdd(args[1], flags, n, func(j int) (float64, []byte) {
		lon, _ := num.ParseDouble(args[i+3*j])
		lat, _ := num.ParseDouble(args[i+3*j+1])
		return geoScore(lon, lat), args[i+3*j+2]
	}, c.Now)
	switch {
	case err != nil:
		c.W.Error(err.Error())
	case ch:
		c.W.Int(int64(r.Added + r.Updated))
	default:
		c.W.Int(int64(r.Added))
	}
}

// geoCoord writes a coordinate as Redis's addReplyHumanLongDouble: "%.17Lf"
// without trailing zeros, a bulk string in RESP2 and a double in RESP3.
func geoCoord(c *Ctx, f float64) {
	var buf [48]byte
	b := strconv.AppendFloat(buf[:0], f, 'f', 17, 64)
	for b[len(b)-1] == '0' {
		b = b[:len(b)-1]
	}
	if b[len(b)-1] == '.' {
		b = b[:len(b)-1]
	}
	if string(b) == "-0" {
		b = b[1:]
	}
	if c.W.Proto == 3 {
		c.W.B = append(append(append(c.W.B, ','), b...), '\r', '\n')
		return
	}
	c.W.Bulk(b)
}

// CmdGeoPos is GEOPOS key [member ...]: each member's position (the
// center of its geohash cell), or a null array.
func CmdGeoPos(c *Ctx, args [][]byte) {
	if _, err := c.DB.ZCard(args[1], c.Now); err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Array(len(args) - 2)
	for _, m := range args[2:] {
		score, ok, _ := c.DB.ZScore(args[1], m, c.Now)
		if !ok {
			c.W.NullArray()
			continue
		}
		lon, lat := geoDecode(score)
		c.W.Array(2)
		geoCoord(c, lon)
		geoCoord(c, lat)
	}
}

// CmdGeoDist is GEODIST key member1 member2 [M|KM|FT|MI]: the distance
// with four decimals, or null when a member is missing.
func CmdGeoDist(c *Ctx, args [][]byte) {
	toMeter := 1.0
	switch len(args) {
	case 4:
	case 5:
		var ok bool
		if toMeter, ok = geoUnit(c, args[4]); !ok {
			return
		}
	default:
		c.W.Error(errtext.Syntax)
		return
	}
	s1, ok1, err := c.DB.ZScore(args[1], args[2], c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	s2, ok2, _ := c.DB.ZScore(args[1], args[3], c.Now)
	if !ok1 || !ok2 {
		c.W.Null()
		return
	}
	lon1, lat1 := geoDecode(s1)
	lon2, lat2 := geoDecode(s2)
	var buf [32]byte
	c.W.Bulk(strconv.AppendFloat(buf[:0], geoDistance(lon1, lat1, lon2, lat2)/toMeter, 'f', 4, 64))
}

// CmdGeoHash is GEOHASH key [member ...]: each member's position as an
// 11-character standard geohash (over latitudes -90..90), or null.
func CmdGeoHash(c *Ctx, args [][]byte) {
	const alphabet = "0123456789bcdefghjkmnpqrstuvwxyz"
	if _, err := c.DB.ZCard(args[1], c.Now); err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Array(len(args) - 2)
	for _, m := range args[2:] {
		score, ok, _ := c.DB.ZScore(args[1], m, c.Now)
		if !ok {
			c.W.Null()
			continue
		}
		lon, lat := geoDecode(score)
		bits := geoEncode(-180, 180, -90, 90, lon, lat, geoStep)
		var h [11]byte
		for i := range h {
			idx := 0
			if i < 10 {
				idx = int(bits >> (52 - (i+1)*5) & 0x1f)
			}
			h[i] = alphabet[idx]
		}
		c.W.Bulk(h[:])
	}
}
