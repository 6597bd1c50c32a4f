package rdb

import (
	"encoding/binary"
	"errors"

	"github.com/radish-kv/radish/engine"
)

// A DUMP payload (Redis's createDumpPayload): the value's type byte and
// object encoding, then the RDB version (2 bytes) and the CRC64 of
// everything before it (8 bytes), both little endian.

const footer = 10

// AppendDump appends the DUMP payload of r.
func (e *Encoder) AppendDump(dst []byte, r engine.Record) []byte {
	start := len(dst)
	dst = e.AppendValue(dst, r)
	dst = binary.LittleEndian.AppendUint16(dst, Version)
	return binary.LittleEndian.AppendUint64(dst, CRC64(0, dst[start:]))
}

// ParseDump checks a DUMP payload's version (at most MaxVersion) and
// checksum (ErrPayload when either is wrong) and decodes its value (an
// error matching ErrFormat, or an UnsupportedError). As in Redis, the
// value is read from the whole payload: bytes between it and the footer
// are ignored, and a value cut short may end in the footer's bytes.
func ParseDump(p []byte) (engine.Record, error) {
	if len(p) < footer {
		return engine.Record{}, ErrPayload
	}
	body, foot := p[:len(p)-8], p[len(p)-8:]
	if binary.LittleEndian.Uint16(p[len(p)-footer:]) > MaxVersion ||
		CRC64(0, body) != binary.LittleEndian.Uint64(foot) {
		return engine.Record{}, ErrPayload
	}
	r := NewReader(p)
	t, err := r.ReadByte()
	if err != nil {
		return engine.Record{}, err
	}
	return r.ReadObject(t)
}

// IsFormat reports whether err says the data is malformed or of a type
// Radish does not have (both are RESTORE's "Bad data format").
func IsFormat(err error) bool {
	var u *UnsupportedError
	return errors.Is(err, ErrFormat) || errors.As(err, &u)
}
