package gate

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// TestHardeningHoldsEveryHostileForm: under Full Access, with the deny
// rules of issue 17's measurement, every form of the hostile corpus
// (issue 23; each confirmed in real bash by TestHostileFormsRunInBash)
// is held (deny or ask) with the layer on, at every release. It logs, per
// class and release, how many forms Codewhale lets through (Exact) and how
// many the layer lets through.
func TestHardeningHoldsEveryHostileForm(t *testing.T) {
	forms := hostileCorpus(t)
	total := map[string]int{}
	var classes []string
	for _, f := range forms {
		if total[f.class] == 0 {
			classes = append(classes, f.class)
		}
		total[f.class]++
	}
	sort.Strings(classes)
	for _, version := range hardeningReleases {
		fx := load(t, files{permissions: hardeningRules, git: true, release: version}).noFatal(t)
		exactThrough, hardenedThrough := map[string]int{}, map[string]int{}
		for _, f := range forms {
			req := withPosture(fx.call("exec_shell", map[string]any{"command": f.text}), session.FullAccess)
			if d := fx.decide(t, req, Deps{}); d.Decision == Allow {
				hardenedThrough[f.class]++
				t.Errorf("%s: %s:%d: hardened, %q is allowed", version, f.class, f.line, short(f.text))
			}
			if d := fx.decide(t, req, Deps{Exact: true}); d.Decision == Allow {
				exactThrough[f.class]++
			}
		}
		sumExact, sumHardened := 0, 0
		for _, c := range classes {
			t.Logf("Codewhale %s: %-16s %2d forms: exact lets %2d through, hardened %2d", version, c, total[c], exactThrough[c], hardenedThrough[c])
			sumExact += exactThrough[c]
			sumHardened += hardenedThrough[c]
		}
		t.Logf("Codewhale %s: all %d hostile forms: exact lets %d through, hardened %d", version, len(forms), sumExact, sumHardened)
	}
}

// realRules is a permissions.toml a real user writes: what must never run,
// what needs a look, and the everyday commands allowed outright.
const realRules = `[[rules]]
tool = "exec_shell"
command = "git push --force"
action = "deny"

[[rules]]
tool = "exec_shell"
command = "git push"
action = "deny"

[[rules]]
tool = "exec_shell"
command = "cargo publish"
action = "deny"

[[rules]]
tool = "exec_shell"
command = "npm publish"
action = "deny"

[[rules]]
tool = "exec_shell"
command = "rm -rf /"
action = "deny"

[[rules]]
tool = "exec_shell"
command = "git reset --hard"
action = "ask"

[[rules]]
tool = "exec_shell"
command = "git clean -fdx"
action = "ask"

[[rules]]
tool = "exec_shell"
command = "kubectl delete"
action = "ask"

[[rules]]
tool = "exec_shell"
command = "cargo test"
action = "allow"

[[rules]]
tool = "exec_shell"
command = "cargo build"
action = "allow"

[[rules]]
tool = "exec_shell"
command = "npm test"
action = "allow"

[[rules]]
tool = "exec_shell"
command = "go test"
action = "allow"

[[rules]]
tool = "exec_shell"
command = "git status"
action = "allow"

[[rules]]
tool = "exec_shell"
command = "git diff"
action = "allow"

[[rules]]
tool = "exec_shell"
command = "git log"
action = "allow"
`

// realCorpus reads gate/testdata/hardening/real/*.txt: one command a line,
// verbatim (no escapes), # lines the header naming the source and its
// licence.
func realCorpus(t testing.TB) map[string][]string {
	t.Helper()
	paths, err := filepath.Glob("testdata/hardening/real/*.txt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no real corpus: %v", err)
	}
	out := map[string][]string{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		name := strings.TrimSuffix(filepath.Base(p), ".txt")
		for sc.Scan() {
			if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
				out[name] = append(out[name], l)
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// bashRejects is, for each changed command, whether `bash -n` rejects it
// (nothing when bash is not installed).
func bashRejects(t *testing.T, diffs []realDiff) map[string]bool {
	out := map[string]bool{}
	bash, err := exec.LookPath("bash")
	if err != nil {
		return out
	}
	for _, d := range diffs {
		if _, done := out[d.cmd]; done {
			continue
		}
		cmd := exec.CommandContext(t.Context(), bash, "-n", "-c", d.cmd)
		cmd.Env = []string{"PATH=/nonexistent", "LANG=C"}
		out[d.cmd] = cmd.Run() != nil && !strings.Contains(d.cmd, "\n")
	}
	return out
}

// realDiff is one decision the layer changed.
type realDiff struct {
	source, version, cmd string
	posture              session.Posture
	on, off              Decision
}

func (d realDiff) String() string {
	return fmt.Sprintf("%s %s %s: %q: hardened %s at %s (%s), exact %s at %s (%s)", d.source, d.version, d.posture, short(d.cmd),
		d.on.Decision, d.on.Layer, shortReason(d.on.Reason), d.off.Decision, d.off.Layer, shortReason(d.off.Reason))
}

func shortReason(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}

// TestHardeningRealCommandsUnchanged (issue 23): every command of the real
// corpus, public one-liner collections nobody here wrote, is decided at
// every release under Ask and under Full Access with a realistic policy,
// hardened and Exact. No decision may change with the layer on, except
// a hold Codewhale 0.10.1 itself makes: where hardened at release R differs
// from exact at R but equals exact at 0.10.1, the layer only brings 0.10.1's
// answer to an older release (counted apart, allowed). Commands whose
// decision is the same but whose layer or reason changed are counted and
// listed with -v, not failed.
//
// With -short every 8th command is decided.
func TestHardeningRealCommandsUnchanged(t *testing.T) {
	corpora := realCorpus(t)
	var sources []string
	for s := range corpora {
		sources = append(sources, s)
	}
	sort.Strings(sources)
	latest := hardeningReleases[len(hardeningReleases)-1]
	fixtures := map[string]fixture{}
	for _, v := range hardeningReleases {
		fixtures[v] = load(t, files{permissions: realRules, git: true, release: v}).noFatal(t)
	}
	postures := []session.Posture{session.Ask, session.FullAccess}
	var differ, asLatest, reworded []realDiff
	decided := 0
	for _, source := range sources {
		cmds := corpora[source]
		for i, cmd := range cmds {
			if testing.Short() && i%8 != 0 {
				continue
			}
			for _, posture := range postures {
				latestExact := Decision{}
				haveLatest := false
				for _, v := range hardeningReleases {
					fx := fixtures[v]
					req := withPosture(fx.call("exec_shell", map[string]any{"command": cmd}), posture)
					on, off := fx.decide(t, req, Deps{}), fx.decide(t, req, Deps{Exact: true})
					decided++
					d := realDiff{source: source, version: v, cmd: cmd, posture: posture, on: on, off: off}
					switch {
					case on.Decision != off.Decision:
						if !haveLatest {
							lx := fixtures[latest]
							latestExact = lx.decide(t, withPosture(lx.call("exec_shell", map[string]any{"command": cmd}), posture), Deps{Exact: true})
							haveLatest = true
						}
						if v != latest && on.Decision == latestExact.Decision {
							asLatest = append(asLatest, d)
						} else {
							differ = append(differ, d)
						}
					case on.Layer != off.Layer || on.Reason != off.Reason:
						reworded = append(reworded, d)
					}
				}
			}
		}
		t.Logf("%s: %d commands", source, len(cmds))
	}
	for _, d := range asLatest {
		if testing.Verbose() {
			t.Logf("as Codewhale %s holds it: %s", latest, d)
		}
	}
	for _, d := range reworded {
		if testing.Verbose() {
			t.Logf("same decision, other layer or reason: %s", d)
		}
	}
	// Which changed lines bash itself rejects: on a line of one line a
	// syntax error means bash runs none of it, so the layer's hold there
	// stops nothing that would run. Counted and listed, not failed.
	rejects := bashRejects(t, differ)
	// Every other change must be a hold reviewed in held.txt: a command
	// whose program, code or arguments come from what only the running
	// line knows (a program's output, a download, words built at run
	// time) where a deny rule could be met. A change not there fails, and
	// so does an entry that no longer changes anything.
	ledger := heldOnPurpose(t)
	rejected, held := 0, 0
	current := map[string]string{}
	for _, d := range differ {
		switch {
		case rejects[d.cmd]:
			rejected++
			if testing.Verbose() {
				t.Logf("changed (bash -n rejects the line, so bash runs none of it): %s", d)
			}
		case ledger[d.cmd]:
			held++
			current[d.cmd] = holdReason(d.on.Reason)
			if testing.Verbose() {
				t.Logf("held on purpose (held.txt): %s", d)
			}
		default:
			current[d.cmd] = holdReason(d.on.Reason)
			if os.Getenv("UPDATE_REAL_HELD") != "1" {
				t.Errorf("changed: %s", d)
			}
		}
	}
	if os.Getenv("UPDATE_REAL_HELD") == "1" {
		writeHeld(t, current)
	} else if !testing.Short() {
		for cmd := range ledger {
			if _, ok := current[cmd]; !ok {
				t.Errorf("held.txt lists %q, which the layer no longer changes: take it out", short(cmd))
			}
		}
	}
	byRelease := map[string]int{}
	for _, d := range differ {
		byRelease[d.version+" "+d.posture.String()]++
	}
	keys := make([]string, 0, len(byRelease))
	for k := range byRelease {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("changed at %s: %d", k, byRelease[k])
	}
	t.Logf("%d decisions (hardened and exact each): %d changed by the layer (%d of them on lines bash rejects as a syntax error, %d reviewed holds of held.txt on %d commands), %d changed only to what Codewhale %s decides, %d the same decision with another layer or reason",
		decided, len(differ), rejected, held, len(ledger), len(asLatest), latest, len(reworded))
}

// heldPath is the ledger of real commands the layer holds on purpose.
const heldPath = "testdata/hardening/held.txt"

// heldOnPurpose reads held.txt: `#` comments, and one command a line,
// Go-quoted, after the reason the layer gave and a tab.
func heldOnPurpose(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	data, err := os.ReadFile(heldPath)
	if err != nil {
		if os.Getenv("UPDATE_REAL_HELD") == "1" {
			return out
		}
		t.Fatalf("%v (UPDATE_REAL_HELD=1 writes it)", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		_, cmd, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("%s: %q has no tab between the reason and the command", heldPath, line)
		}
		unquoted, err := strconv.Unquote(cmd)
		if err != nil {
			t.Fatalf("%s: %q: the command is not Go-quoted: %v", heldPath, line, err)
		}
		out[unquoted] = true
	}
	return out
}

// holdReason is the layer's words for a hold, without the posture's
// preamble, cut to a line.
func holdReason(reason string) string {
	if i := strings.Index(reason, "hardening: "); i >= 0 {
		reason = reason[i+len("hardening: "):]
	}
	reason = strings.TrimPrefix(reason, "a person must decide: ")
	if i := strings.Index(reason, ", so "); i > 0 {
		reason = reason[:i]
	}
	reason = strings.NewReplacer("\t", " ", "\n", " ").Replace(reason)
	if len(reason) > 100 {
		reason = reason[:100] + "…"
	}
	return reason
}

// writeHeld rewrites held.txt from the holds of this run, for review.
func writeHeld(t *testing.T, current map[string]string) {
	t.Helper()
	cmds := make([]string, 0, len(current))
	for c := range current {
		cmds = append(cmds, c)
	}
	sort.Slice(cmds, func(i, j int) bool {
		if current[cmds[i]] != current[cmds[j]] {
			return current[cmds[i]] < current[cmds[j]]
		}
		return cmds[i] < cmds[j]
	})
	var b strings.Builder
	b.WriteString(heldHeader)
	for _, c := range cmds {
		b.WriteString(current[c] + "\t" + strconv.Quote(c) + "\n")
	}
	if err := os.WriteFile(heldPath, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

const heldHeader = `# Real commands (real/*.txt) whose decision the hardening layer changes
# on purpose: each runs a program, code or arguments that only the
# running line knows (a program's output, a download, words built at run
# time, a file name a program prints) where a deny rule of realRules
# could be met, so a person decides (docs/hardening.md). Each was
# reviewed; the reason is the layer's own. Under Ask none of them
# changes: Codewhale already asks. Written by UPDATE_REAL_HELD=1 go test
# ./gate -run TestHardeningRealCommandsUnchanged, then read line by line.
`
