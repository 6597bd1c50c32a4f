package rdb

import (
	"encoding/binary"
	"errors"
	"slices"
)

// FUNCTION libraries in RDB: each library is RDB_OPCODE_FUNCTION2 (245)
// and its code as a string (rdbSaveFunctions), in a snapshot after the
// aux fields and in FUNCTION DUMP's payload, which ends with the RDB
// version and CRC64 as a DUMP payload does.

// Function opcodes (rdb.h RDB_OPCODE_FUNCTION2, RDB_OPCODE_FUNCTION_PRE_GA).
const (
	OpFunction2     = 245
	OpFunctionPreGA = 246
)

// AppendFunction appends one library's record: the opcode and its code.
func (e *Encoder) AppendFunction(dst, code []byte) []byte {
	return e.AppendString(append(dst, OpFunction2), code)
}

// AppendFunctionDump appends FUNCTION DUMP's payload of the libraries
// whose codes are given.
func (e *Encoder) AppendFunctionDump(dst []byte, codes [][]byte) []byte {
	start := len(dst)
	for _, c := range codes {
		dst = e.AppendFunction(dst, c)
	}
	dst = binary.LittleEndian.AppendUint16(dst, Version)
	return binary.LittleEndian.AppendUint64(dst, CRC64(0, dst[start:]))
}

// ParseFunctionDump checks a FUNCTION RESTORE payload's version and
// checksum (ErrPayload) and returns the codes of its libraries (copies). Any other error's text is Redis's reply for it ("given type is
// not a function" ...), without the ERR code.
func ParseFunctionDump(p []byte) ([][]byte, error) {
	if len(p) < footer {
		return nil, ErrPayload
	}
	if binary.LittleEndian.Uint16(p[len(p)-footer:]) > MaxVersion ||
		CRC64(0, p[:len(p)-8]) != binary.LittleEndian.Uint64(p[len(p)-8:]) {
		return nil, ErrPayload
	}
	r := NewReader(p[:len(p)-footer])
	var codes [][]byte
	for r.remaining() > 0 {
		t, _ := r.ReadByte()
		switch t {
		case OpFunction2:
		case OpFunctionPreGA:
			return nil, errors.New("Pre-GA function format not supported")
		default:
			return nil, errors.New("given type is not a function")
		}
		code, err := r.ReadString()
		if err != nil {
			return nil, errors.New("Failed loading library payload")
		}
		codes = append(codes, slices.Clone(code))
	}
	return codes, nil
}
