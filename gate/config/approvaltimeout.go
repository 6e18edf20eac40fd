package config

import (
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// maxWait is where Codewhale clamps [approval] timeout_seconds and
// [tools] user_input_timeout_seconds (docs/codewhale/releases/0.10.0.md B.1).
const maxWait = 24 * time.Hour

// ApprovalTimeout is how long the user's release lets an approval card wait
// unanswered before it denies: `[approval] timeout_seconds` of the user's
// config.toml since release.ApprovalTimeout (B.8.1). ok is false when no
// bound is set or the release has none.
func (s *Snapshot) ApprovalTimeout() (time.Duration, bool) {
	if !s.Release.Has(release.ApprovalTimeout) {
		return 0, false
	}
	return s.userSeconds("approval", "timeout_seconds")
}

// RuntimeApprovalTimeout is how long a runtime (API) approval waits for
// its decision since release.RuntimeApprovalWait: `[tools]
// user_input_timeout_seconds` (B.8.2). Codewhale's default there is 300 s
// and 0 waits forever; both are no bound here beyond the editor's own
// (ok is false).
func (s *Snapshot) RuntimeApprovalTimeout() (time.Duration, bool) {
	if !s.Release.Has(release.RuntimeApprovalWait) {
		return 0, false
	}
	return s.userSeconds("tools", "user_input_timeout_seconds")
}

// userSeconds reads a positive number of seconds from a table of the
// user's config.toml (a project overlay cannot set these), clamped to 24
// hours. Omitted, 0 or not a positive integer (which the config lints
// report) is no bound.
func (s *Snapshot) userSeconds(table, key string) (time.Duration, bool) {
	f := s.File(KindUserConfig)
	if f == nil || f.Doc == nil {
		return 0, false
	}
	t, _ := f.Doc.Root.Sub(table)
	if t == nil {
		return 0, false
	}
	e := t.Get(key)
	if e == nil || e.Value.Kind != tomldoc.Integer || e.Value.Int <= 0 {
		return 0, false
	}
	if e.Value.Int >= int64(maxWait/time.Second) {
		return maxWait, true
	}
	return time.Duration(e.Value.Int) * time.Second, true
}
