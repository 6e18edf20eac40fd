package editors_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The Neovim plugin's rockspec (editors/nvim/*.rockspec) agrees with
// itself and with what tools/nvim-mirror.sh publishes: luarocks finds a
// rockspec by its file name, the rock's source is the tag the script
// pushes for that version, and every directory it copies exists. Its
// version against the plugin's is the version drift test's.
func TestRockspec(t *testing.T) {
	specs, err := filepath.Glob(filepath.Join("nvim", "*.rockspec"))
	if err != nil || len(specs) != 1 {
		t.Fatalf("editors/nvim holds rockspecs %q, want one", specs)
	}
	b, err := os.ReadFile(specs[0])
	if err != nil {
		t.Fatal(err)
	}
	spec := string(b)
	field := func(re string) string {
		m := regexp.MustCompile(`(?m)` + re).FindStringSubmatch(spec)
		if m == nil {
			t.Errorf("%s has no line matching %s", specs[0], re)
			return ""
		}
		return m[1]
	}
	pkg := field(`^package = '([^']+)'$`)
	version := field(`^version = '([^']+)'$`)
	if want := pkg + "-" + version + ".rockspec"; filepath.Base(specs[0]) != want {
		t.Errorf("the rockspec is named %s, luarocks wants %s", filepath.Base(specs[0]), want)
	}
	modrev, _, _ := strings.Cut(version, "-")
	if tag := field(`^  tag = '([^']+)',$`); tag != "nvim-v"+modrev {
		t.Errorf("the rock's source is the tag %q, tools/nvim-mirror.sh pushes nvim-v%s", tag, modrev)
	}
	if license := field(`^  license = '([^']+)',$`); license != "MIT" {
		t.Errorf("license %q, want MIT", license)
	}
	for _, dir := range strings.Split(field(`^  copy_directories = \{ (.*) \},$`), ", ") {
		name := strings.Trim(dir, "'")
		if info, err := os.Stat(filepath.Join("nvim", name)); err != nil || !info.IsDir() {
			t.Errorf("copy_directories names %s, which is no directory of editors/nvim: %v", name, err)
		}
	}
}
