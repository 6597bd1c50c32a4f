package rdb

import (
	"errors"
	"fmt"
)

// Version is the RDB version written (Redis 7.0's; Valkey 8 loads it too).
const Version = 10

// MaxVersion is the newest RDB version read (Redis 7.4).
const MaxVersion = 12

// Object types: the byte before each value (rdb.h RDB_TYPE_*). The gaps
// are types Redis never wrote.
const (
	TypeString           = 0
	TypeList             = 1
	TypeSet              = 2
	TypeZSet             = 3
	TypeHash             = 4
	TypeZSet2            = 5
	TypeModulePreGA      = 6
	TypeModule2          = 7
	TypeHashZipmap       = 9
	TypeListZiplist      = 10
	TypeSetIntset        = 11
	TypeZSetZiplist      = 12
	TypeHashZiplist      = 13
	TypeListQuicklist    = 14
	TypeStreamListpacks  = 15
	TypeHashListpack     = 16
	TypeZSetListpack     = 17
	TypeListQuicklist2   = 18
	TypeStreamListpacks2 = 19
	TypeSetListpack      = 20
	TypeStreamListpacks3 = 21
	TypeHashMetadata     = 22 // hash with field TTLs (Redis 7.4)
	TypeHashListpackEx   = 23 // hash with field TTLs (Redis 7.4)
	typeLast             = 25 // 24, 25: hashes with field TTLs (Redis 8)
)

// String encodings: a length byte 11xxxxxx says the string is encoded.
const (
	encInt8  = 0
	encInt16 = 1
	encInt32 = 2
	encLZF   = 3
)

// Quicklist 2 node containers.
const (
	containerPlain  = 1
	containerPacked = 2
)

// ErrFormat is the error of every malformed value (errors.Is matches the
// errors Decode returns for bad data).
var ErrFormat = errors.New("rdb: bad data format")

// ErrPayload is the error of a DUMP payload whose version or checksum is
// wrong.
var ErrPayload = errors.New("rdb: DUMP payload version or checksum are wrong")

// UnsupportedError is the error of a value of a type Radish does not have
// (modules, hashes with field TTLs: types 6, 7, 22 to 25; streams with
// consumer groups: 15, 19, 21).
type UnsupportedError struct{ Type byte }

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("rdb: unsupported value type %d (%s)", e.Type, typeName(e.Type))
}

func typeName(t byte) string {
	switch t {
	case TypeModulePreGA, TypeModule2:
		return "module"
	case TypeStreamListpacks, TypeStreamListpacks2, TypeStreamListpacks3:
		return "stream"
	}
	return "hash with field expiry"
}

type formatError string

func (e formatError) Error() string   { return "rdb: bad data format: " + string(e) }
func (e formatError) Is(t error) bool { return t == ErrFormat }

func errFormat(what string) error { return formatError(what) }
