package receiptlog

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/gate"
)

// EditorAgent is how the log names the agent of a call decided in the
// editor for Codewhale itself: its receipts name no agent
// (approvals.Receipt.Agent is empty), and `--agent codewhale` selects
// them.
const EditorAgent = "codewhale"

// Filter selects receipts; its zero value selects every one.
type Filter struct {
	// Since keeps receipts at or after it.
	Since time.Time
	// Agent keeps the receipts of this agent (EditorAgent for Codewhale's
	// own calls in the editor).
	Agent string
	// Decision keeps receipts of this decision.
	Decision gate.Verdict
	// Repo keeps receipts whose repository is one of these directories or
	// inside one (RepoForms gives the spellings of one directory).
	Repo []string
	// Tool keeps receipts of this tool.
	Tool string
	// idPrefix keeps receipts whose id starts with it (Find).
	idPrefix string
}

// Match reports whether f selects r.
func (f Filter) Match(r approvals.Receipt) bool {
	return f.matches(header{ID: r.ID, Time: r.Time, Agent: r.Agent, Repo: r.Repo, Tool: r.Tool, Decision: r.Decision})
}

// matches reports whether f selects the receipt of r.
func (f Filter) matches(r header) bool {
	switch {
	case !f.Since.IsZero() && r.Time.Before(f.Since):
		return false
	case f.Agent != "" && f.Agent != agentName(r.Agent):
		return false
	case f.Decision != "" && f.Decision != r.Decision:
		return false
	case f.Tool != "" && f.Tool != r.Tool:
		return false
	case len(f.Repo) > 0 && !inRepo(r.Repo, f.Repo):
		return false
	case f.idPrefix != "" && !strings.HasPrefix(r.ID, f.idPrefix):
		return false
	}
	return true
}

// mayMatch reports whether line can hold a receipt f selects, before it
// is decoded (which costs a hundred times more): a name f asks for must
// appear in the line as JSON writes it, quoted. A line holding a \u
// escape is decoded whatever it holds, since a writer may spell any
// character so; a name JSON would escape is not looked for.
func (f Filter) mayMatch(line []byte) bool {
	if bytes.Contains(line, []byte(`\u`)) {
		return true
	}
	for _, name := range []string{f.Agent, f.Tool, string(f.Decision)} {
		if name != "" && name != EditorAgent && plainJSON(name) && !bytes.Contains(line, []byte(`"`+name+`"`)) {
			return false
		}
	}
	if f.idPrefix != "" && plainJSON(f.idPrefix) && !bytes.Contains(line, []byte(`"`+f.idPrefix)) {
		return false
	}
	if len(f.Repo) > 0 {
		for _, dir := range f.Repo {
			if !plainJSON(dir) || bytes.Contains(line, []byte(`"`+dir)) {
				return true
			}
		}
		return false
	}
	return true
}

// plainJSON reports whether JSON writes s as it is between its quotes:
// printable ASCII without a quote, a backslash or what an encoder may
// escape for HTML.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || strings.IndexByte(`"\<>&`, c) >= 0 {
			return false
		}
	}
	return true
}

// AgentOf is the agent r was decided for, EditorAgent for Codewhale's own.
func AgentOf(r approvals.Receipt) string { return agentName(r.Agent) }

// agentName is agent as the log names it: EditorAgent for none.
func agentName(agent string) string {
	if agent == "" {
		return EditorAgent
	}
	return agent
}

// inRepo reports whether repo is one of dirs or inside one. The receipt
// names the workspace as the decision saw it: absolute and clean.
func inRepo(repo string, dirs []string) bool {
	if repo == "" {
		return false
	}
	repo = filepath.Clean(repo)
	for _, d := range dirs {
		if repo == d || strings.HasPrefix(repo, d+string(filepath.Separator)) || d == string(filepath.Separator) {
			return true
		}
	}
	return false
}

// RepoForms are the spellings under which receipts may name dir: its
// absolute path as given and with its symlinks resolved (a workspace
// opened through a link is recorded as opened). A directory that no
// longer exists is still named by its absolute path: its receipts stay.
func RepoForms(dir string) ([]string, error) {
	if dir == "" {
		return nil, errors.New("--repo needs a directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("--repo %s: %w", dir, err)
	}
	forms := []string{abs}
	resolved, err := filepath.EvalSymlinks(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("--repo %s: %w", dir, err)
	case resolved != abs:
		forms = append(forms, resolved)
	}
	return forms, nil
}

// ParseDecision reads --decision.
func ParseDecision(s string) (gate.Verdict, error) {
	switch v := gate.Verdict(s); v {
	case gate.Allow, gate.Ask, gate.Deny:
		return v, nil
	}
	return "", fmt.Errorf("--decision must be allow, ask or deny; got %q", s)
}

// ParseSince reads --since: a duration back from now (Go's "90m", "2h",
// "1h30m", plus days "7d"), a date (2026-12-05, from local midnight) or
// a time in RFC 3339 (2026-12-05T14:00:00+01:00).
func ParseSince(s string, now time.Time) (time.Time, error) {
	if d, ok, err := parseAgo(s); ok {
		if err != nil {
			return time.Time{}, err
		}
		return now.Add(-d), nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, s, now.Location()); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--since must be a duration (30m, 2h, 7d), a date (2026-12-05) or an RFC 3339 time (2026-12-05T14:00:00Z); got %q", s)
}

// parseAgo reads a duration as --since takes it; ok says s looks like one
// (it ends in a unit), err that it still is not valid.
func parseAgo(s string) (d time.Duration, ok bool, err error) {
	if s == "" || !strings.ContainsAny(s[len(s)-1:], "hmsd") {
		return 0, false, nil
	}
	if days, found := strings.CutSuffix(s, "d"); found {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return 0, true, fmt.Errorf("--since %q: days are a whole number, as in 7d", s)
		}
		if n > 100*365 {
			return 0, true, fmt.Errorf("--since %q: at most a century back", s)
		}
		return time.Duration(n) * 24 * time.Hour, true, nil
	}
	d, err = time.ParseDuration(s)
	switch {
	case err != nil:
		return 0, true, fmt.Errorf("--since %q: %v (durations are as in 30m, 2h, 1h30m, 7d)", s, err)
	case d < 0:
		return 0, true, fmt.Errorf("--since %q: a duration back from now cannot be negative", s)
	}
	return d, true, nil
}
