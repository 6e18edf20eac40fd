package shellpath

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

const home = "/home/u"

var ws = Literal("/w")

func parse(word string) Pattern { return Parse(word, ws, Env{Home: home}) }

// Within follows the shell's globbing: wildcards stop at `/` and at a
// name's leading dot; a variable is any text but not the denied path's
// last byte (package comment).
func TestWithin(t *testing.T) {
	const ssh = "/home/u/.ssh"
	rows := []struct {
		word string
		want bool
	}{
		{"~/.ssh", true},
		{"~/.ssh/", true},
		{"~/.s*h/id_rsa", true},
		{"~/.s?h/id_rsa", true},
		{"~/.[s]sh/id_rsa", true},
		{"~/.[!x]sh", true},
		{"~/.[a-r]sh", false},
		{"~/.*/id_rsa", true},
		{"~/*/id_rsa", false}, // `*` does not match the leading dot
		{"~/**/id_rsa", true}, // `**` may be any depth, dot or not
		{"/home/*/.ssh", true},
		{"/*/u/.ssh/x", true},
		{"~/.ssh*", true},
		{"~/.sshx", false},
		{"${HOME}/.ssh/id_rsa", true},
		{"$HOME/.ssh", true},
		{"$X/.ssh/id_rsa", true},
		{"${X}h/id_rsa", true},
		{"$X", false},
		{"~/$X", false},
		{"~/.ssh/$X", true},
		{"~nosuchuser0xc0de/.ssh", true},
		{"~/src/../.ssh/id_rsa", true},
		{"~/.ssh/../src", false},
		{`\~/.ssh`, false}, // a quoted tilde is a name in /w
		{`~/.s\*h`, false},
		{"/home/u/.SSH", false},
		{".ssh", false},
	}
	for _, row := range rows {
		if got := parse(row.word).Within(ssh, false); got != row.want {
			t.Errorf("%s within %s = %v, want %v (pattern %s)", row.word, ssh, got, row.want, parse(row.word))
		}
	}
	if !parse("~/.SSH").Within(ssh, true) {
		t.Error("case-folding file system: ~/.SSH is ~/.ssh")
	}
	if !(Pattern{tokens: parse("~/*").tokens, dotGlob: true}).Within(ssh, false) {
		t.Error("with dotglob `*` matches .ssh")
	}
}

// Holds: what a recursive read of the word reads.
func TestHolds(t *testing.T) {
	for word, want := range map[string]bool{
		"~": true, "/": true, "/home": true, "~/.ssh": true, "~/.ssh/keys": false, "$DIR": true,
		"~/src": false, ".": false, "/w/..": true, "~/.s*": true, "/h*": true, "/w*": false,
	} {
		if got := parse(word).Holds("/home/u/.ssh", false); got != want {
			t.Errorf("%s holds ~/.ssh = %v, want %v", word, got, want)
		}
	}
}

// NameCould, with the deny-list's .env rule: `.env` or `.env.<x>`, no
// variable supplying the `v`.
func TestNameCould(t *testing.T) {
	could := func(word string) bool {
		p := parse(word)
		return p.NameCould(".env", false, 4, false) || p.NameCould(".env.", true, 4, false)
	}
	for word, want := range map[string]bool{
		".env": true, ".e*": true, ".en[v]": true, ".env.local": true, ".env.*": true, "*": false, "*.go": false,
		"app/.e?v": true, "$X/.env": true, "${f}.txt": false, "$f": false, "${X}v": true, "${X}env": true,
		"**": true, "**/.env": true, "**/*.go": false, ".envrc": false, "x.env": false,
	} {
		if got := could(word); got != want {
			t.Errorf("%s could be .env = %v, want %v", word, got, want)
		}
	}
}

func TestBraces(t *testing.T) {
	rows := []struct {
		word string
		want []string
	}{
		{"{a,b}", []string{"a", "b"}},
		{"x{a,{b,c}}y", []string{"xay", "xby", "xcy"}},
		{"{.env,x}", []string{".env", "x"}},
		{`\{a,b}`, []string{`\{a,b}`}},
		{"${X,,}/{a,b}", []string{"${X,,}/a", "${X,,}/b"}},
		{"f{1..3}", []string{"f*"}},
		{"{a}", []string{"{a}"}},
	}
	for _, row := range rows {
		if got, ok := Braces(row.word, 64); !ok || !slices.Equal(got, row.want) {
			t.Errorf("Braces(%q) = %q %v, want %q", row.word, got, ok, row.want)
		}
	}
	if _, ok := Braces("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", 64); ok {
		t.Error("2^7 words fit in 64")
	}
}

// Expand and Walk stop at their budget, failing closed.
func TestDiskBudget(t *testing.T) {
	dir := t.TempDir()
	for i := range 50 {
		if err := os.WriteFile(filepath.Join(dir, string(rune('a'+i%26))+string(rune('a'+i/26))), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p := Parse("*", Literal(dir), Env{})
	if got, err := p.Expand(&Budget{Entries: 1000}); err != nil || len(got) != 50 {
		t.Errorf("Expand = %d paths, %v", len(got), err)
	}
	if _, err := p.Expand(&Budget{Entries: 10}); err != ErrBudget {
		t.Errorf("Expand over budget: %v", err)
	}
	if _, err := Walk(dir, &Budget{Entries: 10}, func(string, os.DirEntry) bool { return false }); err != ErrBudget {
		t.Errorf("Walk over budget: %v", err)
	}
}

// A quoted star and a glob's are different patterns to cache by.
func TestKey(t *testing.T) {
	if parse(`.e\*`).Key() == parse(".e*").Key() || parse(".e*").String() != parse(`.e\*`).String() {
		t.Error("Key does not tell a quoted star from a glob")
	}
}
