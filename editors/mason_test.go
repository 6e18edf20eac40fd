package editors_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The mason-registry package definition (docs/mason/package.yaml, issue
// 27 point 6) must name the release's own archives: a name that drifts
// from the release's (docs/editors.md, "mason") is a package mason cannot
// install. Checked line by line: the file keeps mason-registry's layout,
// one key per line, and the module has no YAML parser.

// releaseArchive is the archive the release publishes for os/arch and
// the folder inside it (the release's naming, tools/release).
func releaseArchive(version, goos, goarch string) (file, folder string) {
	folder = "codewhale-ls_" + version + "_" + goos + "_" + goarch
	if goos == "windows" {
		return folder + ".zip", folder
	}
	return folder + ".tar.gz", folder
}

// masonTargets maps mason's targets to the release's GOOS and GOARCH.
var masonTargets = map[string][2]string{
	"darwin_x64": {"darwin", "amd64"}, "darwin_arm64": {"darwin", "arm64"},
	"linux_x64": {"linux", "amd64"}, "linux_arm64": {"linux", "arm64"},
	"win_x64": {"windows", "amd64"}, "win_arm64": {"windows", "arm64"},
}

func TestMasonPackage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "mason", "package.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if !strings.HasPrefix(text, "---\n") {
		t.Error("mason-registry requires the document to start with ---")
	}
	// The release it installs: the rock's version (the plugin's, which
	// the version drift test holds to everything else).
	id := regexp.MustCompile(`(?m)^  id: pkg:github/codewhale-ls/codewhale-ls@v(\S+)$`).FindStringSubmatch(text)
	if id == nil {
		t.Fatal("no source id pkg:github/codewhale-ls/codewhale-ls@vVERSION")
	}
	specs, err := filepath.Glob(filepath.Join("nvim", "*.rockspec"))
	if err != nil || len(specs) != 1 {
		t.Fatalf("editors/nvim holds rockspecs %q, want one", specs)
	}
	spec, err := os.ReadFile(specs[0])
	if err != nil {
		t.Fatal(err)
	}
	if rock := regexp.MustCompile(`(?m)^version = '([^']+)-\d+'$`).FindSubmatch(spec); rock == nil || string(rock[1]) != id[1] {
		t.Errorf("mason installs v%s, the rock is %q", id[1], rock)
	}
	version := id[1]

	// Each asset: its target, then file, bin and man, with mason's
	// version expression for the release's version.
	expanded := strings.ReplaceAll(text, `{{ version | strip_prefix "v" }}`, version)
	assets := map[string]map[string]string{}
	var target string
	for _, line := range strings.Split(expanded, "\n") {
		if v, ok := strings.CutPrefix(line, "    - target: "); ok {
			target = v
			if assets[target] != nil {
				t.Errorf("target %s twice", target)
			}
			assets[target] = map[string]string{}
			continue
		}
		rest, ok := strings.CutPrefix(line, "      ")
		if !ok || target == "" {
			target = "" // the assets' list ended
			continue
		}
		key, value, ok := strings.Cut(rest, ": ")
		if !ok || strings.HasPrefix(rest, " ") {
			t.Errorf("%s: a line this test does not read: %q", target, line)
			continue
		}
		assets[target][key] = value
	}
	var got []string
	for target := range assets {
		got = append(got, target)
	}
	slices.Sort(got)
	var want []string
	for target := range masonTargets {
		want = append(want, target)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("targets %q, want the release's archives' %q", got, want)
	}
	for target, asset := range assets {
		platform, ok := masonTargets[target]
		if !ok {
			continue
		}
		file, folder := releaseArchive(version, platform[0], platform[1])
		exe := "codewhale-ls"
		if platform[0] == "windows" {
			exe += ".exe"
		}
		wantAsset := map[string]string{"file": file, "bin": folder + "/" + exe, "man": folder + "/man/codewhale-ls.1"}
		for key, value := range wantAsset {
			if asset[key] != value {
				t.Errorf("%s: %s is %q, the release's is %q", target, key, asset[key], value)
			}
		}
		if len(asset) != len(wantAsset) {
			t.Errorf("%s: keys %v, want file, bin and man", target, asset)
		}
	}
	for _, line := range []string{"  codewhale-ls: \"{{source.asset.bin}}\"", "  man/man1/codewhale-ls.1: \"{{source.asset.man}}\"", "  - MIT"} {
		if !slices.Contains(strings.Split(text, "\n"), line) {
			t.Errorf("no line %q", line)
		}
	}
}
