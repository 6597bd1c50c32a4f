package repl

import (
	"bufio"
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

// flowsIn is the flows' payloads on their way in: received from the
// moment the flows are open, before PSYNC is even answered (the
// primary's shards write their parts on them first, and answer once
// every part is written: a replica that waited for the answer to read
// them would hold them full and the answer would never come).
type flowsIn struct {
	flows []*flow
	path  string
	done  chan error
	ended bool
}

// receive starts receiving every flow's payload, an RDB file between
// $EOF:<mark> and the mark, into its file, in parallel; once all are in,
// the manifest naming them is written at the full sync's path. Nil
// without flows.
func (r *Replica) receive(flows []*flow) *flowsIn {
	if len(flows) == 0 {
		return nil
	}
	in := &flowsIn{flows: flows, path: r.tempPath(), done: make(chan error, 1)}
	r.mu.Lock()
	r.st.SyncRead, r.st.SyncLastIO = 0, time.Now()
	r.mu.Unlock()
	go func() {
		m := &snapshot.Manifest{Files: make([]snapshot.File, len(flows))}
		errs := make([]error, len(flows))
		var wg sync.WaitGroup
		for i, fl := range flows {
			wg.Add(1)
			go func() {
				defer wg.Done()
				m.Files[i].Size, errs[i] = r.receiveFlow(fl, flowFile(in.path, i))
				m.Files[i].Name = filepath.Base(flowFile(in.path, i))
			}()
		}
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

// end closes the flows, waits for their receivers and removes their
// files; again, or on nil, it does nothing.
func (in *flowsIn) end() {
	if in == nil || in.ended {
		return
	}
	in.ended = true
	closeFlows(in.flows)
	<-in.done
	removeFlowFiles(in.path, len(in.flows))
	os.Remove(in.path)
}

// count is how many flows are open.
func (in *flowsIn) count() int {
	if in == nil {
		return 0
	}
	return len(in.flows)
}

// receiveFlow copies one flow's payload into a file at path.
func (r *Replica) receiveFlow(fl *flow, path string) (int64, error) {
	fl.c.SetReadDeadline(time.Now().Add(r.o.Timeout))
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
	err = copyToMark(cw, &progress{r: fl.br, c: fl.c, rep: r}, []byte(mark))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return cw.n, err
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
