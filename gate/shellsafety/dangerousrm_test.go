package shellsafety

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// dangerousRmByList is dangerousRm as it was written before issue 23, a
// list of targets then a search: the reference the two-pass form must
// agree with.
func dangerousRmByList(args []string) bool {
	flagged := false
	var targets []string
	for i, a := range args {
		if a == "--" {
			targets = append(targets, args[i+1:]...)
			break
		}
		if hasShort(a, "rRfd") || hasLong(a, "recursive", "force", "dir") {
			flagged = true
		}
		if a == "-" || a == "" || a[0] != '-' {
			targets = append(targets, a)
		}
	}
	return flagged && slices.ContainsFunc(targets, unboundedTarget)
}

func TestDangerousRmAgreesWithTheList(t *testing.T) {
	words := []string{"--", "-", "", "-r", "-f", "-rf", "--force", "--recursive", "--dir", "-i", "-v", "x", "/", "//", "~", "~/x", "$HOME", "/*", "/.", "a/../b", "..", "build", "-x/"}
	rng := rand.New(rand.NewPCG(23, 14))
	for range 200000 {
		args := make([]string, rng.IntN(7))
		for i := range args {
			args[i] = words[rng.IntN(len(words))]
		}
		if got, want := dangerousRm(args), dangerousRmByList(args); got != want {
			t.Fatalf("dangerousRm(%q) = %v, the list says %v", args, got, want)
		}
	}
}
