package aof

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/radish-kv/radish/persistence/rdb"
)

// RDB opcodes a base file holds around its keys (rdb.h RDB_OPCODE_*).
const (
	opAux      = 0xFA
	opResizeDB = 0xFB
	opSelectDB = 0xFE
	opEOF      = 0xFF
)

// EmptyBase is an RDB file (version rdb.Version) holding no keys, with
// the aux fields Redis 7 writes in an AOF base: what Redis writes when the
// AOF starts on an empty dataset.
func EmptyBase(ctime int64) []byte {
	b := []byte(fmt.Sprintf("REDIS%04d", rdb.Version))
	aux := func(k, v string) {
		b = append(b, opAux)
		b = rdb.AppendLen(b, uint64(len(k)))
		b = append(b, k...)
		b = rdb.AppendLen(b, uint64(len(v)))
		b = append(b, v...)
	}
	aux("redis-ver", "7.0.15")
	aux("redis-bits", "64")
	aux("ctime", strconv.FormatInt(ctime, 10))
	aux("used-mem", "0")
	aux("aof-base", "1")
	b = append(b, opEOF)
	return binary.LittleEndian.AppendUint64(b, rdb.CRC64(0, b))
}

// checkBase checks a base file that must hold no keys: its magic and
// version, aux fields and database selectors only, the EOF opcode and its
// checksum. A base with keys is refused: loading one needs the snapshot
// loader.
func checkBase(b []byte) error {
	if len(b) < 9 || string(b[:5]) != "REDIS" {
		return fmt.Errorf("wrong signature at offset 0")
	}
	v, err := strconv.Atoi(string(b[5:9]))
	if err != nil || v < 1 || v > rdb.MaxVersion {
		return fmt.Errorf("can't handle RDB format version %q", b[5:9])
	}
	r := rdb.NewReader(b[9:])
	for {
		at := 9 + r.Offset()
		op, err := r.ReadByte()
		if err != nil {
			return fmt.Errorf("unexpected end of file at offset %d", at)
		}
		switch op {
		case opAux:
			if _, err := r.ReadString(); err != nil {
				return fmt.Errorf("bad aux field at offset %d: %v", at, err)
			}
			if _, err := r.ReadString(); err != nil {
				return fmt.Errorf("bad aux field at offset %d: %v", at, err)
			}
		case opSelectDB:
			if _, _, err := r.ReadLen(); err != nil {
				return fmt.Errorf("bad database selector at offset %d", at)
			}
		case opResizeDB:
			for range 2 {
				if _, _, err := r.ReadLen(); err != nil {
					return fmt.Errorf("bad resize opcode at offset %d", at)
				}
			}
		case opEOF:
			end := 9 + r.Offset()
			if len(b)-end != 8 {
				return fmt.Errorf("bad checksum trailer at offset %d", end)
			}
			if sum := binary.LittleEndian.Uint64(b[end:]); sum != 0 && sum != rdb.CRC64(0, b[:end]) {
				return fmt.Errorf("wrong RDB checksum at offset %d", end)
			}
			return nil
		default:
			return fmt.Errorf("holds keys (type %d at offset %d): radish loads only an empty base until the snapshot loader exists", op, at)
		}
	}
}
