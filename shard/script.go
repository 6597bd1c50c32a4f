package shard

import (
	"slices"
	"strings"

	"github.com/radish-kv/radish/acl"
	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/coord"
	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/net/resp"
	"github.com/radish-kv/radish/router"
	"github.com/radish-kv/radish/script"
)

// EVAL, EVALSHA, EVAL_RO and EVALSHA_RO: where a script runs (package
// script's doc says why this way).
//
//   - Direct: the declared keys live on one shard (or there are none:
//     the connection's shard). The script runs there, on the real store,
//     each redis.call through run1 (the mutation path: effects, WATCH
//     versions, blocked clients' wakeups), behind the work its declared
//     keys wait for, with no lock taken; a hop when that shard is not the
//     connection's. Before the first write to each key the host keeps the
//     key's value (undo). A call on a key of another shard, or on an
//     undeclared key a txn holds, abandons the run: the undo record is
//     put back and the run's effects dropped, and home runs it again
//     elsewhere: on that key's shard when the run had no declared key and
//     had touched none, else held.
//   - Held: the declared keys span shards, or a direct run failed. The
//     script's txn takes, with coord's protocol, the declared keys per
//     shard, or (after a run met a key it does not hold) every shard
//     whole; home gathers the keys into its scratch store, runs the
//     script there, and each key the script did not have is fetched from
//     its shard and the run starts again (only while every shard is held;
//     holding keys, a miss takes every shard). The keys the script wrote
//     are written back, and the locks released. A script that needed
//     every shard is remembered (script.Script.Spread): later calls take
//     every shard at once. KEYS, SCAN, DBSIZE and RANDOMKEY on several
//     shards need every key of their database: the run takes every shard
//     and copies the whole database from each (fetchWhole), and the
//     command runs on the copy, the script's own writes included; the
//     other commands that visit every shard are refused in a script, but
//     PUBLISH, which asks the receivers first (scriptpub.go).
//
// Effects: a script's writes on one shard are wrapped in MULTI ... EXEC
// when there are several, as Redis propagates a script's effects; a held
// run's writes are written back as the gather plan writes back, tagged as
// parts of the script's txn.

// scriptJob is one EVAL call, copied, owned by its home shard: the call
// itself and, home's only, its connection and reply slot.
type scriptJob struct {
	scriptCall
	c     *conn
	sl    *slot
	moved bool // it was sent to the shard of the key a direct run met
	at    int  // the shard of its last direct run
}

// scriptCall is what a run of an EVAL call needs. A direct run on another
// shard gets its own copy as the contents of its message (msgScript),
// never reading its home shard's job; its keys and arguments are the
// job's own copies, which nobody writes once it is made, and home adds
// to counts only between runs.
type scriptCall struct {
	spec    *command.Spec
	sha     string
	keys    [][]byte
	argv    [][]byte
	ro      bool
	db      int
	proto   int
	noTouch bool
	cl      command.Client // for keyless commands the script calls
	user    *acl.User      // whose permissions its calls are checked with
	// counts are, per channel the script publishes on, every shard's
	// receivers, asked before the run (scriptpub.go).
	counts map[string][]int64
}

// fault is the key a run could not use, and whether another shard owns
// it (else a txn holds it here); whole: the run needs every key of
// database db (KEYS, SCAN, DBSIZE or RANDOMKEY over several shards); pub:
// key is a channel the run publishes on, whose receivers it needs
// (scriptpub.go).
type fault struct {
	db     int
	key    []byte
	remote bool
	whole  bool
	pub    bool
}

// wholeDB reports whether a script's call of spec reads every key of its
// database: on several shards the run takes every shard and a copy of the
// whole database (fetchWhole).
func wholeDB(spec *command.Spec) bool {
	switch spec.Name {
	case "keys", "scan", "dbsize", "randomkey":
		return true
	}
	return false
}

// runtime returns the shard's Lua interpreter, made at first use.
func (s *Shard) runtime() *script.Runtime {
	if s.lua == nil {
		s.lua = script.New(&s.group.scripts, &s.killer)
		s.lua.Tick = s.scriptTick
		log, id := s.group.log, s.id
		s.lua.Log = func(level int, msg string) {
			switch level {
			case script.LogWarning:
				log.Warn(msg, shardField(id))
			case script.LogNotice:
				log.Info(msg, shardField(id))
			default:
				log.Debug(msg, shardField(id))
			}
		}
	}
	return s.lua
}

// Load implements command.Scripts.
func (s *Shard) Load(body []byte) (string, string) {
	sc, errText := s.runtime().Load(body)
	if errText != "" {
		return "", errText
	}
	return sc.SHA, ""
}

// Exists implements command.Scripts.
func (s *Shard) Exists(sha []byte) bool {
	_, ok := s.runtime().Get(strings.ToLower(string(sha)))
	return ok
}

// Flush implements command.Scripts.
func (s *Shard) Flush() { s.group.scripts.Flush() }

// KillScript implements command.Scripts: it stops the script (or function)
// that runs on any shard, unless it wrote.
func (s *Shard) KillScript(function bool) string {
	errText := errtext.NotBusy
	for _, o := range s.group.shards {
		switch e := o.killer.Kill(function); {
		case e == "":
			return ""
		case !strings.HasPrefix(e, "NOTBUSY"):
			errText = e
		}
	}
	return errText
}

// Function implements command.Scripts.
// A change to the libraries counts as a write of the store (logged,
// propagated, counted for the save points); the router runs those
// subcommands on shard 0.
func (s *Shard) Function(c *command.Ctx, args [][]byte) {
	rt := s.runtime()
	rt.DumpCompress = s.conf.RDBCompression
	start := len(c.W.B)
	rt.FunctionCommand(c.W, args)
	if spec, _ := command.Resolve(args); spec != nil && spec.Flags&command.Write != 0 && c.W.B[start] != '-' {
		c.Store.Changed()
	}
}

// resolve finds the script an EVAL row names (compiling and recording an
// EVAL's body), or the error reply's text.
func (s *Shard) resolve(spec *command.Spec, args [][]byte) (*script.Script, string) {
	rt := s.runtime()
	switch spec.Script {
	case command.ScriptEval:
		return rt.Load(args[1])
	case command.ScriptFCall:
		sc, ok := rt.Function(string(args[1]))
		if !ok {
			return nil, "ERR Function not found"
		}
		return sc, ""
	}
	sc, ok := rt.GetSHA(args[1])
	if !ok {
		return nil, "NOSCRIPT No matching script. Please use EVAL."
	}
	return sc, ""
}

// script returns the job's script on this shard.
func (s *Shard) script(j *scriptCall) (*script.Script, bool) {
	if j.spec.Script == command.ScriptFCall {
		return s.runtime().Function(j.sha)
	}
	return s.runtime().Get(j.sha)
}

// newJob checks and copies an EVAL call: its script, keys and arguments.
func (s *Shard) newJob(c *conn, spec *command.Spec, args [][]byte) (*scriptJob, *script.Script, string) {
	j := &scriptJob{}
	sc, errText := s.fillJob(j, c, spec, args)
	if errText != "" {
		return nil, nil, errText
	}
	j.own()
	return j, sc, ""
}

// fillJob checks an EVAL call and fills j with it, j's keys and arguments
// borrowed from args.
func (s *Shard) fillJob(j *scriptJob, c *conn, spec *command.Spec, args [][]byte) (*script.Script, string) {
	var sc *script.Script
	var errText string
	if spec.Script == command.ScriptFCall {
		if sc, errText = s.resolve(spec, args); errText != "" {
			return nil, errText
		}
	}
	nk, errText := command.EvalKeys(args)
	if errText == errtext.NotInt && sc != nil {
		errText = "ERR Bad number of keys provided" // FCALL's text
	}
	if errText != "" {
		return nil, errText
	}
	if sc == nil {
		if sc, errText = s.resolve(spec, args); errText != "" {
			return nil, errText
		}
	}
	ro := spec.Flags&command.ReadOnly != 0
	if ro && sc.Flags&script.Shebang != 0 && sc.Flags&script.NoWrites == 0 {
		return nil, "ERR Can not execute a script with write flag using *_ro command."
	}
	*j = scriptJob{c: c, scriptCall: scriptCall{spec: spec, sha: sc.SHA, keys: args[3 : 3+nk : 3+nk], argv: args[3+nk:],
		ro: ro || sc.Flags&script.NoWrites != 0}}
	if c != nil {
		j.db, j.proto, j.noTouch, j.cl, j.user = c.cl.DB, c.cl.Proto, c.cl.NoTouch, c.cl, c.checked()
	}
	return sc, ""
}

// own copies the job's keys and arguments, borrowed until then.
func (j *scriptJob) own() {
	nk := len(j.keys)
	all := command.CopyArgs(append(j.keys[:nk:nk], j.argv...))
	j.keys, j.argv = all[:nk:nk], all[nk:]
}

// clone is a copy of j that owns its keys and arguments, for a run that
// outlives the command's call.
func (j *scriptJob) clone() *scriptJob {
	o := *j
	o.own()
	return &o
}

// eval places an EVAL call (see the comment at the top). A direct run
// here borrows the command's arguments and reuses the shard's job, host
// and reply (directRun); every other path takes a copy of the job.
func (s *Shard) eval(c *conn, spec *command.Spec, args [][]byte) {
	s.stats.commands++
	s.stats.count(spec)
	d := &s.direct
	j := &d.j
	if d.on {
		j = &scriptJob{} // one job of a run in progress: see directRun
	}
	sc, errText := s.fillJob(j, c, spec, args)
	if errText != "" {
		s.stats.failedCall(spec, []byte("-"+errText))
		s.replyError(c, errText)
		return
	}
	n := len(s.group.shards)
	dst, spread := s.id, false
	for i, k := range j.keys {
		sh := router.ShardOf(k, n)
		if i == 0 {
			dst = sh
		} else if sh != dst {
			spread = true
		}
	}
	held := sc.Spread && n > 1
	if !held && !spread && dst == s.id && (s.locks.Idle() || s.locks.Free(j.declared())) {
		s.evalHere(c, j)
		return
	}
	o := j.clone()
	if j == &d.j {
		d.j = scriptJob{}
	}
	switch {
	case held:
		s.evalHeld(o, true)
	case spread:
		s.evalHeld(o, false)
	default:
		o.sl = s.pend(c)
		c.barrier = true
		s.sendDirect(o, dst)
	}
}

// evalHere runs j directly on its connection's shard, this one.
func (s *Shard) evalHere(c *conn, j *scriptJob) {
	d := &s.direct
	w := &resp.Writer{}
	borrowed := j == &d.j
	if borrowed {
		d.borrowed = true
		w = &d.w
		w.B = w.B[:0]
	}
	w.Proto = j.proto
	j.at = s.id
	f := s.evalDirect(&j.scriptCall, w)
	if borrowed {
		d.borrowed = false
		if f != nil {
			j = j.clone()
		}
		d.j = scriptJob{}
	}
	if f != nil {
		j.sl = s.pend(c)
		c.barrier = true
		s.escalate(j, f)
		return
	}
	if s.group.stopping.Load() {
		return // aborted by SHUTDOWN: see scriptDone
	}
	s.replyBytes(c, w.B)
	if cap(d.w.B) > keepReply {
		d.w.B = nil
	}
}

// directRun is what the direct runs of a shard reuse from call to call:
// the job of an EVAL on the connection's own shard, whose keys and
// arguments are the command's (borrowed: its input stays put until the
// call returns, unless the shard polls its driver in busy mode, which
// first makes the job own them, ownBorrowed), the host and the reply.
// One run at a time (on): a job that arrives while a run is in progress
// (a script does not start inside another, so this is only in case) gets
// its own.
type directRun struct {
	on       bool
	borrowed bool
	j        scriptJob
	h        directHost
	call     script.Call
	w        resp.Writer
}

// keepReply is the most a reused reply or undo buffer keeps for the next
// run.
const keepReply = 64 << 10

// ownBorrowed makes the job of the direct run in progress own its keys
// and arguments, before the shard's driver may move its input.
func (s *Shard) ownBorrowed() {
	if d := &s.direct; d.borrowed {
		d.borrowed = false
		d.j.own()
	}
}

// replyBytes answers c with b, a whole reply.
func (s *Shard) replyBytes(c *conn, b []byte) {
	if len(c.queue) == 0 && !s.aof.hold {
		out := s.rawOut(c)
		*out = append(*out, b...)
		return
	}
	s.reply(c, func(w *resp.Writer) { w.B = append(w.B, b...) })
}

// declared is the job's declared keys with their intents.
func (j *scriptCall) declared() []coord.Key {
	in := coord.Exclusive
	if j.ro {
		in = coord.Shared
	}
	return pick(j.keys, seq(len(j.keys)), in)
}

func seq(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// sendDirect runs j on shard dst (this one included) once its declared
// keys are free there, and takes the outcome home.
func (s *Shard) sendDirect(j *scriptJob, dst int) {
	j.at = dst
	s.post(dst, msgScript, &scriptMsg{call: j.scriptCall, at: dst, home: s.id, j: j})
}

// scriptMsg is a direct run of a script on shard at as a message's
// contents (msgScript), answered in the same value (msgScriptDone): the
// shard reads call, its own copy of the job's scriptCall, and writes out,
// the run's reply, or f, the key it could not use; j is home's only.
type scriptMsg struct {
	call     scriptCall
	at, home int
	out      []byte
	f        *fault
	j        *scriptJob
}

func (m *scriptMsg) handle(s *Shard, k msgKind) {
	if k == msgScriptDone {
		if m.f != nil {
			s.escalate(m.j, m.f)
			return
		}
		s.scriptDone(m.j, m.out)
		return
	}
	s.whenFree(coord.Part{Shard: m.at, Keys: m.call.declared()}, func() {
		w := resp.Writer{Proto: m.call.proto}
		m.f = s.evalDirect(&m.call, &w)
		m.out = w.B
		s.post(m.home, msgScriptDone, m)
	})
}

// escalate runs j again after a direct run met f: on f's shard when the
// run could have started there, else held (every shard when f is on
// another shard: the script is remembered as spread).
func (s *Shard) escalate(j *scriptJob, f *fault) {
	if f.pub {
		s.countReceivers(j, f.key, func() { s.sendDirect(j, j.at) })
		return
	}
	if f.remote && !f.whole && len(j.keys) == 0 && !j.moved {
		j.moved = true
		s.sendDirect(j, router.ShardOf(f.key, len(s.group.shards)))
		return
	}
	if sc, ok := s.script(&j.scriptCall); ok && f.remote {
		sc.Spread = true
	}
	s.evalHeld(j, true)
}

// scriptDone answers a script whose reply was pending. Once the server
// stops nothing is answered: the stop aborted the run (Redis's SHUTDOWN
// NOSAVE closes the busy script's client unanswered), and the
// connection closes with the shard.
func (s *Shard) scriptDone(j *scriptJob, out []byte) {
	if s.group.stopping.Load() {
		return
	}
	c := j.c
	c.barrier = false
	s.fill(c, j.sl, out)
	if !c.dead && !c.closing {
		s.serve(c)
	}
}

// evalDirect runs j here on the real store, its reply written to w. It
// returns nil, or the key that made it abandon the run (then nothing of
// the run remains, in the store or in w).
func (s *Shard) evalDirect(j *scriptCall, w *resp.Writer) *fault {
	sc, ok := s.script(j)
	if !ok {
		// Flushed while the job travelled: Redis would have answered
		// at once.
		w.B = append(w.B, gone(j)...)
		return nil
	}
	d := &s.direct
	h, call := &d.h, &d.call
	if d.on {
		h, call = &directHost{}, &script.Call{}
	}
	d.on = true
	h.pubs.reset()
	*h = directHost{s: s, j: j, db: j.db, cl: j.cl, saved: h.saved[:0], undoBuf: h.undoBuf[:0], idx: h.idx[:0], wk: h.wk[:0],
		pubs: h.pubs}
	*call = script.Call{Keys: j.keys, Argv: j.argv, ReadOnly: j.ro, Host: h}
	mark := s.fxMark()
	start := len(w.B)
	ran := s.runScript(sc, call, w)
	if !ran {
		h.undo(mark)
		w.B = w.B[:start]
		h.pubs.reset()
	} else {
		s.fxWrap(mark, command.Tag{})
		s.sendPubs(&h.pubs)
	}
	f := h.fault
	clear(h.saved)
	if cap(h.undoBuf) > keepReply {
		h.undoBuf = nil
	}
	h.j, h.fault, h.cl = nil, nil, command.Client{}
	*call = script.Call{}
	if h == &d.h {
		d.on = false
	}
	return f
}

// gone is the reply to a job whose script was flushed on its way.
func gone(j *scriptCall) string {
	if j.spec.Script == command.ScriptFCall {
		return "-ERR Function not found\r\n"
	}
	return "-NOSCRIPT No matching script. Please use EVAL.\r\n"
}

// directHost runs a script's calls on its shard's real store.
type directHost struct {
	s     *Shard
	j     *scriptCall
	db    int
	cl    command.Client
	saved []entry // each written key's value before the run's first write to it
	// undoBuf holds the saved keys and values; idx and wk are the
	// positions of a call's keys and written keys.
	undoBuf []byte
	idx, wk []int
	fault   *fault
	// inTx: the script is a command of a transaction, which holds its
	// keys: a key it does not hold is an error, not a fault.
	inTx bool
	pubs scriptPubs // its publishes (scriptpub.go)
}

// Call implements script.Host.
func (h *directHost) Call(spec *command.Spec, args [][]byte, w *resp.Writer) bool {
	s := h.s
	n := len(s.group.shards)
	if !h.inTx && s.isPublish(spec) {
		if !s.scriptPublish(h.j, &h.pubs, args, w) {
			return h.refuse(w, &fault{db: h.db, key: args[1], pub: true})
		}
		s.propagatePub(h.db, "PUBLISH", args[1], args[2])
		return true
	}
	if n > 1 && (spec.AllShards || spec.Route != nil) {
		if !wholeDB(spec) || h.inTx {
			w.Error(errScriptAllShards)
			return true
		}
		return h.refuse(w, &fault{db: h.db, remote: true, whole: true})
	}
	idx, _ := spec.Keys(args, h.idx[:0])
	h.idx = idx
	for _, i := range idx {
		k := args[i]
		if router.ShardOf(k, n) != s.id {
			return h.refuse(w, &fault{db: h.db, key: k, remote: true})
		}
		if !h.j.isDeclared(k) && !s.locks.Free([]coord.Key{{Name: k, Intent: intentOf(spec)}}) {
			return h.refuse(w, &fault{db: h.db, key: k})
		}
	}
	if n > 1 && spec.Patterns != nil && spec.Patterns(args) {
		// The keys its patterns name (SORT ... BY w_*), read here.
		for _, k := range spec.PatternKeys(s.store.DB(h.db), args, s.now, nil) {
			if router.ShardOf(k, n) != s.id {
				return h.refuse(w, &fault{db: h.db, key: k, remote: true})
			}
			if !h.j.isDeclared(k) && !s.locks.Free([]coord.Key{{Name: k, Intent: coord.Shared}}) {
				return h.refuse(w, &fault{db: h.db, key: k})
			}
		}
	}
	if spec.Flags&command.Write != 0 {
		wk, _ := spec.WriteKeys(args, h.wk[:0])
		h.wk = wk
		dbs := []int{h.db}
		if spec.OtherDB != nil {
			if o := spec.OtherDB(args); o >= 0 && o < s.group.opts.Databases && o != h.db {
				dbs = append(dbs, o)
			}
		}
		for _, db := range dbs {
			for _, i := range wk {
				h.save(db, args[i])
			}
		}
	}
	// Inside a command's run (an EVAL queued in MULTI: its EXEC's), the
	// shard's context is that command's, kept for it.
	var saved command.Ctx
	nested := s.ctx.W != nil
	if nested {
		saved = s.ctx
	}
	var cl *command.Client
	if len(idx) == 0 {
		cl = &h.cl
		h.cl.DB = h.db
	}
	s.mon.lua = true
	user := s.who.user
	s.who.user = h.j.user // SORT asks it (Ctx.Access)
	s.run1(w, cl, h.j.noTouch, h.db, spec, args)
	s.who.user = user
	s.mon.lua = false
	if nested {
		s.ctx = saved
	}
	if cl != nil {
		h.db = h.cl.DB
	}
	return true
}

// refuse abandons the run on f, or inside a transaction answers an error.
func (h *directHost) refuse(w *resp.Writer, f *fault) bool {
	if h.inTx {
		w.Error(errScriptKey)
		return true
	}
	h.fault = &fault{db: f.db, key: slices.Clone(f.key), remote: f.remote, whole: f.whole, pub: f.pub}
	return false
}

// OutOfMemory implements script.Host.
func (h *directHost) OutOfMemory() bool { return h.s.outOfMemory() }

// Permit implements script.Host.
func (h *directHost) Permit(spec *command.Spec, args [][]byte) string {
	return h.s.scriptPermit(h.j.user, &h.j.cl, spec, args)
}

func (j *scriptCall) isDeclared(k []byte) bool {
	return slices.ContainsFunc(j.keys, func(d []byte) bool { return string(d) == string(k) })
}

// save keeps key's value before the run's first write to it.
func (h *directHost) save(db int, key []byte) {
	if slices.ContainsFunc(h.saved, func(e entry) bool { return e.db == db && string(e.key) == string(key) }) {
		return
	}
	b := append(h.undoBuf, key...)
	k := b[len(b)-len(key) : len(b) : len(b)]
	rec, _, _, b, ok := h.s.store.DB(db).ExportAppend(b, key, h.s.now)
	rec.Data = rec.Data[:len(rec.Data):len(rec.Data)]
	h.undoBuf = b
	h.saved = append(h.saved, entry{db: db, key: k, rec: rec, ok: ok})
}

// undo puts back every key the run wrote and drops its effects since
// mark.
func (h *directHost) undo(mark int) {
	s := h.s
	for i := len(h.saved) - 1; i >= 0; i-- {
		e := h.saved[i]
		db := s.store.DB(e.db)
		if e.ok {
			db.Import(e.key, e.rec)
		} else {
			db.Delete(e.key, s.now)
		}
	}
	if mark >= 0 {
		s.mut.fx.Truncate(mark)
	}
}

// Error texts of scripts beyond Redis's.
const (
	errScriptAllShards = "ERR This command visits every shard and cannot run inside a script"
	errScriptKey       = "ERR Script attempted to access a key its transaction does not hold"
)

// Eval implements command.Scripts: an EVAL row queued in MULTI runs with
// the handler's store, the real one (the txn holds its keys here) or the
// scratch store of a gathered command (which holds its declared keys).
func (s *Shard) Eval(c *command.Ctx, args [][]byte) {
	spec := command.Lookup(args[0])
	j, sc, errText := s.newJob(nil, spec, args)
	if errText != "" {
		c.W.Error(errText)
		return
	}
	j.db, j.proto, j.user = c.DBIndex, c.W.Proto, s.who.user
	if c.Client != nil {
		j.cl, j.noTouch = *c.Client, c.Client.NoTouch
	}
	call := &script.Call{Keys: j.keys, Argv: j.argv, ReadOnly: j.ro}
	if c.Store == s.store {
		call.Host = &directHost{s: s, j: &j.scriptCall, db: j.db, cl: j.cl, inTx: true}
	} else {
		h := &heldHost{s: s, j: j, store: c.Store, db: j.db, cl: j.cl, have: make(map[wkey]bool), inTx: true}
		for _, k := range j.keys {
			h.have[wkey{j.db, string(k)}] = true
		}
		call.Host = h
	}
	s.runScript(sc, call, c.W)
}

// heldHost runs a script's calls on a store of gathered copies (the
// scratch store), holding the keys it has.
type heldHost struct {
	s       *Shard
	j       *scriptJob
	store   *engine.Store
	db      int
	cl      command.Client
	have    map[wkey]bool // keys gathered, existing or not
	whole   map[int]bool  // databases gathered whole (every key is had)
	written []wkey        // keys of the commands that changed data
	fault   *fault
	more    []wkey // other keys the faulting call needs (its patterns')
	inTx    bool
	pubs    scriptPubs // its publishes (scriptpub.go)
}

// Call implements script.Host.
func (h *heldHost) Call(spec *command.Spec, args [][]byte, w *resp.Writer) bool {
	s := h.s
	if !h.inTx && s.isPublish(spec) {
		if s.scriptPublish(&h.j.scriptCall, &h.pubs, args, w) {
			return true
		}
		h.fault = &fault{db: h.db, key: slices.Clone(args[1]), pub: true}
		return false
	}
	if len(s.group.shards) > 1 && (spec.AllShards || spec.Route != nil) {
		if !wholeDB(spec) || h.inTx {
			w.Error(errScriptAllShards)
			return true
		}
		if !h.whole[h.db] {
			h.fault = &fault{db: h.db, remote: true, whole: true}
			return false
		}
		// The scratch store holds the whole database: the command runs on it.
	}
	idx, _ := spec.Keys(args, nil)
	dbs := []int{h.db}
	if spec.OtherDB != nil {
		if o := spec.OtherDB(args); o >= 0 && o < s.group.opts.Databases && o != h.db {
			dbs = append(dbs, o)
		}
	}
	for _, db := range dbs {
		for _, i := range idx {
			if !h.have[wkey{db, string(args[i])}] && !h.whole[db] {
				if h.inTx {
					w.Error(errScriptKey)
					return true
				}
				h.fault = &fault{db: db, key: slices.Clone(args[i]), remote: true}
				return false
			}
		}
	}
	if len(s.group.shards) > 1 && spec.Patterns != nil && spec.Patterns(args) {
		// The keys its patterns name (SORT ... BY w_*), all fetched in
		// one round.
		for _, k := range spec.PatternKeys(h.store.DB(h.db), args, s.now, nil) {
			if wk := (wkey{h.db, string(k)}); !h.have[wk] && !h.whole[h.db] {
				h.more = append(h.more, wk)
			}
		}
		if len(h.more) > 0 {
			if h.inTx {
				w.Error(errScriptKey)
				return true
			}
			h.fault = &fault{db: h.db, key: []byte(h.more[0].key), remote: true}
			return false
		}
	}
	ctx := command.Ctx{Store: h.store, DB: h.store.DB(h.db), DBIndex: h.db, W: w, Now: s.now,
		MaxBulkLen: s.conf.ProtoMaxBulkLen, Server: s.group, Owns: func([]byte) bool { return true }, Local: s,
		Scripts: s, Access: reader{user: h.j.user}.access()}
	if len(idx) == 0 {
		h.cl.DB = h.db
		ctx.Client = &h.cl
	}
	s.stats.commands++
	s.stats.count(spec)
	start, dirty := len(w.B), h.store.Dirty()
	spec.Handler(&ctx, args)
	if s.mon.on && spec.Flags&(command.SkipMonitor|command.Admin) == 0 {
		s.monitorLine(h.db, "lua", args)
	}
	if spec.BeforeGather != nil {
		s.prepareOwners(spec, h.db, args, idx)
	}
	if len(w.B) > start && w.B[start] == '-' {
		s.stats.failedCall(spec, w.B[start:])
	}
	if h.store.Dirty() != dirty {
		// Any of its keys may have changed, a read's too (PFCOUNT
		// caches its count in the key).
		for _, db := range dbs {
			for _, i := range idx {
				if k := (wkey{db, string(args[i])}); !slices.Contains(h.written, k) {
					h.written = append(h.written, k)
				}
			}
		}
	}
	if len(idx) == 0 {
		h.db = h.cl.DB
	}
	return true
}

// OutOfMemory implements script.Host: every shard the run holds passed
// the memory check when it granted its keys.
func (h *heldHost) OutOfMemory() bool { return false }

// Permit implements script.Host.
func (h *heldHost) Permit(spec *command.Spec, args [][]byte) string {
	return h.s.scriptPermit(h.j.user, &h.j.cl, spec, args)
}

// heldRun is a script's held run: its txn and the keys gathered so far
// (whole: the databases gathered whole).
type heldRun struct {
	j     *scriptJob
	t     *txn
	all   bool
	got   map[wkey]entry
	whole map[int]bool
	// round is the fetch in flight (fetch, fetchWhole), of every key of
	// database wholeDB when fetchingWhole.
	round         exportRound
	fetchingWhole bool
	wholeDB       int
}

// evalHeld runs j holding its declared keys per shard, or every shard
// (all), with the gather plan (see the comment at the top).
func (s *Shard) evalHeld(j *scriptJob, all bool) {
	if j.sl == nil {
		j.sl = s.pend(j.c)
		j.c.barrier = true
	}
	n := len(s.group.shards)
	s.stats.txns++
	s.txnSeq++
	t := &txn{id: uint64(s.id+1)<<48 | s.txnSeq, c: j.c, spec: j.spec, proto: j.proto, db: j.db, noTouch: j.noTouch}
	t.co.ID = t.id
	byShard := make(map[int][]coord.Key)
	for _, k := range j.declared() {
		sh := router.ShardOf(k.Name, n)
		if !slices.ContainsFunc(byShard[sh], func(h coord.Key) bool { return string(h.Name) == string(k.Name) }) {
			byShard[sh] = append(byShard[sh], k)
		}
	}
	for sh := range n {
		if all {
			t.co.Parts = append(t.co.Parts, coord.Part{Shard: sh, All: true})
		} else if ks := byShard[sh]; len(ks) > 0 {
			t.co.Parts = append(t.co.Parts, coord.Part{Shard: sh, Keys: ks})
		}
	}
	for _, p := range t.co.Parts {
		t.parts = append(t.parts, router.Part{Shard: p.Shard})
	}
	r := &heldRun{j: j, t: t, all: all, got: make(map[wkey]entry), whole: make(map[int]bool)}
	t.done = func(out []byte) { s.scriptDone(j, out) }
	t.run = func() {
		var want []wkey
		for _, k := range j.keys {
			want = append(want, wkey{j.db, string(k)})
		}
		s.fetch(r, want)
	}
	s.acquire(t)
}

// fetch exports the keys want from their shards (which the run holds)
// into r, then runs the script.
func (s *Shard) fetch(r *heldRun, want []wkey) {
	n := len(s.group.shards)
	per := make(map[int][]wkey)
	for _, k := range want {
		if _, ok := r.got[k]; !ok {
			sh := router.ShardOf([]byte(k.key), n)
			per[sh] = append(per[sh], k)
		}
	}
	if len(per) == 0 {
		s.heldAttempt(r)
		return
	}
	r.round = exportRound{to: r}
	for sh, ks := range per {
		reads := make([]coord.Read, len(ks))
		for i, k := range ks {
			reads[i] = coord.Read{DB: k.db, Key: []byte(k.key)}
		}
		s.exportFrom(sh, &exportMsg{reads: reads}, &r.round)
	}
}

// take keeps the copies one shard exported.
func (r *heldRun) take(_ int, es []entry) {
	for _, e := range es {
		r.got[wkey{e.db, string(e.key)}] = e
	}
}

// exported runs the script again once a round's copies are in (every key
// of the database a whole round fetched among them).
func (r *heldRun) exported(s *Shard) {
	if r.fetchingWhole {
		r.whole[r.wholeDB], r.fetchingWhole = true, false
	}
	s.heldAttempt(r)
}

// fetchWhole exports every key of database db from every shard (which
// the run holds) into r, then runs the script again.
func (s *Shard) fetchWhole(r *heldRun, db int) {
	r.round = exportRound{to: r}
	r.fetchingWhole, r.wholeDB = true, db
	for sh := range s.group.shards {
		s.exportFrom(sh, &exportMsg{whole: true, db: db}, &r.round)
	}
}

// heldAttempt runs the script on copies of the keys gathered; a key it
// does not have is fetched and the run starts again (every shard held),
// or the run takes every shard (keys held).
func (s *Shard) heldAttempt(r *heldRun) {
	j, t := r.j, r.t
	sc, ok := s.script(&j.scriptCall)
	if !ok {
		s.heldRelease(r, nil, nil, []byte(gone(&j.scriptCall)))
		return
	}
	st := s.scratchStore()
	st.Clear()
	h := &heldHost{s: s, j: j, store: st, db: j.db, cl: j.cl, have: make(map[wkey]bool, len(r.got)), whole: r.whole}
	for k, e := range r.got {
		h.have[k] = true
		if e.ok {
			st.DB(e.db).Import(e.key, e.rec)
		}
	}
	w := resp.Writer{Proto: t.proto}
	st.TrackWrites(true)
	ran := s.runScript(sc, &script.Call{Keys: j.keys, Argv: j.argv, ReadOnly: j.ro, Host: h}, &w)
	st.TrackWrites(false)
	if !ran {
		st.Clear()
		k := wkey{h.fault.db, string(h.fault.key)}
		switch {
		case h.fault.pub:
			s.countReceivers(j, h.fault.key, func() { s.heldAttempt(r) })
			return
		case r.all && h.fault.whole:
			s.fetchWhole(r, h.fault.db)
			return
		case r.all:
			s.fetch(r, append([]wkey{k}, h.more...))
			return
		}
		sc.Spread = true
		s.heldRelease(r, nil, nil, nil)
		s.evalHeld(j, true)
		return
	}
	// The keys of the commands that wrote, which the scratch store says
	// changed (engine.Store.TrackWrites), per part.
	writes := make([][]entry, len(t.co.Parts))
	n := len(s.group.shards)
	for _, k := range h.written {
		if !st.Wrote(k.db, []byte(k.key)) {
			continue
		}
		rec, ok := st.DB(k.db).Export([]byte(k.key), s.now)
		sh := router.ShardOf([]byte(k.key), n)
		pi := slices.IndexFunc(t.co.Parts, func(p coord.Part) bool { return p.Shard == sh })
		writes[pi] = append(writes[pi], entry{db: k.db, key: []byte(k.key), rec: rec, ok: ok})
	}
	st.Clear()
	var pubs *scriptPubs
	if s.feed.on && len(h.pubs.ends) > 0 {
		p := h.pubs.clone()
		pubs = &p
	}
	s.sendPubs(&h.pubs)
	s.heldRelease(r, writes, pubs, w.B)
}

// heldRelease writes back writes (per part), releases every part and,
// when out is set, answers it: the gather plan's write-backs (partMsg),
// each shard's effects wrapped as one transaction's, the first part's
// with the run's publishes, pubs, when they are to be propagated.
func (s *Shard) heldRelease(r *heldRun, writes [][]entry, pubs *scriptPubs, out []byte) {
	t := r.t
	t.gp = coord.GatherOf(make([][]coord.Read, len(t.co.Parts)))
	t.gReply, t.gFeedOnly = out, out == nil
	t.pms = make([]partMsg, len(t.co.Parts))
	for i, p := range t.co.Parts {
		t.pms[i] = partMsg{t: t, home: s.id, part: i, id: t.id, p: p, tag: t.tag(i), wrap: true}
		if writes != nil {
			t.pms[i].entries = writes[i]
		}
		if i == 0 {
			t.pms[i].pubs, t.pms[i].db = pubs, r.j.db
		}
		s.sendPart(p.Shard, msgWriteBack, &t.pms[i])
	}
}
