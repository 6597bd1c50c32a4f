package aof

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/radish-kv/radish/persistence"
)

// Turning the AOF on at run time (CONFIG SET appendonly yes; see doc.go,
// "Enable"): a Set whose files no manifest names until Commit, written
// by one rewrite.

// Enable prepares every shard's new files for an AOF turned on at run
// time: an empty incremental file each (the Logs, once started, write
// there from the rewrite's cut on) and the names of the bases the
// rewrite writes. A manifest already in the directory (an AOF written
// earlier, turned off since) is stale: its files go at Commit, and the
// new files' sequence numbers follow its.
func Enable(opts Options) (*Set, error) { return newSet(opts, true) }

// BaseOnly prepares what BGREWRITEAOF writes with appendonly no, as Redis
// 7: every shard's base, named by a manifest of its own once Commit runs,
// and no incremental file (a start with appendonly yes adds one). Its
// Set has no Logs: Start is not called.
func BaseOnly(opts Options) (*Set, error) { return newSet(opts, false) }

func newSet(opts Options, incr bool) (*Set, error) {
	s := &Set{opts: opts, epoch: time.Now().UnixNano(), enabling: true}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("can't create the append-only directory %s: %w", opts.Dir, err)
	}
	found, err := s.manifests()
	if err != nil {
		return nil, err
	}
	old := make([]*Manifest, opts.Shards)
	for _, i := range found {
		name := ManifestName(opts.Name, i)
		if i >= opts.Shards {
			s.stale = append(s.stale, name)
		}
		text, err := os.ReadFile(filepath.Join(opts.Dir, name))
		if err != nil {
			continue
		}
		m, err := ParseManifest(string(text))
		if err != nil {
			continue
		}
		if m.Base != nil {
			s.stale = append(s.stale, m.Base.Name)
		}
		for _, f := range append(m.History, m.Incrs...) {
			s.stale = append(s.stale, f.Name)
		}
		if i < opts.Shards {
			old[i] = m
		}
	}
	s.mans = make([]*Manifest, opts.Shards)
	for i := range s.mans {
		bseq, iseq := int64(1), int64(1)
		if m := old[i]; m != nil {
			if m.Base != nil {
				bseq = m.Base.Seq + 1
			}
			if len(m.Incrs) > 0 {
				iseq = m.Incrs[len(m.Incrs)-1].Seq + 1
			}
		}
		m := &Manifest{Base: &File{Name: BaseName(opts.Name, i, bseq), Seq: bseq, Type: TypeBase}}
		if incr {
			m.Incrs = []File{{Name: IncrName(opts.Name, i, iseq), Seq: iseq, Type: TypeIncr}}
			if err := persistence.WriteFileSync(filepath.Join(opts.Dir, m.Incrs[0].Name), nil); err != nil {
				return nil, err
			}
		}
		s.mans[i] = m
	}
	s.measure()
	return s, persistence.SyncDir(opts.Dir)
}

// Enabling reports whether s is an AOF turned on at run time whose
// rewrite has not committed yet.
func (s *Set) Enabling() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enabling
}

// enableMark is the first line of the manifests an Enable's Commit
// writes: "# radish-enable <rewrite id> <shards>", a comment to Redis's
// parser and to ParseManifest, by which a start finishes a Commit that a
// crash cut short (recoverEnable).
const enableMark = "# radish-enable "

// Commit names the files of an Enable's rewrite r, whose every base is in
// place: each shard's manifest is written as temp-<name>, fsynced, then
// (the directory fsynced) all are renamed into place in shard order,
// then the stale files go. A crash during the renames leaves temporary
// manifests a start renames (Open); one before them, only files no
// manifest names.
func (s *Set) Commit(r *Rewrite) error {
	mark := enableMark + strconv.FormatInt(r.id, 10) + " " + strconv.Itoa(len(s.mans)) + "\n"
	for i, m := range s.mans {
		tmp := filepath.Join(s.opts.Dir, "temp-"+ManifestName(s.opts.Name, i))
		if err := persistence.WriteFileSync(tmp, []byte(mark+m.Format())); err != nil {
			return err
		}
	}
	if err := persistence.SyncDir(s.opts.Dir); err != nil {
		return err
	}
	for i := range s.mans {
		name := ManifestName(s.opts.Name, i)
		if err := os.Rename(filepath.Join(s.opts.Dir, "temp-"+name), filepath.Join(s.opts.Dir, name)); err != nil {
			return err
		}
	}
	if err := persistence.SyncDir(s.opts.Dir); err != nil {
		return err
	}
	s.mu.Lock()
	s.enabling = false
	s.mu.Unlock()
	for i, m := range s.mans {
		s.closed[i].Store(s.closedSize(m))
	}
	for _, n := range s.stale {
		if err := os.Remove(filepath.Join(s.opts.Dir, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.opts.Log.Warn(fmt.Sprintf("can't remove the stale AOF file %s: %v", n, err))
		}
	}
	return nil
}

// recoverEnable finishes or forgets what an Enable's Commit left when a
// crash cut it short, before Open reads the manifests: if every shard of
// the commit has its temporary manifest or its renamed one (both marked
// with the same rewrite), the renames had begun, so the rest are done now;
// otherwise none had, and the temporary manifests go. A temporary manifest
// without the mark is a torn write of another one: it goes too.
func (s *Set) recoverEnable() error {
	tmps, err := filepath.Glob(filepath.Join(s.opts.Dir, "temp-"+s.opts.Name+".*.manifest"))
	if err != nil || len(tmps) == 0 {
		return err
	}
	var mark string
	marked := map[int]string{}
	for _, p := range tmps {
		b, _ := os.ReadFile(p)
		line, _, _ := strings.Cut(string(b), "\n")
		n := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "temp-"+s.opts.Name+"."), ".manifest")
		i, err := strconv.Atoi(n)
		if err != nil || !strings.HasPrefix(line, enableMark) || mark != "" && line != mark {
			os.Remove(p)
			continue
		}
		mark = line
		marked[i] = p
	}
	if mark == "" {
		return nil
	}
	shards, err := strconv.Atoi(mark[strings.LastIndexByte(mark, ' ')+1:])
	if err != nil {
		shards = 0
	}
	whole := shards > 0
	for i := range shards {
		if _, ok := marked[i]; ok {
			continue
		}
		b, _ := os.ReadFile(filepath.Join(s.opts.Dir, ManifestName(s.opts.Name, i)))
		if line, _, _ := strings.Cut(string(b), "\n"); line != mark {
			whole = false
		}
	}
	for i, p := range marked {
		if whole && i < shards {
			if err := os.Rename(p, filepath.Join(s.opts.Dir, ManifestName(s.opts.Name, i))); err != nil {
				return err
			}
			continue
		}
		os.Remove(p)
	}
	if whole {
		s.opts.Log.Warn("finished turning the AOF on: the server stopped while it put the new manifests in place")
		found, err := s.manifests()
		if err != nil {
			return err
		}
		for _, i := range found {
			if i >= shards {
				os.Remove(filepath.Join(s.opts.Dir, ManifestName(s.opts.Name, i)))
			}
		}
	}
	return persistence.SyncDir(s.opts.Dir)
}
