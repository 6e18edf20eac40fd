package agents

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestFindWorkspaces: every work tree holding the cwd, outermost first,
// as spelled and resolved, with the agent's project first (issue 14
// point 5).
func TestFindWorkspaces(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(root, "repo")
	nested := filepath.Join(repo, "sub")
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(nested, "deep")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(nested, ".git"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(repo, link); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(root, "plain")
	if err := os.Mkdir(plain, 0o700); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, cwd, project string
		want               Workspaces
	}{
		{"root", repo, "", Workspaces{repo, []string{repo}}},
		{"nested", filepath.Join(nested, "deep"), "", Workspaces{repo, []string{repo, nested}}},
		{"through a link", filepath.Join(link, "sub"), "", Workspaces{link, []string{link, filepath.Join(link, "sub"), repo, nested}}},
		{"project first", nested, repo, Workspaces{repo, []string{repo, nested}}},
		{"outside any work tree", plain, "", Workspaces{plain, []string{plain}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := FindWorkspaces(c.cwd, c.project)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
	for _, bad := range [][2]string{{"rel", ""}, {repo, "rel"}, {filepath.Join(root, "gone"), ""}} {
		if _, err := FindWorkspaces(bad[0], bad[1]); err == nil {
			t.Errorf("FindWorkspaces(%q, %q): no error", bad[0], bad[1])
		}
	}
}
