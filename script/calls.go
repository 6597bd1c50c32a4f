package script

import (
	"slices"

	lua "github.com/yuin/gopher-lua"
)

// Calls read without the proxies. A script reads redis.call through two
// read-only proxies (the globals', the redis table's): four table
// lookups and two metatables per call. The compiled code of "redis.call"
// and "redis.pcall" (or server.*) is GETGLOBAL ra "redis"; GETTABLEKS
// ra ra "call": a value no script can change (the globals and the
// redis table are read-only), so fastCalls turns the GETTABLEKS into a
// LOADK of the function itself, a constant of the compiled function, and
// the GETGLOBAL, whose value the LOADK replaces, into a NOP.
// And a call whose results are dropped (a statement: the CALL on ra
// wants none) loads the function's variant that runs the command
// exactly the same but makes no Lua value of its reply (the {ok=...}
// table of a status reply costs gopher-lua six allocations).
//
// KEYS and ARGV are read the same way: a GETGLOBAL of either becomes a
// LOADK of the table, which the Runtime keeps (argTable): refilled run
// after run, and when a run left it unfit to refill, replaced in the
// globals and in every constant that holds it.
//
// A variant is loaded only where the call that uses ra is the first
// CALL on ra after it, nothing in between writes a register at or below
// ra or jumps out of the span, and nothing else jumps into it: then that
// CALL, and only it, calls what was loaded.

// The instruction format of gopher-lua (Lua 5.1's): opcode in the top 6
// bits, A in the next 8, then C and B (9 bits each), or Bx (18 bits).
func opcode(i uint32) int { return int(i >> 26) }
func argA(i uint32) int   { return int(i>>18) & 0xff }
func argB(i uint32) int   { return int(i & 0x1ff) }
func argC(i uint32) int   { return int(i>>9) & 0x1ff }
func argBx(i uint32) int  { return int(i & 0x3ffff) }
func argSBx(i uint32) int { return argBx(i) - 0x3ffff>>1 }

func loadK(a, bx int) uint32 { return uint32(lua.OP_LOADK)<<26 | uint32(a)<<18 | uint32(bx) }

// rkConst is the RK bit: an operand at or above it is a constant.
const rkConst = 256

// callFns are the functions fastCalls loads: redis.call and redis.pcall,
// and their variants for dropped results.
type callFns struct {
	call, pcall, callVoid, pcallVoid *lua.LFunction
}

// argTable is the KEYS or ARGV table of the Runtime's EVAL runs, and
// where compiled scripts hold it as a constant.
type argTable struct {
	name string
	t    *lua.LTable
	refs []constRef
}

// constRef is constant i of p.
type constRef struct {
	p *lua.FunctionProto
	i int
}

// fill makes the table hold vs (refill), replacing it where it is held
// when refill made a new one.
func (a *argTable) fill(r *Runtime, vs [][]byte) {
	t := refill(r.L, a.t, vs)
	if t == a.t {
		return
	}
	a.t = t
	r.globals.RawSetString(a.name, t)
	for _, c := range a.refs {
		c.p.Constants[c.i] = t
	}
}

// constant is constant(p, a's table), noted as held there.
func (a *argTable) constant(r *Runtime, p *lua.FunctionProto) int {
	if a.t == nil {
		a.fill(r, nil)
	}
	i := constant(p, a.t)
	if !slices.Contains(a.refs, constRef{p, i}) {
		a.refs = append(a.refs, constRef{p, i})
	}
	return i
}

// fastCalls rewrites p and the functions defined in it (see above).
func (r *Runtime) fastCalls(p *lua.FunctionProto) {
	for _, q := range p.FunctionPrototypes {
		r.fastCalls(q)
	}
	f := &r.calls
	code := p.Code
	for pc := 0; pc < len(code); pc++ {
		g := code[pc]
		if opcode(g) != lua.OP_GETGLOBAL {
			continue
		}
		switch {
		case constIs(p, argBx(g), "KEYS"):
			code[pc] = loadK(argA(g), r.keys.constant(r, p))
			continue
		case constIs(p, argBx(g), "ARGV"):
			code[pc] = loadK(argA(g), r.argv.constant(r, p))
			continue
		}
		if pc+1 == len(code) {
			break
		}
		t := code[pc+1]
		if opcode(t) != lua.OP_GETTABLEKS {
			continue
		}
		ra := argA(g)
		if argA(t) != ra || argB(t) != ra || argC(t) < rkConst || !constIs(p, argBx(g), "redis", "server") ||
			jumpsInto(code, pc+1, pc+1) {
			continue
		}
		var fn *lua.LFunction
		pcall := constIs(p, argC(t)-rkConst, "pcall")
		switch {
		case pcall:
			fn = f.pcall
		case constIs(p, argC(t)-rkConst, "call"):
			fn = f.call
		default:
			continue
		}
		if droppedCall(code, pc+1, ra) {
			fn = f.callVoid
			if pcall {
				fn = f.pcallVoid
			}
		}
		code[pc], code[pc+1] = uint32(lua.OP_NOP)<<26, loadK(ra, constant(p, fn))
	}
}

// constIs reports whether constant k of p is one of the strings names.
func constIs(p *lua.FunctionProto, k int, names ...string) bool {
	if k >= len(p.Constants) {
		return false
	}
	s, ok := p.Constants[k].(lua.LString)
	for _, n := range names {
		if ok && string(s) == n {
			return true
		}
	}
	return false
}

// constant returns the index of v among p's constants, adding it.
func constant(p *lua.FunctionProto, v lua.LValue) int {
	for i, c := range p.Constants {
		if c == v {
			return i
		}
	}
	p.Constants = append(p.Constants, v)
	return len(p.Constants) - 1
}

// droppedCall reports whether the function code[at] loads into ra is
// called only by a CALL that wants no result (see the comment at the top).
func droppedCall(code []uint32, at, ra int) bool {
	end := -1
	for pc := at + 1; pc < len(code) && end < 0; pc++ {
		if i := code[pc]; opcode(i) == lua.OP_CALL && argA(i) == ra {
			end = pc
		}
	}
	if end < 0 || argC(code[end]) != 1 || jumpsInto(code, at+1, end) {
		return false
	}
	for pc := at + 1; pc < end; pc++ {
		i := code[pc]
		switch opcode(i) {
		case lua.OP_JMP:
			if to := pc + 1 + argSBx(i); to <= at || to > end {
				return false
			}
			continue
		case lua.OP_EQ, lua.OP_LT, lua.OP_LE, lua.OP_TEST:
			if pc+2 > end {
				return false
			}
			continue
		case lua.OP_TESTSET, lua.OP_LOADBOOL:
			if pc+2 > end {
				return false
			}
		case lua.OP_TAILCALL, lua.OP_RETURN, lua.OP_FORLOOP, lua.OP_FORPREP, lua.OP_TFORLOOP, lua.OP_CLOSE,
			lua.OP_SETTABLE, lua.OP_SETTABLEKS, lua.OP_SETGLOBAL, lua.OP_SETUPVAL, lua.OP_SETLIST, lua.OP_CLOSURE:
			return false
		}
		if argA(i) <= ra {
			return false // it may write ra, or a register below
		}
	}
	return true
}

// jumpsInto reports whether an instruction outside [lo, hi] jumps to an
// instruction in it.
func jumpsInto(code []uint32, lo, hi int) bool {
	for pc, i := range code {
		if pc >= lo && pc <= hi {
			continue
		}
		var to int
		switch opcode(i) {
		case lua.OP_JMP, lua.OP_FORLOOP, lua.OP_FORPREP:
			to = pc + 1 + argSBx(i)
		case lua.OP_EQ, lua.OP_LT, lua.OP_LE, lua.OP_TEST, lua.OP_TESTSET, lua.OP_TFORLOOP:
			to = pc + 2
		case lua.OP_LOADBOOL:
			if argC(i) == 0 {
				continue
			}
			to = pc + 2
		default:
			continue
		}
		if to >= lo && to <= hi {
			return true
		}
	}
	return false
}
