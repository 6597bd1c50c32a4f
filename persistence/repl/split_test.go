package repl

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// merged runs a Merger of 3 shards over plain commands, a transaction
// across shards 0 and 1 and a PING, and returns its stream and spans.
func merged(t *testing.T) ([]byte, []Span, int64) {
	t.Helper()
	m := NewMerger(3, 1000)
	for s := range 3 {
		m.Add(chunkOf(s, "cut:1"))
	}
	m.Add(chunkOf(0, "0:SET a0 1", "0:SET b0 1", "2:SET c0 1"))
	m.Add(chunkOf(1, "0:SET a1 1", "0:MULTI@7/1", "0:SET x1 1@7/1", "0:EXEC@7/1"))
	m.Add(chunkOf(2, "2:SET a2 1", "2:SET b2 1"))
	m.Add(chunkOf(0, "0:SET x0 1@7/1", "done:7", "0:SET d0 1"))
	m.Write(appendCommand(nil, "PING"))
	m.Add(chunkOf(2, "2:SET c2 1"))
	return m.Out, m.Spans, m.Offset
}

// frames reads every frame of b.
func frames(t *testing.T, b []byte) (offs []int64, bodies [][]byte) {
	t.Helper()
	br := bufio.NewReader(bytes.NewReader(b))
	for {
		off, body, err := readFrame(br, nil)
		if errors.Is(err, io.ErrUnexpectedEOF) {
			if _, err := br.Peek(1); err == io.EOF {
				return offs, bodies
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		offs, bodies = append(offs, off), append(bodies, body)
	}
}

// TestSplitJoin: the merged stream split into frames goes on each
// shard's flow with that shard's commands only, the Merger's own
// (SELECT, MULTI/EXEC, PING) on main; the frames put in place in any
// order of arrival are the merged stream again, also from an offset in
// the middle of a run (a partial resync).
func TestSplitJoin(t *testing.T) {
	out, spans, end := merged(t)
	start := end - int64(len(out))
	if last := spans[len(spans)-1]; last.End != end {
		t.Fatalf("spans end at %d, the stream at %d", last.End, end)
	}
	flows := make([][]byte, 3)
	main := Split(nil, flows, out, end, spans)
	for s, f := range flows {
		_, bodies := frames(t, f)
		for _, b := range bodies {
			for _, cmd := range strings.Split(stream(t, b), "\n") {
				if !strings.HasSuffix(strings.Fields(cmd)[1], string(rune('0'+s))) {
					t.Errorf("flow %d carries %q", s, cmd)
				}
			}
		}
	}
	_, bodies := frames(t, main)
	got := stream(t, bytes.Join(bodies, nil))
	if want := "SELECT 0\nSELECT 2\nSELECT 0\nSELECT 2\nSELECT 0\nMULTI\nEXEC\nPING\nSELECT 2"; got != want {
		t.Errorf("main carries:\n%s\nwant:\n%s", got, want)
	}
	join := func(from int64, srcs ...[]byte) []byte {
		j := newJoiner(time.Second)
		// Frames come before the start is known, in an order of their own.
		for i := len(srcs) - 1; i >= 0; i-- {
			offs, bodies := frames(t, srcs[i])
			for k := range offs {
				j.put(offs[k], bodies[k], i)
			}
		}
		j.start(from)
		j.fail(io.EOF)
		b, err := io.ReadAll(j)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if b := join(start, main, flows[0], flows[1], flows[2]); !bytes.Equal(b, out) {
		t.Errorf("joined:\n%q\nwant:\n%q", b, out)
	}
	// From the middle of shard 1's run (SET a1 1 begins it).
	mid := int64(bytes.Index(out, []byte("a1"))) + start
	for s := range flows {
		flows[s] = flows[s][:0]
	}
	main = Split(nil, flows, out[mid-start:], end, spans)
	if b := join(mid, flows[2], main, flows[1], flows[0]); !bytes.Equal(b, out[mid-start:]) {
		t.Errorf("joined from %d:\n%q\nwant:\n%q", mid, b, out[mid-start:])
	}
	// Bytes no span covers (a promoted replica's history) go on main.
	main = Split(nil, flows[:0], out, end, nil)
	if offs, bodies := frames(t, main); len(offs) != 1 || offs[0] != start || !bytes.Equal(bodies[0], out) {
		t.Errorf("uncovered bytes: frames at %v", offs)
	}
}

// TestJoinerStalls: a stream whose next bytes do not come within the
// timeout fails; bytes past a gap are not read.
func TestJoinerStalls(t *testing.T) {
	j := newJoiner(50 * time.Millisecond)
	j.start(10)
	j.put(15, []byte("later"), 1)
	j.put(10, []byte("ab"), 0)
	b := make([]byte, 16)
	if n, err := j.Read(b); err != nil || string(b[:n]) != "ab" {
		t.Fatalf("Read: %q, %v", b[:n], err)
	}
	if _, err := j.Read(b); err != errStalled {
		t.Fatalf("Read across a gap: %v, want errStalled", err)
	}
	j.put(12, []byte("cde"), -1)
	if n, err := j.Read(b); err != nil || string(b[:n]) != "cdelater" {
		t.Fatalf("Read after the gap filled: %q, %v", b[:n], err)
	}
}

// TestTrimSpans: runs ending at or before the backlog's first byte go.
func TestTrimSpans(t *testing.T) {
	s := func() []Span { return []Span{{0, 10}, {-1, 20}, {1, 30}} }
	if got := TrimSpans(s(), 20); len(got) != 1 || got[0] != (Span{1, 30}) {
		t.Errorf("TrimSpans(20): %v", got)
	}
	if got := TrimSpans(s(), 19); len(got) != 2 || got[0] != (Span{-1, 20}) {
		t.Errorf("TrimSpans(19): %v", got)
	}
}

// TestFlowPayloadThenFrames: a flow's payload ends at its mark, however
// the reads cut it (the mark across two reads among them), and nothing
// past the mark is read with it: the stream's frames that follow are.
func TestFlowPayloadThenFrames(t *testing.T) {
	mark := "8e1f03c2b97a4d56e0f1a2b3c4d5e6f708192a3b"     // as random as a primary's
	payload := strings.Repeat("payload-", 5000) + mark[:3] // ends like the mark begins
	wire := "$EOF:" + mark + "\r\n" + payload + mark + string(AppendFrame(nil, 7, []byte("abc")))
	for _, step := range []int{1, 7, 39, 41, 4096, len(wire)} {
		a, b := net.Pipe()
		go func() {
			for i := 0; i < len(wire); i += step {
				if _, err := b.Write([]byte(wire[i:min(i+step, len(wire))])); err != nil {
					return
				}
			}
		}()
		r := &Replica{o: Options{Timeout: 5 * time.Second}}
		fl := &flow{c: a, br: bufio.NewReaderSize(a, 64<<10)}
		path := t.TempDir() + "/part"
		n, err := r.receiveFlow(fl, path)
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		got, _ := os.ReadFile(path)
		if n != int64(len(payload)) || string(got) != payload {
			t.Errorf("step %d: payload of %d bytes (%d written), want %d", step, len(got), n, len(payload))
		}
		off, body, err := readFrame(fl.br, nil)
		if err != nil || off != 7 || string(body) != "abc" {
			t.Errorf("step %d: the frame after the payload: %d %q %v", step, off, body, err)
		}
		a.Close()
		b.Close()
	}
}
