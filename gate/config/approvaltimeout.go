package config

import (
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// maxApprovalTimeout is where Codewhale clamps [approval] timeout_seconds
// (docs/codewhale/releases/0.10.0.md B.1).
const maxApprovalTimeout = 24 * time.Hour

// ApprovalTimeout is how long the user's release lets an approval card wait
// unanswered before it denies: `[approval] timeout_seconds` of the user's
// config.toml since release.ApprovalTimeout (a project overlay cannot set
// it), clamped to 24 hours. ok is false when no bound is set (omitted, 0,
// or not a positive integer, which the config lints report) or the release
// has none.
func (s *Snapshot) ApprovalTimeout() (time.Duration, bool) {
	if !s.Release.Has(release.ApprovalTimeout) {
		return 0, false
	}
	f := s.File(KindUserConfig)
	if f == nil || f.Doc == nil {
		return 0, false
	}
	approval, _ := f.Doc.Root.Sub("approval")
	if approval == nil {
		return 0, false
	}
	e := approval.Get("timeout_seconds")
	if e == nil || e.Value.Kind != tomldoc.Integer || e.Value.Int <= 0 {
		return 0, false
	}
	if e.Value.Int >= int64(maxApprovalTimeout/time.Second) {
		return maxApprovalTimeout, true
	}
	return time.Duration(e.Value.Int) * time.Second, true
}
