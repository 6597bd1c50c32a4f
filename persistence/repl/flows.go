package repl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/radish-kv/radish/persistence/snapshot"
)

// A full sync on flows (a radish primary's; see doc.go): before PSYNC the
// replica asks for flows, opens one connection per primary shard and
// names each with the token the primary gave; when PSYNC answers
// +FULLRESYNC and $FLOWS:<n>, each flow brings its shard's part as an
// RDB file of its own between $EOF:<mark> and the mark, received in
// parallel into <temp>.<i>.rdb, which
// a manifest at <temp> names as a snapshot of n shards: the Host loads it
// as it loads a snapshot of its own (with as many shards on both sides,
// each shard reads only its own file).

// flow is one flow connection.
type flow struct {
	c  net.Conn
	br *bufio.Reader
}

// openFlows asks the primary for flows (REPLCONF radish-flows) and opens
// them; none when Options.Flows is 0 or the primary refuses (a
// redis-server does).
func (r *Replica) openFlows(c net.Conn, br *bufio.Reader) ([]*flow, error) {
	if r.o.Flows <= 0 {
		return nil, nil
	}
	line, err := r.command(c, br, "REPLCONF", "radish-flows", strconv.Itoa(r.o.Flows))
	if err != nil {
		return nil, err
	}
	f := strings.Fields(line)
	if len(f) != 3 || f[0] != "+FLOWS" {
		return nil, nil // not a radish primary: the one payload
	}
	n, err := strconv.Atoi(f[1])
	if err != nil || n < 1 || n > 1024 {
		return nil, fmt.Errorf("bad REPLCONF radish-flows reply %q", line)
	}
	var flows []*flow
	for i := range n {
		fl, err := r.openFlow(f[2], i)
		if err != nil {
			closeFlows(flows)
			return nil, fmt.Errorf("opening replication flow %d: %w", i, err)
		}
		flows = append(flows, fl)
	}
	return flows, nil
}

// openFlow dials the primary and makes the connection flow i of token.
func (r *Replica) openFlow(token string, i int) (*flow, error) {
	c, err := r.dial()
	if err != nil {
		return nil, err
	}
	fl := &flow{c: c, br: bufio.NewReaderSize(c, 64<<10)}
	if r.o.Pass != "" {
		args := []string{"AUTH", r.o.Pass}
		if r.o.User != "" {
			args = []string{"AUTH", r.o.User, r.o.Pass}
		}
		line, err := r.command(c, fl.br, args...)
		if err == nil && line[0] == '-' {
			err = fmt.Errorf("AUTH: %s", line)
		}
		if err != nil {
			c.Close()
			return nil, err
		}
	}
	line, err := r.command(c, fl.br, "REPLCONF", "radish-flow", token, strconv.Itoa(i))
	if err == nil && line != "+OK" {
		err = fmt.Errorf("REPLCONF radish-flow: %s", line)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return fl, nil
}

func closeFlows(flows []*flow) {
	for _, f := range flows {
		f.c.Close()
	}
}

// flowFile is flow i's file of the snapshot whose manifest is at path.
func flowFile(path string, i int) string { return path + "." + strconv.Itoa(i) + ".rdb" }

func removeFlowFiles(path string, n int) {
	for i := range n {
		os.Remove(flowFile(path, i))
	}
}

// flowsIn is the flows on their way in: their payloads received from
// the moment the flows are open, before PSYNC is even answered (the
// primary's shards write their parts on them first, and answer once
// every part is written: a replica that waited for the answer to read
// them would hold them full and the answer would never come); then, or
// at once after a +CONTINUE, the frames of the write stream, put in
// place by j.
type flowsIn struct {
	flows []*flow
	path  string
	done  chan error
	j     *joiner
	ended bool
}

// errNoPart: a flow's first bytes are the stream's, no payload came.
var errNoPart = errors.New("no payload on the flow")

// receive starts receiving every flow, in parallel: its payload, an RDB
// file between $EOF:<mark> and the mark, into its file (once all are
// in, the manifest naming them is written at the full sync's path),
// then its frames of the stream. Nil without flows.
func (r *Replica) receive(flows []*flow) *flowsIn {
	if len(flows) == 0 {
		return nil
	}
	in := &flowsIn{flows: flows, path: r.tempPath(), done: make(chan error, 1), j: newJoiner(r.o.Timeout)}
	r.mu.Lock()
	r.st.SyncRead, r.st.SyncLastIO = 0, time.Now()
	r.mu.Unlock()
	for _, fl := range flows { // a payload must start within repl-timeout (a +CONTINUE lifts it)
		fl.c.SetReadDeadline(time.Now().Add(r.o.Timeout))
	}
	m := &snapshot.Manifest{Files: make([]snapshot.File, len(flows))}
	errs := make([]error, len(flows))
	var wg sync.WaitGroup
	for i, fl := range flows {
		wg.Add(1)
		go func() {
			m.Files[i].Size, errs[i] = r.receiveFlow(fl, flowFile(in.path, i))
			m.Files[i].Name = filepath.Base(flowFile(in.path, i))
			wg.Done()
			if errs[i] != nil && errs[i] != errNoPart {
				in.j.fail(fmt.Errorf("flow %d: %w", i, errs[i]))
				return
			}
			fl.c.SetReadDeadline(time.Time{}) // a shard may write nothing for long
			var b []byte
			for {
				var off int64
				var err error
				off, b, err = readFrame(fl.br, b)
				if err != nil {
					in.j.fail(fmt.Errorf("flow %d: %w", i, err))
					return
				}
				in.j.put(off, b, i)
			}
		}()
	}
	go func() {
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				in.done <- fmt.Errorf("flow %d: %w", i, err)
				return
			}
		}
		in.done <- os.WriteFile(in.path, m.Marshal(), 0o644)
	}()
	return in
}

// wait returns once every payload is in (or one failed).
func (in *flowsIn) wait() error {
	err := <-in.done
	in.done <- err // end waits again
	return err
}

// stream has the stream start after offset off: the flows' frames and
// those of the replication connection c (read from br by a goroutine of
// its own until it fails), put in place. It returns the merged stream,
// which fails once no byte of it came for repl-timeout.
func (in *flowsIn) stream(c net.Conn, br *bufio.Reader, off int64) io.Reader {
	for _, fl := range in.flows { // no payload comes (a +CONTINUE)
		fl.c.SetReadDeadline(time.Time{})
	}
	c.SetReadDeadline(time.Time{})
	in.j.start(off)
	go func() {
		var b []byte
		for {
			var off int64
			var err error
			off, b, err = readFrame(br, b)
			if err != nil {
				in.j.fail(err)
				return
			}
			in.j.put(off, b, -1)
		}
	}()
	return in.j
}

// removeFiles removes the payloads' files, once loaded.
func (in *flowsIn) removeFiles() {
	removeFlowFiles(in.path, len(in.flows))
	os.Remove(in.path)
}

// end closes the flows, waits for their payloads' receivers and removes
// their files; again, or on nil, it does nothing.
func (in *flowsIn) end() {
	if in == nil || in.ended {
		return
	}
	in.ended = true
	closeFlows(in.flows)
	<-in.done
	in.removeFiles()
}

// count is how many flows are open.
func (in *flowsIn) count() int {
	if in == nil {
		return 0
	}
	return len(in.flows)
}

// receiveFlow copies one flow's payload into a file at path, reading
// nothing past its mark (the stream's frames follow); errNoPart when
// the flow starts with a frame.
func (r *Replica) receiveFlow(fl *flow, path string) (int64, error) {
	first, err := fl.br.Peek(1)
	if err != nil {
		return 0, err
	}
	if first[0] == '@' {
		return 0, errNoPart
	}
	hdr, err := fl.br.ReadString('\n')
	if err != nil {
		return 0, err
	}
	hdr = strings.TrimRight(hdr, "\r\n")
	mark, ok := strings.CutPrefix(hdr, "$EOF:")
	if !ok || len(mark) != eofMarkLen {
		return 0, fmt.Errorf("bad flow payload header %q", hdr)
	}
	r.mu.Lock()
	if r.st.State == StateHandshake { // a part comes: a full sync is on
		r.st.State = StateSync
	}
	r.mu.Unlock()
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	cw := &counter{w: f}
	err = r.copyToMarkIn(cw, fl, []byte(mark))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return cw.n, err
}

// copyToMarkIn copies fl's payload to dst up to mark, which it consumes
// and reads nothing past, counting it for INFO and keeping the flow's
// read deadline ahead.
func (r *Replica) copyToMarkIn(dst io.Writer, fl *flow, mark []byte) error {
	var held []byte // read, not written: may begin the mark
	for {
		fl.c.SetReadDeadline(time.Now().Add(r.o.Timeout))
		if _, err := fl.br.Peek(1); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		data, _ := fl.br.Peek(fl.br.Buffered())
		r.mu.Lock()
		r.st.SyncRead += int64(len(data))
		r.st.SyncLastIO = time.Now()
		r.mu.Unlock()
		// A mark that begins in held ends within len(mark)-1 bytes of data.
		edge := append(held[:len(held):len(held)], data[:min(len(data), len(mark)-1)]...)
		if i := bytes.Index(edge, mark); i >= 0 {
			_, err := dst.Write(held[:i])
			fl.br.Discard(i + len(mark) - len(held))
			return err
		}
		if i := bytes.Index(data, mark); i >= 0 {
			_, err := dst.Write(held)
			if err == nil {
				_, err = dst.Write(data[:i])
			}
			fl.br.Discard(i + len(mark))
			return err
		}
		if len(data) < len(mark)-1 { // edge is held and all of data
			cut := max(0, len(edge)-(len(mark)-1))
			if _, err := dst.Write(edge[:cut]); err != nil {
				return err
			}
			held = append(held[:0], edge[cut:]...)
		} else {
			if _, err := dst.Write(held); err != nil {
				return err
			}
			keep := len(mark) - 1
			if _, err := dst.Write(data[:len(data)-keep]); err != nil {
				return err
			}
			held = append(held[:0], data[len(data)-keep:]...)
		}
		fl.br.Discard(len(data))
	}
}

// counter counts what it writes to w.
type counter struct {
	w io.Writer
	n int64
}

func (c *counter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
