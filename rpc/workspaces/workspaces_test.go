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

func TestPlaceOf(t *testing.T) {
	gitRoots := map[string]string{"/src/repo/.codewhale": "/src/repo", "/src/repo/sub/.codewhale": "/src/repo"}
	gitRoot := func(dir string) string { return gitRoots[dir] }
	for _, c := range []struct {
		name  string
		place Place
		path  string
		want  string
	}{
		{"the folder holding it", Place{Folders: []string{"/a", "/b"}, Named: "/a"}, "/b/.codewhale/config.toml", "/b"},
		{"the deepest of nested folders", Place{Folders: []string{"/a", "/a/b/c", "/a/b"}}, "/a/b/c/.codewhale/hooks.toml", "/a/b/c"},
		{"a folder is not a prefix of a sibling", Place{Folders: []string{"/a"}, Named: "/n"}, "/ab/.codewhale/config.toml", "/n"},
		{"outside every folder: the named workspace", Place{Folders: []string{"/a"}, Named: "/a"}, "/home/u/.codewhale/config.toml", "/a"},
		{"none named: the git root", Place{}, "/src/repo/sub/.codewhale/config.toml", "/src/repo"},
		{"no git: the directory holding .codewhale", Place{}, "/p/.codewhale/permissions.toml", "/p"},
		{"legacy .deepseek", Place{}, "/p/.deepseek/config.toml", "/p"},
		{"home is never a project", Place{Home: "/home/u/"}, "/home/u/.codewhale/config.toml", ""},
		{"any other path", Place{}, "/etc/codewhale/managed.toml", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.place.GitRoot = gitRoot
			if got := c.place.Of(c.path); got != c.want {
				t.Errorf("Of(%q) = %q, want %q", c.path, got, c.want)
			}
		})
	}
}

func TestDefault(t *testing.T) {
	for _, c := range []struct {
		current string
		folders []string
		want    string
	}{
		{"/a", []string{"/a", "/b"}, "/a"},
		{"/a", []string{"/b"}, "/b"},
		{"/a", []string{"/b", "/c"}, ""},
		{"/a", nil, ""},
		{"", []string{"/b"}, "/b"},
		{"", []string{"/b", "/c"}, ""},
	} {
		if got := Default(c.current, c.folders); got != c.want {
			t.Errorf("Default(%q, %q) = %q, want %q", c.current, c.folders, got, c.want)
		}
	}
}

func TestOwnFiles(t *testing.T) {
	home := "/home/u"
	user := []string{home + "/.codewhale/config.toml", home + "/.codewhale/permissions.toml"}
	project := func(root string) []string {
		return []string{root + "/.codewhale/config.toml", root + "/.codewhale/hooks.toml", root + "/.codewhale/constitution.json"}
	}
	for _, c := range []struct {
		name, root string
		want       []string
	}{
		{"a repository: its .codewhale/ only", "/src/app", nil},
		{"the home: the user's files too", home, user},
		{"the Codewhale home opened as a folder", home + "/.codewhale", user},
		{"a repository beside one with the same prefix", "/src/ap", nil},
	} {
		paths := append(append(append([]string{}, user...), project(c.root)...), project("/src/app")...)
		paths = append(paths, "", "relative/config.toml")
		got := OwnFiles(c.root, paths)
		want := distinct(append(c.want, project(c.root)...))
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: %v, want %v", c.name, got, want)
		}
	}
}
