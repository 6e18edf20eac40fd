package console

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/approvals/remote"
	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// answering is an Asker that answers every card with choice and keeps
// the prompts it was shown.
type answering struct {
	choice gate.Choice
	shown  chan *approvals.Prompt
}

func (a answering) Ask(ctx context.Context, p *approvals.Prompt) (gate.Choice, error) {
	a.shown <- p
	return a.choice, nil
}

// The console decides a hook's call as the editor does: from the files
// on disk, read for this call, a person's answer the only allow, logged
// with the agent's name; a workspace it does not serve is denied unread.
func TestTheConsoleDecidesAHooksCallFromTheFilesOnDisk(t *testing.T) {
	home := t.TempDir()
	ws := filepath.Join(home, "ws")
	for _, d := range []string{filepath.Join(ws, ".git"), filepath.Join(home, ".codewhale")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	env := config.MapEnv{"HOME": home, "CODEWHALE_HOME": filepath.Join(home, ".codewhale")}
	logPath := filepath.Join(home, "decisions.jsonl")
	asker := answering{choice: gate.ChoiceOnce, shown: make(chan *approvals.Prompt, 4)}
	repos := Repositories{Roots: []string{ws}, UID: os.Getuid()}
	authz := approvals.New(approvals.Config{Asker: asker, Log: approvals.OpenRecorder(logPath, approvals.RecorderOptions{}), Policies: Policies{
		Repositories: repos,
		Options:      func(string) config.Options { return config.Options{Env: env} },
		Release: func(context.Context, string) (release.Choice, error) {
			choice, _, err := release.Named(ptr("0.10.1"), nil)
			return choice, err
		},
	}})
	defer authz.Close()
	decide := authz.AuthorizeHook
	call := gate.Request{Tool: "exec_shell", Input: map[string]any{"command": "cargo test"}, Workspace: ws}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	d := decide(ctx, remote.Request{Agent: "codex", Workspace: ws, Call: call})
	if d.Decision != gate.Allow || d.Approval == nil {
		t.Fatalf("approved once: %+v", d)
	}
	if p := <-asker.shown; p.Agent != "codex" || !strings.Contains(p.Summary, "cargo test") || p.Codewhale != "0.10.1" {
		t.Fatalf("the card: %+v", p)
	}
	// A rule written meanwhile is read by the next call, without a
	// reload; the hook asked for a person, so rules that allow with
	// nobody asked are a disagreement, denied (as the editor does).
	if err := os.WriteFile(filepath.Join(home, ".codewhale", "permissions.toml"), []byte("[[rules]]\ntool = \"exec_shell\"\ncommand = \"cargo test\"\naction = \"allow\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if d := decide(ctx, remote.Request{Agent: "codex", Workspace: ws, Call: call}); d.Decision != gate.Deny || !strings.Contains(d.Reason, "the two disagree") {
		t.Fatalf("after an allow rule was written: %+v", d)
	}
	other := t.TempDir()
	call.Workspace = other
	if d := decide(ctx, remote.Request{Agent: "codex", Workspace: other, Call: call}); d.Decision != gate.Deny || !strings.Contains(d.Reason, "does not serve this workspace") {
		t.Fatalf("an unserved workspace: %+v", d)
	}
	authz.Close()
	logged, err := os.ReadFile(logPath)
	if err != nil || strings.Count(string(logged), `"agent":"codex"`) != 3 {
		t.Fatalf("the decision log: %v\n%s", err, logged)
	}
}

func ptr(s string) *string { return &s }
