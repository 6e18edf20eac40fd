package execpolicy

import (
	"math/rand/v2"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy/shell"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// The indexes must find exactly what a linear scan over every rule finds,
// including tie-breaks. These linear versions restate §2.4/§2.5 directly.

func linearWinner(e *Engine, c *call, command string) int {
	best := -1
	for id := range e.typed {
		r := &e.typed[id]
		if r.rule.Tool != c.tool || c.admits(r) == notAdmitted {
			continue
		}
		if r.rule.Command != nil {
			typedDeny := r.rule.Action == Deny && e.release.Has(release.TypedDenyMatcher) &&
				e.dialect.DenyMatch(*r.rule.Command, command)
			if r.rule.CommandExact && shell.ExactKey(*r.rule.Command) != shell.ExactKey(command) ||
				!r.rule.CommandExact && !e.dialect.AllowMatch(*r.rule.Command, command) && !typedDeny {
				continue
			}
		}
		if best < 0 || r.outranks(&e.typed[best], id, best) {
			best = id
		}
	}
	return best
}

func linearTrusted(e *Engine, command string) int {
	for i, p := range e.trusted.patterns {
		if e.dialect.AllowMatch(p, command) {
			return i
		}
	}
	return -1
}

func linearDenied(e *Engine, command string) int {
	for i, p := range e.denied.patterns {
		for _, target := range shell.DenyTargets(command) {
			if e.dialect.DenyMatch(p, target) {
				return i
			}
		}
	}
	return -1
}

var (
	words    = []string{"git", "status", "push", "cargo", "test", "npm", "run", "build", "docker", "compose", "up", "/usr/bin/git", "rm", "FOO=1", "Git", "x", "*", "python", "-m", "$v", "\"a;b\"", "`id`", ">out", "|", "(ls)", "/bin/rm", "sudo", "watch", "<<EOF\nrm\nEOF", "2>&1", "../a.txt"}
	flags    = []string{"-s", "--force", "-C", "--all", "-c", "a=b"}
	spacings = []string{" ", "  ", "\t", "\u00a0"}
)

func randomCommand(rng *rand.Rand) string {
	n := 1 + rng.IntN(4)
	s := ""
	for i := range n {
		if i > 0 {
			s += spacings[rng.IntN(len(spacings))]
		}
		if rng.IntN(4) == 0 {
			s += flags[rng.IntN(len(flags))]
		} else {
			s += words[rng.IntN(len(words))]
		}
	}
	switch rng.IntN(8) {
	case 0:
		s += "; ls"
	case 1:
		s = " " + s + " "
	case 2:
		s = ""
	}
	return s
}

func pick(rng *rand.Rand, options ...string) *string {
	i := rng.IntN(len(options) + 1)
	if i == len(options) {
		return nil
	}
	return &options[i]
}

func randomRule(rng *rand.Rand) Rule {
	r := Rule{
		Tool:         []string{"exec_shell", "read_file", "write_file"}[rng.IntN(3)],
		CommandExact: rng.IntN(3) == 0,
		Path:         pick(rng, "a.txt", "/workspace/a.txt", "b.txt", "", "../a.txt", "~/a.txt", "/etc/a", "", ""),
		Workspace:    pick(rng, "/workspace", "/other", "rel", "/workspace/", "", "", ""),
		Action:       Action(rng.IntN(3)),
	}
	if rng.IntN(5) > 0 {
		c := randomCommand(rng)
		r.Command = &c
	}
	return r
}

func TestIndexMatchesLinearScan(t *testing.T) {
	for _, r := range release.Implemented {
		t.Run(r.Version, func(t *testing.T) { indexMatchesLinearScan(t, r) })
	}
}

func indexMatchesLinearScan(t *testing.T, r release.Release) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var rulesets []Ruleset
		for range 1 + rng.IntN(3) {
			var rules []Rule
			for range rng.IntN(40) {
				rules = append(rules, randomRule(rng))
			}
			rs := CompileRules(rules)
			rs.Layer = Layer(rng.IntN(3))
			rulesets = append(rulesets, rs)
		}
		e := NewEngine(rulesets, WithLegacyPrefixes([]string{randomCommand(rng)}, []string{randomCommand(rng)}),
			WithPathCaseFolding(false), WithRelease(r))
		for range 50 {
			command := randomCommand(rng)
			in := Input{Command: command, Tool: []string{"exec_shell", "read_file", "write_file"}[rng.IntN(3)],
				Cwd: []string{"/workspace", "/other", "rel"}[rng.IntN(3)], Path: pick(rng, "a.txt", "/workspace/a.txt", "", "~/a.txt", "/etc/a", "x/../a.txt")}
			c := e.newCall(in)
			if got, want := e.winner(c, command).id, linearWinner(e, c, command); got != want {
				t.Fatalf("round %d: winner(%q) = %d, linear %d", round, command, got, want)
			}
			got, _ := e.trusted.first(e.dialect.AllowSubject(command))
			if want := linearTrusted(e, command); got != want {
				t.Fatalf("round %d: trusted(%q) = %d, linear %d", round, command, got, want)
			}
			got, _ = e.denied.first(shell.DenyTargets(command))
			if want := linearDenied(e, command); got != want {
				t.Fatalf("round %d: denied(%q) = %d, linear %d", round, command, got, want)
			}
			// A newer release names changes exactly when it decides
			// unlike the oldest.
			in.Mode = Mode{Kind: ModeKind(rng.IntN(5)), RejectRules: rng.IntN(2) == 0}
			res, base := e.Check(in), e.asOldest().Check(in)
			if differs := !sameOutcome(res, base); differs != (res.Changes != nil) {
				t.Fatalf("round %d: %+v differs from the oldest release: %v, changes %v", round, in, differs, res.Changes)
			}
		}
	}
}
