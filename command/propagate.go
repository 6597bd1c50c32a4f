package command

import (
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/num"
)

// Propagate functions of the rows whose propagated form is not the
// command itself (see effect.go). Each runs after its command changed data
// and reads what the command did from the database (the TTL it set, the
// value it computed) or from its reply (what it popped), so that replaying
// the form gives the same data whatever the time and whatever a random
// choice would pick.

// propExpiry states a write that set or kept a key's TTL as an absolute
// time: the key now expiring at t gives prefix... PXAT t (SET) or
// PEXPIREAT key t (EXPIRE, GETEX); a key the write removed (a time in the
// past) gives DEL key.
func propExpiry(p *Prop, key []byte) (expireAt int64, ok bool) {
	exp, found := p.DB.Expiry(key, p.Now)
	if !found {
		p.Begin(2)
		p.ArgString("DEL")
		p.Arg(key)
		return 0, false
	}
	return exp, true
}

// propSet is SET, SETEX and PSETEX: SET key value, with PXAT and the key's
// deadline when it has one (EX, PX, EXAT, KEEPTTL all end as that).
func propSet(value int) func(p *Prop) {
	return func(p *Prop) {
		key := p.Args[1]
		exp, ok := propExpiry(p, key)
		if !ok {
			return
		}
		if exp == 0 {
			p.Begin(3)
		} else {
			p.Begin(5)
		}
		p.ArgString("SET")
		p.Arg(key)
		p.Arg(p.Args[value])
		if exp != 0 {
			p.ArgString("PXAT")
			p.ArgInt(exp)
		}
	}
}

// propExpire is EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT and GETEX: the key's
// deadline as PEXPIREAT, PERSIST when it has none left.
func propExpire(p *Prop) {
	key := p.Args[1]
	exp, ok := propExpiry(p, key)
	if !ok {
		return
	}
	if exp == 0 {
		p.Begin(2)
		p.ArgString("PERSIST")
		p.Arg(key)
		return
	}
	p.Begin(3)
	p.ArgString("PEXPIREAT")
	p.Arg(key)
	p.ArgInt(exp)
}

// propIncrByFloat is INCRBYFLOAT: SET key result KEEPTTL, as Redis
// propagates it (the float computation is not repeated elsewhere).
func propIncrByFloat(p *Prop) {
	v, ok, _ := p.DB.GetString(p.Args[1], p.Now)
	if !ok {
		return
	}
	p.Begin(4)
	p.ArgString("SET")
	p.Arg(p.Args[1])
	p.Arg(v)
	p.ArgString("KEEPTTL")
}

// propHIncrByFloat is HINCRBYFLOAT: HSET key field result.
func propHIncrByFloat(p *Prop) {
	v, ok, _ := p.DB.HGet(p.Args[1], p.Args[2], p.Now)
	if !ok {
		return
	}
	p.Begin(4)
	p.ArgString("HSET")
	p.Arg(p.Args[1])
	p.Arg(p.Args[2])
	p.Arg(v)
}

// propSPop is SPOP: SREM key and the members it popped (its reply).
func propSPop(p *Prop) {
	v, _, err := resp.ReadReply(p.Reply)
	if err != nil {
		return
	}
	ms := v.Elems
	if v.Type != '*' && v.Type != '~' {
		ms = []resp.Value{v}
	}
	p.Begin(2 + len(ms))
	p.ArgString("SREM")
	p.Arg(p.Args[1])
	for _, m := range ms {
		p.Arg(m.Str)
	}
}

// propPop is a blocking pop of one element (BLPOP, BRPOP, BZPOPMIN,
// BZPOPMAX): the non-blocking pop on the key that served, the first
// element of the reply.
func propPop(name string) func(p *Prop) {
	return func(p *Prop) {
		v, _, err := resp.ReadReply(p.Reply)
		if err != nil || len(v.Elems) == 0 {
			return
		}
		p.Begin(2)
		p.ArgString(name)
		p.Arg(v.Elems[0].Str)
	}
}

// propMPop is BLMPOP and BZMPOP: LMPOP/ZMPOP 1 key direction COUNT n for
// the key that served and the n elements it gave (the reply is the key and
// its elements); dir is the index of the direction argument counted from
// the numkeys argument.
func propMPop(name string) func(p *Prop) {
	return func(p *Prop) {
		v, _, err := resp.ReadReply(p.Reply)
		if err != nil || len(v.Elems) != 2 {
			return
		}
		nk, ok := num.ParseInt(p.Args[2])
		if !ok || nk < 1 || 3+nk >= int64(len(p.Args)) {
			return
		}
		p.Begin(6)
		p.ArgString(name)
		p.ArgString("1")
		p.Arg(v.Elems[0].Str)
		p.Arg(p.Args[3+nk])
		p.ArgString("COUNT")
		p.ArgInt(int64(len(v.Elems[1].Elems)))
	}
}

// propDropLast is a blocking move (BLMOVE, BRPOPLPUSH): the command
// without its timeout, under its non-blocking name.
func propDropLast(name string) func(p *Prop) {
	return func(p *Prop) {
		p.Begin(len(p.Args) - 1)
		p.ArgString(name)
		for _, a := range p.Args[1 : len(p.Args)-1] {
			p.Arg(a)
		}
	}
}

// propFlush is FLUSHDB and FLUSHALL: the command, and every key of the
// database (all databases: db -1) changed.
func propFlush(db func(p *Prop) int) func(p *Prop) {
	return func(p *Prop) {
		p.Verbatim()
		p.Touch.TouchDB(db(p))
		p.Touch.Flushed()
	}
}

// propSwapDB is SWAPDB: the command, and every key of both databases
// changed.
func propSwapDB(p *Prop) {
	p.Verbatim()
	for _, a := range p.Args[1:3] {
		if i := argDB(a); i >= 0 {
			p.Touch.TouchDB(i)
		}
	}
}

// otherDBMove is MOVE's target database.
func otherDBMove(args [][]byte) int { return argDB(args[2]) }

// otherDBCopy is COPY's DB option, -1 without one.
func otherDBCopy(args [][]byte) int {
	for j := 3; j+1 < len(args); j++ {
		if kvIs(args[j], "db") {
			return argDB(args[j+1])
		}
	}
	return -1
}

// argDB reads a database index argument, -1 when it is not one.
func argDB(b []byte) int {
	v, ok := num.ParseInt(b)
	if !ok || v < 0 || v > 1<<20 {
		return -1
	}
	return int(v)
}
