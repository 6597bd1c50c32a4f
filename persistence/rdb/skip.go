package rdb

import "strconv"

// SkipObject reads past the object encoding of a value of RDB type t (the
// type byte already read) without building it: a loader that keeps only
// some keys (a shard loading another shard's file) skips the others'
// values. It checks only the framing (lengths, string encodings); the
// values themselves are the concern of whoever reads them with
// ReadObject. Its errors are ReadObject's kinds.
func (r *Reader) SkipObject(t byte) error {
	switch t {
	case TypeModulePreGA, TypeModule2:
		return &UnsupportedError{Type: t}
	case TypeStreamListpacks, TypeStreamListpacks2, TypeStreamListpacks3:
		return r.skipStream(t)
	case TypeString, TypeHashZipmap, TypeListZiplist, TypeSetIntset, TypeZSetZiplist, TypeHashZiplist,
		TypeHashListpack, TypeZSetListpack, TypeSetListpack:
		return r.skipString()
	}
	if t >= TypeHashMetadata && t <= typeLast {
		return &UnsupportedError{Type: t}
	}
	per := 1
	switch t {
	case TypeList, TypeSet, TypeListQuicklist, TypeListQuicklist2, TypeZSet, TypeZSet2:
	case TypeHash:
		per = 2
	default:
		return errFormat("unknown value type " + strconv.Itoa(int(t)))
	}
	n, err := r.count()
	if err != nil {
		return err
	}
	for range n {
		if t == TypeListQuicklist2 {
			if _, enc, err := r.ReadLen(); err != nil || enc {
				return errFormat("bad quicklist container")
			}
		}
		for range per {
			if err := r.skipString(); err != nil {
				return err
			}
		}
		switch t {
		case TypeZSet2:
			if _, err := r.take(8); err != nil {
				return err
			}
		case TypeZSet:
			c, err := r.ReadByte()
			if err != nil {
				return err
			}
			if c < 253 {
				if _, err := r.take(int(c)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// skipString reads past a string in any of its encodings, decompressing
// nothing.
func (r *Reader) skipString() error {
	n, enc, err := r.ReadLen()
	if err != nil {
		return err
	}
	if !enc {
		if n > uint64(r.remaining()) {
			return errTruncated
		}
		_, err = r.take(int(n))
		return err
	}
	switch n {
	case encInt8, encInt16, encInt32:
		_, err = r.take([]int{1, 2, 4}[n])
		return err
	case encLZF:
		clen, e1, err := r.ReadLen()
		if err != nil {
			return err
		}
		if _, e2, err := r.ReadLen(); err != nil || e1 || e2 {
			return errFormat("bad LZF lengths")
		}
		if clen > uint64(r.remaining()) {
			return errTruncated
		}
		_, err = r.take(int(clen))
		return err
	}
	return errFormat("unknown string encoding")
}
