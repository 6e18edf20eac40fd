package receiptlog

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/gate"
)

// `log show ID` takes the whole id or, as git takes commits, its start
// when only one receipt has it; a start several ids share lists them.
func TestFindByIDOrPrefix(t *testing.T) {
	fx := writeFixture(t)
	find := func(id string) (approvals.Receipt, error) {
		reader, err := Log{Path: fx.path}.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer reader.Close()
		return reader.Find(id)
	}
	// An id in the oldest generation, and the newest.
	for _, i := range []int{fixtureOld, fixtureReceipts - 1} {
		want := fixtureID(i)
		for _, id := range []string{want, want[:7]} {
			r, err := find(id)
			if err != nil || r.ID != want || r.Session != fixtureReceipt(fx.dirs, i).Session {
				t.Errorf("Find(%s) = %s, %v; want %s", id, r.ID, err, want)
			}
		}
	}
	// kq22 starts the ids of receipts 0 to 31; those before fixtureOld
	// have none.
	_, err := find("kq22")
	var ambiguous *AmbiguousError
	if !errors.As(err, &ambiguous) || len(ambiguous.Candidates) != maxCandidates || ambiguous.More != 32-fixtureOld-maxCandidates ||
		!strings.Contains(err.Error(), "and 10 more") {
		t.Fatalf("Find(kq22) = %v, want ambiguous", err)
	}
	for _, c := range ambiguous.Candidates {
		if !strings.HasPrefix(c.ID, "kq22") || !strings.Contains(err.Error(), c.ID) {
			t.Errorf("candidate %s of kq22 in %v", c.ID, err)
		}
	}
	_, err = find("kqzzzz")
	var notFound *NotFoundError
	if !errors.As(err, &notFound) || !strings.Contains(err.Error(), fx.path) {
		t.Errorf("Find(kqzzzz) = %v, want not found naming the log", err)
	}
	if _, err := find("kq2"); err == nil || !strings.Contains(err.Error(), "at least 4") {
		t.Errorf("Find(kq2) = %v, want too short", err)
	}
}

// tableReceipts are receipts of every kind the table draws: a rule's
// deny, a person's answer, a line written before receipts, an input
// hiding direction and control characters, and a long command.
func tableReceipts() []approvals.Receipt {
	at := time.Date(2026, 12, 6, 13, 14, 2, 0, time.UTC)
	rule := "git push"
	return []approvals.Receipt{
		{Time: at.Add(-48 * time.Hour), Tool: "exec_shell", Decision: gate.Deny, Layer: gate.LayerPermissions, LayerName: "permissions", Rule: &rule, Agent: "codex", Reason: "old"},
		{
			V: 1, ID: "k3f9x2ab7q", Time: at, Agent: "codex", Session: "s1", Repo: "/home/u/src/app", Tool: "exec_shell",
			Input:    []approvals.ReceiptInput{{Field: "command", Text: "git push --force origin main", Bytes: 28}},
			Decision: gate.Deny, Layer: gate.LayerPermissions, LayerName: "permissions", Rule: &rule, Reason: "denied by rule",
			Decider:   &approvals.Decider{Kind: approvals.DecidedByRule, Summary: "the rule 'git push' at /home/u/.codewhale/permissions.toml:12", File: "/home/u/.codewhale/permissions.toml", Line: 12, Rule: rule},
			Codewhale: "0.10.1", Hardening: "on",
			Trace: []gate.TraceEntry{
				{Layer: gate.LayerPosture, Name: "posture", Effect: gate.EffectNone, Detail: "posture ask"},
				{Layer: gate.LayerPermissions, Name: "permissions", Effect: gate.EffectDeny, Detail: "rule git push denies"},
			},
		},
		{
			V: 1, ID: "m7pq4rst2u", Time: at.Add(time.Minute), Repo: "/srv/other", Tool: "exec_shell",
			// What the writer keeps: the input made visible; and what a
			// log written by hand could hold: raw escapes and controls.
			Input:    []approvals.ReceiptInput{{Field: "command", Text: "echo ⟪RLO U+202E⟫hi ⟪secret: github token⟫\x1b[31m \u202egnp.exe\u0007", Bytes: 40}},
			Decision: gate.Allow, Layer: gate.LayerApproval, LayerName: "approval", Approval: &gate.Approval{Choice: "once", Source: "prompt"},
			Decider: &approvals.Decider{Kind: approvals.DecidedByPerson, Summary: "you, in Neovim 0.12.0: approved once", Answer: "once", Where: "Neovim 0.12.0"},
		},
		{
			V: 1, ID: "n8abcdefgh", Time: at.Add(2 * time.Minute), Agent: "claude-code", Repo: "/home/u/src/a-repository-with-a-very-long-name/and/a/deep/directory", Tool: "exec_shell",
			Input:    []approvals.ReceiptInput{{Field: "command", Text: strings.Repeat("cargo test --all-features ", 20), Bytes: 520}},
			Decision: gate.Ask, Layer: gate.LayerApproval, LayerName: "approval",
			Decider: &approvals.Decider{Kind: approvals.DecidedByAgentPrompt, Summary: "handed to Claude Code's own permission prompt"},
		},
	}
}

// The table: one line per receipt, every column where the header puts
// it, the repository under the home as ~, long texts cut, and nothing a
// terminal would act on (no ESC, BEL, direction control) from any text.
func TestTableLinesUpAndShowsEveryCharacter(t *testing.T) {
	for _, width := range []int{0, 100, 220} {
		table := NewTable(TableOptions{Width: width, Location: time.UTC, Home: "/home/u"})
		header := table.Header()
		want := width
		if want == 0 {
			want = FixedWidth
		}
		if n := utf8.RuneCountInString(header); n > want {
			t.Errorf("width %d: the header takes %d", width, n)
		}
		columns := []string{"TIME", "AGENT", "REPO", "DECISION", "WHAT", "DECIDED BY", "ID"}
		starts := make([]int, len(columns))
		for i, c := range columns {
			from := 0
			if i > 0 {
				from = starts[i-1] + len(columns[i-1])
			}
			starts[i] = from + strings.Index(header[from:], c)
		}
		for _, r := range tableReceipts() {
			row := table.Row(r)
			if strings.ContainsAny(row, "\x1b\x07\u202e\n") {
				t.Errorf("width %d: the row holds a control: %q", width, row)
			}
			runes := []rune(row)
			// Each cell starts where its header does, after room.
			for i, start := range starts[1:] {
				col := utf8.RuneCountInString(header[:start])
				if col >= len(runes) || runes[col-1] != ' ' || runes[col] == ' ' {
					t.Errorf("width %d: column %s does not start at %d in\n%s\n%s", width, columns[i+1], col, header, row)
				}
			}
			if r.ID != "" && !strings.HasSuffix(row, r.ID) || r.ID == "" && !strings.HasSuffix(row, " -") {
				t.Errorf("width %d: the row does not end in its id: %q", width, row)
			}
		}
	}
	table := NewTable(TableOptions{Width: 360, Location: time.UTC, Home: "/home/u"})
	rows := tableReceipts()
	for _, c := range []struct {
		row  int
		want []string
	}{
		{0, []string{"2026-12-04 13:14:02", "codex", "deny", "layer 5 (permissions): the rule 'git push'"}},
		{1, []string{"2026-12-06 13:14:02", "~/src/app", "exec_shell git push --force origin main", "the rule 'git push' at /home/u/.codewhale/permissions.toml:12", "k3f9x2ab7q"}},
		{2, []string{"codewhale", "/srv/other", "⟪RLO U+202E⟫hi ⟪secret: github token⟫⟪ESC U+001B⟫[31m ⟪RLO U+202E⟫gnp.exe⟪U+0007⟫", "you, in Neovim 0.12.0: approved once"}},
		{3, []string{"claude-code", "…", "exec_shell cargo test --all-features cargo", "…"}},
	} {
		row := table.Row(rows[c.row])
		for _, w := range c.want {
			if !strings.Contains(row, w) {
				t.Errorf("row %d lacks %q:\n%s", c.row, w, row)
			}
		}
	}
	colored := NewTable(TableOptions{Color: true, Location: time.UTC}).Row(rows[1])
	if !strings.Contains(colored, "\x1b[31mdeny\x1b[0m") {
		t.Errorf("a deny in colour: %q", colored)
	}
}

func TestVisibleAgainKeepsEscapesAndShowsTheRest(t *testing.T) {
	for in, want := range map[string]string{
		"git push": "git push",
		"a ⟪RLO U+202E⟫ b ⟪secret: jwt⟫ c":    "a ⟪RLO U+202E⟫ b ⟪secret: jwt⟫ c",
		"⟪ſ U+017F⟫ and ſ":                    "⟪ſ U+017F⟫ and ⟪ſ U+017F⟫",
		"⟪ſ U+0073⟫":                          "⟪U+27EA⟫⟪ſ U+017F⟫ U+0073⟪U+27EB⟫",
		"x ⟪… 12 bytes hidden …⟫ y":           "x ⟪… 12 bytes hidden …⟫ y",
		"\x1b]0;title\x07 \u202e \u200b \xff": "⟪ESC U+001B⟫]0;title⟪U+0007⟫ ⟪RLO U+202E⟫ ⟪ZWSP U+200B⟫ ⟪byte 0xFF⟫",
		"line1\nline2⏎":                       "line1⏎line2⏎",
		"⟪unclosed":                           "⟪U+27EA⟫unclosed",
	} {
		if got := visibleAgain(in); got != want {
			t.Errorf("visibleAgain(%q)\n = %q\nwant %q", in, got, want)
		}
	}
}

// `log show`: who decided, every field of it, the input, the agent,
// session, repository, time, release and hardening, then the layers as
// explain writes them.
func TestExplainSaysEverythingTheReceiptKnows(t *testing.T) {
	rows := tableReceipts()
	var b strings.Builder
	Explain(&b, rows[1], TableOptions{Location: time.UTC, Home: "/home/u"})
	out := b.String()
	for _, want := range []string{
		"receipt:    k3f9x2ab7q",
		"time:       2026-12-06 13:14:02 UTC (2026-12-06T13:14:02Z)",
		"agent:      codex",
		"session:    s1",
		"repository: ~/src/app",
		"tool:       exec_shell",
		"  command: git push --force origin main (28 bytes)",
		"decision:   deny by layer 5 (permissions)",
		"decided by: the rule 'git push' at /home/u/.codewhale/permissions.toml:12",
		"  kind:     rule",
		"  file:     /home/u/.codewhale/permissions.toml:12",
		"  rule:     git push",
		"codewhale:  0.10.1",
		"hardening:  on; it changed nothing",
		"   1 posture      none    posture ask",
		"=> 5 permissions  deny    rule git push denies",
		"   9 sandbox      -       not reached",
		"decision: deny by layer 5 (permissions) [rule: git push]: denied by rule",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log show lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	Explain(&b, rows[0], TableOptions{Location: time.UTC})
	if out := b.String(); !strings.Contains(out, "written before receipts") || !strings.Contains(out, "no layer's judgement was recorded") {
		t.Errorf("an old line:\n%s", out)
	}
	b.Reset()
	Explain(&b, rows[2], TableOptions{Location: time.UTC})
	if out := b.String(); strings.ContainsAny(out, "\x1b\x07\u202e") || !strings.Contains(out, "  where:    Neovim 0.12.0") || !strings.Contains(out, "  answer:   once") {
		t.Errorf("a person's answer:\n%q", out)
	}
}

// The fixture's files are what `codewhale-ls log` names when it reads.
func TestFilesAreNamedOldestFirst(t *testing.T) {
	fx := writeFixture(t)
	reader, err := Log{Path: fx.path}.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	files := reader.Files()
	if files[len(files)-1] != fx.path || files[len(files)-2] != fx.path+".1" || files[0] != fx.path+"."+strconv.Itoa(len(files)-1) {
		t.Errorf("files %v", files)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(fx.path), "decisions.jsonl."+strconv.Itoa(len(files)))); err == nil {
		t.Errorf("a generation was not read")
	}
}

// The table as it is printed to a pipe, and the JSON lines, exactly.
func TestTableAndJSONGolden(t *testing.T) {
	table := NewTable(TableOptions{Location: time.UTC, Home: "/home/u"})
	var out strings.Builder
	out.WriteString(table.Header() + "\n")
	for _, r := range tableReceipts()[:3] {
		out.WriteString(table.Row(r) + "\n")
	}
	want := `TIME                 AGENT        REPO                  DECISION  WHAT                                      DECIDED BY                                ID
2026-12-04 13:14:02  codex        -                     deny      exec_shell                                layer 5 (permissions): the rule 'git pu…  -
2026-12-06 13:14:02  codex        ~/src/app             deny      exec_shell git push --force origin main   the rule 'git push' at /home/u/.codewha…  k3f9x2ab7q
2026-12-06 13:15:02  codewhale    /srv/other            allow     exec_shell echo ⟪RLO U+202E⟫hi ⟪secret:…  you, in Neovim 0.12.0: approved once      m7pq4rst2u
`
	if out.String() != want {
		t.Errorf("table\n%s\nwant\n%s", out.String(), want)
	}
	var js strings.Builder
	if err := WriteJSON(&js, tableReceipts()[1]); err != nil {
		t.Fatal(err)
	}
	wantJSON := `{"v":1,"id":"k3f9x2ab7q","time":"2026-12-06T13:14:02Z","agent":"codex","session":"s1","repo":"/home/u/src/app","callId":null,"tool":"exec_shell",` +
		`"input":[{"field":"command","text":"git push --force origin main","bytes":28}],"decision":"deny","layer":5,"layerName":"permissions","rule":"git push",` +
		`"reason":"denied by rule","approval":null,"decider":{"kind":"rule","summary":"the rule 'git push' at /home/u/.codewhale/permissions.toml:12",` +
		`"file":"/home/u/.codewhale/permissions.toml","line":12,"rule":"git push"},"codewhale":"0.10.1","hardening":"on",` +
		`"trace":[{"layer":1,"name":"posture","effect":"none","detail":"posture ask"},{"layer":5,"name":"permissions","effect":"deny","detail":"rule git push denies"}]}` + "\n"
	if js.String() != wantJSON {
		t.Errorf("JSON\n%s\nwant\n%s", js.String(), wantJSON)
	}
}
