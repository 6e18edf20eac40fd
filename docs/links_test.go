package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every relative link of the README and of the pages under docs/ names a
// file of the repository, and an anchor in a Markdown page names one of
// its headings: a clone explains itself only if its links lead somewhere
// (issue 24, point 16: "the contract" led to the README).
func TestLinksResolve(t *testing.T) {
	pages := []string{filepath.Join("..", "README.md")}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range pages {
		raw, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		text := string(raw)
		plain := prose(text)
		for _, l := range mdLink.FindAllStringSubmatchIndex(text, -1) {
			if strings.TrimSpace(plain[l[0]:l[1]]) == "" {
				continue // a link written inside code is an example
			}
			label, target := text[l[2]:l[3]], text[l[4]:l[5]]
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = filepath.Join(filepath.Dir(page), file)
			}
			line := strings.Count(text[:l[0]], "\n") + 1
			body, err := os.ReadFile(dest)
			if err != nil {
				if info, statErr := os.Stat(dest); statErr == nil && info.IsDir() && anchor == "" {
					continue
				}
				t.Errorf("%s:%d: [%s](%s): %v", page, line, label, target, err)
				continue
			}
			if anchor != "" && strings.HasSuffix(dest, ".md") && !hasAnchor(string(body), anchor) {
				t.Errorf("%s:%d: [%s](%s): %s has no heading with anchor #%s", page, line, label, target, dest, anchor)
			}
			if strings.EqualFold(label, "the contract") && filepath.Base(dest) != "contract.md" {
				t.Errorf("%s:%d: [%s](%s) does not lead to the contract (docs/codewhale/contract.md)", page, line, label, target)
			}
		}
	}
}
