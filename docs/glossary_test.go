// Package docs holds no code: its tests keep the glossary linked and
// every link of the README and the docs pointing somewhere.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// glossaryTerms are docs/glossary.md's entries: the anchor of each and
// the spellings of its word in the other pages.
var glossaryTerms = []struct {
	anchor    string
	spellings string
}{
	{"posture", `postures?`},
	{"full-access", `full access`},
	{"forced-hold", `forced holds?`},
	{"repo-law", `repo(?:sitory)? law`},
	{"safety-floor", `safety floor`},
	{"promoted-deny", `promoted den(?:y|ies)`},
	{"approval-requirement-auto-suggest-required", `approval requirements?|requirement (?:Auto|Suggest|Required)|requires (?:Auto|Suggest|Required)`},
	{"risk-benign-or-destructive", `risk (?:benign|destructive)`},
	{"release-between-implemented-ones", `releases? between (?:two )?implemented ones`},
}

var (
	fence  = regexp.MustCompile("(?m)^```")
	mdLink = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]*)\)`)
)

// prose is text with its code (fenced blocks, code spans) and headings
// blanked, offsets kept: a word there is no first appearance to link.
func prose(text string) string {
	b := []byte(text)
	blank := func(from, to int) {
		for i := from; i < to; i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	locs := fence.FindAllStringIndex(text, -1)
	for i := 0; i+1 < len(locs); i += 2 {
		blank(locs[i][0], locs[i+1][1])
	}
	// A code span opens with a run of backticks and closes at the next
	// run of as many; an unmatched run is literal.
	run := func(i int) int {
		n := 0
		for i+n < len(b) && b[i+n] == '`' {
			n++
		}
		return n
	}
	for i := 0; i < len(b); {
		n := run(i)
		if n == 0 {
			i++
			continue
		}
		closed := false
		for j := i + n; j < len(b); {
			m := run(j)
			if m == 0 {
				j++
				continue
			}
			if m == n {
				blank(i, j+m)
				i, closed = j+m, true
				break
			}
			j += m
		}
		if !closed {
			i += n
		}
	}
	start := 0
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if strings.HasPrefix(line, "#") {
			blank(start, start+len(line))
		}
		start += len(line)
	}
	return string(b)
}

// Every glossary word is a link to its entry where it first appears in
// the README and in each page of docs/ (issue 24, point 13).
func TestGlossaryLinkedAtFirstUse(t *testing.T) {
	glossary, err := os.ReadFile("glossary.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, term := range glossaryTerms {
		if !strings.Contains(strings.ToLower(string(glossary)), "\n## ") || !hasAnchor(string(glossary), term.anchor) {
			t.Errorf("glossary.md has no entry #%s", term.anchor)
		}
	}
	pages, _ := filepath.Glob("*.md")
	pages = append(pages, filepath.Join("..", "README.md"))
	for _, page := range pages {
		if filepath.Base(page) == "glossary.md" {
			continue
		}
		raw, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		text := string(raw)
		plain := prose(text)
		links := mdLink.FindAllStringSubmatchIndex(text, -1)
		for _, term := range glossaryTerms {
			word := regexp.MustCompile(`(?i)\b(?:` + term.spellings + `)\b`)
			at := word.FindStringIndex(plain)
			if at == nil {
				continue
			}
			linked := false
			for _, l := range links {
				target := text[l[4]:l[5]]
				if l[2] <= at[0] && at[1] <= l[3] && strings.HasSuffix(target, "glossary.md#"+term.anchor) {
					linked = true
				}
			}
			if !linked {
				line := strings.Count(text[:at[0]], "\n") + 1
				t.Errorf("%s:%d: %q first appears unlinked; link it to glossary.md#%s", page, line, text[at[0]:at[1]], term.anchor)
			}
		}
	}
}

// hasAnchor reports whether a heading of text (any level) has GitHub's
// anchor a.
func hasAnchor(text, a string) bool {
	for _, line := range strings.Split(text, "\n") {
		level := len(line) - len(strings.TrimLeft(line, "#"))
		h, ok := strings.CutPrefix(line[level:], " ")
		if level == 0 || level > 6 || !ok {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		if b.String() == a {
			return true
		}
	}
	return false
}
