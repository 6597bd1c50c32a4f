package repl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"sync"
	"time"
)

// The write stream on flows (doc.go): the merged stream stays the one
// history; to a radish replica holding flows, the primary sends it
// split, each shard's runs of commands on that shard's flow and the
// Merger's own bytes (SELECT, MULTI/EXEC, PING, REPLCONF GETACK) on the
// replication connection, every piece framed with its place in the
// merged stream. The replica puts the pieces back in their places
// (joiner) and reads the merged stream as from one connection.

// Span is a run of the merged stream's bytes, up to offset End, from
// one source: shard Shard's commands, or the Merger's own (Shard < 0).
// A run starts where the one before it ends.
type Span struct {
	Shard int
	End   int64
}

// writeOf adds b, bytes of shard's (< 0: the Merger's own), to Out and
// to Spans.
func (m *Merger) writeOf(shard int, b []byte) {
	m.Out = append(m.Out, b...)
	m.Offset += int64(len(b))
	m.Spans = AppendSpan(m.Spans, Span{Shard: shard, End: m.Offset})
}

// AppendSpan appends sp to spans, as an extension of the last run when
// it is of the same source.
func AppendSpan(spans []Span, sp Span) []Span {
	if n := len(spans); n > 0 && spans[n-1].Shard == sp.Shard {
		spans[n-1].End = sp.End
		return spans
	}
	return append(spans, sp)
}

// TrimSpans drops the runs that end at or before offset first, in
// place.
func TrimSpans(spans []Span, first int64) []Span {
	i := sort.Search(len(spans), func(i int) bool { return spans[i].End > first })
	return spans[:copy(spans, spans[i:])]
}

// Split appends the frames of b, the merged stream's bytes up to offset
// end, to main and flows: each run of spans (their ends ascending; runs
// ending before b are skipped) of a shard below len(flows) goes on that
// shard's flow, every other byte, the Merger's own and any that spans
// does not cover, on main.
func Split(main []byte, flows [][]byte, b []byte, end int64, spans []Span) []byte {
	start := end - int64(len(b))
	i := sort.Search(len(spans), func(i int) bool { return spans[i].End > start })
	for at := start; at < end; i++ {
		if i >= len(spans) {
			return AppendFrame(main, at, b[at-start:])
		}
		sp := spans[i]
		to := min(sp.End, end)
		piece := b[at-start : to-start]
		if sp.Shard >= 0 && sp.Shard < len(flows) {
			flows[sp.Shard] = AppendFrame(flows[sp.Shard], at, piece)
		} else {
			main = AppendFrame(main, at, piece)
		}
		at = to
	}
	return main
}

// AppendFrame appends the frame of b, the merged stream's bytes after
// offset off: @<off> <length>\r\n and the bytes.
func AppendFrame(dst []byte, off int64, b []byte) []byte {
	dst = append(dst, '@')
	dst = strconv.AppendInt(dst, off, 10)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(len(b)), 10)
	dst = append(dst, '\r', '\n')
	return append(dst, b...)
}

// maxFrame bounds a frame's length: a merger's turn is far smaller.
const maxFrame = 1 << 30

// readFrame reads one frame from br into buf's array (a larger one when
// it does not fit), which the bytes returned borrow.
func readFrame(br *bufio.Reader, buf []byte) (int64, []byte, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, err
	}
	bad := func() (int64, []byte, error) { return 0, nil, fmt.Errorf("bad stream frame %q", line) }
	if len(line) < 6 || line[0] != '@' || line[len(line)-2] != '\r' {
		return bad()
	}
	sp := -1
	for i, c := range line {
		if c == ' ' {
			sp = i
			break
		}
	}
	if sp < 0 {
		return bad()
	}
	off, err1 := strconv.ParseInt(string(line[1:sp]), 10, 64)
	n, err2 := strconv.Atoi(string(line[sp+1 : len(line)-2]))
	if err1 != nil || err2 != nil || off < 0 || n < 0 || n > maxFrame {
		return bad()
	}
	b := buf[:0]
	if cap(b) < n {
		b = make([]byte, n)
	}
	b = b[:n]
	if _, err := io.ReadFull(br, b); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, err
	}
	return off, b, nil
}

// errStalled ends a split stream in which no byte became readable for
// repl-timeout (the primary pings on the replication connection, so a
// flow that stopped holds the stream back).
var errStalled = errors.New("the replication stream made no progress for repl-timeout")

// joiner puts the frames of a split stream back in their places: Read
// returns the merged stream from the offset start set, as far as every
// byte of it came. Its methods are safe for any goroutine.
type joiner struct {
	mu      sync.Mutex
	next    int64           // the offset placed up to (-1: not started)
	pend    map[int64]frame // frames not yet in place, by the offset before them
	ready   []byte          // in place
	at      int             // ready's bytes before at were read
	spans   []Span          // whose ready's bytes are (and the last read's)
	err     error
	wake    chan struct{}
	timeout time.Duration
}

// frame is a frame's bytes and its source: flow i, or -1 for the
// replication connection.
type frame struct {
	b   []byte
	src int
}

// maxKeptReady is the most of its array a joiner keeps once all it held
// was read.
const maxKeptReady = 1 << 20

func newJoiner(timeout time.Duration) *joiner {
	return &joiner{next: -1, pend: map[int64]frame{}, wake: make(chan struct{}, 1), timeout: timeout}
}

// start has the stream begin after offset off: frames before it are
// dropped.
func (j *joiner) start(off int64) {
	j.mu.Lock()
	j.next = off
	for o := range j.pend {
		if o < off {
			delete(j.pend, o)
		}
	}
	j.place()
	j.mu.Unlock()
}

// put takes the frame of b, the stream's bytes after offset off, from
// source src (b is copied).
func (j *joiner) put(off int64, b []byte, src int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.next >= 0 && off < j.next {
		return
	}
	if off == j.next { // in place: no copy to wait in pend
		j.appendReady(b)
		j.next += int64(len(b))
		j.spans = AppendSpan(j.spans, Span{Shard: src, End: j.next})
		j.place()
		j.signal()
		return
	}
	j.pend[off] = frame{bytes.Clone(b), src}
	j.place()
}

// appendReady appends b to ready, first moving what is left to read to
// the array's start once what was read is as long. j.mu held.
func (j *joiner) appendReady(b []byte) {
	if j.at > 0 && j.at >= len(j.ready)-j.at {
		j.ready, j.at = j.ready[:copy(j.ready, j.ready[j.at:])], 0
	}
	j.ready = append(j.ready, b...)
}

// place moves the frames that come next into ready. j.mu held.
func (j *joiner) place() {
	if j.next < 0 {
		return
	}
	moved := false
	for {
		f, ok := j.pend[j.next]
		if !ok {
			break
		}
		delete(j.pend, j.next)
		j.appendReady(f.b)
		j.next += int64(len(f.b))
		j.spans = AppendSpan(j.spans, Span{Shard: f.src, End: j.next})
		moved = true
	}
	if moved {
		j.signal()
	}
}

func (j *joiner) signal() {
	select {
	case j.wake <- struct{}{}:
	default:
	}
}

// fail ends the stream with err, once what is in place was read.
func (j *joiner) fail(err error) {
	j.mu.Lock()
	if j.err == nil {
		j.err = err
	}
	j.signal()
	j.mu.Unlock()
}

// Read implements io.Reader: what is in place, waiting for it at most
// the joiner's timeout.
func (j *joiner) Read(p []byte) (int, error) {
	n, _, err := j.readSpans(p, nil)
	return n, err
}

// readSpans is Read that also appends to spans whose the bytes read are
// (the last run may go on past them).
func (j *joiner) readSpans(p []byte, spans []Span) (int, []Span, error) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		j.mu.Lock()
		if j.at < len(j.ready) {
			n := copy(p, j.ready[j.at:])
			j.at += n
			upto := j.next - int64(len(j.ready)-j.at)
			if j.at == len(j.ready) {
				j.ready, j.at = j.ready[:0], 0
				if cap(j.ready) > maxKeptReady {
					j.ready = nil
				}
			}
			k := 0
			for ; k < len(j.spans); k++ {
				spans = AppendSpan(spans, j.spans[k])
				if j.spans[k].End > upto {
					break
				}
			}
			j.spans = j.spans[k:]
			j.mu.Unlock()
			return n, spans, nil
		}
		err := j.err
		j.mu.Unlock()
		if err != nil {
			return 0, spans, err
		}
		if timer == nil {
			timer = time.NewTimer(j.timeout)
		}
		select {
		case <-j.wake:
		case <-timer.C:
			return 0, spans, errStalled
		}
	}
}
