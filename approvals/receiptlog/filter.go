package receiptlog

import (
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
}

// Match reports whether f selects r.
func (f Filter) Match(r approvals.Receipt) bool {
	switch {
	case !f.Since.IsZero() && r.Time.Before(f.Since):
		return false
	case f.Agent != "" && f.Agent != AgentOf(r):
		return false
	case f.Decision != "" && f.Decision != r.Decision:
		return false
	case f.Tool != "" && f.Tool != r.Tool:
		return false
	case len(f.Repo) > 0 && !inRepo(r.Repo, f.Repo):
		return false
	}
	return true
}

// AgentOf is the agent r was decided for, EditorAgent for Codewhale's own.
func AgentOf(r approvals.Receipt) string {
	if r.Agent == "" {
		return EditorAgent
	}
	return r.Agent
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
