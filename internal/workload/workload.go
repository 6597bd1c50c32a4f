package workload

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/radish-kv/radish/net/resp"
)

// unordered names the commands whose replies list members in no specified
// order.
var unordered = map[string]bool{
	"HGETALL": true, "HKEYS": true, "HVALS": true, "SMEMBERS": true, "SINTER": true,
	"SUNION": true, "SDIFF": true, "KEYS": true,
}

// Canonical is the reply to args as a comparison needs it: as it is, or,
// for a command whose reply lists members in no specified order (HGETALL,
// SMEMBERS, KEYS ..., an ALPHA SORT's ties), with its members sorted; for
// DUMP, the payload's type byte and contents.
func Canonical(args []string, raw []byte) []byte {
	name := strings.ToUpper(args[0])
	switch {
	case unordered[name] && name == "HGETALL":
		return SortedReply(raw, 2)
	case unordered[name]:
		return SortedReply(raw, 1)
	case name == "SORT" || name == "SORT_RO":
		return canonicalSort(args, raw)
	case name == "DUMP":
		return canonicalDump(raw)
	case name == "XPENDING" && len(args) > 3:
		return canonicalPending(raw)
	}
	return raw
}

// canonicalPending zeroes the idle times of an extended XPENDING's
// entries (ID, consumer, idle, deliveries): the servers are asked one
// after the other.
func canonicalPending(raw []byte) []byte {
	v, _, err := resp.ReadReply(raw)
	if err != nil || v.Type != '*' {
		return raw
	}
	w := resp.Writer{Proto: 3}
	w.Array(len(v.Elems))
	for _, e := range v.Elems {
		if len(e.Elems) == 4 {
			e.Elems[2].Int = 0
		}
		resp.AppendValue(&w, e)
	}
	return w.B
}

// SortedReply re-encodes an aggregate reply with its members sorted, as
// units of step members (HGETALL's field-value pairs: 2).
func SortedReply(raw []byte, step int) []byte {
	v, _, err := resp.ReadReply(raw)
	if err != nil || v.Elems == nil {
		return raw
	}
	var units [][]byte
	for i := 0; i+step <= len(v.Elems); i += step {
		w := resp.Writer{Proto: 3}
		for _, e := range v.Elems[i : i+step] {
			resp.AppendValue(&w, e)
		}
		units = append(units, w.B)
	}
	slices.SortFunc(units, bytes.Compare)
	return append([]byte{v.Type}, bytes.Join(units, nil)...)
}

// Gen makes random commands over a few keys of each type.
type Gen struct {
	r   *rand.Rand
	xms int // the ms part of the last stream ID XADD was given
	// Groups: the stream commands include consumer groups'. Their
	// propagated forms replay as lossily as Redis's (an XREADGROUP's
	// entries-read, consumers only a history read created, seen-times),
	// so a replay comparison leaves them out; without them the stream is
	// the one it was before groups existed.
	Groups bool
}

// New returns a generator drawing from r.
func New(r *rand.Rand) *Gen { return &Gen{r: r} }

// Batch returns a pipeline of 1 to max commands, and sometimes a
// transaction block beyond them (see multi).
func (g *Gen) Batch(max int) [][]string {
	n := 1 + g.r.IntN(max)
	batch := make([][]string, 0, n)
	for len(batch) < n {
		if g.r.IntN(24) == 0 {
			batch = g.multi(batch)
			continue
		}
		batch = append(batch, g.Next())
	}
	return batch
}

// inMulti names the commands a transaction block does not queue: their
// replies, inside EXEC's, would need Canonical or ttlNear.
var inMulti = map[string]bool{"DUMP": true, "TTL": true, "PTTL": true}

// multi appends a transaction block to batch: WATCH of a few keys
// (sometimes), a write by the same client that may touch one of them,
// MULTI, a few commands (with wrong arities and unknown commands, which
// abort EXEC; nested MULTI and WATCH, which do not), then EXEC or DISCARD;
// and sometimes EXEC or DISCARD without MULTI.
func (g *Gen) multi(batch [][]string) [][]string {
	if g.r.IntN(2) == 0 {
		w := []string{"WATCH"}
		for range 1 + g.r.IntN(3) {
			w = append(w, g.key("slhez"[g.r.IntN(5)]))
		}
		batch = append(batch, w)
		if g.r.IntN(3) == 0 {
			batch = append(batch, []string{"SET", g.pick(w[1:]...), g.val()})
		}
	}
	batch = append(batch, []string{"MULTI"})
	for range g.r.IntN(6) {
		switch g.r.IntN(30) {
		case 0:
			batch = append(batch, []string{g.pick("MULTI", "WATCH")})
		case 1:
			batch = append(batch, []string{"NOSUCHCMD", g.val()})
		default:
			args := g.Next()
			for inMulti[args[0]] || unordered[args[0]] || isTiedSort(args) {
				args = g.Next()
			}
			batch = append(batch, args)
		}
	}
	batch = append(batch, []string{g.pick("EXEC", "EXEC", "EXEC", "DISCARD")})
	if g.r.IntN(10) == 0 {
		batch = append(batch, []string{g.pick("EXEC", "DISCARD")})
	}
	return batch
}

var diffKeys = map[byte][]string{
	's': {"s1", "s2", "{t}s3"},
	'l': {"l1", "{t}l2", "l3"},
	'h': {"h1", "{t}h2"},
	'e': {"e1", "{t}e2", "e3"}, // sets
	'z': {"z1", "{t}z2", "z3"},
}

// lexKeys hold sorted sets whose members all have score 0: Redis leaves
// lexicographic ranges over mixed scores unspecified.
var lexKeys = []string{"x1", "{t}x2"}

func (g *Gen) key(family byte) string {
	if g.r.IntN(8) == 0 { // any type: WRONGTYPE paths
		all := []byte("slhez")
		family = all[g.r.IntN(len(all))]
	}
	ks := diffKeys[family]
	return ks[g.r.IntN(len(ks))]
}

var diffVals = []string{"1", "2", "10", "-3", "0", "abc", "x", "hello", "3.5", "", "007",
	"9223372036854775807", strings.Repeat("long", 15)}

func (g *Gen) lexKey() string          { return lexKeys[g.r.IntN(len(lexKeys))] }
func (g *Gen) val() string             { return diffVals[g.r.IntN(len(diffVals))] }
func (g *Gen) idx() string             { return strconv.Itoa(g.r.IntN(9) - 4) }
func (g *Gen) cnt() string             { return strconv.Itoa(g.r.IntN(5)) }
func (g *Gen) pick(s ...string) string { return s[g.r.IntN(len(s))] }

var diffScores = []string{"1", "2", "2.5", "-1", "+inf", "-inf", "0", "1e2", "abc", "(1", "3"}

func (g *Gen) score() string { return diffScores[g.r.IntN(len(diffScores))] }

// blockedKeys returns the keys of a blocking pop: one to three keys,
// mostly lists and sorted sets, of one shard or of several.
func (g *Gen) blockedKeys() []string {
	ks := make([]string, 1+g.r.IntN(3))
	for i := range ks {
		ks[i] = g.key("lzle"[g.r.IntN(4)])
	}
	return ks
}

// Next returns one command.
func (g *Gen) Next() []string {
	args := g.command()
	if g.r.IntN(40) == 0 && len(args) > 1 { // wrong arity, sometimes
		args = args[:g.r.IntN(len(args))]
		if len(args) == 0 {
			args = []string{"GET"}
		}
	}
	return args
}

func (g *Gen) command() []string {
	s, l, h, e, z := g.key('s'), g.key('l'), g.key('h'), g.key('e'), g.key('z')
	switch g.r.IntN(107) {
	case 0:
		return []string{"SET", s, g.val()}
	case 1:
		return []string{"SET", s, g.val(), g.pick("NX", "XX", "GET")}
	case 2:
		return []string{"GET", s}
	case 3:
		return []string{"APPEND", s, g.val()}
	case 4:
		return []string{g.pick("INCR", "DECR"), s}
	case 5:
		return []string{g.pick("INCRBY", "DECRBY"), s, g.val()}
	case 6:
		return []string{"INCRBYFLOAT", s, g.pick("1.5", "-0.25", "3", "abc", "1e3")}
	case 7:
		return []string{"STRLEN", s}
	case 8:
		return []string{"GETRANGE", s, g.idx(), g.idx()}
	case 9:
		return []string{"SETRANGE", s, g.cnt(), g.val()}
	case 10:
		return []string{"MSET", s, g.val(), g.key('s'), g.val()}
	case 11:
		return []string{"MGET", s, g.key('s'), l}
	case 12:
		return []string{g.pick("GETDEL", "TYPE", "EXISTS", "TTL", "PERSIST"), s}
	case 13:
		return []string{g.pick("SETNX", "GETSET"), s, g.val()}
	case 14:
		return []string{"DEL", s, g.key('l')}
	case 15:
		return []string{"EXISTS", s, z, s}
	case 16:
		return []string{g.pick("RENAME", "RENAMENX"), g.key(g.pick("s", "l")[0]), g.key('s')}
	case 17:
		return []string{"DBSIZE"}
	case 18:
		return []string{"OBJECT", "ENCODING", g.key("slhez"[g.r.IntN(5)])}
	case 19, 20:
		return []string{g.pick("LPUSH", "RPUSH"), l, g.val(), g.val()}
	case 21:
		return []string{g.pick("LPUSHX", "RPUSHX"), l, g.val()}
	case 22:
		if g.r.IntN(2) == 0 {
			return []string{g.pick("LPOP", "RPOP"), l}
		}
		return []string{g.pick("LPOP", "RPOP"), l, g.cnt()}
	case 23:
		return []string{"LRANGE", l, g.idx(), g.idx()}
	case 24:
		return []string{g.pick("LINDEX", "LLEN"), l, g.idx()}
	case 25:
		return []string{"LSET", l, g.idx(), g.val()}
	case 26:
		return []string{"LINSERT", l, g.pick("BEFORE", "AFTER"), g.val(), g.val()}
	case 27:
		return []string{"LREM", l, g.idx(), g.val()}
	case 28:
		return []string{"LTRIM", l, g.idx(), g.idx()}
	case 29:
		return []string{"LPOS", l, g.val(), "RANK", g.pick("1", "-1", "2"), "COUNT", g.cnt()}
	case 30:
		return []string{"LMOVE", l, g.key('l'), g.pick("LEFT", "RIGHT"), g.pick("LEFT", "RIGHT")}
	case 31, 32:
		return []string{"HSET", h, g.val(), g.val(), g.val(), g.val()}
	case 33:
		return []string{g.pick("HGET", "HEXISTS", "HSTRLEN"), h, g.val()}
	case 34:
		return []string{"HMGET", h, g.val(), g.val()}
	case 35:
		return []string{"HDEL", h, g.val(), g.val()}
	case 36:
		return []string{g.pick("HLEN", "HGETALL", "HKEYS", "HVALS"), h}
	case 37:
		return []string{"HINCRBY", h, g.val(), g.val()}
	case 38:
		return []string{"HINCRBYFLOAT", h, g.val(), g.pick("1.5", "-2", "x")}
	case 39:
		return []string{"HSETNX", h, g.val(), g.val()}
	case 40, 41:
		return []string{"SADD", e, g.val(), g.val(), g.val()}
	case 42:
		return []string{"SREM", e, g.val(), g.val()}
	case 43:
		return []string{g.pick("SCARD", "SMEMBERS"), e}
	case 44:
		return []string{g.pick("SISMEMBER", "SMISMEMBER"), e, g.val()}
	case 45:
		return []string{g.pick("SINTER", "SUNION", "SDIFF"), e, g.key('e')}
	case 46:
		return []string{g.pick("SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"), g.key('e'), e, g.key('e')}
	case 47:
		return []string{"SMOVE", e, g.key('e'), g.val()}
	case 48, 49:
		args := []string{"ZADD", z}
		for _, o := range []string{"NX", "XX", "GT", "LT", "CH"} {
			if g.r.IntN(6) == 0 {
				args = append(args, o)
			}
		}
		return append(args, g.score(), g.val(), g.score(), g.val())
	case 50:
		return []string{"ZINCRBY", z, g.score(), g.val()}
	case 51:
		return []string{g.pick("ZSCORE", "ZRANK", "ZREVRANK", "ZMSCORE"), z, g.val()}
	case 52:
		return []string{"ZCARD", z}
	case 53:
		return []string{"ZCOUNT", z, g.score(), g.score()}
	case 54:
		if g.r.IntN(2) == 0 {
			return []string{"ZRANGE", z, g.idx(), g.idx(), "WITHSCORES"}
		}
		return []string{"ZRANGE", z, g.idx(), g.idx()}
	case 55:
		return []string{"ZRANGEBYSCORE", z, g.score(), g.score(), "WITHSCORES", "LIMIT", g.cnt(), g.cnt()}
	case 56:
		return []string{"ZREM", z, g.val(), g.val()}
	case 57:
		return []string{g.pick("ZPOPMIN", "ZPOPMAX"), z, g.cnt()}
	case 58:
		return []string{g.pick("ZUNIONSTORE", "ZINTERSTORE"), g.key('z'), "2", z, g.key(g.pick("z", "e")[0])}
	case 59:
		return []string{"ZREMRANGEBYRANK", z, g.idx(), g.idx()}
	case 60:
		return []string{"MSETNX", s, g.val(), g.key('s'), g.val()}
	case 61:
		return []string{"LCS", s, g.key('s'), g.pick("LEN", "IDX", "IDX", "WITHMATCHLEN")}
	case 62:
		return []string{"SUBSTR", s, g.idx(), g.idx()}
	case 63:
		return []string{"GETEX", s, "PERSIST"}
	case 64:
		args := []string{"COPY", g.key("slhez"[g.r.IntN(5)]), g.key("slhez"[g.r.IntN(5)])}
		if g.r.IntN(2) == 0 {
			args = append(args, "REPLACE")
		}
		return args
	case 65:
		return []string{"RPOPLPUSH", l, g.key('l')}
	case 66:
		return []string{"LMPOP", "2", l, g.key('l'), g.pick("LEFT", "RIGHT"), "COUNT", g.pick("1", "2", "5")}
	case 67:
		return []string{"SINTERCARD", "2", e, g.key('e'), "LIMIT", g.cnt()}
	case 68:
		return []string{g.pick("ZRANGEBYLEX", "ZREVRANGEBYLEX"), g.lexKey(), g.pick("-", "+", "[a", "(b", "[1"), g.pick("-", "+", "[z", "(x", "[3")}
	case 69:
		return []string{"ZLEXCOUNT", g.lexKey(), g.pick("-", "[a", "(1"), g.pick("+", "[z", "(x")}
	case 70:
		return []string{"ZRANGE", z, g.score(), g.score(), "BYSCORE", g.pick("REV", "WITHSCORES"), "LIMIT", g.cnt(), g.cnt()}
	case 71:
		return []string{"ZRANGE", g.lexKey(), g.pick("-", "[a", "(1", "+"), g.pick("+", "[z", "-", "(x"), "BYLEX", "LIMIT", g.cnt(), g.pick("-1", "2")}
	case 72:
		return []string{"ZRANGESTORE", g.key('z'), z, g.idx(), g.idx()}
	case 73:
		return []string{g.pick("ZUNION", "ZINTER", "ZDIFF"), "2", z, g.key('z'), "WITHSCORES"}
	case 74:
		return []string{"ZUNIONSTORE", g.key('z'), "2", z, g.key('z'), "WEIGHTS", g.pick("1", "2", "-1"), g.pick("0.5", "3"), "AGGREGATE", g.pick("SUM", "MIN", "MAX")}
	case 75:
		return []string{g.pick("ZREMRANGEBYSCORE", "ZREVRANGEBYSCORE"), z, g.score(), g.score()}
	case 76:
		return []string{"ZREMRANGEBYLEX", g.lexKey(), g.pick("-", "[a", "(1"), g.pick("+", "[z", "(x")}
	case 77:
		return []string{"ZMPOP", "2", z, g.key('z'), g.pick("MIN", "MAX"), "COUNT", g.pick("1", "3")}
	case 78:
		return []string{"ZADD", z, "INCR", g.score(), g.val()}
	case 79:
		return []string{g.pick("ZREVRANGE"), z, g.idx(), g.idx(), "WITHSCORES"}
	case 80:
		return []string{"ZADD", g.lexKey(), "0", g.val(), "0", g.val()}
	case 81:
		return []string{"LINDEX", l, g.idx()}
	case 82:
		return []string{"LPOS", l, g.val(), "MAXLEN", g.cnt()}
	case 83:
		return []string{"SETRANGE", s, g.pick("0", "3", "10"), g.val()}
	case 84:
		return []string{"GETRANGE", s, g.pick("0", "-100", "5"), g.pick("-1", "100", "2")}
	case 85:
		return []string{"ZINCRBY", z, g.pick("+inf", "-inf", "1e308", "nan"), g.val()}
	case 86:
		return []string{"INCRBYFLOAT", s, g.pick("1e308", "-1e308", "inf", "0.1", "5.0e3")}
	case 87:
		return []string{"HINCRBYFLOAT", h, g.val(), g.pick("1e308", "0.1", "5.0e3", "inf")}
	case 88:
		return []string{g.pick("TOUCH", "UNLINK"), s, g.key('l')}
	case 89:
		switch g.r.IntN(8) {
		case 0:
			return []string{"SWAPDB", "0", "1"}
		case 1:
			return []string{"MOVE", g.key("slhez"[g.r.IntN(5)]), g.pick("0", "1")}
		case 2:
			if g.r.IntN(10) == 0 {
				return []string{"FLUSHDB"}
			}
			return []string{"DBSIZE"}
		default:
			return []string{"SELECT", g.pick("0", "1")}
		}
	case 90:
		k := g.key("slhez"[g.r.IntN(5)])
		switch g.r.IntN(4) {
		case 0:
			// Many seconds away, so TTL's rounding gives the same on
			// both, and no key expires during a run: the two servers run
			// a command at different moments, and a key that expires
			// between them makes every later reply that sees it differ.
			cmd, ttl := g.pick("EXPIRE", "PEXPIRE"), g.pick("1000", "2000000", "0", "-1")
			if cmd == "PEXPIRE" && ttl == "1000" {
				ttl = "1000000"
			}
			return []string{cmd, k, ttl, g.pick("NX", "XX", "GT", "LT")}
		case 1:
			return []string{"EXPIRE", k, g.pick("1000", "5000")}
		default:
			return []string{g.pick("TTL", "PERSIST"), k}
		}
	case 91:
		// Short timeouts: empty keys answer nil after 10 ms on both.
		ks := g.blockedKeys()
		switch g.r.IntN(4) {
		case 0:
			return append(append([]string{g.pick("BLPOP", "BRPOP")}, ks...), "0.01")
		case 1:
			return []string{"BLMOVE", l, g.key('l'), g.pick("LEFT", "RIGHT"), g.pick("LEFT", "RIGHT"), "0.01"}
		case 2:
			return append(append([]string{g.pick("BZPOPMIN", "BZPOPMAX")}, ks...), "0.01")
		default:
			return append(append([]string{"BLMPOP", "0.01", strconv.Itoa(len(ks))}, ks...), g.pick("LEFT", "RIGHT"))
		}
	case 92:
		return g.dumpOrRestore()
	case 93, 94, 95, 96:
		return g.bits(s)
	case 97, 98:
		return g.hll(s)
	case 99, 100:
		return g.geo(s)
	case 101, 102, 103:
		return g.stream(s)
	case 104, 105:
		return g.sort(l, e, z)
	default:
		return []string{"SMISMEMBER", e, g.val(), g.val(), g.val()}
	}
}

// FuzzCall is the arguments of a fuzzed call of the command row named
// name ("client|kill": the command and its subcommand) with raw, split at
// NUL bytes, after them: how the fuzz targets of the command table turn
// their input into a call.
func FuzzCall(name string, raw []byte) [][]byte {
	var args [][]byte
	for _, n := range strings.Split(name, "|") {
		args = append(args, []byte(n))
	}
	if len(raw) > 0 {
		args = append(args, bytes.Split(raw, []byte{0})...)
	}
	return args
}
