package workspaces

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestRefusal(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	other := filepath.Join(dir, "other")
	for _, d := range []string{filepath.Join(repo, "x"), other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	linkInside := filepath.Join(repo, "link")
	folderLink := filepath.Join(dir, "folder-link") // itself an opened folder
	for _, l := range []string{linkInside, folderLink} {
		if err := os.Symlink(other, l); err != nil {
			t.Fatal(err)
		}
	}
	opened := []string{repo, folderLink + "/", repo, "", "relative"}
	cases := []struct {
		requested string
		admitted  bool
	}{
		{repo, true},
		{repo + "/", true},
		{repo + "/x/..", true},
		{folderLink, true},
		{filepath.Join(repo, "x"), false},       // exists, below a folder
		{filepath.Join(repo, "missing"), false}, // does not exist
		{linkInside, false},                     // a symlink inside a folder
		{other, false},                          // the target of a folder's symlink is not the folder
		{dir, false},                            // above a folder
		{"repo", false},
		{"relative", false},
		{"", false},
	}
	for _, c := range cases {
		reason := Refusal(c.requested, opened)
		if (reason == "") != c.admitted {
			t.Errorf("%q: admitted = %v, want %v (%q)", c.requested, reason == "", c.admitted, reason)
		}
	}
	reason := Refusal(filepath.Join(repo, "x"), opened)
	if want := " (" + folderLink + ", " + repo + ")"; !strings.HasSuffix(reason, want) {
		t.Errorf("the refusal should list each workspace once, %s: %q", want, reason)
	}
	if reason := Refusal(repo, nil); !strings.Contains(reason, "it opened none") {
		t.Errorf("nothing opened: %q", reason)
	}
}
