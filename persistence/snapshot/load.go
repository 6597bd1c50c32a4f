package snapshot

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/persistence/rdb"
)

// CorruptError is a file that cannot be loaded: its name, the offset at
// which reading failed and why. The server refuses to start on one.
type CorruptError struct {
	File   string
	Offset int
	Err    error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("%s: cannot load at offset %d: %v", e.File, e.Offset, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// LoadOptions say where the keys of an RDB file go.
type LoadOptions struct {
	Store *engine.Store
	// Owns says whether a key belongs to Store (nil: every key does); the
	// others' values are skipped (rdb.Reader.SkipObject), not decoded.
	Owns func(key []byte) bool
	// Now is the load's time: keys whose TTL passed by now are dropped,
	// as a Redis primary drops them.
	Now int64
	// Verify checks the file's CRC64 (a zero checksum means the writer
	// computed none, and is not checked, as in Redis).
	Verify bool
	// Function, when set, receives the code of each FUNCTION library the
	// file holds (a copy); an error it returns fails the load. Unset, the
	// libraries are skipped.
	Function func(code []byte) error
}

// LoadStats count what a load did.
type LoadStats struct {
	Loaded  int64 // keys stored
	Expired int64 // keys (of this store) dropped because their TTL had passed
}

var (
	errMagic    = errors.New("wrong signature: not an RDB file")
	errChecksum = errors.New("wrong RDB checksum")
)

// LoadRDB reads the RDB file image b (a mapped file), named name in
// errors, into o.Store: every key Owns accepts and whose TTL has not
// passed, with its expiry and access clock. Versions 1 to rdb.MaxVersion
// are read. Any malformed byte, a value of a type Radish does not have, a
// database number the store has not, or a wrong checksum is a
// *CorruptError naming the file and offset; the store then holds part of
// the file, and the caller must not serve it.
func LoadRDB(b []byte, name string, o LoadOptions) (LoadStats, error) {
	var st LoadStats
	fail := func(off int, err error) (LoadStats, error) {
		return st, &CorruptError{File: name, Offset: off, Err: err}
	}
	if len(b) < 9 || string(b[:5]) != "REDIS" {
		return fail(0, errMagic)
	}
	ver, err := strconv.Atoi(string(b[5:9]))
	if err != nil || ver < 1 || ver > rdb.MaxVersion {
		return fail(5, fmt.Errorf("can't handle RDB format version %s", b[5:9]))
	}
	r := rdb.NewReader(b)
	if _, err := r.ReadFull(9); err != nil {
		return fail(0, err)
	}
	db := o.Store.DB(0)
	var key []byte
	// A database empty when the file selects it holds no key past the
	// last one the load stored there (top): such a key is linked in
	// without a lookup (ImportNew). A radish file's keys come in order.
	fresh := db.Len() == 0
	var top []byte
	hasTop := false
	expireAt, freq, idle := int64(0), -1, int64(-1)
	for {
		at := r.Offset()
		t, err := r.ReadByte()
		if err != nil {
			return fail(at, err)
		}
		switch t {
		case opEOF:
			return st, checkEnd(b, r.Offset(), ver, o.Verify, name)
		case opExpireSec:
			p, err := r.ReadFull(4)
			if err != nil {
				return fail(at, err)
			}
			expireAt = int64(binary.LittleEndian.Uint32(p)) * 1000
			continue
		case opExpireMs:
			p, err := r.ReadFull(8)
			if err != nil {
				return fail(at, err)
			}
			expireAt = int64(binary.LittleEndian.Uint64(p))
			continue
		case opFreq:
			c, err := r.ReadByte()
			if err != nil {
				return fail(at, err)
			}
			freq = int(c)
			continue
		case opIdle:
			n, err := readLen(r)
			if err != nil {
				return fail(at, err)
			}
			idle = int64(min(n, 1<<62))
			continue
		case opSelectDB:
			n, err := readLen(r)
			if err != nil {
				return fail(at, err)
			}
			if n >= uint64(o.Store.Databases()) {
				return fail(at, fmt.Errorf("the file has database %d and the server is configured with %d databases", n, o.Store.Databases()))
			}
			db = o.Store.DB(int(n))
			fresh, hasTop = db.Len() == 0, false
			continue
		case opResizeDB:
			if err := skipLens(r, 2); err != nil {
				return fail(at, err)
			}
			continue
		case opSlotInfo:
			if err := skipLens(r, 3); err != nil {
				return fail(at, err)
			}
			continue
		case opAux:
			for range 2 {
				if _, err := r.ReadString(); err != nil {
					return fail(at, err)
				}
			}
			continue
		case opModuleAux:
			return fail(at, errors.New("module data is not supported"))
		case opFunction2:
			code, err := r.ReadString()
			if err == nil && o.Function != nil {
				err = o.Function(slices.Clone(code))
			}
			if err != nil {
				return fail(at, err)
			}
			continue
		case opFunction:
			return fail(at, errors.New("Pre-release function format not supported"))
		}
		k, err := r.ReadString()
		if err != nil {
			return fail(at, err)
		}
		key = append(key[:0], k...)
		if o.Owns != nil && !o.Owns(key) {
			// Another store's key: its owner reads the value.
			if err := r.SkipObject(t); err != nil {
				return fail(at, keyErr(key, err))
			}
			expireAt, freq, idle = 0, -1, -1
			continue
		}
		var rec engine.Record
		if t == rdb.TypeString {
			// The common case, read in place: Import copies the bytes.
			var s []byte
			s, err = r.ReadString()
			rec = engine.Record{Type: engine.TypeString, Data: s}
		} else {
			rec, err = r.ReadObject(t)
		}
		if err != nil {
			return fail(at, keyErr(key, err))
		}
		if expireAt != 0 && expireAt <= o.Now {
			st.Expired++
		} else {
			rec.ExpireAt = expireAt
			if fresh && (!hasTop || string(key) > string(top)) {
				db.ImportNew(key, rec)
				top, hasTop = append(top[:0], key...), true
			} else {
				db.Import(key, rec)
			}
			if freq >= 0 || idle >= 0 {
				db.SetAccess(key, freq, idle, o.Now)
			}
			st.Loaded++
		}
		expireAt, freq, idle = 0, -1, -1
	}
}

// keyErr names the key of a value of a type Radish does not have.
func keyErr(key []byte, err error) error {
	var u *rdb.UnsupportedError
	if errors.As(err, &u) {
		return fmt.Errorf("key %q: %w", key, err)
	}
	return err
}

// checkEnd checks what follows the EOF opcode at off: from version 5 the
// CRC64 of everything before it (bytes after it are ignored, as Redis
// ignores them).
func checkEnd(b []byte, off, ver int, verify bool, name string) error {
	if ver < 5 {
		return nil
	}
	if len(b)-off < 8 {
		return &CorruptError{File: name, Offset: off, Err: errors.New("truncated: no checksum")}
	}
	sum := binary.LittleEndian.Uint64(b[off:])
	if verify && sum != 0 && rdb.CRC64(0, b[:off]) != sum {
		return &CorruptError{File: name, Offset: off, Err: errChecksum}
	}
	return nil
}

func readLen(r *rdb.Reader) (uint64, error) {
	n, enc, err := r.ReadLen()
	if err == nil && enc {
		err = errors.New("encoded length where a length belongs")
	}
	return n, err
}

func skipLens(r *rdb.Reader, k int) error {
	for range k {
		if _, err := readLen(r); err != nil {
			return err
		}
	}
	return nil
}
