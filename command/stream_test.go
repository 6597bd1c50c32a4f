package command

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/net/resp"
)

// TestStreamAllocs: XADD (with and without a trim), XRANGE and XREAD
// allocate nothing once the stream and the buffers are warm.
func TestStreamAllocs(t *testing.T) {
	st := engine.NewStore(1)
	defer st.Close()
	var w resp.Writer
	c := &Ctx{Store: st, DB: st.DB(0), W: &w, Now: 1000}
	bs := func(s ...string) [][]byte {
		out := make([][]byte, len(s))
		for i, a := range s {
			out[i] = []byte(a)
		}
		return out
	}
	var adds, trims [][][]byte
	for i := 0; i < 2000; i++ { // 300 to warm up, 201 per case
		adds = append(adds, bs("XADD", "x", strconv.Itoa(2*i+1)+"-0", "f", "v", "g", "12"))
		trims = append(trims, bs("XADD", "x", "MAXLEN", "~", "1000", strconv.Itoa(2*i+2)+"-0", "f", "v"))
	}
	xrange := bs("XRANGE", "x", "-", "+", "COUNT", "10")
	xread := bs("XREAD", "COUNT", "10", "STREAMS", "x", "5")
	n := 0
	for range 300 {
		CmdXAdd(c, adds[n])
		CmdXAdd(c, trims[n])
		n++
	}
	for name, f := range map[string]func(){
		"XADD":        func() { CmdXAdd(c, adds[n]); n++ },
		"XADD MAXLEN": func() { CmdXAdd(c, trims[n]); n++ },
		"XRANGE":      func() { CmdXRange(c, xrange) },
		"XREAD":       func() { CmdXRead(c, xread) },
	} {
		if a := testing.AllocsPerRun(200, func() { w.B = w.B[:0]; f() }); a != 0 {
			t.Errorf("%s: %v allocations", name, a)
		}
		if w.B[0] == '-' {
			t.Errorf("%s: %q", name, w.B)
		}
	}
}

// TestXAddObeysPrimary: Redis propagates an approximate trim as "=" with
// its LIMIT; a client may not send that, a primary or an AOF (Ctx.Obey)
// may.
func TestXAddObeysPrimary(t *testing.T) {
	st := engine.NewStore(1)
	defer st.Close()
	var w resp.Writer
	args := [][]byte{[]byte("XADD"), []byte("x"), []byte("MAXLEN"), []byte("="), []byte("1"), []byte("LIMIT"), []byte("100"),
		[]byte("1-1"), []byte("f"), []byte("v")}
	c := &Ctx{Store: st, DB: st.DB(0), W: &w, Now: 1000}
	if CmdXAdd(c, args); string(w.B) != "-ERR syntax error, LIMIT cannot be used without the special ~ option\r\n" {
		t.Fatalf("from a client: %q", w.B)
	}
	w.B, c.Obey = w.B[:0], true
	if CmdXAdd(c, args); string(w.B) != "$3\r\n1-1\r\n" {
		t.Fatalf("from a primary: %q", w.B)
	}
}

// TestStreamGroupAllocs: XREADGROUP of a new entry then its XACK (the
// consumer group's hot loop) allocate nothing once the group is warm.
func TestStreamGroupAllocs(t *testing.T) {
	st := engine.NewStore(1)
	defer st.Close()
	var w resp.Writer
	c := &Ctx{Store: st, DB: st.DB(0), W: &w, Now: 1000}
	bs := func(s ...string) [][]byte {
		out := make([][]byte, len(s))
		for i, a := range s {
			out[i] = []byte(a)
		}
		return out
	}
	var acks [][][]byte
	for i := 0; i < 1000; i++ {
		CmdXAdd(c, bs("XADD", "x", strconv.Itoa(i+1)+"-0", "f", "v"))
		acks = append(acks, bs("XACK", "x", "g", strconv.Itoa(i+1)+"-0"))
	}
	CmdXGroupCreate(c, bs("XGROUP", "CREATE", "x", "g", "0"))
	read := bs("XREADGROUP", "GROUP", "g", "alice", "COUNT", "1", "STREAMS", "x", ">")
	n := 0
	loop := func() {
		w.B = w.B[:0]
		CmdXReadGroup(c, read)
		CmdXAck(c, acks[n])
		n++
	}
	for range 100 {
		loop()
	}
	if a := testing.AllocsPerRun(200, loop); a != 0 {
		t.Errorf("XREADGROUP and XACK: %v allocations", a)
	}
	if string(w.B[len(w.B)-4:]) != ":1\r\n" {
		t.Errorf("%q", w.B)
	}
}

// TestXReadParse: XREAD's and XREADGROUP's options as one parser reads
// them, with redis-server 7.0.15's errors.
func TestXReadParse(t *testing.T) {
	st := engine.NewStore(1)
	defer st.Close()
	var w resp.Writer
	c := &Ctx{Store: st, DB: st.DB(0), W: &w, Now: 1000}
	for _, tc := range []struct{ args, want string }{
		{"XREAD STREAMS s s2 0", "-ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.\r\n"},
		{"XREADGROUP GROUP g a STREAMS s s2 >", "-ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.\r\n"},
		{"XREADGROUP COUNT 1 STREAMS s s2 > >", "-ERR Missing GROUP option for XREADGROUP\r\n"},
		{"XREAD GROUP g a STREAMS s 0", "-ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.\r\n"},
		{"XREAD NOACK STREAMS s 0", "-ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.\r\n"},
		{"XREADGROUP GROUP g a BLOCK x STREAMS s >", "-ERR timeout is not an integer or out of range\r\n"},
		{"XREAD BLOCK -1 STREAMS s 0", "-ERR timeout is negative\r\n"},
		{"XREADGROUP GROUP g a COUNT x STREAMS s >", "-ERR value is not an integer or out of range\r\n"},
		{"XREADGROUP NOACK GROUP g STREAMS s >", "-ERR syntax error\r\n"},
		{"XREADGROUP GROUP g a COUNT 1 STREAMS", "-ERR syntax error\r\n"},
		{"XREAD COUNT -5 STREAMS s 0", "*-1\r\n"},
		{"XREADGROUP GROUP g a NOACK COUNT 2 STREAMS s >", "-NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option\r\n"},
	} {
		w.B = w.B[:0]
		args := split(tc.args)
		if bytes.EqualFold(args[0], []byte("xread")) {
			CmdXRead(c, args)
		} else {
			CmdXReadGroup(c, args)
		}
		if string(w.B) != tc.want {
			t.Errorf("%s: %q, want %q", tc.args, w.B, tc.want)
		}
	}
}
