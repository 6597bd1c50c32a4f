package aof

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/radish-kv/radish/persistence/rdb"
)

// RDB opcodes an empty base holds (rdb.h RDB_OPCODE_*).
const (
	opAux = 0xFA
	opEOF = 0xFF
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
