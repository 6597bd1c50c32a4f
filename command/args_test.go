package command

import "testing"

func TestCopyArgs(t *testing.T) {
	src := []byte("SETkeyvalue")
	args := [][]byte{src[0:3], src[3:6], src[6:11], {}}
	out := CopyArgs(args)
	copy(src, "xxxxxxxxxxx")
	want := []string{"SET", "key", "value", ""}
	if len(out) != len(want) {
		t.Fatalf("%d args", len(out))
	}
	for i, w := range want {
		if string(out[i]) != w || cap(out[i]) != len(w) {
			t.Errorf("arg %d = %q (cap %d), want %q", i, out[i], cap(out[i]), w)
		}
	}
	_ = append(out[0], '!')
	if string(out[1]) != "key" {
		t.Errorf("appending to one copy overwrote the next: %q", out[1])
	}
}

// TestAppendArgs: the copies are capped at their length (appending to one
// leaves the next alone), and buffers with room are reused.
func TestAppendArgs(t *testing.T) {
	args := [][]byte{[]byte("SET"), []byte("k"), []byte("value")}
	buf, out := AppendArgs(nil, nil, args)
	out[1] = append(out[1], 'X')
	if string(out[2]) != "value" || string(args[1]) != "k" {
		t.Fatalf("an append to a copy wrote over %q / %q", out[2], args[1])
	}
	buf2, out2 := AppendArgs(buf, out, [][]byte{[]byte("GET"), []byte("k")})
	if &buf2[0] != &buf[0] || len(out2) != 2 || string(out2[0]) != "GET" || string(out2[1]) != "k" {
		t.Fatalf("reuse: %q", out2)
	}
}
