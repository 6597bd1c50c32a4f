package aof

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/radish-kv/radish/persistence"
)

// Rewrite is one BGREWRITEAOF over every shard (see doc.go, "Rewrite"):
// its cut, which each shard makes once (Cut) and after which its Log
// writes a new incremental file, and each shard's new base, put in place
// (Part.Install) only once every shard's log is on disk up to the cut.
type Rewrite struct {
	set *Set
	id  int64
	// rotated counts the shards whose Log moved to its new file (the
	// manifest naming it in place, the old file durable to the cut).
	rotated sync.WaitGroup
}

// BeginRewrite starts a rewrite of every shard: its id, a unix time in
// ns above every earlier rewrite's of this process. Safe from any
// goroutine; the caller runs one rewrite at a time.
func (s *Set) BeginRewrite() *Rewrite {
	s.mu.Lock()
	id := max(time.Now().UnixNano(), s.lastCut+1)
	s.lastCut = id
	s.mu.Unlock()
	r := &Rewrite{set: s, id: id}
	r.rotated.Add(len(s.logs))
	return r
}

// Skip stands for shard's cut when it makes none (the AOF was turned off
// before its cut came): the other shards' Install no longer wait for it.
func (r *Rewrite) Skip() { r.rotated.Done() }

// ID is the rewrite's cut id, the one its markers carry.
func (r *Rewrite) ID() int64 { return r.id }

// Part is one shard's share of a rewrite: its new incremental file and
// its new base, written under a temporary name until Install.
type Part struct {
	r     *Rewrite
	shard int
	incr  File
	base  File
	tmp   string // the base's temporary path
}

// Cut is shard's cut, on the shard's goroutine, between two commands,
// with the turn's effects so far appended: the Log ends its file with
// RADISH.CUT and goes on in a new one, which starts with RADISH.EPOCH and
// RADISH.BASE <id> on disk before the shard's manifest names it (the
// writer does the files, see Log.Rotate). The shard then writes its
// keyspace as it is now, with copy-before-write, into the file
// Part.CreateBase opens.
func (r *Rewrite) Cut(shard int) *Part {
	s := r.set
	m := s.manifest(shard)
	if s.Enabling() {
		// The files are the manifest-to-be's; the Log (none for BaseOnly)
		// starts here.
		p := &Part{r: r, shard: shard, base: *m.Base}
		p.tmp = filepath.Join(s.opts.Dir, "temp-"+p.base.Name)
		if s.logs != nil {
			p.incr = m.Incrs[0]
			s.logs[shard].Begin(r.id)
			r.rotated.Done()
		}
		return p
	}
	last := m.Incrs[len(m.Incrs)-1]
	p := &Part{r: r, shard: shard, incr: File{Name: IncrName(s.opts.Name, shard, last.Seq+1), Seq: last.Seq + 1, Type: TypeIncr}}
	seq := int64(1)
	if m.Base != nil {
		seq = m.Base.Seq + 1
	}
	p.base = File{Name: BaseName(s.opts.Name, shard, seq), Seq: seq, Type: TypeBase}
	p.tmp = filepath.Join(s.opts.Dir, "temp-"+p.base.Name)
	s.logs[shard].Rotate(r.id, p.openIncr, r.rotated.Done)
	return p
}

// openIncr creates the new incremental file holding its first markers,
// RADISH.EPOCH and RADISH.BASE <cut>, fsynced, then puts in place the
// manifest that adds it (on the Log's writer, old the size of the file
// it leaves); it returns the file and its size. Written here rather than
// with the shard's next turn, the BASE is on disk before any shard's
// Install: a shard that logs nothing after its cut, its base installed
// and the process killed, still names the cut its base holds (see
// complete), or the other shards would drop the parts of the
// transactions before the cut that its base took from its log.
func (p *Part) openIncr(old int64) (*os.File, int64, error) {
	s := p.r.set
	path := filepath.Join(s.opts.Dir, p.incr.Name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, 0, err
	}
	head := appendCmd(appendCmd(nil, "RADISH.EPOCH", s.epoch), "RADISH.BASE", p.r.id)
	if _, err = f.Write(head); err == nil {
		err = f.Sync()
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	m := *s.manifest(p.shard)
	m.Incrs = append(slices.Clip(m.Incrs), p.incr)
	if err := s.putManifest(p.shard, &m); err != nil {
		f.Close()
		return nil, 0, err
	}
	s.closed[p.shard].Add(old)
	return f, int64(len(head)), nil
}

// CreateBase creates the file the shard writes its new base into, under
// a temporary name.
func (p *Part) CreateBase() (*os.File, error) {
	return os.OpenFile(p.tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
}

// Install makes the written base f durable and the shard's base: once
// every shard's Log moved to its new file, f is renamed to the base's
// name and the manifest becomes the new base and the incremental files
// from the cut on, the files it replaces listed as history (type h);
// they are removed, then the manifest is written without them. Called
// on the goroutine that wrote f; it waits for the other shards' cuts to
// be on disk.
func (p *Part) Install(f *os.File) error {
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(p.tmp)
		return err
	}
	p.r.rotated.Wait()
	s := p.r.set
	if err := os.Rename(p.tmp, filepath.Join(s.opts.Dir, p.base.Name)); err != nil {
		os.Remove(p.tmp)
		return err
	}
	if s.Enabling() {
		return nil // no manifest names it until Commit
	}
	old := s.manifest(p.shard)
	at := slices.IndexFunc(old.Incrs, func(f File) bool { return f.Name == p.incr.Name })
	if at < 0 {
		return errors.New("the rewrite's incremental file is not in the manifest")
	}
	m := &Manifest{Base: &p.base, Incrs: slices.Clone(old.Incrs[at:])}
	if old.Base != nil {
		m.History = append(m.History, File{Name: old.Base.Name, Seq: old.Base.Seq, Type: TypeHistory})
	}
	for _, f := range old.Incrs[:at] {
		m.History = append(m.History, File{Name: f.Name, Seq: f.Seq, Type: TypeHistory})
	}
	if err := s.putManifest(p.shard, m); err != nil {
		return err
	}
	s.closed[p.shard].Store(s.closedSize(m))
	s.removeHistory(p.shard, m)
	return s.putManifest(p.shard, &Manifest{Base: m.Base, Incrs: m.Incrs})
}

// Abort removes the base f the shard was writing (a failed write, a
// shutdown); the manifest keeps the old base and every incremental file,
// the new one included, which is what Redis leaves after a failed
// rewrite.
func (p *Part) Abort(f *os.File) {
	f.Close()
	os.Remove(p.tmp)
}

// putManifest writes m as shard's manifest (temp-<name>, fsynced,
// renamed), fsyncs the directory, and makes it the one in place. The
// directory is fsynced first too, so that after a power loss the files m
// names (a base just renamed into place, an incremental file just
// created) are there whenever the manifest is.
func (s *Set) putManifest(shard int, m *Manifest) error {
	if err := persistence.SyncDir(s.opts.Dir); err != nil {
		return err
	}
	if err := s.writeManifest(shard, m); err != nil {
		return err
	}
	if err := persistence.SyncDir(s.opts.Dir); err != nil {
		return err
	}
	s.mu.Lock()
	s.mans[shard] = m
	s.mu.Unlock()
	return nil
}

// removeHistory removes the files m lists as history; one that cannot
// be removed is logged and left.
func (s *Set) removeHistory(shard int, m *Manifest) {
	for _, f := range m.History {
		if err := os.Remove(filepath.Join(s.opts.Dir, f.Name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.opts.Log.Warn(fmt.Sprintf("can't remove the AOF history file %s of shard %d: %v", f.Name, shard, err))
		}
	}
}
