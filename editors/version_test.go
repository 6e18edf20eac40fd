package editors_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/internal/buildinfo"
)

// One version for codewhale-ls (buildinfo.SourceVersion), the VS Code
// extension (package.json and its lock file), the Neovim plugin
// (version.lua, and its rockspec unless that is the scm one) and the
// Emacs package (its ";; Version:" header): a release bumps them together
// (issue 24, point 11; issue 27, point 2).
func TestOneVersion(t *testing.T) {
	want := buildinfo.SourceVersion
	versions := map[string]string{}
	var pkg struct{ Version string }
	readJSON(t, filepath.Join(vscodeDir, "package.json"), &pkg)
	versions["editors/vscode/package.json"] = pkg.Version
	var lock struct {
		Version  string
		Packages map[string]struct{ Version string }
	}
	readJSON(t, filepath.Join(vscodeDir, "package-lock.json"), &lock)
	versions["editors/vscode/package-lock.json"] = lock.Version
	versions["editors/vscode/package-lock.json packages[\"\"]"] = lock.Packages[""].Version
	versions["editors/nvim/lua/codewhale/version.lua"] = find(t, filepath.Join("nvim", "lua", "codewhale", "version.lua"), `(?m)^return '([^']*)'\s*$`)
	versions["editors/emacs/codewhale.el"] = find(t, filepath.Join("emacs", "codewhale.el"), `(?m)^;; Version: (\S+)\s*$`)
	rockspecs, err := filepath.Glob(filepath.Join("nvim", "*.rockspec"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range rockspecs {
		// A rockspec's version is the plugin's and a revision, 0.1.0-1;
		// the scm rockspec (scm-1) builds whatever the repository holds.
		v := find(t, path, `(?m)^version\s*=\s*["']([^"']*)["']`)
		if base := v[:max(0, strings.LastIndex(v, "-"))]; base != "scm" && base != "dev" {
			versions["editors/"+filepath.ToSlash(path)] = base
		}
	}
	for where, v := range versions {
		if v != want {
			t.Errorf("%s is %q, buildinfo.SourceVersion %q: %v", where, v, want, versions)
		}
	}
}

// find is the first group of pattern in the file at path; none is an error.
func find(t *testing.T, path, pattern string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(pattern).FindSubmatch(b)
	if m == nil {
		t.Fatalf("editors/%s has no version (%s):\n%s", filepath.ToSlash(path), pattern, b)
	}
	return string(m[1])
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
