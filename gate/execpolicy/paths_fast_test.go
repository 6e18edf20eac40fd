package execpolicy

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
)

// referenceWorkspaceScope restates §4.3 without WorkspaceScope's shortcut
// for values that are already normal: it always rebuilds the value.
func referenceWorkspaceScope(value string) (string, bool) {
	s := strings.ReplaceAll(strings.TrimSpace(value), `\`, "/")
	var root, rest string
	switch {
	case s == "":
		return "", false
	case s[0] == '/':
		root, rest = "", s[1:]
	case hasDriveLetter(s) && len(s) > 2 && s[2] == '/':
		s = ascii.Lower(s)
		root, rest = s[:2], s[3:]
	default:
		return "", false
	}
	var b strings.Builder
	b.WriteString(root)
	for _, part := range strings.Split(rest, "/") {
		switch part {
		case "", ".":
		case "..":
			return "", false
		default:
			b.WriteByte('/')
			b.WriteString(part)
		}
	}
	if b.Len() == len(root) {
		return "", false
	}
	return b.String(), true
}

func checkWorkspaceScope(t *testing.T, value string) {
	t.Helper()
	got, ok := WorkspaceScope(value)
	want, wantOK := referenceWorkspaceScope(value)
	if got != want || ok != wantOK {
		t.Fatalf("WorkspaceScope(%q) = %q %v, want %q %v", value, got, ok, want, wantOK)
	}
}

func TestWorkspaceScopeMatchesReference(t *testing.T) {
	pieces := []string{"/", "/", "/", `\`, "home", "Dev", "repo3", ".", "..", "", " ", "C:", "c:", "x:"}
	rng := rand.New(rand.NewPCG(5, 8))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(7) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		checkWorkspaceScope(t, b.String())
	}
}

func FuzzWorkspaceScope(f *testing.F) {
	for _, s := range []string{"/home/dev/repo3", "/workspace/", " /a/./b// ", `C:\Repo`, "c:/", "/a/../b", "rel"} {
		f.Add(s)
	}
	f.Fuzz(checkWorkspaceScope)
}
