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
