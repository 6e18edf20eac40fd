package watch

import (
	"os"
	"path/filepath"
	"testing"
)

// Missing, unreadable and each content are distinct states; equal content is
// the same state wherever it lives.
func TestReadState(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	for path, content := range map[string]string{a: "same", b: "same", c: "other"} {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		path string
		want stateKind
	}{
		{a, stateContent},
		{empty, stateContent},
		{filepath.Join(dir, "missing"), stateMissing},
		{filepath.Join(a, "below-a-file"), stateMissing},
		{dir, stateUnreadable},
	}
	for _, tc := range cases {
		if got := readState(tc.path).kind; got != tc.want {
			t.Errorf("readState(%s).kind = %v, want %v", tc.path, got, tc.want)
		}
	}
	if readState(a) != readState(b) {
		t.Error("equal content gave different states")
	}
	if readState(a) == readState(c) || readState(empty) == readState(filepath.Join(dir, "missing")) {
		t.Error("different files gave the same state")
	}
}
