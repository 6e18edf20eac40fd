package release_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// releasesPage is the docs page whose table lists every change.
var releasesPage = filepath.Join("..", "..", "docs", "codewhale", "releases", "README.md")

const (
	tableBegin = "<!-- changes:begin -->\n"
	tableEnd   = "<!-- changes:end -->\n"
)

// changesTable is the markdown table of every change, by release.
func changesTable() string {
	var b strings.Builder
	b.WriteString("| release | change | what it does |\n|---|---|---|\n")
	for _, c := range release.Changes() {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", c.Since, c.ID, strings.ReplaceAll(c.Summary, "|", `\|`))
	}
	return b.String()
}

// The releases page lists exactly the changes the code keys behaviour to;
// UPDATE_RELEASES_PAGE=1 rewrites it.
func TestReleasesPage(t *testing.T) {
	src, err := os.ReadFile(releasesPage)
	if err != nil {
		t.Fatal(err)
	}
	page := string(src)
	begin, end := strings.Index(page, tableBegin), strings.Index(page, tableEnd)
	if begin < 0 || end < begin {
		t.Fatalf("%s: no %q … %q markers", releasesPage, tableBegin, tableEnd)
	}
	want := page[:begin+len(tableBegin)] + changesTable() + page[end:]
	if want == page {
		return
	}
	if os.Getenv("UPDATE_RELEASES_PAGE") == "1" {
		if err := os.WriteFile(releasesPage, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s lists other changes than gate/release: run UPDATE_RELEASES_PAGE=1 go test ./gate/release -run TestReleasesPage", releasesPage)
}
