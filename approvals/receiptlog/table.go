package receiptlog

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/gate"
)

// FixedWidth is the table's width when it is not drawn on a terminal
// (a pipe, a file): the same on every machine.
const FixedWidth = 160

// TimeLayout is how the table writes a receipt's time, in local time.
const TimeLayout = "2006-01-02 15:04:05"

// The columns of fixed width, and the room between columns.
const (
	timeWidth     = len(TimeLayout)
	agentWidth    = len("copilot-cli")
	decisionWidth = len("DECISION")
	idWidth       = 10
	gap           = "  "
	fixedColumns  = timeWidth + agentWidth + decisionWidth + idWidth + 6*len(gap)
)

// TableOptions say how the table is drawn.
type TableOptions struct {
	// Width is the terminal's width; 0 or less is FixedWidth.
	Width int
	// Color marks decisions in colour (a terminal, without NO_COLOR).
	Color bool
	// Location is the time zone of TIME; nil is time.Local.
	Location *time.Location
	// Home is the user's home directory, written ~ in REPO; "" for none.
	Home string
}

// Table draws receipts one line each: TIME (local), AGENT, REPO,
// DECISION, WHAT (the tool and the input's first field), DECIDED BY and
// ID, every text made visible (visibleAgain) and cut to its column.
type Table struct {
	opts                          TableOptions
	repoWidth, whatWidth, byWidth int
}

// NewTable sizes the columns to o.Width: REPO, WHAT and DECIDED BY share
// what the fixed columns leave, each keeping a readable minimum (a narrow
// terminal wraps rather than losing a column).
func NewTable(o TableOptions) *Table {
	if o.Width <= 0 {
		o.Width = FixedWidth
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	room := o.Width - fixedColumns
	t := &Table{opts: o, repoWidth: max(room*20/100, 10), whatWidth: max(room*40/100, 16)}
	t.byWidth = max(room-t.repoWidth-t.whatWidth, 16)
	return t
}

// Header is the line naming the columns.
func (t *Table) Header() string {
	return t.line("TIME", "AGENT", "REPO", "DECISION", "", "WHAT", "DECIDED BY", "ID")
}

// Row is r's line.
func (t *Table) Row(r approvals.Receipt) string {
	decision := cut(visibleAgain(string(r.Decision)), decisionWidth)
	colored := ""
	if t.opts.Color {
		colored = decisionColor[r.Decision]
	}
	id := r.ID
	if id == "" {
		id = "-" // written before receipts had ids
	}
	return t.line(
		r.Time.In(t.opts.Location).Format(TimeLayout),
		oneLine(AgentOf(r), agentWidth),
		cutStart(visibleAgain(t.repo(r.Repo)), t.repoWidth),
		decision, colored,
		oneLine(What(r), t.whatWidth),
		oneLine(DecidedBy(r), t.byWidth),
		oneLine(id, idWidth),
	)
}

// line lays out one line's cells, the decision in colour when color is
// an ANSI colour (after padding, so columns stay aligned).
func (t *Table) line(when, agent, repo, decision, color, what, by, id string) string {
	decisionCell := pad(decision, decisionWidth)
	if color != "" {
		decisionCell = color + decision + "\x1b[0m" + strings.Repeat(" ", decisionWidth-utf8.RuneCountInString(decision))
	}
	return strings.Join([]string{
		pad(when, timeWidth), pad(agent, agentWidth), pad(repo, t.repoWidth), decisionCell,
		pad(what, t.whatWidth), pad(by, t.byWidth), id,
	}, gap)
}

// decisionColor is each decision's colour: SGR green, yellow, red.
var decisionColor = map[gate.Verdict]string{
	gate.Allow: "\x1b[32m",
	gate.Ask:   "\x1b[33m",
	gate.Deny:  "\x1b[31m",
}

// pad is s with spaces to width characters.
func pad(s string, width int) string {
	if n := utf8.RuneCountInString(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}

// repo is the repository as the table names it: under the home as ~/…,
// "-" when the receipt names none.
func (t *Table) repo(repo string) string {
	home := t.opts.Home
	switch {
	case repo == "":
		return "-"
	case home == "" || home == string(filepath.Separator):
		return repo
	case repo == home:
		return "~"
	case strings.HasPrefix(repo, home+string(filepath.Separator)):
		return "~" + repo[len(home):]
	}
	return repo
}

// What is what the call was, on one line: the tool and its input's first
// field (the command, the path), or the text a person was shown in a
// line written before receipts.
func What(r approvals.Receipt) string {
	switch {
	case len(r.Input) > 0:
		return r.Tool + " " + r.Input[0].Text
	case r.Shown != "":
		return r.Tool + " " + r.Shown
	}
	return r.Tool
}

// DecidedBy says who decided r in one line: the receipt's own summary,
// or for a line written before receipts what it recorded (the layer, its
// rule, a person's answer).
func DecidedBy(r approvals.Receipt) string {
	if r.Decider != nil && r.Decider.Summary != "" {
		return r.Decider.Summary
	}
	switch {
	case r.Approval != nil && r.Approval.Source == "prompt":
		return "a person's answer: " + r.Approval.Choice
	case r.Approval != nil:
		return "a session grant (" + r.Approval.Choice + ")"
	case r.Rule != nil:
		return fmt.Sprintf("layer %d (%s): the rule '%s'", r.Layer, r.LayerName, *r.Rule)
	}
	return fmt.Sprintf("layer %d (%s): %s", r.Layer, r.LayerName, r.Reason)
}
