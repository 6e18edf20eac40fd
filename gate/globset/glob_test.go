package globset

import (
	"strings"
	"testing"
)

// Expected answers are those of Rust globset's default GlobMatcher (the
// dialect of docs/codewhale/pipeline.md §7.1), derived from the regex it builds.
func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		// §7.1 / §11: `*` crosses directories.
		{"*.md", "docs/a.md", true},
		{"*.md", "a.md", true},
		{"*.md", "a.mdx", false},
		{"*", "a/b/c", true},
		{"*", "a\nb", true},
		// §7.3 LAW globs.
		{"crates/protocol/**", "crates/protocol/wire.rs", true},
		{"crates/protocol/**", "crates/protocol/a/b/msg.rs", true},
		{"crates/protocol/**", "crates/protocol/", true},
		{"crates/protocol/**", "crates/protocol", false},
		{"crates/protocol/**", "crates/protocolx/wire.rs", false},
		{"crates/protocol/**", "src/main.rs", false},
		{"CHANGELOG.md", "CHANGELOG.md", true},
		{"CHANGELOG.md", "changelog.md", false},
		{"CHANGELOG.md", "docs/CHANGELOG.md", false},
		{"docs/**", "docs/frozen/spec.md", true},
		{"docs/frozen/**", "docs/frozen/spec.md", true},
		{"docs/frozen/**", "docs/spec.md", false},
		// Targets are normalised without a leading `/` or `./` (§11).
		{"/etc/**", "etc/passwd", false},
		{"./CHANGELOG.md", "CHANGELOG.md", false},
		// Recursive forms.
		{"**", "", true},
		{"**", "any/depth/file", true},
		{"**/", "any/depth/file", true},
		{"**/**", "abc", true},
		{"**/CHANGELOG.md", "CHANGELOG.md", true},
		{"**/CHANGELOG.md", "a/b/CHANGELOG.md", true},
		{"**/CHANGELOG.md", "/CHANGELOG.md", true},
		{"**/CHANGELOG.md", "xCHANGELOG.md", false},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "ab", false},
		{"a/**/b", "a/xb", false},
		{"a/**", "a", false},
		{"a/**/**", "a/b", true},
		{"a/**/**", "a", false},
		// `**` that is not a whole component is two stars.
		{"a**", "a/b/c", true},
		{"a**", "ba", false},
		{"**a", "x/ya", true},
		{"a/**b", "a/x/yb", true},
		{"a/**b", "a/b", true},
		// `?` is one byte, and crosses `/`.
		{"?", "/", true},
		{"a?b", "a/b", true},
		{"a?b", "ab", false},
		{"?", "é", false},
		{"??", "é", true},
		// Classes.
		{"[abc]", "b", true},
		{"[abc]", "d", false},
		{"[!abc]", "d", true},
		{"[!abc]", "a", false},
		{"[^a]", "b", true},
		{"[!a]", "/", true},
		{"[a-c]x", "bx", true},
		{"[a-c]x", "dx", false},
		{"[]]", "]", true},
		{"[!]]", "]", false},
		{"[-a]", "-", true},
		{"[a-]", "-", true},
		{"[a-c-e]", "d", true},
		{"[/]", "/", true},
		{"[*]", "*", true},
		{"[*]", "a", false},
		{`[\]`, `\`, true},
		{"[é]", "é", false},
		{"[é][é]", "é", true},
		{"[α-ω][α-ω]", "β", true},
		// Alternation.
		{"{a,b}.rs", "a.rs", true},
		{"{a,b}.rs", "b.rs", true},
		{"{a,b}.rs", "c.rs", false},
		{"{a,{b,c}}", "c", true},
		{"{a,{b,c}}", "d", false},
		{"src/{lib,bin/*}.rs", "src/bin/x/y.rs", true},
		{"x{a,}", "x", false},
		{"x{a,}", "xa", true},
		{"x{,}", "x", true},
		{"a,b", "a,b", true},
		{"{**/a,b}", "x/a", true},
		{"{**/a,b}", "a", true},
		{"{**/a,b}", "b", true},
		{"src/{**,x}", "src/a/b", true},
		{"a/{b,**}", "a/x/y", true},
		// Escapes.
		{`\*`, "*", true},
		{`\*`, "a", false},
		{`\[x`, "[x", true},
		{`\{a\}`, "{a}", true},
		{`a\,b`, "a,b", true},
		{"]", "]", true},
	}
	for _, tt := range tests {
		g, err := Compile(tt.pattern)
		if err != nil {
			t.Errorf("Compile(%q): %v", tt.pattern, err)
			continue
		}
		if got := g.Match(tt.path); got != tt.want {
			t.Errorf("Compile(%q).Match(%q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

func TestCompileRejects(t *testing.T) {
	for _, pattern := range []string{
		"crates/[invalid", // §7.3
		"[",
		"[]",
		"[!]",
		"{a,b",
		"{a,{b,c}",
		"a}",
		"[b-a]",
		"[a--]",
		`abc\`,
		"\xff",
	} {
		if _, err := Compile(pattern); err == nil {
			t.Errorf("Compile(%q) succeeded, want an error", pattern)
		}
	}
}

func TestString(t *testing.T) {
	g, err := Compile("docs/**")
	if err != nil || g.String() != "docs/**" {
		t.Fatalf("String() = %v, %v", g, err)
	}
}

// Many stars on a long non-matching path must not backtrack exponentially.
func TestManyStarsStayFast(t *testing.T) {
	g, err := Compile(strings.Repeat("*a", 40) + "b")
	if err != nil {
		t.Fatal(err)
	}
	if g.Match(strings.Repeat("a", 2000)) {
		t.Fatal("unexpected match")
	}
}

func FuzzCompileMatch(f *testing.F) {
	for _, s := range []string{"*.md", "crates/protocol/**", "{a,{b,**/c}}", "[!a-c-]", `\`, "a/**/b", "[é-ω]"} {
		f.Add(s, "crates/protocol/wire.rs")
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		g, err := Compile(pattern)
		if err != nil {
			return
		}
		// Joining literal runs must not change a verdict: match with the
		// parser's one-token-per-character list too.
		if raw, err := parse(pattern); err == nil && !g.anything {
			start := make([]bool, len(path)+1)
			start[0] = true
			if want := advance(raw, path, start)[len(path)]; g.Match(path) != want {
				t.Fatalf("%q on %q: %v with joined literals, %v without", pattern, path, !want, want)
			}
		}
		// A pattern without any special character is a literal.
		if !strings.ContainsAny(pattern, `*?[]{},\`) && !g.Match(pattern) {
			t.Fatalf("literal %q does not match itself", pattern)
		}
	})
}
