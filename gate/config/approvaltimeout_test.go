package config

import (
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// TestApprovalTimeout is docs/codewhale/releases/0.10.0.md B.1 and B.8.1:
// `[approval] timeout_seconds` of the user's config.toml bounds a card from
// 0.10.0; omitted or 0 is no bound, above 24 h clamps; 0.9.10 has none.
func TestApprovalTimeout(t *testing.T) {
	cases := []struct {
		user, overlay string
		want          time.Duration // 0 = no bound
	}{
		{"", "", 0},
		{"[approval]\ntimeout_seconds = 0\n", "", 0},
		{"[approval]\ntimeout_seconds = 45\n", "", 45 * time.Second},
		{"[approval]\ntimeout_seconds = 172800\n", "", 24 * time.Hour},
		{"[approval]\ntimeout_seconds = -5\n", "", 0},
		{"[approval]\ntimeout_seconds = \"45\"\n", "", 0},
		{"approval = 3\n", "", 0},
		// A repository cannot set it.
		{"", "[approval]\ntimeout_seconds = 5\n", 0},
	}
	for _, c := range cases {
		for _, r := range release.Implemented {
			w := newWorld(t)
			w.userConfig(c.user)
			if c.overlay != "" {
				w.overlay(c.overlay)
			}
			s := Load(Options{Workspace: w.ws, Env: w.vars, Release: r})
			want := c.want
			if !r.Has(release.ApprovalTimeout) {
				want = 0
			}
			got, ok := s.ApprovalTimeout()
			if got != want || ok != (want > 0) {
				t.Errorf("%q / %q at %s: %v %v, want %v", c.user, c.overlay, r.Version, got, ok, want)
			}
		}
	}
}

// TestRuntimeApprovalTimeout is docs/codewhale/releases/0.10.0.md B.8.2:
// `[tools] user_input_timeout_seconds` bounds a runtime approval from
// 0.10.0; 0 (wait forever) and the omitted default set no bound of ours.
func TestRuntimeApprovalTimeout(t *testing.T) {
	cases := []struct {
		user string
		want time.Duration
	}{
		{"", 0},
		{"[tools]\nuser_input_timeout_seconds = 0\n", 0},
		{"[tools]\nuser_input_timeout_seconds = 60\n", time.Minute},
		{"[tools]\nuser_input_timeout_seconds = 90000\n", 24 * time.Hour},
		{"[approval]\nuser_input_timeout_seconds = 60\n", 0},
	}
	for _, c := range cases {
		for _, r := range release.Implemented {
			w := newWorld(t)
			w.userConfig(c.user)
			s := Load(Options{Workspace: w.ws, Env: w.vars, Release: r})
			want := c.want
			if !r.Has(release.RuntimeApprovalWait) {
				want = 0
			}
			if got, ok := s.RuntimeApprovalTimeout(); got != want || ok != (want > 0) {
				t.Errorf("%q at %s: %v %v, want %v", c.user, r.Version, got, ok, want)
			}
		}
	}
}
