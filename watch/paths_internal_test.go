package watch

import (
	"path/filepath"
	"testing"
)

func TestIsBelow(t *testing.T) {
	cases := []struct {
		path, dir string
		want      bool
	}{
		{"/a/b", "/a", true},
		{"/a/b/c", "/a", true},
		{"/a", "/a", false},
		{"/ab", "/a", false}, // a prefix of the name is not a parent
		{"/a", "/a/b", false},
		{"/a", "/", true},
		{"/", "/", false},
	}
	for _, tc := range cases {
		if got := isBelow(tc.path, tc.dir); got != tc.want {
			t.Errorf("isBelow(%q, %q) = %v, want %v", tc.path, tc.dir, got, tc.want)
		}
	}
}

func TestStepToward(t *testing.T) {
	cases := []struct{ from, to, want string }{
		{"/ws", "/ws/.codewhale", "/ws/.codewhale"},
		{"/ws", "/ws/.codewhale/deep", "/ws/.codewhale"},
		{"/", "/ws/.codewhale", "/ws"},
		{"/ws", "/ws", ""},
		{"/ws", "/wsx/a", ""},
		{"/ws/a", "/ws", ""},
	}
	for _, tc := range cases {
		if got := stepToward(tc.from, tc.to); got != tc.want {
			t.Errorf("stepToward(%q, %q) = %q, want %q", tc.from, tc.to, got, tc.want)
		}
	}
}

// The step is always a direct child of from, and to is it or inside it.
func FuzzStepToward(f *testing.F) {
	f.Add("/ws", "/ws/.codewhale/permissions.toml")
	f.Add("/", "/a")
	f.Add("/a/b", "/a")
	f.Add("/a", "/ab/c")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, from, to string) {
		from, to = filepath.Clean(from), filepath.Clean(to)
		step := stepToward(from, to)
		if step == "" {
			if isBelow(to, from) {
				t.Fatalf("stepToward(%q, %q) is empty although %q is below", from, to, to)
			}
			return
		}
		if filepath.Dir(step) != from {
			t.Fatalf("stepToward(%q, %q) = %q, not a child of %q", from, to, step, from)
		}
		if step != to && !isBelow(to, step) {
			t.Fatalf("stepToward(%q, %q) = %q, which does not lead to %q", from, to, step, to)
		}
	})
}
