package approvals

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
)

// asking loads a hermetic home and a git workspace where `bash cargo
// test` needs a human.
func asking(t *testing.T) (*config.Snapshot, gate.Request) {
	t.Helper()
	return loaded(t, "")
}

// loaded is asking with more config.toml text.
func loaded(t *testing.T, extra string) (*config.Snapshot, gate.Request) {
	t.Helper()
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	for _, d := range []string{filepath.Join(home, ".codewhale"), filepath.Join(ws, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(home, ".codewhale", "config.toml")
	text := "managed_config_path = \"" + filepath.Join(root, "m.toml") + "\"\nrequirements_path = \"" + filepath.Join(root, "r.toml") + "\"\n" + extra
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return loadSnapshot(cfg, ws, home), gate.Request{Tool: "bash", Input: map[string]any{"command": "cargo test"}, Workspace: ws}
}

func loadSnapshot(cfg, ws, home string) *config.Snapshot {
	return config.Load(config.Options{ConfigFlag: cfg, Workspace: ws, Env: config.MapEnv{"HOME": home}})
}

// TestAlwaysWriteFails: a grant that cannot be written still answers the
// call the user approved (once), says so, and changes no file.
func TestAlwaysWriteFails(t *testing.T) {
	snap, req := asking(t)
	granted := false
	a := &Authorizer{
		Broker:   NewBroker(&scripted{reply: gate.ChoiceAlways}, 0),
		Sessions: NewSessions(),
		Grant:    func(string, []execpolicy.Rule) (int, error) { return 0, errors.New("disk full") },
		Granted:  func() { granted = true },
	}
	defer a.Broker.Close()
	d := a.Authorize(context.Background(), snap, req, "")
	if d.Decision != gate.Allow || d.Approval == nil || d.Approval.Choice != "always" {
		t.Fatalf("%s (%+v): %s", d.Decision, d.Approval, d.Reason)
	}
	if !strings.Contains(d.Reason, "NOT saved") || !strings.Contains(d.Reason, "disk full") || granted {
		t.Errorf("reason %q (reloaded: %v)", d.Reason, granted)
	}
	if _, err := os.Stat(snap.Paths.Permissions); !os.IsNotExist(err) {
		t.Errorf("permissions.toml exists after a failed grant: %v", err)
	}
}

// TestUnrecordableDecisionDoesNotRun mirrors Codewhale's receipts: an
// allow whose evidence cannot be written becomes a deny.
func TestUnrecordableDecisionDoesNotRun(t *testing.T) {
	snap, req := asking(t)
	a := &Authorizer{
		Broker:   NewBroker(&scripted{reply: gate.ChoiceOnce}, 0),
		Sessions: NewSessions(),
		Record:   func(LogEntry) error { return errors.New("read-only file system") },
	}
	defer a.Broker.Close()
	d := a.Authorize(context.Background(), snap, req, "")
	if d.Decision != gate.Deny || !strings.Contains(d.Reason, "Decision evidence could not be committed") {
		t.Fatalf("%s: %s", d.Decision, d.Reason)
	}
}

// TestPostureChangedWhileWaiting: Codewhale does not run a call approved
// after the posture changed under its card (docs/codewhale/pipeline.md §8.1, step 4).
func TestPostureChangedWhileWaiting(t *testing.T) {
	snap, req := asking(t)
	tighter, _ := loaded(t, "approval_policy = \"never\"\n")
	if tighter.Policy.Posture == snap.Policy.Posture {
		t.Fatalf("setup: both postures are %s", snap.Policy.Posture)
	}
	a := &Authorizer{
		Broker:   NewBroker(&scripted{reply: gate.ChoiceOnce}, 0),
		Sessions: NewSessions(),
		Current:  func(string) *config.Snapshot { return tighter },
	}
	defer a.Broker.Close()
	d := a.Authorize(context.Background(), snap, req, "")
	if d.Decision != gate.Deny || !strings.Contains(d.Reason, "Runtime permission posture changed") {
		t.Fatalf("%s: %s", d.Decision, d.Reason)
	}
	a.Current = func(string) *config.Snapshot { return snap }
	if d := a.Authorize(context.Background(), snap, req, ""); d.Decision != gate.Allow {
		t.Fatalf("unchanged posture: %s: %s", d.Decision, d.Reason)
	}
}

// A call whose request was cancelled is denied, even one that needs no
// approval and runs no hook.
func TestCancelledCallIsDenied(t *testing.T) {
	snap, req := asking(t)
	req.Tool, req.Input = "read_file", map[string]any{"path": "README.md"}
	a := &Authorizer{Broker: NewBroker(&scripted{reply: gate.ChoiceOnce}, 0), Sessions: NewSessions()}
	defer a.Broker.Close()
	if d := a.Authorize(context.Background(), snap, req, ""); d.Decision != gate.Allow {
		t.Fatalf("the call itself is not allowed: %s", d.Reason)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if d := a.Authorize(ctx, snap, req, ""); d.Decision != gate.Deny || !strings.Contains(d.Reason, "cancelled") {
		t.Fatalf("%s: %s", d.Decision, d.Reason)
	}
}

// The card quotes an excerpt of a huge command: before, its summary and
// the one-paragraph message each repeated all of it.
func TestPromptQuotesAnExcerpt(t *testing.T) {
	snap, req := asking(t)
	req.Input = map[string]any{"command": "cargo test " + strings.Repeat("a", 10<<20)}
	p, err := NewPrompt(req, gate.Decide(context.Background(), snap, req, gate.Deps{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Summary) > 1000 || len(p.Message()) > 2000 || !strings.Contains(p.Summary, "bytes in all") {
		t.Errorf("summary %d bytes, message %d bytes", len(p.Summary), len(p.Message()))
	}
}
