package diagnostics

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// The `*` deny wildcard: from 0.10.0 a `*` word of a promoted deny matches
// any number of command words (docs/codewhale/releases/0.10.0.md A.3.4);
// from 0.10.1 typed non-exact denies match the same way (releases/0.10.1.md
// N3). Everywhere else `*` is a literal word.

func hasStarWord(cmd string) bool { return slices.Contains(strings.Fields(cmd), "*") }

// onlyStars: cmd has words and every one is `*` (`*`, `* *`).
func onlyStars(cmd string) bool {
	words := strings.Fields(cmd)
	return len(words) > 0 && !slices.ContainsFunc(words, func(w string) bool { return w != "*" })
}

// StarIsWildcard reports whether release rel reads a `*` word in r's
// command as any number of command words.
func StarIsWildcard(r execpolicy.Rule, rel release.Release) bool {
	switch {
	case r.Action != execpolicy.Deny || r.Command == nil || r.CommandExact || !rel.Has(release.DenyWildcard):
		return false
	case r.Promoted():
		return true
	}
	return rel.Has(release.TypedDenyMatcher)
}

// literalStar says why the `*` of a deny is a literal word under the
// release, or "" when it is a wildcard.
func literalStar(r execpolicy.Rule, rel release.Release) string {
	switch {
	case StarIsWildcard(r, rel):
		return ""
	case !rel.Has(release.DenyWildcard):
		return fmt.Sprintf("this `*` is not a wildcard in Codewhale %s: it matches only a literal `*` word (deny prefixes read `*` as any words from Codewhale 0.10.0)", rel.Name())
	case r.CommandExact:
		return fmt.Sprintf("this `*` is not a wildcard here: an exact deny compares the whole command as written, so in Codewhale %s it matches only a literal `*`; only a deny without command_exact reads `*` as any words", rel.Name())
	}
	return fmt.Sprintf("this `*` is not a wildcard here: Codewhale %s reads `*` as any words only in a deny without workspace or command_exact (a workspace-scoped deny matches it as a literal `*` until Codewhale 0.10.1)", rel.Name())
}

// wildcardSpelling is cmd with its run of flags, between the command words
// and a later argument, replaced by `*` (`rm -rf /` → `rm * /`): the spelling
// that catches the flags in any order and form, and wider, a command it
// also catches that cmd does not (`rm -rf x /`). ok is false when cmd has
// no such run.
func wildcardSpelling(cmd string) (wild, wider string, ok bool) {
	words := strings.Fields(cmd)
	isFlag := func(w string) bool { return strings.HasPrefix(w, "-") && len(w) > 1 }
	i := slices.IndexFunc(words, isFlag)
	if i < 1 {
		return "", "", false
	}
	j := i
	for j < len(words) && isFlag(words[j]) {
		j++
	}
	if j == len(words) {
		return "", "", false
	}
	wild = strings.Join(slices.Concat(words[:i], []string{"*"}, words[j:]), " ")
	wider = strings.Join(slices.Concat(words[:j], []string{"x"}, words[j:]), " ")
	return wild, wider, true
}
