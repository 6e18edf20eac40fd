package gate

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// hardeningRules are the deny rules of issue 17's measurement, with allow
// rules an ordinary user has.
const hardeningRules = `[[rules]]
tool = "exec_shell"
command = "git push"
action = "deny"

[[rules]]
tool = "exec_shell"
command = "cargo publish"
action = "deny"

[[rules]]
tool = "exec_shell"
command = "rm -rf /"
action = "deny"

[[rules]]
tool = "exec_shell"
command = "cargo test"
action = "allow"

[[rules]]
tool = "exec_shell"
command = "npm test"
action = "allow"

[[rules]]
tool = "exec_shell"
command = "git status"
action = "allow"
`

// corpus reads one command per line of testdata/hardening/NAME, `\n`
// standing for a line break; # lines are comments.
func corpus(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open("testdata/hardening/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, strings.ReplaceAll(line, `\n`, "\n"))
		}
	}
	return out
}

var hardeningReleases = []string{"0.9.10", "0.10.0", "0.10.1"}

// TestHardeningHoldsEveryBypass: under Full Access, every form of the
// bypass corpus is held (deny or ask) with the layer on, at every
// release; with Exact it gets Codewhale's own answer, which lets some
// through (counted per release, as issue 17 measured them).
func TestHardeningHoldsEveryBypass(t *testing.T) {
	forms := corpus(t, "bypasses.txt")
	forms = append(forms, fillerThenDeny())
	for _, version := range hardeningReleases {
		fx := load(t, files{permissions: hardeningRules, git: true, release: version}).noFatal(t)
		through := 0
		for _, cmd := range forms {
			req := withPosture(fx.call("exec_shell", map[string]any{"command": cmd}), session.FullAccess)
			hardened := fx.decide(t, req, Deps{})
			if hardened.Decision == Allow {
				t.Errorf("%s: hardened, %q is allowed: %s", version, short(cmd), hardened.Reason)
			}
			if exact := fx.decide(t, req, Deps{Exact: true}); exact.Decision == Allow {
				through++
			}
		}
		t.Logf("Codewhale %s: %d of %d bypass forms get through exact, 0 hardened", version, through, len(forms))
	}
}

// fillerThenDeny is a denied command after 256 distinct lines.
func fillerThenDeny() string {
	var b strings.Builder
	for i := range 256 {
		b.WriteString("echo filler ")
		b.WriteString(strings.Repeat("x", i%7+1))
		b.WriteString(string(rune('a' + i%26)))
		b.WriteString(strings.Repeat("y", i/26))
		b.WriteString("\n")
	}
	return b.String() + "git push"
}

func short(s string) string {
	if len(s) > 80 {
		return s[:40] + "…" + s[len(s)-30:]
	}
	return s
}

// TestHardeningRaisesNoFalseAlarm: every ordinary command of the corpus
// gets exactly the same decision with the layer on as with it off, at
// every release, under Ask and under Full Access.
func TestHardeningRaisesNoFalseAlarm(t *testing.T) {
	cmds := corpus(t, "ordinary.txt")
	if len(cmds) < 1000 {
		t.Fatalf("the ordinary corpus has %d commands, want at least 1,000", len(cmds))
	}
	for _, version := range hardeningReleases {
		fx := load(t, files{permissions: hardeningRules, git: true, release: version}).noFatal(t)
		differ := 0
		for _, posture := range []session.Posture{session.Ask, session.FullAccess} {
			for _, cmd := range cmds {
				req := withPosture(fx.call("exec_shell", map[string]any{"command": cmd}), posture)
				on, off := fx.decide(t, req, Deps{}), fx.decide(t, req, Deps{Exact: true})
				if on.Decision != off.Decision || on.Reason != off.Reason || on.Layer != off.Layer {
					differ++
					t.Errorf("%s %s: %q: hardened %s at %d (%s), exact %s at %d (%s)", version, posture, cmd, on.Decision, on.Layer, on.Reason, off.Decision, off.Layer, off.Reason)
				}
			}
		}
		t.Logf("Codewhale %s: %d ordinary commands under two postures, %d decided otherwise with the layer on", version, len(cmds), differ)
	}
}

// TestSessionGrantNeverCoversACompoundCommand: from 0.10.0 a session
// grant for `cargo test` covers `cargo test -- ; rm -rf ~/x` in Codewhale
// (Exact); with the layer on only its exact text could, so it asks again,
// while a simple `cargo test --release` stays covered where the release
// covers it.
func TestSessionGrantNeverCoversACompoundCommand(t *testing.T) {
	for _, version := range hardeningReleases {
		fx := load(t, files{git: true, release: version}).noFatal(t)
		granted := approvedFor("exec_shell", "shell:cargo test", GroupingKey(fx.snap.Release, "exec_shell", map[string]any{"command": "cargo test"}))
		chained := fx.call("exec_shell", map[string]any{"command": "cargo test -- ; rm -rf ~/x"})
		if d := fx.decide(t, chained, Deps{Sessions: granted}); d.Decision != Ask {
			t.Errorf("%s: hardened, a grant covered the chain: %s: %s", version, d.Decision, d.Reason)
		}
		exact := fx.decide(t, chained, Deps{Sessions: granted, Exact: true})
		simple := fx.call("exec_shell", map[string]any{"command": "cargo test --release"})
		if on, off := fx.decide(t, simple, Deps{Sessions: granted}), fx.decide(t, simple, Deps{Sessions: granted, Exact: true}); on.Decision != off.Decision {
			t.Errorf("%s: a simple command's grant changed: %s, exact %s", version, on.Decision, off.Decision)
		}
		self := approvedFor(ExactKey("exec_shell", chained.Input))
		if d := fx.decide(t, chained, Deps{Sessions: self}); d.Decision != Allow {
			t.Errorf("%s: the chain's own exact approval did not cover it: %s: %s", version, d.Decision, d.Reason)
		}
		t.Logf("Codewhale %s, exact: the cargo test grant gives the chain %s", version, exact.Decision)
	}
}
