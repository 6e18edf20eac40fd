package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// world is a hermetic home and workspace: HOME points into t.TempDir() and
// nothing outside it is read (except the Unix defaults of the managed and
// requirements files, which requireNoSystemFiles checks are absent).
type world struct {
	t    *testing.T
	root string
	home string
	ws   string
	vars MapEnv
	flag string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	requireNoSystemFiles(t)
	root := t.TempDir()
	w := &world{t: t, root: root, home: filepath.Join(root, "home"), ws: filepath.Join(root, "ws")}
	mkdir(t, w.home)
	mkdir(t, w.ws)
	w.vars = MapEnv{"HOME": w.home}
	return w
}

// requireNoSystemFiles: Load reads /etc/deepseek/{managed_config,requirements}.toml
// when the user config names neither; a host that has them would change
// every expectation.
func requireNoSystemFiles(t *testing.T) {
	t.Helper()
	for _, p := range []string{"/etc/deepseek/managed_config.toml", "/etc/deepseek/requirements.toml"} {
		if _, err := os.Lstat(p); err == nil {
			t.Skipf("%s exists on this host; the test needs it absent", p)
		}
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, src string) string {
	t.Helper()
	mkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (w *world) path(rel string) string { return filepath.Join(w.root, filepath.FromSlash(rel)) }

func (w *world) userConfig(src string) string {
	return writeFile(w.t, filepath.Join(w.home, ".codewhale", "config.toml"), src)
}

func (w *world) overlay(src string) string {
	return writeFile(w.t, filepath.Join(w.ws, ".codewhale", "config.toml"), src)
}

func (w *world) settings(src string) string {
	return writeFile(w.t, filepath.Join(w.home, ".codewhale", "settings.toml"), src)
}

func (w *world) load() *Snapshot {
	w.t.Helper()
	return Load(Options{ConfigFlag: w.flag, Workspace: w.ws, Env: w.vars})
}

// tomlString quotes s as a TOML basic string (paths in table keys).
func tomlString(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// wp is one expected problem: its code and the exact text its span covers.
type wp struct {
	code problem.Code
	text string
}

// spanText is the source text a problem's span covers.
func spanText(t *testing.T, f *File, p problem.Problem) string {
	t.Helper()
	if p.Span.Start < 0 || p.Span.End > len(f.Src) || p.Span.Start > p.Span.End {
		t.Fatalf("%s: span %v outside the %d bytes of %s", p.Code, p.Span, len(f.Src), f.Path)
	}
	return string(f.Src[p.Span.Start:p.Span.End])
}

// checkProblems asserts f's problems are exactly want, in order, each
// covering exactly the given text.
func checkProblems(t *testing.T, f *File, want []wp) {
	t.Helper()
	var got []wp
	if f != nil {
		for _, p := range f.Problems {
			got = append(got, wp{p.Code, spanText(t, f, p)})
		}
	}
	if len(got) != len(want) {
		t.Fatalf("problems = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("problem %d = %q, want %q (all: %q)", i, got[i], want[i], got)
		}
	}
}

func codes(f *File) []string {
	if f == nil {
		return nil
	}
	var out []string
	for _, p := range f.Problems {
		out = append(out, string(p.Code))
	}
	return out
}

func hasCode(f *File, code problem.Code) bool {
	for _, c := range codes(f) {
		if c == string(code) {
			return true
		}
	}
	return false
}

// settingString renders a Setting for comparison: "unset" or its value.
func settingString(s Setting) string {
	if !s.Set {
		return "unset"
	}
	return s.Value
}
