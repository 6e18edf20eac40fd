package editors_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

// One version for codewhale-ls (gate.Version), the VS Code extension
// (package.json and its lock file) and the Neovim plugin (version.lua):
// a release bumps them together (issue 24, point 11).
func TestOneVersion(t *testing.T) {
	versions := map[string]string{"gate.Version": gate.Version}
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
	lua, err := os.ReadFile(filepath.Join("nvim", "lua", "codewhale", "version.lua"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^return '([^']*)'\s*$`).FindSubmatch(lua)
	if m == nil {
		t.Fatalf("editors/nvim/lua/codewhale/version.lua returns no version:\n%s", lua)
	}
	versions["editors/nvim/lua/codewhale/version.lua"] = string(m[1])
	for where, v := range versions {
		if v != gate.Version {
			t.Errorf("%s is %q, gate.Version %q: %v", where, v, gate.Version, versions)
		}
	}
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
