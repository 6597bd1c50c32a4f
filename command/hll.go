package command

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strconv"
)

// This file is the HyperLogLog family (PFADD, PFCOUNT, PFMERGE, PFDEBUG,
// PFSELFTEST) over the representation of hllcore.go, with Redis 7.0's
// replies. A dense HLL is edited in place; a sparse one, which may grow, is
// rebuilt in Ctx.Scratch and stored back. PFCOUNT of several keys and
// PFMERGE may span shards: the shard's gather plan runs them on copies.

func init() { register(hllSpecs...) }

var hllSpecs = []*Spec{
	{
		Name: "pfadd", Arity: -2,
		Flags: Write | DenyOOM | Fast,
		ACL:   []string{"hyperloglog"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyInsert, Index: 1, LastKey: 0, Step: 1},
		},
		Handler: CmdPFAdd,
		Summary: "Adds the specified elements to the specified HyperLogLog.",
		Since:   "2.8.9", Group: "hyperloglog",
		Complexity: "O(1) to add every element.",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0},
			{Name: "element", Type: "string", Flags: ArgOptional | ArgMultiple},
		},
	},
	{
		Name: "pfcount", Arity: -2,
		Flags: ReadOnly,
		ACL:   []string{"hyperloglog"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess, Index: 1, LastKey: -1, Step: 1,
				Notes: "RW because it may change the internal representation of the key, and propagate to replicas"},
		},
		Handler: CmdPFCount,
		Summary: "Return the approximated cardinality of the set(s) observed by the HyperLogLog at key(s).",
		Since:   "2.8.9", Group: "hyperloglog",
		Complexity: "O(1) with a very small average constant time when called with a single key. O(N) with N being the number of keys, and much bigger constant times, when called with multiple keys.",
		Args: []Arg{
			{Name: "key", Type: "key", KeySpecIndex: 0, Flags: ArgMultiple},
		},
	},
	{
		Name: "pfmerge", Arity: -2,
		Flags: Write | DenyOOM,
		ACL:   []string{"hyperloglog"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess | KeyInsert, Index: 1, LastKey: 0, Step: 1},
			{Flags: KeyRO | KeyAccess, Index: 2, LastKey: -1, Step: 1},
		},
		// PFMERGE destkey alone is valid, though Redis finds its second
		// key spec empty and so no keys at all: it runs where destkey is.
		Route: func(args [][]byte) Route {
			if len(args) == 2 {
				return Route{Key: 1}
			}
			return Route{}
		},
		Handler: CmdPFMerge,
		Summary: "Merge N different HyperLogLogs into a single one.",
		Since:   "2.8.9", Group: "hyperloglog",
		Complexity: "O(N) to merge N HyperLogLogs, but with high constant times.",
		Args: []Arg{
			{Name: "destkey", Type: "key", KeySpecIndex: 0},
			{Name: "sourcekey", Type: "key", KeySpecIndex: 1, Flags: ArgMultiple},
		},
	},
	{
		Name: "pfdebug", Arity: 3,
		Flags: Write | DenyOOM | Admin,
		ACL:   []string{"hyperloglog"},
		KeySpecs: []KeySpec{
			{Flags: KeyRW | KeyAccess, Index: 2, LastKey: 0, Step: 1},
		},
		Handler: CmdPFDebug,
		Summary: "Internal commands for debugging HyperLogLog values",
		Since:   "2.8.9", Group: "hyperloglog",
		Complexity: "N/A",
		DocFlags:   DocSysCmd,
		Args: []Arg{
			{Name: "subcommand", Type: "string"},
			{Name: "key", Type: "key", KeySpecIndex: 0},
		},
	},
	{
		Name: "pfselftest", Arity: 1,
		Flags:   Admin,
		ACL:     []string{"hyperloglog"},
		Handler: CmdPFSelfTest,
		Summary: "An internal command for testing HyperLogLog values",
		Since:   "2.8.9", Group: "hyperloglog",
		Complexity: "N/A",
		DocFlags:   DocSysCmd,
	},
}

// hllLookup returns key's HLL string (borrowed until the next DB call),
// found false for a missing key; ok false means the error is written (a
// key of another type, or a string that is no HLL).
func hllLookup(c *Ctx, key []byte) (v []byte, found, ok bool) {
	v, found, err := c.DB.GetString(key, c.Now)
	switch {
	case err != nil:
		c.W.Error(err.Error())
		return nil, false, false
	case found && !hllValid(v):
		c.W.Error(errNotHLL)
		return nil, false, false
	}
	return v, found, true
}

// hllUnshare makes key's string raw, as Redis's dbUnshareStringValue does
// before touching an HLL (only a short one can be an embstr), and returns
// it again.
func hllUnshare(c *Ctx, key, v []byte) []byte {
	if len(v) > 44 {
		return v
	}
	c.DB.EditString(key, len(v), c.Now, func([]byte, bool) int { return 0 })
	v, _, _ = c.DB.GetString(key, c.Now)
	return v
}

// CmdPFAdd is PFADD key [element ...]: 1 if a register changed (or the key
// was created), else 0.
func CmdPFAdd(c *Ctx, args [][]byte) {
	key := args[1]
	v, found, ok := hllLookup(c, key)
	if !ok {
		return
	}
	maxBytes := c.Store.Limits.HLLSparseMaxBytes
	updated := 0
	if found && v[4] == hllDense {
		c.DB.EditString(key, len(v), c.Now, func(b []byte, _ bool) int {
			for _, e := range args[2:] {
				_, r := hllAdd(b, e, maxBytes)
				updated += r
			}
			if updated > 0 {
				hllInvalidate(b)
			}
			return updated
		})
		c.W.Int(int64(min(updated, 1)))
		return
	}
	var s []byte
	if found {
		s = append(c.Scratch[:0], v...)
	} else {
		s = hllNew(c.Scratch[:0])
		updated++
	}
	for _, e := range args[2:] {
		var r int
		if s, r = hllAdd(s, e, maxBytes); r < 0 {
			// Redis keeps what the elements before did, uncounted; the
			// value here stays as it was.
			c.Scratch = s[:0]
			c.W.Error(errHLLCorrupt)
			return
		}
		updated += r
	}
	c.Scratch = s[:0]
	switch {
	case updated > 0:
		hllInvalidate(s)
		c.DB.SetRawString(key, s)
		c.W.Int(1)
	default:
		hllUnshare(c, key, v)
		c.W.Int(0)
	}
}

// CmdPFCount is PFCOUNT key [key ...]: the estimated cardinality of the
// union. One key's estimate is cached in its header (a write Redis
// propagates).
func CmdPFCount(c *Ctx, args [][]byte) {
	if len(args) > 2 {
		var regs [hllRegisters]uint8
		for _, k := range args[1:] {
			v, found, ok := hllLookup(c, k)
			if !ok {
				return
			}
			if found && !hllMerge(&regs, v) {
				c.W.Error(errHLLCorrupt)
				return
			}
		}
		c.W.Int(int64(hllCountRegs(&regs)))
		return
	}
	key := args[1]
	v, found, ok := hllLookup(c, key)
	if !ok {
		return
	}
	if !found {
		c.W.Int(0)
		return
	}
	if v[15]&0x80 == 0 && len(v) > 44 { // cached, and no embstr to unshare
		c.W.Int(int64(binary.LittleEndian.Uint64(v[8:16])))
		return
	}
	var card uint64
	corrupt := false
	c.DB.EditString(key, len(v), c.Now, func(b []byte, _ bool) int {
		if b[15]&0x80 == 0 {
			card = binary.LittleEndian.Uint64(b[8:16])
			return 0
		}
		if card, ok = hllCount(b); !ok {
			corrupt = true
			return 0
		}
		binary.LittleEndian.PutUint64(b[8:16], card)
		return 1
	})
	if corrupt {
		c.W.Error(errHLLCorrupt)
		return
	}
	c.W.Int(int64(card))
}

// CmdPFMerge is PFMERGE destkey [sourcekey ...]: destkey (itself one of
// the inputs) becomes the union, dense if any input is.
func CmdPFMerge(c *Ctx, args [][]byte) {
	var regs [hllRegisters]uint8
	useDense := false
	for _, k := range args[1:] {
		v, found, ok := hllLookup(c, k)
		if !ok {
			return
		}
		if !found {
			continue
		}
		if v[4] == hllDense {
			useDense = true
		}
		if !hllMerge(&regs, v) {
			c.W.Error(errHLLCorrupt)
			return
		}
	}
	dst := args[1]
	v, found, _ := c.DB.GetString(dst, c.Now)
	var s []byte
	if found {
		s = append(c.Scratch[:0], v...)
	} else {
		s = hllNew(c.Scratch[:0])
	}
	if useDense {
		var ok bool
		if s, ok = hllToDense(s); !ok {
			c.Scratch = s[:0]
			c.W.Error(errHLLCorrupt)
			return
		}
	}
	maxBytes := c.Store.Limits.HLLSparseMaxBytes
	for i, m := range regs {
		if m == 0 {
			continue
		}
		if s[4] == hllDense {
			denseSetMax(s[hllHdrSize:], i, m)
		} else {
			s, _ = hllSparseSet(s, i, m, maxBytes)
		}
	}
	hllInvalidate(s)
	c.DB.SetRawString(dst, s)
	c.Scratch = s[:0]
	c.W.OK()
}

// CmdPFDebug is PFDEBUG GETREG|DECODE|ENCODING|TODENSE key.
func CmdPFDebug(c *Ctx, args [][]byte) {
	sub, key := args[1], args[2]
	v, found, ok := hllLookup(c, key)
	if !ok {
		return
	}
	if !found {
		c.W.Error("ERR The specified key does not exist")
		return
	}
	v = hllUnshare(c, key, v)
	switch {
	case kvIs(sub, "getreg"), kvIs(sub, "todense"):
		converted := false
		if v[4] == hllSparse {
			s, ok := hllToDense(append(c.Scratch[:0], v...))
			c.Scratch = s[:0]
			if !ok {
				c.W.Error(errHLLCorrupt)
				return
			}
			c.DB.SetRawString(key, s)
			v, converted = s, true
		}
		if kvIs(sub, "todense") {
			if converted {
				c.W.Int(1)
			} else {
				c.W.Int(0)
			}
			return
		}
		c.W.Array(hllRegisters)
		for i := range hllRegisters {
			c.W.Int(int64(denseGet(v[hllHdrSize:], i)))
		}
	case kvIs(sub, "decode"):
		if v[4] != hllSparse {
			c.W.Error("ERR HLL encoding is not sparse")
			return
		}
		out := c.Scratch[:0]
		r := v[hllHdrSize:]
		for p := 0; p < len(r); {
			if len(out) > 0 {
				out = append(out, ' ')
			}
			switch b := r[p]; {
			case spIsZero(b):
				out = strconv.AppendInt(append(out, "z:"...), int64(spZeroLen(b)), 10)
				p++
			case spIsXZero(b):
				out = strconv.AppendInt(append(out, "Z:"...), int64(spXZeroLen(r, p)), 10)
				p += 2
			default:
				out = strconv.AppendInt(append(out, "v:"...), int64(spValValue(b)), 10)
				out = strconv.AppendInt(append(out, ','), int64(spValLen(b)), 10)
				p++
			}
		}
		c.Scratch = out[:0]
		c.W.Bulk(out)
	case kvIs(sub, "encoding"):
		if v[4] == hllDense {
			c.W.Simple("dense")
		} else {
			c.W.Simple("sparse")
		}
	default:
		c.W.Error("ERR Unknown PFDEBUG subcommand '" + string(sub) + "'")
	}
}

// CmdPFSelfTest is PFSELFTEST: Redis's self test of the register access
// and of the estimate's error, dense and sparse side by side.
func CmdPFSelfTest(c *Ctx, args [][]byte) {
	dense := make([]byte, hllDenseSize)
	r := dense[hllHdrSize:]
	var want [hllRegisters]uint8
	for range 1000 {
		for i := range want {
			want[i] = uint8(rand.Uint32() & hllRegMax)
			denseSet(r, i, want[i])
		}
		for i, w := range want {
			if got := denseGet(r, i); got != w {
				c.W.Error("ERR TESTFAILED Register " + strconv.Itoa(i) + " should be " + strconv.Itoa(int(w)) + " but is " + strconv.Itoa(int(got)))
				return
			}
		}
	}
	clear(r)
	maxBytes := c.Store.Limits.HLLSparseMaxBytes
	sparse := hllNew(nil)
	relErr := 1.04 / math.Sqrt(hllRegisters)
	seed := rand.Uint64()
	var ele [8]byte
	checkpoint := 1
	for j := 1; j <= 10000000; j++ {
		binary.LittleEndian.PutUint64(ele[:], uint64(j)^seed)
		hllAdd(dense, ele[:], maxBytes)
		sparse, _ = hllAdd(sparse, ele[:], maxBytes)
		if j != checkpoint {
			continue
		}
		if j < maxBytes/2 && sparse[4] != hllSparse {
			c.W.Error("ERR TESTFAILED sparse encoding not used")
			return
		}
		d, _ := hllCount(dense)
		if sp, _ := hllCount(sparse); d != sp {
			c.W.Error("ERR TESTFAILED dense/sparse disagree")
			return
		}
		absErr := int64(checkpoint) - int64(d)
		maxErr := int64(math.Ceil(relErr * 6 * float64(checkpoint)))
		if j == 10 {
			maxErr = 1 // collisions make a bigger error likely enough at 10
		}
		if absErr < 0 {
			absErr = -absErr
		}
		if absErr > maxErr {
			c.W.Error("ERR TESTFAILED Too big error. card:" + strconv.Itoa(checkpoint) + " abserr:" + strconv.FormatInt(absErr, 10))
			return
		}
		checkpoint *= 10
	}
	c.W.OK()
}
