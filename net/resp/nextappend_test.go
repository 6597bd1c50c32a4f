package resp

import (
	"testing"
	"unsafe"
)

// TestNextAppend: NextAppend puts a command's args in dst's spare
// capacity, and a later Next does not overwrite them.
func TestNextAppend(t *testing.T) {
	var r Reader
	buf := []byte("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n*1\r\n$4\r\nPING\r\n")
	dst := make([][]byte, 1, 8)
	args, n, err := r.NextAppend(buf, dst)
	if err != nil || n != 20 || len(args) != 2 || string(args[0]) != "GET" || string(args[1]) != "k" {
		t.Fatalf("NextAppend: %q %d %v", args, n, err)
	}
	if unsafe.SliceData(args) != &dst[:2][1] {
		t.Fatal("the args are not in dst's spare capacity")
	}
	if next, _, _ := r.Next(buf[n:]); len(next) != 1 || string(next[0]) != "PING" || string(dst[:3][1]) != "GET" {
		t.Fatalf("Next after NextAppend: %q, dst %q", next, dst[:3])
	}
}
