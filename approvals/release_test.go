package approvals

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// loadedAs is loaded, read as release version.
func loadedAs(t *testing.T, version, extra string) (*config.Snapshot, gate.Request) {
	t.Helper()
	snap, req := loaded(t, extra)
	return config.Load(config.Options{ConfigFlag: snap.Paths.Config, Workspace: req.Workspace, Env: config.MapEnv{"HOME": snap.Paths.Home}, Release: release.MustOf(version)}), req
}

// TestSessionGrantPerRelease is docs/codewhale/releases/0.10.0.md B.8.3 and
// 0.10.1.md Part D item 7, through the broker: "approve for session" on
// `cargo test` covers every later bash call in 0.9.10, the cargo test family
// in 0.10.x; and only 0.10.1 grants `cargo test -j4` (an option with a value)
// as the exact command.
func TestSessionGrantPerRelease(t *testing.T) {
	cases := []struct {
		first, later string
		// covered lists the releases where the grant of first covers later.
		covered []string
	}{
		{"cargo test", "make", []string{"0.9.10"}},
		{"cargo test", "cargo test --release", []string{"0.9.10", "0.10.0", "0.10.1"}},
		{"cargo test -j4", "cargo test --release", []string{"0.9.10", "0.10.0"}},
		{"cargo test -j4", "cargo test -j4", []string{"0.9.10", "0.10.0", "0.10.1"}},
	}
	for _, c := range cases {
		for _, version := range []string{"0.9.10", "0.10.0", "0.10.1"} {
			snap, req := loadedAs(t, version, "")
			asker := &scripted{reply: gate.ChoiceSession}
			a, _ := deciding(t, asker, Config{Timeout: time.Minute}, snap)
			req.Input = map[string]any{"command": c.first}
			if d := a.Authorize(context.Background(), req, ""); d.Decision != gate.Allow || d.Codewhale != version {
				t.Fatalf("%s at %s: %s by %s: %s", c.first, version, d.Decision, d.Codewhale, d.Reason)
			}
			if p := asker.seen[0]; p.Codewhale != version || !strings.Contains(p.Message(), "Codewhale "+version+" rules") {
				t.Errorf("%s at %s: the prompt names release %q: %s", c.first, version, p.Codewhale, p.Message())
			}
			asker.reply = gate.ChoiceDeny
			req.Input = map[string]any{"command": c.later}
			d := a.Authorize(context.Background(), req, "")
			covered := strings.Contains(" "+strings.Join(c.covered, " ")+" ", " "+version+" ")
			if got := d.Approval != nil && d.Approval.Source == "session-grant"; got != covered || (d.Decision == gate.Allow) != covered {
				t.Errorf("grant of %q covers %q at %s: %v (%s, %+v), want %v", c.first, c.later, version, got, d.Decision, d.Approval, covered)
			}
			a.Close()
		}
	}
}

// TestSessionTitlePerRelease: the "approve for session" button says what the
// grant covers in the card's release.
func TestSessionTitlePerRelease(t *testing.T) {
	cases := []struct {
		version, command, want string
	}{
		{"0.9.10", "cargo test", `every later "bash" call, whatever its input`},
		{"0.10.0", "cargo test -j4", `every later "cargo test" command with any options`},
		{"0.10.1", "cargo test --release", `every later "cargo test" command with any options`},
		{"0.10.1", "cargo test -j4", "this exact call again"},
	}
	for _, c := range cases {
		snap, req := loadedAs(t, c.version, "")
		req.Input = map[string]any{"command": c.command}
		d := gate.Decide(context.Background(), snap, req, gate.Deps{})
		p, err := NewPrompt(req, d)
		if err != nil {
			t.Fatal(err)
		}
		if title := p.Choices[1].Title; p.Choices[1].ID != gate.ChoiceSession || title != "Approve for session: "+c.want {
			t.Errorf("%s at %s: %q", c.command, c.version, title)
		}
	}
}

// TestApprovalTimeoutPerRelease is docs/codewhale/releases/0.10.0.md
// B.8.1: from 0.10.0 `[approval] timeout_seconds` bounds an unanswered card
// when it is sooner than the editor's timeout; expiry denies, names the
// bound as what decided, and is no session denial.
func TestApprovalTimeoutPerRelease(t *testing.T) {
	for _, version := range []string{"0.9.10", "0.10.0", "0.10.1"} {
		snap, req := loadedAs(t, version, "[approval]\ntimeout_seconds = 1\n")
		a, _ := deciding(t, &scripted{block: true}, Config{Timeout: time.Hour}, snap)
		bound := approvalBound(snap)
		if version == "0.9.10" {
			if bound != (Bound{}) {
				t.Errorf("0.9.10 bounds the card: %+v", bound)
			}
			a.Close()
			continue
		}
		if bound.Within != time.Second || !strings.Contains(bound.Source, "[approval] timeout_seconds") {
			t.Fatalf("at %s: bound %+v", version, bound)
		}
		d := a.Authorize(context.Background(), req, "")
		if d.Decision != gate.Deny || d.Approval == nil || d.Approval.Choice != string(gate.ChoiceTimeout) ||
			!strings.Contains(d.Reason, "[approval] timeout_seconds") {
			t.Errorf("at %s: %s %+v %q", version, d.Decision, d.Approval, d.Reason)
		}
		if a.sessions.Denied(Session{}, gate.ExactKey("exec_shell", req.Input)) {
			t.Errorf("at %s: a timed-out card was cached as a session denial", version)
		}
		a.Close()
	}
}

// TestApprovalBoundIsTheSoonest: the card's and the runtime wait's
// settings both bound the prompt; the sooner decides and is named.
func TestApprovalBoundIsTheSoonest(t *testing.T) {
	cases := []struct {
		config, setting string
		within          time.Duration
	}{
		{"[approval]\ntimeout_seconds = 30\n[tools]\nuser_input_timeout_seconds = 60\n", "[approval] timeout_seconds", 30 * time.Second},
		{"[approval]\ntimeout_seconds = 90\n[tools]\nuser_input_timeout_seconds = 60\n", "[tools] user_input_timeout_seconds", time.Minute},
		{"[tools]\nuser_input_timeout_seconds = 0\n", "", 0},
	}
	for _, c := range cases {
		snap, _ := loadedAs(t, "0.10.1", c.config)
		b := approvalBound(snap)
		if b.Within != c.within || !strings.HasPrefix(b.Source, c.setting) || (c.setting == "") != (b.Source == "") {
			t.Errorf("%q: %+v, want %v by %s", c.config, b, c.within, c.setting)
		}
	}
}

// TestBoundOnlyShortens: a bound later than the editor's timeout does not
// lengthen the wait; the editor's timeout decides and says so.
func TestBoundOnlyShortens(t *testing.T) {
	b := NewBroker(&scripted{block: true}, 20*time.Millisecond, "")
	defer b.Close()
	a := b.Ask(context.Background(), card(), Bound{Within: time.Hour, Source: "the config"})
	if a.Choice != gate.ChoiceTimeout || !strings.Contains(a.Why, "the editor's approval timeout") {
		t.Errorf("%+v", a)
	}
}
