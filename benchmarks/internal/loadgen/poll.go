package loadgen

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// poller is a run's watcher of the server (Config.PollEvery): one more
// connection that sends INFO persistence every PollEvery while the run
// goes, as a monitoring agent does; with Config.BgsaveAt it sends BGSAVE
// that far into the run and polls on, past the run's end if need be,
// until the save is over. A script that measures latency during a save
// watches the save from here: a redis-cli started every few ms on the
// load generator's CPU takes that CPU from it, and the run's p99 then
// measures the process starts (bgsave.sh's windows, benchmarks/HISTORY.md, "The
// fifteenth session's findings").
type poller struct {
	conn net.Conn
	r    *bufio.Reader
	cfg  Config
}

func newPoller(ctx context.Context, c Config) (*poller, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", c.Addr)
	if err != nil {
		return nil, err
	}
	return &poller{conn: conn, r: bufio.NewReaderSize(conn, 16<<10), cfg: c}, nil
}

// run polls from start until deadline and, with BgsaveAt, until the save
// it started is over, and returns the save's wall time: from BGSAVE to
// the first INFO that shows none in progress. stop ends it early (the
// run failed).
func (p *poller) run(start, deadline time.Time, stop func() bool) (time.Duration, error) {
	defer p.conn.Close()
	p.conn.SetDeadline(deadline.Add(hangTime))
	var saveStart time.Time
	var took time.Duration
	saved := p.cfg.BgsaveAt <= 0 // nothing to wait for
	for tick := start; !stop(); {
		if !saved && saveStart.IsZero() && !time.Now().Before(start.Add(p.cfg.BgsaveAt)) {
			saveStart = time.Now() // as the command leaves: redis-server answers after its fork
			line, err := p.command("*1\r\n$6\r\nBGSAVE\r\n")
			if err != nil {
				return 0, err
			}
			if !strings.Contains(line, "started") {
				return 0, fmt.Errorf("loadgen: BGSAVE answered %q", line)
			}
		}
		inProgress, ok, err := p.info()
		if err != nil {
			return 0, err
		}
		if !saved && !saveStart.IsZero() && !inProgress {
			if !ok {
				return 0, fmt.Errorf("loadgen: the BGSAVE failed (rdb_last_bgsave_status)")
			}
			took, saved = time.Since(saveStart), true
		}
		if saved && !time.Now().Before(deadline) {
			break
		}
		tick = tick.Add(p.cfg.PollEvery)
		time.Sleep(time.Until(tick))
	}
	return took, nil
}

// command sends cmd and reads its one-line reply.
func (p *poller) command(cmd string) (string, error) {
	if _, err := io.WriteString(p.conn, cmd); err != nil {
		return "", err
	}
	line, err := p.r.ReadString('\n')
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(line, "-") {
		return "", fmt.Errorf("%w: %s", ErrReply, strings.TrimSpace(line[1:]))
	}
	return strings.TrimSpace(line), nil
}

// info sends INFO persistence and reads whether a background save is in
// progress and whether the last one succeeded.
func (p *poller) info() (inProgress, lastOK bool, err error) {
	head, err := p.command("*2\r\n$4\r\nINFO\r\n$11\r\npersistence\r\n")
	if err != nil {
		return false, false, err
	}
	n, err := strconv.Atoi(strings.TrimPrefix(head, "$"))
	if !strings.HasPrefix(head, "$") || err != nil || n < 0 || n > 1<<20 {
		return false, false, fmt.Errorf("loadgen: INFO answered %q", head)
	}
	body := make([]byte, n+2)
	if _, err := io.ReadFull(p.r, body); err != nil {
		return false, false, err
	}
	lastOK = true
	for _, line := range strings.Split(string(body), "\r\n") {
		switch k, v, _ := strings.Cut(line, ":"); k {
		case "rdb_bgsave_in_progress":
			inProgress = v != "0"
		case "rdb_last_bgsave_status":
			lastOK = v == "ok"
		}
	}
	return inProgress, lastOK, nil
}
