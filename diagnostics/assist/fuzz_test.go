package assist

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

var assistKinds = []config.Kind{config.KindUserConfig, config.KindPermissions, config.KindProjectHooks,
	config.KindConstitution, config.KindOverlay, config.KindManaged, config.KindSettings}

// exercise runs every feature at offset, as every implemented release,
// and checks what it returns points into the text.
func exercise(t *testing.T, kind config.Kind, src []byte, offset int, snap *config.Snapshot) {
	for _, rel := range release.Implemented {
		if _, span, ok := Hover(kind, src, offset, snap, rel); ok {
			if span.Start < 0 || span.End > len(src) || span.Start > span.End {
				t.Fatalf("%s at %d: hover span %+v out of the text", kind, offset, span)
			}
		}
		for _, it := range Complete(kind, src, offset, rel) {
			if it.Label == "" || it.NewText == "" {
				t.Fatalf("%s at %d: empty item %+v", kind, offset, it)
			}
			// LSP: a completion's edit is on the cursor's line and contains it.
			r := it.Replace
			if r.Start > offset || r.End < offset || r.End > len(src) || bytes.IndexByte(src[r.Start:r.End], '\n') >= 0 {
				t.Fatalf("%s at %d: item %+v replaces %+v", kind, offset, it, r)
			}
		}
	}
}

func checkSymbols(t *testing.T, kind config.Kind, src []byte, symbols []Symbol) {
	for _, s := range symbols {
		if s.Name == "" || s.Span.Start < 0 || s.Span.End > len(src) || s.Span.Start > s.Span.End ||
			s.SelectionSpan.Start < s.Span.Start || s.SelectionSpan.End > s.Span.End {
			t.Fatalf("%s: bad symbol %+v", kind, s)
		}
		checkSymbols(t, kind, src, s.Children)
	}
}

// Every offset of every fixture, as a file of every kind: a cursor can be
// anywhere, and a file can be opened with the wrong kind.
func TestEveryOffsetOfTheFixtures(t *testing.T) {
	for name := range fixtureKinds {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each fixture is its own, read-only
			src := fixture(t, name)
			f, _ := execpolicy.ParseFile(src)
			snap := &config.Snapshot{Permissions: f}
			for _, kind := range assistKinds {
				checkSymbols(t, kind, src, Symbols(kind, src))
				for off := -1; off <= len(src)+1; off++ {
					exercise(t, kind, src, off, snap)
				}
			}
		})
	}
}

func FuzzAssist(f *testing.F) {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		if src, err := os.ReadFile(filepath.Join("testdata", e.Name())); err == nil {
			f.Add(src, uint16(len(src)/2))
		}
	}
	for _, s := range []string{"", "[", "[[", "[[rules]]\naction = \"", "a = {", "a = [{b = [", `{"`, `{"a":`, `[{`,
		"\"\\", "a.\"b\".c = '", "{\"protected_invariants\": [{\"text\": \"\\u12", "[\"\"]\n\"\" = 1", "\xff\xfe[\x00]"} {
		f.Add([]byte(s), uint16(len(s)))
	}
	f.Fuzz(func(t *testing.T, src []byte, at uint16) {
		offset := int(at) % (len(src) + 1)
		for _, kind := range assistKinds {
			exercise(t, kind, src, offset, nil)
			checkSymbols(t, kind, src, Symbols(kind, src))
		}
	})
}
