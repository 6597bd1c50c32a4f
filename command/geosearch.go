package command

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"strconv"

	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// This file is the geo searches (GEOSEARCH, GEOSEARCHSTORE, GEORADIUS,
// GEORADIUSBYMEMBER and their _RO forms), ported from Redis 7.0's
// georadiusGeneric: the same nine geohash boxes scanned in the same order,
// the same distance filter, so that even unsorted and COUNT ANY results
// come in Redis's order.

func init() { register(geoSearchSpecs...) }

var geoSearchArgsFrom = []Arg{
	{Name: "from", Type: "oneof", Args: []Arg{
		{Name: "member", Type: "string", Token: "FROMMEMBER"},
		{Name: "longitude_latitude", Type: "block", Token: "FROMLONLAT", Args: []Arg{
			{Name: "longitude", Type: "double"},
			{Name: "latitude", Type: "double"},
		}},
	}},
	{Name: "by", Type: "oneof", Args: []Arg{
		{Name: "circle", Type: "block", Args: []Arg{
			{Name: "radius", Type: "double", Token: "BYRADIUS"},
			{Name: "unit", Type: "oneof", Args: geoUnitArgs},
		}},
		{Name: "box", Type: "block", Args: []Arg{
			{Name: "width", Type: "double", Token: "BYBOX"},
			{Name: "height", Type: "double"},
			{Name: "unit", Type: "oneof", Args: geoUnitArgs},
		}},
	}},
	{Name: "order", Type: "oneof", Flags: ArgOptional, Args: []Arg{
		{Name: "asc", Type: "pure-token", Token: "ASC"},
		{Name: "desc", Type: "pure-token", Token: "DESC"},
	}},
}

// geoRadiusArgs are GEORADIUS's arguments after the center; any: COUNT's
// ANY has a Since; store: the STORE and STOREDIST keys.
func geoRadiusArgs(anySince string, store bool) []Arg {
	a := []Arg{
		{Name: "radius", Type: "double"},
		{Name: "unit", Type: "oneof", Args: geoUnitArgs},
		{Name: "withcoord", Type: "pure-token", Token: "WITHCOORD", Flags: ArgOptional},
		{Name: "withdist", Type: "pure-token", Token: "WITHDIST", Flags: ArgOptional},
		{Name: "withhash", Type: "pure-token", Token: "WITHHASH", Flags: ArgOptional},
		{Name: "count", Type: "block", Flags: ArgOptional, Args: []Arg{
			{Name: "count", Type: "integer", Token: "COUNT"},
			{Name: "any", Type: "pure-token", Token: "ANY", Since: anySince, Flags: ArgOptional},
		}},
		{Name: "order", Type: "oneof", Flags: ArgOptional, Args: []Arg{
			{Name: "asc", Type: "pure-token", Token: "ASC"},
			{Name: "desc", Type: "pure-token", Token: "DESC"},
		}},
	}
	if store {
		a = append(a,
			Arg{Name: "key", Type: "key", KeySpecIndex: 1, Token: "STORE", Flags: ArgOptional},
			Arg{Name: "key", Type: "key", KeySpecIndex: 2, Token: "STOREDIST", Flags: ArgOptional})
	}
	return a
}

const geoRadiusComplexity = "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index."

// geoRadiusStoreKeys are GEORADIUS's key specs: the source, and the STORE
// and STOREDIST keys searched from argument from.
func geoRadiusStoreKeys(from int) []KeySpec {
	return []KeySpec{
		{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		{Flags: KeyOW | KeyUpdate, Keyword: "STORE", KeywordFrom: from, LastKey: 0, Step: 1},
		{Flags: KeyOW | KeyUpdate, Keyword: "STOREDIST", KeywordFrom: from, LastKey: 0, Step: 1},
	}
}

var geoCenterArgs = []Arg{
	{Name: "key", Type: "key", KeySpecIndex: 0},
	{Name: "longitude", Type: "double"},
	{Name: "latitude", Type: "double"},
}

var geoMemberArgs = []Arg{
	{Name: "key", Type: "key", KeySpecIndex: 0},
	{Name: "member", Type: "string"},
}

var geoSearchSpecs = []*Spec{
	{
		Name: "georadius", Arity: -6,
		Flags:    Write | DenyOOM,
		ACL:      []string{"geo"},
		KeySpecs: geoRadiusStoreKeys(6),
		Handler:  func(c *Ctx, args [][]byte) { geoSearch(c, args, 1, geoRadiusCoords) },
		Summary:  "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a point",
		Since:    "3.2.0", Group: "geo",
		Complexity:      geoRadiusComplexity,
		DocFlags:        DocDeprecated,
		DeprecatedSince: "6.2.0",
		ReplacedBy:      "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` argument",
		History:         [][2]string{{"6.2.0", "Added the `ANY` option for `COUNT`."}, {"7.0.0", "Added support for uppercase unit names."}},
		Args:            append(slices.Clone(geoCenterArgs), geoRadiusArgs("6.2.0", true)...),
	},
	{
		Name: "georadiusbymember", Arity: -5,
		Flags:    Write | DenyOOM,
		ACL:      []string{"geo"},
		KeySpecs: geoRadiusStoreKeys(5),
		Handler:  func(c *Ctx, args [][]byte) { geoSearch(c, args, 1, geoRadiusMember) },
		Summary:  "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a member",
		Since:    "3.2.0", Group: "geo",
		Complexity:      geoRadiusComplexity,
		DocFlags:        DocDeprecated,
		DeprecatedSince: "6.2.0",
		ReplacedBy:      "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` and `FROMMEMBER` arguments",
		History:         [][2]string{{"7.0.0", "Added support for uppercase unit names."}},
		Args:            append(slices.Clone(geoMemberArgs), geoRadiusArgs("", true)...),
	},
	{
		Name: "georadius_ro", Arity: -6,
		Flags: ReadOnly,
		ACL:   []string{"geo"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: func(c *Ctx, args [][]byte) { geoSearch(c, args, 1, geoRadiusCoords|geoNoStore) },
		Summary: "A read-only variant for GEORADIUS",
		Since:   "3.2.10", Group: "geo",
		Complexity:      geoRadiusComplexity,
		DocFlags:        DocDeprecated,
		DeprecatedSince: "6.2.0",
		ReplacedBy:      "`GEOSEARCH` with the `BYRADIUS` argument",
		History:         [][2]string{{"6.2.0", "Added the `ANY` option for `COUNT`."}},
		Args:            append(slices.Clone(geoCenterArgs), geoRadiusArgs("6.2.0", false)...),
	},
	{
		Name: "georadiusbymember_ro", Arity: -5,
		Flags: ReadOnly,
		ACL:   []string{"geo"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: func(c *Ctx, args [][]byte) { geoSearch(c, args, 1, geoRadiusMember|geoNoStore) },
		Summary: "A read-only variant for GEORADIUSBYMEMBER",
		Since:   "3.2.10", Group: "geo",
		Complexity:      geoRadiusComplexity,
		DocFlags:        DocDeprecated,
		DeprecatedSince: "6.2.0",
		ReplacedBy:      "`GEOSEARCH` with the `BYRADIUS` and `FROMMEMBER` arguments",
		Args:            append(slices.Clone(geoMemberArgs), geoRadiusArgs("", false)...),
	},
	{
		Name: "geosearch", Arity: -7,
		Flags: ReadOnly,
		ACL:   []string{"geo"},
		KeySpecs: []KeySpec{
			{Flags: KeyRO | KeyAccess, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: func(c *Ctx, args [][]byte) { geoSearch(c, args, 1, geoSearchCmd) },
		Summary: "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle.",
		Since:   "6.2.0", Group: "geo",
		Complexity: "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around the shape provided as the filter and M is the number of items inside the shape",
		History:    [][2]string{{"7.0.0", "Added support for uppercase unit names."}},
		Args: append(append([]Arg{{Name: "key", Type: "key", KeySpecIndex: 0}}, geoSearchArgsFrom...),
			Arg{Name: "count", Type: "block", Flags: ArgOptional, Args: []Arg{
				{Name: "count", Type: "integer", Token: "COUNT"},
				{Name: "any", Type: "pure-token", Token: "ANY", Flags: ArgOptional},
			}},
			Arg{Name: "withcoord", Type: "pure-token", Token: "WITHCOORD", Flags: ArgOptional},
			Arg{Name: "withdist", Type: "pure-token", Token: "WITHDIST", Flags: ArgOptional},
			Arg{Name: "withhash", Type: "pure-token", Token: "WITHHASH", Flags: ArgOptional}),
	},
	{
		Name: "geosearchstore", Arity: -8,
		Flags: Write | DenyOOM,
		ACL:   []string{"geo"},
		KeySpecs: []KeySpec{
			{Flags: KeyOW | KeyUpdate, Index: 1, LastKey: 0, Step: 1},
			{Flags: KeyRO | KeyAccess, Index: 2, LastKey: 0, Step: 1},
		},
		Handler: func(c *Ctx, args [][]byte) { geoSearch(c, args, 2, geoSearchCmd|geoSearchStore) },
		Summary: "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle, and store the result in another key.",
		Since:   "6.2.0", Group: "geo",
		Complexity: "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around the shape provided as the filter and M is the number of items inside the shape",
		History:    [][2]string{{"7.0.0", "Added support for uppercase unit names."}},
		Args: append(append([]Arg{{Name: "destination", Type: "key", KeySpecIndex: 0}, {Name: "source", Type: "key", KeySpecIndex: 1}}, geoSearchArgsFrom...),
			Arg{Name: "count", Type: "block", Flags: ArgOptional, Args: []Arg{
				{Name: "count", Type: "integer", Token: "COUNT"},
				{Name: "any", Type: "pure-token", Token: "ANY", Flags: ArgOptional},
			}},
			Arg{Name: "storedist", Type: "pure-token", Token: "STOREDIST", Flags: ArgOptional}),
	},
}

// Kinds of geo search (Redis's georadiusGeneric flags).
const (
	geoRadiusCoords = 1 << iota
	geoRadiusMember
	geoNoStore
	geoSearchCmd
	geoSearchStore
)

// geoShape is the area searched: a circle (radius) or a box (width,
// height), in units of conversion meters, centered on lon, lat.
type geoShape struct {
	box                   bool
	lon, lat              float64
	conversion            float64
	radius, width, height float64
	bounds                [4]float64 // min lon, min lat, max lon, max lat
	// The center in radians and its latitude's cosine (geoDistance's
	// terms of the center), and the shape's latBand and lonLimit: prepare
	// sets them.
	lonR, latR, cosLat float64
	latBand, lonLimit  float64
}

// prepare computes the center's terms of the distance and the bounds no
// point of the shape passes, with margins far above rounding, so that
// geoWithin rejects most of the boxes' points without the trigonometry
// and cells skips the parts of a box outside: latBand, the most a point's
// latitude differs from the center's (radians: the circle's radius, half
// the box's height), and lonLimit, the most its longitude differs
// (radians, reduced to [0, π]), +Inf where that bounds nothing. In the
// band cos(lat) >= cos(edge), so a point of the circle has
// cosLat*cos(edge)*sin²(Δlon/2) <= sin²(radius/2R), and one of the box
// cos²(edge)*sin²(Δlon/2) <= sin²(width/4R).
func (sh *geoShape) prepare() {
	sh.lonR, sh.latR = sh.lon*geoDegRad, sh.lat*geoDegRad
	sh.cosLat = math.Cos(sh.latR)
	sh.lonLimit = math.Inf(1)
	half := sh.radius * sh.conversion / (2 * geoEarthRadius)
	sh.latBand = 2 * half
	if sh.box {
		half = sh.width * sh.conversion / (4 * geoEarthRadius)
		sh.latBand = sh.height * sh.conversion / (2 * geoEarthRadius)
	}
	edge := math.Abs(sh.latR) + sh.latBand + 1e-9
	if half >= math.Pi/2 || edge >= math.Pi/2 {
		return
	}
	t := math.Sin(half)
	below := sh.cosLat * math.Cos(edge)
	if sh.box {
		below = math.Cos(edge) * math.Cos(edge)
	}
	if s := t * t / below; s < 1 {
		sh.lonLimit = 2*math.Asin(math.Sqrt(s))*(1+1e-6) + 1e-12
	}
}

// geoLonDiff is the difference of two longitudes in radians, reduced to
// [0, π] (the distance's sin²(Δlon/2) is the same for Δlon and 2π-Δlon).
func geoLonDiff(a, b float64) float64 {
	d := math.Abs(a - b)
	if d > math.Pi {
		d = 2*math.Pi - d
	}
	return d
}

// cells returns which of box b's 16 cells two steps finer (bit i: the
// i-th by score, whose scores have i in bits shift..shift+3) may hold a
// point of the shape: those that reach into its latitude band and
// longitude limit. A box of step 25 or 26 is not divided (mask 1,
// shift 64).
func (sh *geoShape) cells(b geoBits) (mask uint16, shift uint) {
	if b.step > 24 {
		return 1, 64
	}
	band := sh.latBand*(1+1e-6) + 1e-12
	for i := range uint64(16) {
		a := geoDecodeArea(geoBits{bits: b.bits<<4 | i, step: b.step + 2})
		latMin, latMax := a.latMin*geoDegRad, a.latMax*geoDegRad
		if sh.latR < latMin-band || sh.latR > latMax+band {
			continue
		}
		lonMin, lonMax := a.lonMin*geoDegRad, a.lonMax*geoDegRad
		if (sh.lonR < lonMin || sh.lonR > lonMax) &&
			min(geoLonDiff(lonMin, sh.lonR), geoLonDiff(lonMax, sh.lonR)) > sh.lonLimit {
			continue
		}
		mask |= 1 << i
	}
	return mask, 52 - 2*(b.step+2)
}

// geoBits is a geohash of step bits per coordinate; the zero value is
// "no box".
type geoBits struct {
	bits uint64
	step uint
}

// geoArea is the cell a geoBits names.
type geoArea struct{ lonMin, lonMax, latMin, latMax float64 }

func geoDecodeArea(h geoBits) geoArea {
	sep := deinterleave64(h.bits)
	ilat, ilon := uint64(uint32(sep)), uint64(uint32(sep>>32))
	cells := float64(uint64(1) << h.step)
	latScale, longScale := geoLatMax-geoLatMin, geoLongMax-geoLongMin
	return geoArea{
		latMin: geoLatMin + (float64(ilat)*1.0/cells)*latScale,
		latMax: geoLatMin + (float64(ilat+1)*1.0/cells)*latScale,
		lonMin: geoLongMin + (float64(ilon)*1.0/cells)*longScale,
		lonMax: geoLongMin + (float64(ilon+1)*1.0/cells)*longScale,
	}
}

// geoMoveX and geoMoveY move a geohash one cell east (d > 0) or west,
// north or south, as Redis's geohash_move_x/y (wrapping).
func geoMoveX(h geoBits, d int) geoBits {
	x, y := h.bits&0xaaaaaaaaaaaaaaaa, h.bits&0x5555555555555555
	zz := uint64(0x5555555555555555) >> (64 - h.step*2)
	if d > 0 {
		x += zz + 1
	} else {
		x |= zz
		x -= zz + 1
	}
	x &= 0xaaaaaaaaaaaaaaaa >> (64 - h.step*2)
	h.bits = x | y
	return h
}

func geoMoveY(h geoBits, d int) geoBits {
	x, y := h.bits&0xaaaaaaaaaaaaaaaa, h.bits&0x5555555555555555
	zz := uint64(0xaaaaaaaaaaaaaaaa) >> (64 - h.step*2)
	if d > 0 {
		y += zz + 1
	} else {
		y |= zz
		y -= zz + 1
	}
	y &= 0x5555555555555555 >> (64 - h.step*2)
	h.bits = x | y
	return h
}

// geoStepsByRadius is Redis's geohashEstimateStepsByRadius.
func geoStepsByRadius(meters, lat float64) uint {
	if meters == 0 {
		return 26
	}
	step := 1
	for meters < 20037726.37 {
		meters *= 2
		step++
	}
	step -= 2
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	return uint(min(max(step, 1), 26))
}

// geoBoxes is Redis's geohashCalculateAreasByShapeWGS84: the center cell
// and its neighbours, in membersOfAllNeighbors's order (center, N, S, E,
// W, NE, NW, SE, SW), those outside the search zeroed.
func geoBoxes(sh *geoShape) [9]geoBits {
	height := sh.conversion * sh.radius
	width := height
	if sh.box {
		height, width = sh.conversion*sh.height/2, sh.conversion*sh.width/2
	}
	latDelta := height / geoEarthRadius / geoDegRad
	longDeltaTop := width / geoEarthRadius / math.Cos((sh.lat+latDelta)*geoDegRad) / geoDegRad
	longDeltaBottom := width / geoEarthRadius / math.Cos((sh.lat-latDelta)*geoDegRad) / geoDegRad
	if sh.lat < 0 {
		sh.bounds = [4]float64{sh.lon - longDeltaBottom, sh.lat - latDelta, sh.lon + longDeltaBottom, sh.lat + latDelta}
	} else {
		sh.bounds = [4]float64{sh.lon - longDeltaTop, sh.lat - latDelta, sh.lon + longDeltaTop, sh.lat + latDelta}
	}
	minLon, minLat, maxLon, maxLat := sh.bounds[0], sh.bounds[1], sh.bounds[2], sh.bounds[3]
	radius := sh.radius
	if sh.box {
		radius = math.Sqrt((sh.width/2)*(sh.width/2) + (sh.height/2)*(sh.height/2))
	}
	radius *= sh.conversion
	steps := geoStepsByRadius(radius, sh.lat)
	cells := func(steps uint) (geoBits, [8]geoBits, geoArea) {
		h := geoBits{bits: geoEncode(geoLongMin, geoLongMax, geoLatMin, geoLatMax, sh.lon, sh.lat, steps), step: steps}
		n := [8]geoBits{ // N, S, E, W, NE, NW, SE, SW
			geoMoveY(h, 1), geoMoveY(h, -1), geoMoveX(h, 1), geoMoveX(h, -1),
			geoMoveY(geoMoveX(h, 1), 1), geoMoveY(geoMoveX(h, -1), 1),
			geoMoveY(geoMoveX(h, 1), -1), geoMoveY(geoMoveX(h, -1), -1),
		}
		return h, n, geoDecodeArea(h)
	}
	h, n, area := cells(steps)
	north, south, east, west := geoDecodeArea(n[0]), geoDecodeArea(n[1]), geoDecodeArea(n[2]), geoDecodeArea(n[3])
	if steps > 1 && (north.latMax < maxLat || south.latMin > minLat || east.lonMax < maxLon || west.lonMin > minLon) {
		h, n, area = cells(steps - 1)
		steps--
	}
	if steps >= 2 {
		if area.latMin < minLat {
			n[1], n[7], n[6] = geoBits{}, geoBits{}, geoBits{} // S, SW, SE
		}
		if area.latMax > maxLat {
			n[0], n[4], n[5] = geoBits{}, geoBits{}, geoBits{} // N, NE, NW
		}
		if area.lonMin < minLon {
			n[3], n[7], n[5] = geoBits{}, geoBits{}, geoBits{} // W, SW, NW
		}
		if area.lonMax > maxLon {
			n[2], n[6], n[4] = geoBits{}, geoBits{}, geoBits{} // E, SE, NE
		}
	}
	return [9]geoBits{h, n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7]}
}

// geoPoint is one search result; its member is the bytes [off, end) of
// Ctx.Scratch. Holding no pointer, the results' buffer (Ctx.geo) is kept
// between calls and sorting it moves no pointers.
type geoPoint struct {
	lon, lat, dist, score float64
	off, end              int
}

// A search leaves its buffers to the next when they hold at most
// geoKeepBytes of members and geoKeepPoints results (a search of more
// gives them to the collector).
const (
	geoKeepBytes  = 64 << 10
	geoKeepPoints = 1024
)

// distance is geoDistance(sh.lon, sh.lat, lon, lat), to the bit, with
// the center's terms computed once.
func (sh *geoShape) distance(lon, lat float64) float64 {
	lat2r, lon2r := lat*geoDegRad, lon*geoDegRad
	u := math.Sin((lat2r - sh.latR) / 2)
	v := math.Sin((lon2r - sh.lonR) / 2)
	return 2.0 * geoEarthRadius * math.Asin(math.Sqrt(u*u+sh.cosLat*math.Cos(lat2r)*v*v))
}

// geoWithin is Redis's geoAppendIfWithinShape test: the point's distance
// from the center and whether it lies in the shape.
func geoWithin(sh *geoShape, lon, lat float64) (float64, bool) {
	if !sh.box {
		// The latitude's distance alone, which no point inside can exceed,
		// rejects most of the boxes' points without the trigonometry
		// (Redis 7.2's geohashGetDistanceIfInRadiusWGS84 tests it first).
		if geoEarthRadius*math.Abs(lat*geoDegRad-sh.latR) > sh.radius*sh.conversion ||
			geoLonDiff(lon*geoDegRad, sh.lonR) > sh.lonLimit {
			return 0, false
		}
		d := sh.distance(lon, lat)
		return d, d <= sh.radius*sh.conversion
	}
	if geoLonDiff(lon*geoDegRad, sh.lonR) > sh.lonLimit ||
		geoDistance(lon, lat, lon, sh.lat) > sh.height*sh.conversion/2 ||
		geoDistance(lon, lat, sh.lon, lat) > sh.width*sh.conversion/2 {
		return 0, false
	}
	return sh.distance(lon, lat), true
}

// geoSort sorts pts by distance, ascending or descending, keeping the
// scan's order among equal distances: by insertion, with no call per
// comparison, when they are few (as usually), else by slices' stable sort.
func geoSort(pts []geoPoint, desc bool) {
	if len(pts) > 48 {
		slices.SortStableFunc(pts, func(a, b geoPoint) int {
			if desc {
				a, b = b, a
			}
			return cmp.Compare(a.dist, b.dist)
		})
		return
	}
	for i := 1; i < len(pts); i++ {
		p, j := pts[i], i
		for ; j > 0 && (!desc && pts[j-1].dist > p.dist || desc && pts[j-1].dist < p.dist); j-- {
			pts[j] = pts[j-1]
		}
		pts[j] = p
	}
}

// geoParseDistance parses "radius unit" into sh (with box: "width height
// unit"); false: the error is written.
func geoParseDistance(c *Ctx, sh *geoShape, args [][]byte, box bool) bool {
	if box {
		w, ok := num.ParseDouble(args[0])
		if !ok {
			c.W.Error("ERR need numeric width")
			return false
		}
		h, ok := num.ParseDouble(args[1])
		if !ok {
			c.W.Error("ERR need numeric height")
			return false
		}
		if h < 0 || w < 0 {
			c.W.Error("ERR height or width cannot be negative")
			return false
		}
		sh.width, sh.height = w, h
		args = args[2:]
	} else {
		r, ok := num.ParseDouble(args[0])
		if !ok {
			c.W.Error("ERR need numeric radius")
			return false
		}
		if r < 0 {
			c.W.Error("ERR radius cannot be negative")
			return false
		}
		sh.radius = r
		args = args[1:]
	}
	conv, ok := geoUnit(c, args[0])
	sh.conversion = conv
	sh.box = box
	return ok
}

// geoSearch is Redis's georadiusGeneric: src is the index of the source
// key, kind the command's geo* flags.
func geoSearch(c *Ctx, args [][]byte, src int, kind int) {
	key := args[src]
	card, err := c.DB.ZCard(key, c.Now)
	if err != nil {
		c.W.Error(err.Error())
		return
	}
	exists := card > 0
	var sh geoShape
	var store []byte
	storeDist := false
	base := 2
	memberCenter := func(m []byte) bool {
		score, ok, _ := c.DB.ZScore(key, m, c.Now)
		if !ok {
			c.W.Error("ERR could not decode requested zset member")
			return false
		}
		sh.lon, sh.lat = geoDecode(score)
		return true
	}
	switch {
	case kind&geoRadiusCoords != 0:
		base = 6
		var ok bool
		if sh.lon, sh.lat, ok = geoLonLat(c, args[2], args[3]); !ok {
			return
		}
		if !geoParseDistance(c, &sh, args[4:6], false) {
			return
		}
	case kind&geoRadiusMember != 0:
		base = 5
		if exists {
			if !memberCenter(args[2]) || !geoParseDistance(c, &sh, args[3:5], false) {
				return
			}
		}
	case kind&geoSearchStore != 0:
		base = 3
		store = args[1]
	}
	var withDist, withHash, withCoord, fromMember, fromLoc, byRadius, byBox, any bool
	sort := 0 // 1 ascending, -1 descending
	var count int64
	rest := args[base:]
	search := kind&geoSearchCmd != 0
	for i := 0; i < len(rest); i++ {
		a, left := rest[i], len(rest)-i-1
		switch {
		case kvIs(a, "withdist"):
			withDist = true
		case kvIs(a, "withhash"):
			withHash = true
		case kvIs(a, "withcoord"):
			withCoord = true
		case kvIs(a, "any"):
			any = true
		case kvIs(a, "asc"):
			sort = 1
		case kvIs(a, "desc"):
			sort = -1
		case kvIs(a, "count") && left >= 1:
			var ok bool
			if count, ok = kvArgInt(c, rest[i+1]); !ok {
				return
			}
			if count <= 0 {
				c.W.Error("ERR COUNT must be > 0")
				return
			}
			i++
		case (kvIs(a, "store") || kvIs(a, "storedist")) && left >= 1 && kind&(geoNoStore|geoSearchCmd) == 0:
			store, storeDist = rest[i+1], kvIs(a, "storedist")
			i++
		case kvIs(a, "storedist") && kind&geoSearchStore != 0:
			storeDist = true
		case kvIs(a, "frommember") && left >= 1 && search && !fromLoc:
			if exists && !memberCenter(rest[i+1]) {
				return
			}
			fromMember = true
			i++
		case kvIs(a, "fromlonlat") && left >= 2 && search && !fromMember:
			var ok bool
			if sh.lon, sh.lat, ok = geoLonLat(c, rest[i+1], rest[i+2]); !ok {
				return
			}
			fromLoc = true
			i += 2
		case kvIs(a, "byradius") && left >= 2 && search && !byBox:
			if !geoParseDistance(c, &sh, rest[i+1:i+3], false) {
				return
			}
			byRadius = true
			i += 2
		case kvIs(a, "bybox") && left >= 3 && search && !byRadius:
			if !geoParseDistance(c, &sh, rest[i+1:i+4], true) {
				return
			}
			byBox = true
			i += 3
		default:
			c.W.Error(errtext.Syntax)
			return
		}
	}
	switch {
	case store != nil && (withDist || withHash || withCoord):
		what := "STORE option in GEORADIUS"
		if kind&geoSearchStore != 0 {
			what = "GEOSEARCHSTORE"
		}
		c.W.Error("ERR " + what + " is not compatible with WITHDIST, WITHHASH and WITHCOORD options")
		return
	case search && !fromMember && !fromLoc:
		c.W.Error("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + string(args[0]))
		return
	case search && !byRadius && !byBox:
		c.W.Error("ERR exactly one of BYRADIUS and BYBOX can be specified for " + string(args[0]))
		return
	case any && count == 0:
		c.W.Error("ERR the ANY argument requires COUNT argument")
		return
	}
	if !exists {
		if store != nil {
			c.DB.Delete(store, c.Now)
			c.W.Int(0)
		} else {
			c.W.Array(0)
		}
		return
	}
	if count != 0 && sort == 0 && !any {
		sort = 1
	}
	limit := 0
	if any {
		limit = int(count)
	}
	pts, names := c.geo[:0], c.Scratch[:0]
	defer func() {
		if cap(names) <= geoKeepBytes && cap(pts) <= geoKeepPoints {
			c.geo, c.Scratch = pts[:0], names[:0]
		}
	}()
	sh.prepare()
	boxes := geoBoxes(&sh)
	last := 0
	for i, b := range boxes {
		if b == (geoBits{}) {
			continue
		}
		if last != 0 && b == boxes[last] {
			continue
		}
		if limit > 0 && len(pts) >= limit {
			break
		}
		last = i
		// Only the span of the box's cells that may hold a point is
		// walked, and its other cells' points are passed over by score.
		mask, shift := sh.cells(b)
		if mask == 0 {
			continue
		}
		lo, hi := b.bits<<(52-b.step*2), (b.bits+1)<<(52-b.step*2)
		if shift < 64 {
			lo, hi = lo+uint64(bits.TrailingZeros16(mask))<<shift, lo+uint64(16-bits.LeadingZeros16(mask))<<shift
		}
		c.DB.ZWalkScores(key, float64(lo), float64(hi), c.Now, func(m []byte, score float64) bool {
			if mask>>(uint64(score)>>shift&15)&1 == 0 {
				return true
			}
			lon, lat := geoDecode(score)
			if d, ok := geoWithin(&sh, lon, lat); ok {
				pts = append(pts, geoPoint{lon: lon, lat: lat, dist: d, score: score, off: len(names), end: len(names) + len(m)})
				names = append(names, m...)
			}
			return limit == 0 || len(pts) < limit
		})
	}
	if len(pts) == 0 && store == nil {
		c.W.Array(0)
		return
	}
	n := len(pts)
	if count != 0 && int64(n) > count {
		n = int(count)
	}
	if sort != 0 {
		geoSort(pts, sort < 0)
	}
	pts = pts[:n]
	if store != nil {
		c.DB.ZStore(store, n, func(i int) (float64, []byte) {
			p := &pts[i]
			if storeDist {
				return p.dist / sh.conversion, names[p.off:p.end]
			}
			return p.score, names[p.off:p.end]
		}, c.Now)
		c.W.Int(int64(n))
		return
	}
	opts := 0
	for _, w := range []bool{withDist, withCoord, withHash} {
		if w {
			opts++
		}
	}
	c.W.Array(n)
	var buf [32]byte
	for i := range pts {
		p := &pts[i]
		if opts > 0 {
			c.W.Array(opts + 1)
		}
		c.W.Bulk(names[p.off:p.end])
		if withDist {
			c.W.Bulk(strconv.AppendFloat(buf[:0], p.dist/sh.conversion, 'f', 4, 64))
		}
		if withHash {
			c.W.Int(int64(p.score))
		}
		if withCoord {
			c.W.Array(2)
			geoCoord(c, p.lon)
			geoCoord(c, p.lat)
		}
	}
}
