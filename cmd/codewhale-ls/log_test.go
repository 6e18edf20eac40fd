package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/gate"
)

// logReceipt is the i-th receipt of writeLog: agents, repositories,
// tools and decisions taking turns, an hour apart up to now.
func logReceipt(repo string, i, n int) approvals.Receipt {
	agents := []string{"codex", "claude-code", ""}
	tools := []string{"exec_shell", "read_file"}
	decisions := []gate.Verdict{gate.Allow, gate.Ask, gate.Deny}
	rule := fmt.Sprintf("step%d", i)
	return approvals.Receipt{
		V: approvals.ReceiptVersion, ID: fmt.Sprintf("tabc%02ddefg", i), Time: time.Now().Add(-time.Duration(n-i) * time.Hour).UTC(),
		Agent: agents[i%len(agents)], Session: "s", Repo: repo, Tool: tools[i%len(tools)],
		Input:    []approvals.ReceiptInput{{Field: "command", Text: "make " + rule, Bytes: 5 + len(rule)}},
		Decision: decisions[i%len(decisions)], Layer: gate.LayerPermissions, LayerName: "permissions", Rule: &rule, Reason: "because " + rule,
		Decider:   &approvals.Decider{Kind: approvals.DecidedByRule, Summary: "the rule '" + rule + "' at /p.toml:1", File: "/p.toml", Line: 1, Rule: rule},
		Codewhale: "0.10.1", Hardening: "on",
		Trace: []gate.TraceEntry{{Layer: gate.LayerPermissions, Name: "permissions", Effect: gate.Effect(decisions[i%len(decisions)]), Detail: "rule " + rule}},
	}
}

// writeLog writes n receipts to a log in a new directory, the first half
// in repo a, the rest in repo b, and returns the log, the repositories
// and the receipts.
func writeLog(t *testing.T, n int) (path, a, b string, written []approvals.Receipt) {
	t.Helper()
	dir := t.TempDir()
	a, b = filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	path = filepath.Join(dir, "codewhale-ls", "decisions.jsonl")
	log, err := approvals.OpenRotatingDecisionLog(path, approvals.Rotation{MaxBytes: 2 << 10, Generations: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	for i := range n {
		repo := a
		if i >= n/2 {
			repo = b
		}
		r := logReceipt(repo, i, n)
		written = append(written, r)
		if err := log.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	return path, a, b, written
}

// jsonIDs reads `log --json`'s output: one receipt per line.
func jsonIDs(t *testing.T, out string) []string {
	t.Helper()
	var ids []string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var r approvals.Receipt
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("not a receipt per line: %v\n%s", err, line)
		}
		ids = append(ids, r.ID)
	}
	return ids
}

func idsOf(rs []approvals.Receipt, keep func(approvals.Receipt) bool) []string {
	var ids []string
	for _, r := range rs {
		if keep(r) {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// Each flag reaches its filter: `log --json` with it prints exactly the
// receipts its words select, oldest first, the last --limit of them.
func TestLogFlagsSelect(t *testing.T) {
	path, a, _, written := writeLog(t, 12)
	all := func(approvals.Receipt) bool { return true }
	tests := []struct {
		args []string
		want []string
	}{
		{nil, idsOf(written, all)},
		{[]string{"--decision", "deny"}, idsOf(written, func(r approvals.Receipt) bool { return r.Decision == gate.Deny })},
		{[]string{"--agent", "codex"}, idsOf(written, func(r approvals.Receipt) bool { return r.Agent == "codex" })},
		{[]string{"--agent", "codewhale"}, idsOf(written, func(r approvals.Receipt) bool { return r.Agent == "" })},
		{[]string{"--tool", "read_file"}, idsOf(written, func(r approvals.Receipt) bool { return r.Tool == "read_file" })},
		{[]string{"--repo", a}, idsOf(written, func(r approvals.Receipt) bool { return r.Repo == a })},
		{[]string{"--since", "150m"}, idsOf(written, func(r approvals.Receipt) bool { return time.Since(r.Time) < 150*time.Minute })},
		{[]string{"--limit", "3"}, idsOf(written[len(written)-3:], all)},
		{[]string{"--limit", "0"}, idsOf(written, all)},
		{[]string{"--decision", "ask", "--tool", "exec_shell", "--limit", "1"}, idsOf(written, func(r approvals.Receipt) bool {
			return r.Decision == gate.Ask && r.Tool == "exec_shell" && r.ID == "tabc10defg"
		})},
	}
	for _, tc := range tests {
		code, out, errOut := runCLI(t, "", append([]string{"log", "--json", "--file", path}, tc.args...)...)
		if got := jsonIDs(t, out); code != 0 || !slices.Equal(got, tc.want) {
			t.Errorf("log %v: exit %d, %v, want %v\n%s", tc.args, code, got, tc.want, errOut)
		}
	}
	if _, err := os.Stat(path + ".3"); err != nil {
		t.Errorf("the log did not rotate: %v", err)
	}
}

// The table: a header, one line per receipt newest last with its id,
// and a line saying how many of how many when --limit leaves some out.
func TestLogTable(t *testing.T) {
	path, _, _, written := writeLog(t, 12)
	code, out, errOut := runCLI(t, "", "log", "--file", path, "--limit", "4")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) != 6 {
		t.Fatalf("exit %d, %d lines:\n%s%s", code, len(lines), out, errOut)
	}
	for _, column := range []string{"TIME", "AGENT", "REPO", "DECISION", "WHAT", "DECIDED BY", "ID"} {
		if !strings.Contains(lines[0], column) {
			t.Errorf("the header lacks %s: %s", column, lines[0])
		}
	}
	for i, r := range written[len(written)-4:] {
		row := lines[1+i]
		if !strings.HasSuffix(row, r.ID) || !strings.Contains(row, string(r.Decision)) || !strings.Contains(row, r.Tool+" make step") ||
			!strings.Contains(row, r.Time.Local().Format("2006-01-02 15:04:05")) || strings.Contains(row, "\x1b") {
			t.Errorf("row %d for %s: %q", i, r.ID, row)
		}
	}
	if want := "the last 4 decisions that matched, from " + path + " and 3 rotated files; older ones are left out"; !strings.HasPrefix(lines[5], want) {
		t.Errorf("last line %q, want %q…", lines[5], want)
	}
	code, out, _ = runCLI(t, "", "log", "--file", path, "--agent", "cursor")
	if code != 0 || !strings.Contains(out, "no decision in "+path) || !strings.Contains(out, "matched") {
		t.Errorf("none matched: exit %d\n%s", code, out)
	}
}

// Without --file the log is the Codewhale home's; with no log yet, exit 0
// saying where it looked and how decisions get there.
func TestLogDefaultFileAndNoLogYet(t *testing.T) {
	home := t.TempDir()
	t.Setenv("CODEWHALE_HOME", home)
	code, out, errOut := runCLI(t, "", "log")
	want := "no decisions recorded yet in " + filepath.Join(home, "codewhale-ls", "decisions.jsonl") + ": decisions are recorded when an agent's hook or an editor decides a call"
	if code != 0 || strings.TrimSpace(out) != want {
		t.Errorf("exit %d\n%s%s\nwant %s", code, out, errOut, want)
	}
	code, out, errOut = runCLI(t, "", "log", "--json")
	if code != 0 || out != "" || !strings.Contains(errOut, "no decisions recorded yet") {
		t.Errorf("--json with no log: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	path, _, _, written := writeLog(t, 3)
	if err := os.MkdirAll(filepath.Join(home, "codewhale-ls"), 0o700); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "codewhale-ls", "decisions.jsonl"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, "", "log", "--json")
	if got := jsonIDs(t, out); code != 0 || len(got) == 0 || got[len(got)-1] != written[2].ID {
		t.Errorf("the home's log: exit %d, %v", code, got)
	}
}

// Bad usage is exit 2 naming the flag.
func TestLogExitCodes(t *testing.T) {
	path, _, _, _ := writeLog(t, 3)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--decision", "maybe"}, "--decision"},
		{[]string{"--since", "yesterday"}, "--since"},
		{[]string{"--since", "-2h"}, "--since"},
		{[]string{"--limit", "-1"}, "--limit"},
		{[]string{"--limit", "ten"}, "--limit"},
		{[]string{"--agent", ""}, "--agent"},
		{[]string{"--colour"}, "--colour"},
		{[]string{"--limit"}, "--limit"},
		{[]string{"extra"}, "extra"},
		{[]string{"show"}, "ID"},
		{[]string{"show", "t0"}, "at least 4"},
		{[]string{"show", "tabc00defg", "--decision", "deny"}, "--decision"},
		{[]string{"show", "tabc00defg", "--follow"}, "--follow"},
	} {
		code, out, errOut := runCLI(t, "", append([]string{"log", "--file", path}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "usage: codewhale-ls log") {
			t.Errorf("log %v: exit %d, stdout %q, stderr %q; want 2 naming %s", c.args, code, out, errOut, c.want)
		}
	}
}

// log show: by id or a unique start of one, as JSON too; a start several
// share lists them; an id nobody has says where it looked. Exit 1 for
// both.
func TestLogShow(t *testing.T) {
	path, _, _, written := writeLog(t, 12)
	r := written[7]
	for _, id := range []string{r.ID, r.ID[:6]} {
		code, out, errOut := runCLI(t, "", "log", "show", id, "--file", path)
		for _, want := range []string{"receipt:    " + r.ID, "decided by: " + r.Decider.Summary, "  command: make step7", "=> 5 permissions", "decision: " + string(r.Decision) + " by layer 5 (permissions) [rule: step7]: because step7"} {
			if code != 0 || !strings.Contains(out, want) {
				t.Errorf("log show %s: exit %d, lacks %q\n%s%s", id, code, want, out, errOut)
			}
		}
	}
	code, out, _ := runCLI(t, "", "log", "show", r.ID, "--json", "--file", path)
	if got := jsonIDs(t, out); code != 0 || !slices.Equal(got, []string{r.ID}) {
		t.Errorf("log show --json: exit %d, %v", code, got)
	}
	code, out, errOut := runCLI(t, "", "log", "show", "tabc0", "--file", path)
	if code != 1 || out != "" || !strings.Contains(errOut, "names more than one receipt") || !strings.Contains(errOut, "tabc00defg") || !strings.Contains(errOut, "tabc09defg") {
		t.Errorf("ambiguous: exit %d, stderr %s", code, errOut)
	}
	code, _, errOut = runCLI(t, "", "log", "show", "zzzzzz", "--file", path)
	if code != 1 || !strings.Contains(errOut, "no receipt zzzzzz in "+path) {
		t.Errorf("unknown: exit %d, stderr %s", code, errOut)
	}
}
