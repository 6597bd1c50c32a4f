package shard

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/persistence/repl"
	"github.com/radish-kv/radish/persistence/snapshot"
)

// The shards' side of replication (persistence/repl). As a replica the
// group holds a repl.Replica, the link to its primary, and is its
// repl.Host: a full sync loads the received RDB file into every shard
// (each keeps the keys it owns) in one step of its loop, and the stream
// runs on the link's lanes, each a pipe (pipe.go: a connection with no
// socket) of shard lane modulo the shard count, the master's (cl.Master:
// writes pass replica-read-only): its commands take the ordinary path
// (hops, txns, MULTI/EXEC over every shard they touch), so a cross-shard
// MSET of the stream is atomic here as for any client.
//
// A replica shard (s.replica) follows a replica's expiry rules: no
// active expiry, reads hide expired keys without deleting them
// (engine.Store.SetReplica), and writes run at time 0, so that the
// primary's commands see every key it saw alive; its DELs remove them.

// replState is the group's replication state. change serializes role
// changes (REPLICAOF), which wait for the shards: no shard ever takes
// it. mu guards the fields, held briefly (after prim.mu when both are);
// link is read by the shards' command path.
type replState struct {
	change sync.Mutex
	mu     sync.Mutex
	link   atomic.Pointer[repl.Replica]
	host   string
	port   int
	// As a primary: the replication ID, the previous one and where its
	// history ends (second_repl_offset, -1: none), and the offset.
	replid, replid2 string
	offset2, offset int64
	// hist is the stream's last bytes a promoted replica applied: its
	// backlog once it serves replicas.
	hist []byte
}

// newReplID returns a random 40-hex-digit replication ID.
func newReplID() string {
	var b [20]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// initRepl sets the group's replication ID; with replicaof set, the
// group starts as a replica.
func (g *Group) initRepl() {
	r := &g.repl
	// Under mu: the shards, running already, read them under it.
	r.mu.Lock()
	r.replid, r.offset2 = newReplID(), -1
	r.mu.Unlock()
	if host, port, ok := strings.Cut(g.conf.Snapshot().ReplicaOf, " "); ok {
		p, _ := strconv.Atoi(port)
		r.change.Lock()
		g.follow(host, p)
		r.change.Unlock()
	}
}

// stopRepl ends the link to the primary, if any.
func (g *Group) stopRepl() {
	if l := g.repl.link.Swap(nil); l != nil {
		l.Stop()
	}
}

// replicaOf is REPLICAOF host port, or NO ONE when host is "": it
// returns the reply once every shard has its new role.
func (g *Group) replicaOf(host string, port int) string {
	r := &g.repl
	r.change.Lock()
	defer r.change.Unlock()
	cur := r.link.Load()
	if host == "" {
		if cur == nil {
			return "OK"
		}
		st := cur.Stop()
		// As Redis: the sub-replicas come back with a PSYNC, which the
		// promoted group continues (the stream they had is its replid2).
		g.dropChained()
		r.mu.Lock()
		r.hist = cur.History()
		r.link.Store(nil)
		// Promotion keeps the data and the history: the stream it was
		// replicating becomes its replid2, so that the primary's other
		// replicas may continue from it.
		r.replid2, r.offset2, r.replid, r.offset = st.ReplID, st.Applied+1, newReplID(), st.Applied
		if st.ReplID == "" {
			r.replid2, r.offset2 = "", -1
		}
		replid, replid2, offset := r.replid, r.replid2, r.offset
		r.mu.Unlock()
		// The stream goes on from the offset applied: the shards feed it
		// from a cut taken before any client may write.
		g.startFeeds()
		g.setReplica(false, "")
		g.log.Info("promoted to primary (REPLICAOF NO ONE)", zap.String("replid", replid),
			zap.String("replid2", replid2), zap.Int64("offset", offset))
		return "OK"
	}
	r.mu.Lock()
	same := cur != nil && r.host == host && r.port == port
	r.mu.Unlock()
	if same {
		return "OK Already connected to specified master"
	}
	g.follow(host, port)
	return "OK"
}

// follow makes the group a replica of host:port, continuing the stream
// it holds (its previous primary's, or its own as a primary, whose
// replicas it drops). r.change held.
func (g *Group) follow(host string, port int) {
	r := &g.repl
	offset, _, _, _ := g.primaryOffset()
	r.mu.Lock()
	replid := r.replid
	r.mu.Unlock()
	if cur := r.link.Swap(nil); cur != nil {
		st := cur.Stop()
		replid, offset = st.ReplID, st.Applied
	}
	g.dropReplicas()
	g.dropChained()
	g.setReplica(true, host+":"+strconv.Itoa(port))
	c := g.conf.Snapshot()
	// As Redis: the port a replica announces is its TLS port when its
	// links speak TLS (a FAILOVER's old primary connects there).
	listen := c.Port
	if c.ReplicaAnnouncePort != 0 {
		listen = c.ReplicaAnnouncePort
	} else if c.TLSReplication && c.TLSPort != 0 {
		listen = c.TLSPort
	}
	r.mu.Lock()
	r.host, r.port = host, port
	r.mu.Unlock()
	r.link.Store(repl.Start(g, repl.Options{
		Addr: net.JoinHostPort(host, strconv.Itoa(port)), User: c.MasterUser, Pass: c.MasterAuth,
		ListenPort: listen, AnnounceIP: c.ReplicaAnnounceIP, Dir: c.Dir,
		Timeout: time.Duration(c.ReplTimeout) * time.Second, ReplID: replid, Offset: offset, Log: g.log,
		Backlog: int(c.ReplBacklogSize), Flows: len(g.shards), Failover: g.fo.psync(),
		Fsynced: g.fsyncedOffset, TLS: g.opts.TLSClient, Forward: g.chainForward, Reset: g.dropChained,
		Local: localCommand, Read: &g.replIn,
	}))
	g.log.Info("replicating", zap.String("primary", net.JoinHostPort(host, strconv.Itoa(port))))
}

// setReplica gives every shard its role and waits until each has it;
// becoming a replica of primary ("host:port"), each ends its clients'
// blocked commands (unblockAll).
func (g *Group) setReplica(on bool, primary string) {
	var wg sync.WaitGroup
	wg.Add(len(g.shards))
	for _, s := range g.shards {
		s.deliver([]message{{kind: msgRepl, data: runMsg(func(s *Shard) {
			s.replica = on
			s.store.SetReplica(on)
			if on { // a replica feeds no stream; a promotion's cut restarts it
				s.feed.on, s.feed.marks = false, s.feed.marks[:0]
				s.unblockAll(primary)
			}
			wg.Done()
		})}})
	}
	wg.Wait()
}

// FullSync implements repl.Host: the shards, held together as one
// transaction over every shard's every key (holdAll), each empty their
// store and load their keys of the RDB file at path (expired ones too:
// the primary deletes them); a reader sees the data from before the
// load or after it, never one shard loaded and another not yet.
func (g *Group) FullSync(path string) error {
	src, err := snapshot.Open(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return err
	}
	if src == nil {
		return fmt.Errorf("%s: no such file", path)
	}
	defer src.Close()
	done := make(chan error, 1)
	g.shards[0].deliver([]message{{kind: msgRepl, data: runMsg(func(s *Shard) {
		s.holdAll(func(o *Shard) error { return o.reload(src, true) }, func(err error) { done <- err })
	})}})
	return <-done
}

// replRefuses is the error a replica gives a client's command (never
// the master link's): -READONLY for a write under replica-read-only,
// -MASTERDOWN for a command that is not stale-safe while the link is
// down under replica-serve-stale-data no; "" to run it.
func (s *Shard) replRefuses(spec *command.Spec) string {
	if spec.Flags&command.Write != 0 && s.conf.ReplicaReadOnly {
		return errtext.ReadOnly
	}
	if !s.conf.ReplicaServeStaleData && spec.Flags&command.Stale == 0 {
		if l := s.group.repl.link.Load(); l != nil && !l.Up() {
			return errtext.MasterDown
		}
	}
	return ""
}

// redirect is Valkey 8's answer, on a replica, to a client that said
// CLIENT CAPA redirect: a command that writes, or that reads keys and the
// client did not say READONLY, gets -REDIRECT <primary host>:<port>
// (queued in MULTI, it makes EXEC abort; an EXEC whose queue does is
// answered so, its MULTI discarded). It reports whether it answered.
func (s *Shard) redirect(c *conn, spec *command.Spec) bool {
	writes, reads := spec.Flags&command.Write != 0, spec.Flags&command.ReadOnly != 0
	exec := spec.Tx == command.TxExec && c.inMulti()
	if exec {
		for _, q := range c.tx.cmds {
			writes = writes || q.spec.Flags&command.Write != 0
			reads = reads || q.spec.Flags&command.ReadOnly != 0
		}
	}
	if !writes && (!reads || c.cl.ReadOnly) {
		return false
	}
	r := &s.group.repl
	r.mu.Lock()
	e := "REDIRECT " + r.host + ":" + strconv.Itoa(r.port) // as Valkey prints it, IPv6 too
	r.mu.Unlock()
	if exec {
		// Valkey discards the transaction and answers the redirect
		// itself, not an EXECABORT.
		s.discard(c)
	}
	s.refusal(c, spec, e)
	return true
}

// replCmd runs the replication commands the router places with the
// shard's persistence: REPLICAOF and SLAVEOF (answered once every shard
// has its role, which a promotion waits for), and REPLCONF.
func (s *Shard) replCmd(c *conn, spec *command.Spec, args [][]byte) {
	switch spec.Name {
	case "replconf":
		if s.flowsHello(c, args) || s.flowAttach(c, args) || s.replconfReplica(c, args) {
			return
		}
		s.reply(c, func(w *resp.Writer) { command.ReplConf(w, args) })
		return
	case "psync", "sync":
		s.psyncCmd(c, spec, args)
		return
	case "wait":
		s.waitCmd(c, args)
		return
	case "waitaof":
		s.waitAOFCmd(c, args)
		return
	}
	host, port, errText := command.ReplicaOfArgs(args)
	if errText != "" {
		s.reply(c, func(w *resp.Writer) { w.Error(errText) })
		return
	}
	home := s.id
	sl := s.pend(c)
	c.barrier = true
	go func() {
		reply := s.group.replicaOf(host, port)
		s.group.shards[home].deliver([]message{{kind: msgRepl, data: runMsg(func(h *Shard) {
			w := resp.Writer{Proto: c.cl.Proto}
			w.Simple(reply)
			c.barrier = false
			h.fill(c, sl, w.B)
			if !c.dead && !c.closing {
				h.serve(c)
			}
		})}})
	}()
}

// Role implements command.Server: ROLE's reply.
func (g *Group) Role(w *resp.Writer) {
	r := &g.repl
	l := r.link.Load()
	if l == nil {
		off, _, _, _ := g.primaryOffset()
		p := &g.prim
		p.mu.Lock()
		defer p.mu.Unlock()
		w.Array(3)
		w.BulkString("master")
		w.Int(off)
		n := 0
		for _, x := range p.replicas {
			if !x.rdb {
				n++
			}
		}
		w.Array(n)
		for _, x := range p.replicas {
			if !x.rdb {
				w.Array(3)
				w.BulkString(x.ip)
				w.BulkString(strconv.Itoa(x.port))
				w.BulkString(strconv.FormatInt(x.ack.Load(), 10))
			}
		}
		return
	}
	st := l.Status()
	r.mu.Lock()
	host, port := r.host, r.port
	r.mu.Unlock()
	off := int64(-1)
	if st.State == repl.StateConnected {
		off = st.Applied
	}
	w.Array(5)
	w.BulkString("slave")
	w.BulkString(host)
	w.Int(int64(port))
	w.BulkString(st.State)
	w.Int(off)
}

// replicationInfo is INFO's replication section, in Redis 7.0's order.
func (g *Group) replicationInfo(b *strings.Builder) {
	r := &g.repl
	c := g.conf.Snapshot()
	r.mu.Lock()
	host, port := r.host, r.port
	replid, replid2, off, off2 := r.replid, r.replid2, r.offset, r.offset2
	r.mu.Unlock()
	l := r.link.Load()
	active := false
	var first, histlen int64
	if l == nil {
		b.WriteString("# Replication\r\nrole:master\r\n")
		g.replicasInfo(b)
		off, first, histlen, active = g.primaryOffset()
	} else {
		st := l.Status()
		now := time.Now()
		up, lastIO, syncing := "down", int64(-1), 0
		if st.State == repl.StateConnected {
			up, lastIO = "up", int64(now.Sub(st.LastIO)/time.Second)
		}
		if st.State == repl.StateSync {
			syncing = 1
		}
		fmt.Fprintf(b, "# Replication\r\nrole:slave\r\nmaster_host:%s\r\nmaster_port:%d\r\nmaster_link_status:%s\r\n"+
			"master_last_io_seconds_ago:%d\r\nmaster_sync_in_progress:%d\r\nslave_read_repl_offset:%d\r\nslave_repl_offset:%d\r\n",
			host, port, up, lastIO, syncing, st.Read, st.Applied)
		if syncing == 1 {
			perc, left := 0.0, int64(-1)
			if st.SyncTotal > 0 {
				perc, left = float64(st.SyncRead)*100/float64(st.SyncTotal), st.SyncTotal-st.SyncRead
			}
			fmt.Fprintf(b, "master_sync_total_bytes:%d\r\nmaster_sync_read_bytes:%d\r\nmaster_sync_left_bytes:%d\r\n"+
				"master_sync_perc:%.2f\r\nmaster_sync_last_io_seconds_ago:%d\r\n",
				st.SyncTotal, st.SyncRead, left, perc, int64(now.Sub(st.SyncLastIO)/time.Second))
		}
		if st.State != repl.StateConnected {
			down := int64(-1)
			if !st.DownSince.IsZero() {
				down = int64(now.Sub(st.DownSince) / time.Second)
			}
			fmt.Fprintf(b, "master_link_down_since_seconds:%d\r\n", down)
		}
		fmt.Fprintf(b, "slave_priority:%d\r\nslave_read_only:%d\r\nreplica_announced:%d\r\n",
			c.ReplicaPriority, boolInt(c.ReplicaReadOnly), boolInt(c.ReplicaAnnounced))
		g.chainInfo(b)
		l.Chained(func(h repl.Chain) {
			first, histlen, active = h.Offset-int64(len(h.History))+1, int64(len(h.History)), st.EverConnected
		})
		replid, off = st.ReplID, st.Applied
		replid2, off2 = st.ReplID2, st.SecondOffset
		if replid == "" {
			replid = r.replid
		}
	}
	if replid2 == "" {
		replid2 = strings.Repeat("0", 40)
	}
	fmt.Fprintf(b, "master_failover_state:%s\r\nmaster_replid:%s\r\nmaster_replid2:%s\r\n"+
		"master_repl_offset:%d\r\nsecond_repl_offset:%d\r\nrepl_backlog_active:%d\r\nrepl_backlog_size:%d\r\n"+
		"repl_backlog_first_byte_offset:%d\r\nrepl_backlog_histlen:%d\r\n",
		g.fo.stateName(), replid, replid2, off, off2, boolInt(active), c.ReplBacklogSize, first, histlen)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Replica implements command.Server.
func (g *Group) Replica() bool { return g.repl.link.Load() != nil }

// ReplicaOf implements command.Server.
func (g *Group) ReplicaOf(host string, port int) {
	go g.replicaOf(host, port)
}
