package repolaw

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

type tree map[string]string // relative path → contents; "DIR" makes a directory, "->x" a symlink to x

func build(t *testing.T, files tree) string {
	t.Helper()
	root := t.TempDir()
	for rel, contents := range files {
		path := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case contents == "DIR":
			err = os.MkdirAll(path, 0o755)
		case strings.HasPrefix(contents, "->"):
			err = os.Symlink(strings.TrimPrefix(contents, "->"), path)
		default:
			err = os.WriteFile(path, []byte(contents), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// Discovery of docs/codewhale/pipeline.md §7.1.
func TestFind(t *testing.T) {
	const law = ".codewhale/constitution.json"
	tests := []struct {
		name      string
		files     tree
		workspace string
		want      string // relative to the temp root; "" = not found
	}{
		{"in the workspace", tree{"repo/.git/HEAD": "ref", "repo/" + law: "{}"}, "repo", "repo/" + law},
		{"at the git root above the workspace", tree{"repo/.git/HEAD": "ref", "repo/" + law: "{}", "repo/a/b/x": ""}, "repo/a/b", "repo/" + law},
		{"nearest wins", tree{"repo/.git/HEAD": "ref", "repo/" + law: "{}", "repo/a/" + law: "{}"}, "repo/a", "repo/a/" + law},
		{"not above the git root", tree{"top/" + law: "{}", "top/repo/.git/HEAD": "ref"}, "top/repo", ""},
		{"gitdir file is a git root", tree{"top/" + law: "{}", "top/wt/.git": "gitdir: /x/.git/worktrees/wt\n"}, "top/wt", ""},
		{".git without HEAD is no git root", tree{"top/.git/HEAD": "ref", "top/" + law: "{}", "top/repo/.git": "DIR"}, "top/repo", "top/" + law},
		{".git file without gitdir: is no git root", tree{"top/.git/HEAD": "ref", "top/" + law: "{}", "top/repo/.git": "nope"}, "top/repo", "top/" + law},
		{"a broken first candidate ends the search", tree{"repo/.git/HEAD": "ref", "repo/" + law: "{}", "repo/a/" + law: "DIR"}, "repo/a", "repo/a/" + law},
		{"a dangling symlink ends the search", tree{"repo/.git/HEAD": "ref", "repo/" + law: "{}", "repo/a/" + law: "->missing"}, "repo/a", "repo/a/" + law},
		{"a .codewhale file is no candidate", tree{"repo/.git/HEAD": "ref", "repo/" + law: "{}", "repo/a/.codewhale": "x"}, "repo/a", "repo/" + law},
		{"none within the git root", tree{"repo/.git/HEAD": "ref", "repo/a/x": ""}, "repo/a", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := build(t, tt.files)
			got, found := Find(filepath.Join(root, tt.workspace))
			want := ""
			if tt.want != "" {
				want = filepath.Join(root, filepath.FromSlash(tt.want))
			}
			if got != want || found != (tt.want != "") {
				t.Errorf("Find = %q, %v; want %q", got, found, want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	root := build(t, tree{
		"valid.json":    lawJSON,
		"advisory.json": `{"protected_invariants":[{"text":"t"}]}`,
		"empty.json":    "",
		"big.json":      "{}" + strings.Repeat(" ", maxFileSize),
		"link.json":     "->valid.json",
		"dir.json":      "DIR",
		"bad.json":      `{"protected_invariants":[{"text":"t","paths":["a"],"action":"deny"}]}`,
	})
	tests := []struct {
		file  string
		code  problem.Code // of the only problem; "" = none
		rules int
	}{
		{"valid.json", "CW401", 2}, // its bare-string invariant
		{"advisory.json", "CW401", 0},
		{"empty.json", "CW400", 0},
		{"big.json", "CW400", 0},
		{"link.json", "CW400", 0},
		{"dir.json", "CW400", 0},
		{"bad.json", "CW400", 0},
		{"missing.json", "CW400", 0},
	}
	for _, tt := range tests {
		path := filepath.Join(root, tt.file)
		law, problems, _ := Load(path, nil, false)
		if len(law.Rules) != tt.rules {
			t.Errorf("%s: %d rules, want %d", tt.file, len(law.Rules), tt.rules)
		}
		switch {
		case tt.code == "" && len(problems) > 0:
			t.Errorf("%s: unexpected problems %+v", tt.file, problems)
		case tt.code != "" && (len(problems) != 1 || problems[0].Code != tt.code || problems[0].File != path):
			t.Errorf("%s: problems %+v, want one %s for the file", tt.file, problems, tt.code)
		}
	}
}

// TestLoadBuffer: an editor buffer stands in for the contents only; a
// symlinked constitution stays ignored while it is open, as Codewhale
// ignores it on disk.
func TestLoadBuffer(t *testing.T) {
	dir := t.TempDir()
	valid := []byte(`{"schema_version": 1, "protected_invariants": [{"text": "frozen", "paths": ["src/**"], "action": "block"}]}`)
	real := filepath.Join(dir, "real.json")
	if err := os.WriteFile(real, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	law, problems, src := Load(real, valid, true)
	if len(law.Rules) != 1 || len(problems) != 0 || string(src) != string(valid) {
		t.Errorf("buffer over a regular file: %d rules, %v", len(law.Rules), problems)
	}
	law, problems, _ = Load(link, valid, true)
	if len(law.Rules) != 0 || len(problems) != 1 || !strings.Contains(problems[0].Message, "symlink") {
		t.Errorf("buffer over a symlink: %d rules, %v; want it ignored", len(law.Rules), problems)
	}
	law, problems, _ = Load(filepath.Join(dir, "unsaved.json"), valid, true)
	if len(law.Rules) != 1 || len(problems) != 0 {
		t.Errorf("buffer of an unsaved file: %d rules, %v", len(law.Rules), problems)
	}
}
