package rdb

import "hash/crc64"

// jones is the table of Redis's CRC-64 (src/crc64.c, "Jones"): polynomial
// 0xad93d23594c935a9, reflected in and out; given to hash/crc64 in its
// bit-reversed form.
var jones = crc64.MakeTable(0x95ac9329ac4bc9b5)

// CRC64 continues Redis's crc64(crc, p): initial value 0 and no final
// xor, where hash/crc64 inverts before and after (hence the two ^).
func CRC64(crc uint64, p []byte) uint64 {
	return ^crc64.Update(^crc, jones, p)
}
