package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/radish-kv/radish/persistence"
)

// Magic is the manifest's first line.
const Magic = "RADISH-SNAPSHOT 1"

// Manifest is what <dir>/<dbfilename> holds: one generation's per-shard
// files, in shard order, with their sizes.
type Manifest struct {
	Generation uint64
	Files      []File
}

// File is one per-shard RDB file of a manifest, named relative to dir.
type File struct {
	Name string
	Size int64
}

// Marshal writes the manifest as text:
//
//	RADISH-SNAPSHOT 1
//	generation <g>
//	shards <n>
//	file <name> <size>      (n lines, in shard order)
//	end
func (m *Manifest) Marshal() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\ngeneration %d\nshards %d\n", Magic, m.Generation, len(m.Files))
	for _, f := range m.Files {
		fmt.Fprintf(&b, "file %s %d\n", f.Name, f.Size)
	}
	b.WriteString("end\n")
	return b.Bytes()
}

// ParseManifest reads a manifest Marshal wrote; anything else, a line
// missing or torn included, is an error.
func ParseManifest(b []byte) (*Manifest, error) {
	lines := strings.Split(string(b), "\n")
	bad := func(i int, why string) (*Manifest, error) {
		return nil, fmt.Errorf("bad manifest line %d: %s", i+1, why)
	}
	if len(lines) < 5 || lines[0] != Magic {
		return bad(0, "not "+strconv.Quote(Magic))
	}
	m := &Manifest{}
	var err error
	if g, ok := strings.CutPrefix(lines[1], "generation "); !ok {
		return bad(1, "no generation")
	} else if m.Generation, err = strconv.ParseUint(g, 10, 64); err != nil {
		return bad(1, err.Error())
	}
	n := 0
	if s, ok := strings.CutPrefix(lines[2], "shards "); !ok {
		return bad(2, "no shard count")
	} else if n, err = strconv.Atoi(s); err != nil || n < 1 || n > len(lines) {
		return bad(2, "bad shard count")
	}
	if len(lines) != n+5 || lines[n+3] != "end" || lines[n+4] != "" {
		return bad(min(n+3, len(lines)-1), "the file list does not end with \"end\" where the shard count says")
	}
	for i := range n {
		f := strings.Fields(lines[3+i])
		if len(f) != 3 || f[0] != "file" || f[1] != filepath.Base(f[1]) {
			return bad(3+i, "not \"file <name> <size>\"")
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || size < 0 {
			return bad(3+i, "bad size")
		}
		m.Files = append(m.Files, File{Name: f[1], Size: size})
	}
	return m, nil
}

// Image is one mapped RDB file.
type Image struct {
	Name string // the path, for errors
	Data []byte
}

// Source is what a start-up loads: the mapped files of the manifest at
// <dir>/<dbfilename>, or that file itself when it is a plain RDB file (a
// redis-server dump.rdb).
type Source struct {
	Manifest *Manifest // nil for a plain RDB file
	Images   []Image
}

// Open maps what <dir>/<name> names. It returns nil and no error when the
// file does not exist. A manifest whose files are missing or of another
// size than it says is an error, as is a file that is neither a manifest
// nor an RDB file.
func Open(dir, name string) (*Source, error) {
	path := filepath.Join(dir, name)
	head, err := readHead(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	src := &Source{}
	if bytes.HasPrefix(head, []byte("REDIS")) {
		b, err := mapFile(path)
		if err != nil {
			return nil, err
		}
		src.Images = []Image{{Name: path, Data: b}}
		return src, nil
	}
	if !bytes.HasPrefix(head, []byte(Magic+"\n")) {
		return nil, fmt.Errorf("%s: neither a radish snapshot manifest nor an RDB file", path)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := ParseManifest(text)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	src.Manifest = m
	for _, f := range m.Files {
		p := filepath.Join(dir, f.Name)
		b, err := mapFile(p)
		if err == nil && int64(len(b)) != f.Size {
			err = fmt.Errorf("%s: %d bytes, the manifest says %d", p, len(b), f.Size)
			syscall.Munmap(b)
		}
		if err != nil {
			src.Close()
			return nil, err
		}
		src.Images = append(src.Images, Image{Name: p, Data: b})
	}
	return src, nil
}

// Close unmaps the files.
func (s *Source) Close() {
	for _, im := range s.Images {
		if len(im.Data) > 0 {
			syscall.Munmap(im.Data)
		}
	}
	s.Images = nil
}

func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, len(Magic)+1)
	n, err := f.Read(b)
	if n == 0 && err != nil {
		return b[:0], nil // empty: neither kind
	}
	return b[:n], nil
}

// mapFile maps path read-only (nil for an empty file), its page tables
// filled at once (MAP_POPULATE: one pass of the kernel instead of a page
// fault every few pages as the load reads on) and read ahead in order.
func mapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() == 0 {
		return nil, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("mmap %s: %w", path, err)
	}
	_ = syscall.Madvise(b, syscall.MADV_SEQUENTIAL)
	return b, nil
}

// Save is one generation being written: each shard's file under a
// temporary name, renamed when complete (Close), then the manifest
// (Commit). See the package doc for the order and what a crash leaves.
type Save struct {
	dir, name string
	gen       uint64
	files     []string
}

// BeginSave starts generation g+1 of the snapshot <dir>/<name>, where g
// is the generation of the manifest there (0 if none), for shards files.
func BeginSave(dir, name string, shards int) (*Save, error) {
	s := &Save{dir: dir, name: name, gen: 1}
	if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
		if m, err := ParseManifest(b); err == nil {
			s.gen = m.Generation + 1
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	for i := range shards {
		s.files = append(s.files, fmt.Sprintf("%s.%d.%d.rdb", name, s.gen, i))
	}
	return s, nil
}

// Generation is the generation being written.
func (s *Save) Generation() uint64 { return s.gen }

// Create creates shard's file under its temporary name.
func (s *Save) Create(shard int) (*os.File, error) {
	return os.OpenFile(filepath.Join(s.dir, s.files[shard]+".tmp"), os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
}

// Close makes shard's file f durable under its own name: fsync, close,
// rename. On an error the temporary file is removed.
func (s *Save) Close(shard int, f *os.File) error {
	tmp := f.Name()
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(s.dir, s.files[shard]))
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// Commit puts the manifest of the shards' files in place (sizes[i] is
// shard i's file size): written to a temporary file, fsynced, renamed to
// <name>, the directory fsynced; then the files of every other generation
// (and temporary files) are removed. Until the rename the previous
// snapshot stays whole; after it, the new one is.
func (s *Save) Commit(sizes []int64) error {
	m := &Manifest{Generation: s.gen}
	for i, n := range s.files {
		m.Files = append(m.Files, File{Name: n, Size: sizes[i]})
	}
	tmp := filepath.Join(s.dir, fmt.Sprintf("%s.%d.manifest.tmp", s.name, s.gen))
	if err := persistence.WriteFileSync(tmp, m.Marshal()); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, filepath.Join(s.dir, s.name)); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := persistence.SyncDir(s.dir); err != nil {
		return err
	}
	s.removeOthers()
	return nil
}

// Abort removes what this generation wrote.
func (s *Save) Abort() {
	for _, n := range s.files {
		os.Remove(filepath.Join(s.dir, n+".tmp"))
		os.Remove(filepath.Join(s.dir, n))
	}
}

// removeOthers removes the per-shard and temporary files of the snapshot
// that are not this generation's: the previous generation's, and what a
// save that crashed left.
func (s *Save) removeOthers() {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	keep := map[string]bool{}
	for _, n := range s.files {
		keep[n] = true
	}
	for _, e := range ents {
		if n := e.Name(); ownFile(s.name, n) && !keep[n] {
			os.Remove(filepath.Join(s.dir, n))
		}
	}
}

// ownFile reports whether n is a file a save of snapshot name writes:
// <name>.<g>.<shard>.rdb, the same with .tmp, or <name>.<g>.manifest.tmp.
func ownFile(name, n string) bool {
	rest, ok := strings.CutPrefix(n, name+".")
	if !ok {
		return false
	}
	g, rest, ok := strings.Cut(rest, ".")
	if !ok || !digits(g) {
		return false
	}
	if rest == "manifest.tmp" {
		return true
	}
	sh, rest, ok := strings.Cut(rest, ".")
	return ok && digits(sh) && (rest == "rdb" || rest == "rdb.tmp")
}

func digits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
