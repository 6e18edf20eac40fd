package assist

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
)

// fixtureKinds says what kind of file each testdata fixture is.
var fixtureKinds = map[string]config.Kind{
	"permissions.toml":         config.KindPermissions,
	"permissions_inline.toml":  config.KindPermissions,
	"permissions_typing.toml":  config.KindPermissions,
	"config.toml":              config.KindUserConfig,
	"config_typing.toml":       config.KindUserConfig,
	"hooks.toml":               config.KindProjectHooks,
	"constitution.json":        config.KindConstitution,
	"constitution_typing.json": config.KindConstitution,
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// at is the offset marked by `|` in needle, which must occur in src
// without the marker.
func at(t testing.TB, src []byte, needle string) int {
	t.Helper()
	mark := strings.IndexByte(needle, '|')
	if mark < 0 {
		t.Fatalf("needle %q has no | marker", needle)
	}
	i := strings.Index(string(src), needle[:mark]+needle[mark+1:])
	if i < 0 {
		t.Fatalf("needle %q not in the text", needle)
	}
	return i + mark
}

// checkMarkdown reports every want missing from md and every wantNot in it.
func checkMarkdown(t *testing.T, md string, want, wantNot []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(md, w) {
			t.Errorf("hover lacks %q:\n%s", w, md)
		}
	}
	for _, w := range wantNot {
		if strings.Contains(md, w) {
			t.Errorf("hover has %q:\n%s", w, md)
		}
	}
}
