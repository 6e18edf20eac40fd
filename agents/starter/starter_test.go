package starter

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
)

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func commands(found []Found) []string {
	var out []string
	for _, f := range found {
		out = append(out, f.Command)
	}
	return out
}

func TestDetectReadsWhatTheRepositoryShows(t *testing.T) {
	repo := t.TempDir()
	write(t, repo, "go.mod", "module x\n")
	write(t, repo, "Cargo.toml", "[package]\nname = \"x\"\n")
	write(t, repo, "package.json", `{"scripts": {"test": "jest", "build": "tsc", "test:unit": "jest u", "deploy": "x", "lint it": "y"}}`)
	write(t, repo, "pnpm-lock.yaml", "")
	write(t, repo, "Makefile", "VAR := 1\nall: build\nbuild:\n\tgo build\ndeploy:\n\tscp x y\n.PHONY: test\ntest:\n\tgo test\n")
	write(t, repo, "pyproject.toml", "[project]\nname = \"x\"\n[tool.pytest.ini_options]\n[tool.ruff]\n")
	got := commands(Detect(repo))
	want := []string{"go build", "go test", "go vet", "cargo build", "cargo test", "cargo check", "cargo clippy",
		"pnpm run build", "pnpm test", "pnpm run test", "pnpm run test:unit",
		"make", "make all", "make build", "make test",
		"pytest", "python -m pytest", "python3 -m pytest", "ruff check"}
	if !slices.Equal(got, want) {
		t.Fatalf("Detect:\n got %q\nwant %q", got, want)
	}
	for _, f := range Detect(repo) {
		if f.Exact != strings.HasPrefix(f.Command, "make") {
			t.Errorf("%s: exact %v (only make targets are exact: a prefix would allow `make test deploy`)", f.Command, f.Exact)
		}
	}
	if got := Detect(t.TempDir()); len(got) != 0 {
		t.Errorf("an empty directory shows %q", commands(got))
	}
}

// linter lints as `check` does, with a fresh home holding no config.
func linter(t *testing.T, workspace string) (Lint, string) {
	home := t.TempDir()
	path := filepath.Join(home, ".codewhale", "permissions.toml")
	return Linter(config.Options{Workspace: workspace, Env: config.MapEnv{"HOME": home}}, path), path
}

func repoWithEverything(t *testing.T) string {
	repo := t.TempDir()
	write(t, repo, "go.mod", "module x\n")
	write(t, repo, "package.json", `{"scripts": {"test": "jest", "build": "tsc"}}`)
	write(t, repo, "Makefile", "test:\n\tgo test\n")
	write(t, repo, "Cargo.toml", "")
	write(t, repo, "pyproject.toml", "[tool.pytest]\n")
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return repo
}

// The starter policy lints clean (no warning, no error) at every release,
// and every wanted rule is written: none had to be dropped.
func TestStarterPolicyChecksCleanAtEveryRelease(t *testing.T) {
	repo := repoWithEverything(t)
	lint, _ := linter(t, repo)
	wanted := Rules([]string{repo}, Detect(repo))
	res, err := Append(nil, repo, wanted, lint)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Dropped) != 0 {
		t.Fatalf("dropped: %+v", res.Dropped)
	}
	if len(res.Added) != len(wanted) {
		t.Fatalf("added %d of %d", len(res.Added), len(wanted))
	}
	if problems := lint(res.Content); len(problems) != 0 {
		t.Fatalf("the starter policy does not check clean: %+v\n%s", problems, res.Content)
	}
	file, problems := execpolicy.ParseFile(res.Content)
	if !file.Accepted || len(problems) != 0 || len(file.Rules) != len(wanted) {
		t.Fatalf("the engine reads %d rules (accepted %v, %v):\n%s", len(file.Rules), file.Accepted, problems, res.Content)
	}
	if !strings.HasPrefix(string(res.Content), Marker+" starter policy for "+repo+".\n") {
		t.Fatalf("no marked comment first:\n%s", res.Content)
	}
}

// A second run adds nothing, and no rule of the user's is touched: the
// old file is a prefix of the new one.
func TestAppendIsIdempotentAndKeepsEveryByte(t *testing.T) {
	repo := repoWithEverything(t)
	lint, _ := linter(t, repo)
	mine := "# my rules\r\n[[rules]]\r\ntool = \"exec_shell\"\r\ncommand = \"git diff\"\r\naction = \"allow\"" // no final newline, CRLF
	first, err := Append([]byte(mine), repo, Rules([]string{repo}, Detect(repo)), lint)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(first.Content), mine+"\n\n"+Marker) {
		t.Fatalf("the user's bytes changed or no blank line before the marker:\n%q", first.Content)
	}
	second, err := Append(first.Content, repo, Rules([]string{repo}, Detect(repo)), lint)
	if err != nil {
		t.Fatal(err)
	}
	if string(second.Content) != string(first.Content) || len(second.Added) != 0 || second.Present != len(first.Added) {
		t.Fatalf("second run: added %d, present %d:\n%s", len(second.Added), second.Present, second.Content)
	}
	// Another repository: only its allows are new, the denies are there.
	other := t.TempDir()
	write(t, other, "go.mod", "module y\n")
	third, err := Append(first.Content, other, Rules([]string{other}, Detect(other)), lint)
	if err != nil {
		t.Fatal(err)
	}
	if len(third.Added) != 3 || third.Present != len(Denied) {
		t.Fatalf("other repository: added %d, present %d", len(third.Added), third.Present)
	}
}

// A rule of the user's that a starter allow would fight is kept, and the
// allow is dropped with the lint's reason rather than written shadowed.
func TestAppendNeverFightsARuleOfTheUsers(t *testing.T) {
	repo := t.TempDir()
	write(t, repo, "go.mod", "module x\n")
	lint, _ := linter(t, repo)
	mine := "[[rules]]\ntool = \"exec_shell\"\ncommand = \"go test\"\naction = \"deny\"\n"
	res, err := Append([]byte(mine), repo, Rules([]string{repo}, Detect(repo)), lint)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(res.Content), mine) {
		t.Fatalf("the user's rule changed:\n%s", res.Content)
	}
	if len(res.Dropped) != 1 || *res.Dropped[0].Rule.Command != "go test" || !strings.Contains(res.Dropped[0].Reason, "CW200") {
		t.Fatalf("dropped %+v", res.Dropped)
	}
	if problems := lint(res.Content); len(problems) != 0 {
		t.Fatalf("does not check clean: %+v", problems)
	}
}

func TestAppendRefusesWhatItCannotExtend(t *testing.T) {
	repo := t.TempDir()
	lint, _ := linter(t, repo)
	for src, want := range map[string]string{
		"rules = [{ tool = \"exec_shell\", command = \"ls\" }]\n":  "rules = [...]",
		"[[rules]]\ntool = \"exec_shell\"\ndecision = \"allow\"\n": "does not load",
		"[[rules\n": "does not load",
	} {
		if _, err := Append([]byte(src), repo, Rules([]string{repo}, nil), lint); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", src, err, want)
		}
	}
}
