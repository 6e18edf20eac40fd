package config

import (
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// ApprovalTimeout is how long the user's release lets an approval card wait
// unanswered before it denies: `[approval] timeout_seconds` of the user's
// config.toml since release.ApprovalTimeout (B.8.1). ok is false when no
// bound is set or the release has none.
func (s *Snapshot) ApprovalTimeout() (time.Duration, bool) {
	if !s.Release.Has(release.ApprovalTimeout) {
		return 0, false
	}
	return boundOf(s.Policy.ApprovalTimeoutSeconds)
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
	return boundOf(s.Policy.UserInputTimeoutSeconds)
}

// boundOf is a seconds setting as a bound: set by the user (a managed
// config or the environment count; a project overlay cannot set it) and
// positive. The loader has clamped it to 24 hours and reported values
// Codewhale refuses.
func boundOf(v IntSetting) (time.Duration, bool) {
	if !v.Set || v.Value <= 0 {
		return 0, false
	}
	return time.Duration(v.Value) * time.Second, true
}
