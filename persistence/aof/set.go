package aof

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/radish-kv/radish/persistence"
)

// Options say where a Set lives and how it behaves.
type Options struct {
	Dir           string // the AOF directory: <dir>/<appenddirname>
	Name          string // appendfilename
	Shards        int
	Fsync         string // appendfsync
	LoadTruncated bool   // aof-load-truncated
	Log           *zap.Logger
}

// Set is every shard's AOF: their manifests, and once started their Logs.
type Set struct {
	opts    Options
	logs    []*Log
	epoch   int64
	failing atomic.Int32

	// mu guards mans, which a rewrite replaces (a manifest is never
	// changed once in mans), and lastCut.
	mu      sync.Mutex
	mans    []*Manifest
	lastCut int64
	// enabling: an AOF turned on at run time whose manifests are not yet
	// written (enable.go); stale are the files of the manifests it
	// replaces.
	enabling bool
	stale    []string
	// closed[i] is the size of shard i's files but its open incremental
	// file (which its Log counts).
	closed []atomic.Int64
}

// manifest is shard's manifest in place.
func (s *Set) manifest(shard int) *Manifest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mans[shard]
}

// BaseName, IncrName and ManifestName are the names of shard's files.
func BaseName(name string, shard int, seq int64) string {
	return fmt.Sprintf("%s.%d.%d.base.rdb", name, shard, seq)
}

// IncrName is the name of shard's incremental file seq.
func IncrName(name string, shard int, seq int64) string {
	return fmt.Sprintf("%s.%d.%d.incr.aof", name, shard, seq)
}

// ManifestName is the name of shard's manifest.
func ManifestName(name string, shard int) string { return fmt.Sprintf("%s.%d.manifest", name, shard) }

// Open reads the manifests under opts.Dir, or, when there are none,
// creates every shard's first base, incremental file and manifest (see
// doc.go for the order). A directory holding the manifests of another
// shard count is refused: a shard's log replays only into the same shard.
func Open(opts Options) (*Set, error) {
	s := &Set{opts: opts, epoch: time.Now().UnixNano()}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("can't create the append-only directory %s: %w", opts.Dir, err)
	}
	if err := s.recoverEnable(); err != nil {
		return nil, err
	}
	found, err := s.manifests()
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		return s, s.create()
	}
	if len(found) != opts.Shards || found[len(found)-1] != opts.Shards-1 {
		return nil, fmt.Errorf("the AOF in %s was written by %d shards (manifests of shards %v) and this server runs %d: "+
			"a shard's log loads only into the same shard count; start with --shards %d", opts.Dir, len(found), found, opts.Shards, len(found))
	}
	s.mans = make([]*Manifest, opts.Shards)
	for i := range s.mans {
		path := filepath.Join(opts.Dir, ManifestName(opts.Name, i))
		text, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		m, err := ParseManifest(string(text))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(m.Incrs) == 0 {
			// A base alone (BGREWRITEAOF with appendonly no, here or in
			// Redis 7): the log starts in a new incremental file.
			m.Incrs = []File{{Name: IncrName(opts.Name, i, 1), Seq: 1, Type: TypeIncr}}
			if err := persistence.WriteFileSync(filepath.Join(opts.Dir, m.Incrs[0].Name), nil); err != nil {
				return nil, err
			}
			if err := s.writeManifest(i, m); err != nil {
				return nil, err
			}
			if err := persistence.SyncDir(opts.Dir); err != nil {
				return nil, err
			}
		}
		if len(m.History) > 0 {
			// A rewrite ended before it removed the files it replaced.
			s.removeHistory(i, m)
			m = &Manifest{Base: m.Base, Incrs: m.Incrs}
		}
		s.mans[i] = m
	}
	s.measure()
	return s, nil
}

// measure sets every shard's sizes from its files on disk.
func (s *Set) measure() {
	s.closed = make([]atomic.Int64, len(s.mans))
	for i, m := range s.mans {
		s.closed[i].Store(s.closedSize(m))
	}
}

// closedSize is the size of m's files but its last incremental file.
func (s *Set) closedSize(m *Manifest) int64 {
	var n int64
	if m.Base != nil {
		n = fileSize(filepath.Join(s.opts.Dir, m.Base.Name))
	}
	for _, f := range m.Incrs[:max(len(m.Incrs)-1, 0)] {
		n += fileSize(filepath.Join(s.opts.Dir, f.Name))
	}
	return n
}

func fileSize(path string) int64 {
	if st, err := os.Stat(path); err == nil {
		return st.Size()
	}
	return 0
}

// manifests lists the shard numbers of the manifests present, sorted.
func (s *Set) manifests() ([]int, error) {
	ents, err := os.ReadDir(s.opts.Dir)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		n, ok := strings.CutPrefix(e.Name(), s.opts.Name+".")
		if !ok {
			continue
		}
		n, ok = strings.CutSuffix(n, ".manifest")
		if !ok {
			continue
		}
		if i, err := strconv.Atoi(n); err == nil && i >= 0 && strconv.Itoa(i) == n {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out, nil
}

// create writes each shard's first files: base (an empty RDB file), an
// empty incremental file, then the manifest, renamed into place last.
func (s *Set) create() error {
	s.mans = make([]*Manifest, s.opts.Shards)
	for i := range s.mans {
		m := &Manifest{Base: &File{Name: BaseName(s.opts.Name, i, 1), Seq: 1, Type: TypeBase},
			Incrs: []File{{Name: IncrName(s.opts.Name, i, 1), Seq: 1, Type: TypeIncr}}}
		if err := persistence.WriteFileSync(filepath.Join(s.opts.Dir, m.Base.Name), EmptyBase(time.Now().Unix())); err != nil {
			return err
		}
		if err := persistence.WriteFileSync(filepath.Join(s.opts.Dir, m.Incrs[0].Name), nil); err != nil {
			return err
		}
		if err := s.writeManifest(i, m); err != nil {
			return err
		}
		s.mans[i] = m
	}
	s.measure()
	return persistence.SyncDir(s.opts.Dir)
}

// writeManifest writes shard's manifest as temp-<name>, fsyncs it and
// renames it into place.
func (s *Set) writeManifest(shard int, m *Manifest) error {
	name := ManifestName(s.opts.Name, shard)
	tmp := filepath.Join(s.opts.Dir, "temp-"+name)
	if err := persistence.WriteFileSync(tmp, []byte(m.Format())); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(s.opts.Dir, name))
}

// mapped is a file's bytes, mmapped read-only.
type mapped struct {
	path string
	data []byte
}

func mapFile(path string) (mapped, error) {
	f, err := os.Open(path)
	if err != nil {
		return mapped{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return mapped{}, err
	}
	if st.Size() == 0 {
		return mapped{path: path}, nil
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return mapped{}, err
	}
	return mapped{path: path, data: b}, nil
}

func (m mapped) unmap() {
	if m.data != nil {
		unix.Munmap(m.data)
	}
}

// BaseLoader loads shard's base file, the RDB image b (mapped) read
// from path, into the shard; an error names the file and refuses the
// start.
type BaseLoader func(shard int, b []byte, path string) error

// Load replays every shard's files, the shards in parallel: the base
// through base, then the incremental files through apply(shard). First a
// pass over every log checks the files and finds the cross-shard
// transactions to replay (complete: every part some log holds, or
// covered by a rewrite's base), then the replay skips the parts of the
// others. A torn tail of a shard's last incremental file is cut off (and
// logged) under aof-load-truncated yes, and refused otherwise; a torn or
// malformed file anywhere else is refused with a *LoadError naming the
// file and offset.
func (s *Set) Load(base BaseLoader, apply func(shard int) Applier) error {
	n := len(s.mans)
	files := make([][]mapped, n)
	defer func() {
		for _, fs := range files {
			for _, f := range fs {
				f.unmap()
			}
		}
	}()
	tallies := make([]tally, n)
	if err := s.each(func(i int) error {
		var err error
		files[i], err = s.check(i, &tallies[i])
		return err
	}); err != nil {
		return err
	}
	done := complete(tallies)
	return s.each(func(i int) error {
		if b := files[i][0]; b.path != "" {
			if err := base(i, b.data, b.path); err != nil {
				return fmt.Errorf("bad AOF base file %s: %w", b.path, err)
			}
		}
		fn := apply(i)
		for _, f := range files[i][1:] {
			if off, err := replayIncr(f.data, done, fn); err != nil {
				return &LoadError{File: f.path, Offset: int64(off), Msg: err.Error()}
			}
		}
		return nil
	})
}

// each runs fn for every shard in parallel and returns the first error.
func (s *Set) each(fn func(shard int) error) error {
	errs := make([]error, len(s.mans))
	var wg sync.WaitGroup
	for i := range s.mans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fn(i)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// check maps shard's files (base first; an absent base maps as nothing),
// checks them and tallies their transaction parts.
func (s *Set) check(shard int, t *tally) ([]mapped, error) {
	m := s.mans[shard]
	var out []mapped
	base := mapped{}
	if m.Base != nil {
		var err error
		if base, err = mapFile(filepath.Join(s.opts.Dir, m.Base.Name)); err != nil {
			return nil, err
		}
	}
	out = append(out, base)
	for k, f := range m.Incrs {
		mf, err := mapFile(filepath.Join(s.opts.Dir, f.Name))
		if err != nil {
			return out, err
		}
		out = append(out, mf)
		valid, err := scanIncr(mf.data, t, k == 0)
		switch {
		case err == nil:
			continue
		case err == errTorn && k == len(m.Incrs)-1 && s.opts.LoadTruncated:
			s.opts.Log.Warn("!!! Warning: short read while loading the AOF file: truncating it at the last valid command !!!",
				zap.String("file", mf.path), zap.Int("offset", valid), zap.Int("size", len(mf.data)))
			if err := os.Truncate(mf.path, int64(valid)); err != nil {
				return out, fmt.Errorf("error truncating the AOF file %s: %w", mf.path, err)
			}
			out[len(out)-1].data = mf.data[:valid]
			s.opts.Log.Warn("AOF loaded anyway because aof-load-truncated is enabled", zap.String("file", mf.path))
		case err == errTorn && k == len(m.Incrs)-1:
			return out, &LoadError{File: mf.path, Offset: int64(valid), Msg: "Unexpected end of file " +
				"(make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>, " +
				"or set aof-load-truncated yes)"}
		default:
			return out, &LoadError{File: mf.path, Offset: int64(valid), Msg: err.Error() +
				" (make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>)"}
		}
	}
	return out, nil
}

// Start opens every shard's last incremental file for appending: shard i
// writes through Log(i), whose writer calls wake(i) when its Durable moved
// under always.
func (s *Set) Start(wake func(shard int)) error {
	s.logs = make([]*Log, len(s.mans))
	for i, m := range s.mans {
		path := filepath.Join(s.opts.Dir, m.Incrs[len(m.Incrs)-1].Name)
		l, err := openLog(path, s.epoch, ParseFsync(s.opts.Fsync), &s.failing, func() { wake(i) })
		if err != nil {
			s.Close()
			return err
		}
		s.logs[i] = l
	}
	return nil
}

// Log is shard's Log (after Start).
func (s *Set) Log(shard int) *Log { return s.logs[shard] }

// Failing reports whether some Log's last write or fsync failed: one
// atomic load, for the command path.
func (s *Set) Failing() bool { return s.failing.Load() != 0 }

// Err is the reason some Log is failing, "" when none is.
func (s *Set) Err() string {
	for _, l := range s.logs {
		if e := l.Err(); e != "" {
			return e
		}
	}
	return ""
}

// Pending is the bytes submitted and not yet on disk, over every Log.
func (s *Set) Pending() (n uint64) {
	for _, l := range s.logs {
		n += l.Pending()
	}
	return n
}

// Counts sums every shard's Log's counts: commands logged, write system
// calls and fsyncs (see Log.Logged).
func (s *Set) Counts() (logged, writes, fsyncs uint64) {
	for _, l := range s.logs {
		logged += l.Logged()
		writes += l.Writes()
		fsyncs += l.fsyncs.count.Load()
	}
	return logged, writes, fsyncs
}

// Size is the size of every shard's files, bases and incremental files,
// from counts kept in memory: no system call.
func (s *Set) Size() (total int64) {
	for i := range s.closed {
		total += s.closed[i].Load()
		if s.logs != nil {
			total += s.logs[i].Size()
		}
	}
	return total
}

// Close flushes and closes every Log.
func (s *Set) Close() error {
	var errs []error
	for _, l := range s.logs {
		if l != nil {
			errs = append(errs, l.Close())
		}
	}
	return errors.Join(errs...)
}

// Submitted returns every Log's Submitted position (nil before Start);
// safe from any goroutine.
func (s *Set) Submitted() []uint64 {
	if s.logs == nil {
		return nil
	}
	at := make([]uint64, len(s.logs))
	for i, l := range s.logs {
		if l != nil {
			at[i] = l.Submitted()
		}
	}
	return at
}

// FsyncedTo reports whether every Log has fsynced up to its position in
// at (Submitted's); false before Start.
func (s *Set) FsyncedTo(at []uint64) bool {
	if s.logs == nil || len(at) != len(s.logs) {
		return false
	}
	for i, l := range s.logs {
		if l == nil || l.Fsynced() < at[i] {
			return false
		}
	}
	return true
}
