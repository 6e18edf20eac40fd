package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/codewhale-ls/codewhale-ls/approvals/remote"
	"github.com/codewhale-ls/codewhale-ls/gate"
)

// agentAsks is a fake agent's hook asking the editor's server about a call,
// as codewhale-ls hook AGENT does.
func agentAsks(w *world, agent, command string, deadline time.Time) (gate.Decision, error) {
	return remote.Ask(context.Background(), remote.Request{
		Agent: agent, Workspace: w.ws, Deadline: deadline,
		Call: gate.Request{Tool: "bash", Input: map[string]any{"command": command}, Workspace: w.ws},
	})
}

// waitServing waits until the server listens on the workspace's approval
// socket: initialized, which starts it, is a notification. The socket file
// appears when it is bound, before it listens; Listen restricts it to 0600
// once listening.
func waitServing(t *testing.T, w *world) {
	t.Helper()
	waitServingAt(t, w.ws)
}

func waitServingAt(t *testing.T, root string) {
	t.Helper()
	path, err := remote.SocketPath(root)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		if info, err := os.Lstat(path); err == nil && info.Mode().Perm() == 0o600 {
			return
		}
		if i == 1000 {
			t.Fatal("the server never listened on " + path)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestAnotherAgentsCallIsDecidedInTheEditor(t *testing.T) {
	for _, c := range []struct {
		choice   string
		decision gate.Verdict
	}{{"once", gate.Allow}, {"always", gate.Allow}, {"deny", gate.Deny}} {
		t.Run(c.choice, func(t *testing.T) {
			w := newWorld(t)
			s := approvalSession(t, w, nil, choose(c.choice))
			waitServing(t, w)
			d, err := agentAsks(w, "claude-code", "cargo test", time.Now().Add(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			if d.Decision != c.decision || d.Layer != gate.LayerApproval || d.Approval == nil || d.Approval.Choice != c.choice {
				t.Fatalf("decision %+v", d)
			}
			var p struct{ Agent string }
			s.mu.Lock()
			json.Unmarshal(s.prompts[len(s.prompts)-1], &p)
			s.mu.Unlock()
			announced := string(s.lastDecisionRaw())
			if p.Agent != "claude-code" {
				t.Errorf("the prompt does not say which agent asks: %+v", p)
			}
			if !strings.Contains(announced, `"agent":"claude-code"`) {
				t.Errorf("codewhale/decision does not name the agent: %s", announced)
			}
			if c.choice == "always" {
				rules, _ := os.ReadFile(w.permissionsPath())
				if !strings.Contains(string(rules), `command = "cargo test"`) {
					t.Errorf("permissions.toml after always:\n%s", rules)
				}
				// The rule now allows without a prompt, for every agent.
				if d := s.authorize(w.call("bash", bash("cargo test"))); d.Decision != "allow" || s.promptCount() != 1 {
					t.Errorf("after always: %s at %d, %d prompts", d.Decision, d.Layer, s.promptCount())
				}
			}
			s.shutdown()
			log := readDecisionLog(t, w.tmp+"/decisions.jsonl")
			if len(log) == 0 || log[0]["agent"] != "claude-code" {
				t.Errorf("decision log %v", log)
			}
		})
	}
}

func TestAnUnansweredPromptEndsBeforeTheAgentStopsWaiting(t *testing.T) {
	w := newWorld(t)
	s := approvalSession(t, w, nil, nil) // the user never answers
	waitServing(t, w)
	deadline := time.Now().Add(remote.ServerMargin + 2*time.Second)
	done := make(chan struct{})
	var d gate.Decision
	var err error
	go func() {
		defer close(done)
		d, err = agentAsks(w, "copilot-cli", "cargo test", deadline)
	}()
	// While the prompt is open, the status names the agent waiting.
	for s.promptCount() == 0 {
		select {
		case <-done:
			t.Fatalf("the agent got %+v, %v without a prompt", d, err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	var st Status
	if _, err := s.conn.Call(s.ctx(), "codewhale/status", nil, &st); err != nil {
		t.Fatal(err)
	}
	if strings.Join(st.PendingAgents, ",") != "copilot-cli" {
		t.Errorf("status pendingAgents = %v", st.PendingAgents)
	}
	shown, perr := time.Parse(time.RFC3339, s.lastPrompt().Deadline)
	if perr != nil || shown.After(deadline) {
		t.Errorf("the prompt's deadline %v is not before the agent's %v", shown, deadline)
	}
	<-done
	if err != nil {
		t.Fatalf("the agent got no decision before its deadline: %v", err)
	}
	if d.Decision != gate.Deny || d.Approval == nil || d.Approval.Choice != "timeout" {
		t.Fatalf("decision %+v", d)
	}
	s.shutdown()
}

func TestShutdownMidPromptIsNoAnswerForTheAgent(t *testing.T) {
	w := newWorld(t)
	s := approvalSession(t, w, nil, nil)
	waitServing(t, w)
	done := make(chan error, 1)
	go func() {
		_, err := agentAsks(w, "gemini-cli", "cargo test", time.Now().Add(time.Minute))
		done <- err
	}()
	for s.promptCount() == 0 {
		select {
		case err := <-done:
			t.Fatalf("the agent got %v without a prompt", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	s.shutdown()
	if err := <-done; !errors.Is(err, remote.ErrServerGone) {
		t.Fatalf("err = %v, want ErrServerGone (the hook denies)", err)
	}
	if _, err := agentAsks(w, "gemini-cli", "cargo test", time.Now().Add(time.Minute)); !errors.Is(err, remote.ErrNoEditor) {
		t.Fatalf("after shutdown: %v, want ErrNoEditor", err)
	}
}

// TestAnotherAgentsShellReadMeetsTheDenyList: another agent's shell call
// runs outside Codewhale's OS sandbox, so the server refuses a read of a
// deny-listed path itself, whatever the request says, before any prompt.
func TestAnotherAgentsShellReadMeetsTheDenyList(t *testing.T) {
	w := newWorld(t)
	s := approvalSession(t, w, map[string]any{"codewhaleVersion": "0.10.1"}, choose("once"))
	waitServing(t, w)
	d, err := agentAsks(w, "codex", "cat ~/.ssh/id_rsa", time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if d.Decision != gate.Deny || d.Layer != gate.LayerSandbox || !strings.Contains(d.Reason, "read deny-list") || s.promptCount() != 0 {
		t.Fatalf("decision %+v after %d prompts", d, s.promptCount())
	}
	s.shutdown()
}

// Every folder of a multi-root workspace has its socket: an agent in the
// second folder reaches the editor too, and a folder the client removes
// is no longer served.
func TestEveryWorkspaceFolderIsServed(t *testing.T) {
	w := newWorld(t)
	w.write(t, w.configPath(), w.hermeticKeys())
	second := w.tmp + "/second"
	w.write(t, second+"/.git/HEAD", "ref: refs/heads/main\n")
	s := newSession(t, w, Options{})
	s.approve = func(context.Context, string, json.RawMessage) (any, error) {
		return map[string]string{"choice": "once"}, nil
	}
	folders := []map[string]string{{"uri": string(uri.File(w.ws)), "name": "ws"}, {"uri": string(uri.File(second)), "name": "second"}}
	var res json.RawMessage
	if _, err := s.conn.Call(s.ctx(), "initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": editor, "workspaceFolders": folders,
		"initializationOptions": map[string]any{"config": w.configPath(), "approvals": "codewhale", "decisionLog": false}}, &res); err != nil {
		t.Fatal(err)
	}
	// VS Code's language client sends folder changes only when asked.
	var caps struct {
		Capabilities struct {
			Workspace struct {
				WorkspaceFolders struct {
					Supported           bool `json:"supported"`
					ChangeNotifications any  `json:"changeNotifications"`
				} `json:"workspaceFolders"`
			} `json:"workspace"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(res, &caps); err != nil || !caps.Capabilities.Workspace.WorkspaceFolders.Supported || caps.Capabilities.Workspace.WorkspaceFolders.ChangeNotifications != true {
		t.Errorf("initialize's workspace.workspaceFolders: %+v (%v) in %s; want supported and changeNotifications", caps.Capabilities.Workspace, err, res)
	}
	if err := s.server.Initialized(s.ctx(), &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	waitServingAt(t, w.ws)
	waitServingAt(t, second)
	ask := func() (gate.Decision, error) {
		return remote.Ask(context.Background(), remote.Request{Agent: "gemini-cli", Workspace: second, Deadline: time.Now().Add(time.Minute),
			Call: gate.Request{Tool: "bash", Input: map[string]any{"command": "cargo test"}, Workspace: second}})
	}
	if d, err := ask(); err != nil || d.Decision != gate.Allow || d.Approval == nil || d.Approval.Choice != "once" {
		t.Fatalf("an agent in the second folder: %+v, %v", d, err)
	}
	// Each folder's status, by name; a folder the editor did not open is refused.
	var st struct {
		Workspace string `json:"workspace"`
	}
	if _, err := s.conn.Call(s.ctx(), "codewhale/status", map[string]string{"workspace": second}, &st); err != nil || st.Workspace != second {
		t.Errorf("status of the second folder: %+v, %v", st, err)
	}
	if _, err := s.conn.Call(s.ctx(), "codewhale/status", map[string]string{"workspace": w.tmp}, &st); err == nil {
		t.Errorf("the status of a folder the editor did not open was given")
	}
	if _, err := s.conn.Call(s.ctx(), "codewhale/status", map[string]string{"workspace": "rel"}, &st); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("a relative workspace: %v", err)
	}
	removed, _ := json.Marshal(map[string]any{"event": map[string]any{"added": []any{}, "removed": []any{folders[1]}}})
	if err := s.conn.Notify(s.ctx(), "workspace/didChangeWorkspaceFolders", json.RawMessage(removed)); err != nil {
		t.Fatal(err)
	}
	path, _ := remote.SocketPath(second)
	for i := 0; ; i++ {
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			break
		}
		if i == 1000 {
			t.Fatal("the removed folder's socket is still there")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := ask(); !errors.Is(err, remote.ErrNoEditor) {
		t.Fatalf("after the folder was removed: %v, want no editor", err)
	}
	s.shutdown()
}

// A file open in one workspace is published by that workspace alone: a
// second folder that once published the file from disk (before it was
// opened) must not clear it when it checks again (seen in VS Code: the home
// permissions.toml, opened first in a two-folder window, lost its
// diagnostics).
func TestAnotherFolderNeverClearsAnOpenFile(t *testing.T) {
	w := newWorld(t)
	w.write(t, w.configPath(), w.hermeticKeys())
	w.write(t, w.permissionsPath(), "[[rules]]\ntool = \"exec_shell\"\nacton = \"deny\"\n")
	second := w.tmp + "/second"
	w.write(t, second+"/.git/HEAD", "ref: refs/heads/main\n")
	// Both folders have policy files of their own, so both are linted
	// and both publish the home file.
	w.write(t, w.overlayPath(), "")
	overlay := second + "/.codewhale/config.toml"
	w.write(t, overlay, "")
	s := newSession(t, w, Options{})
	folders := []map[string]string{{"uri": string(uri.File(w.ws)), "name": "ws"}, {"uri": string(uri.File(second)), "name": "second"}}
	var res json.RawMessage
	if _, err := s.conn.Call(s.ctx(), "initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": editor, "workspaceFolders": folders,
		"initializationOptions": map[string]any{"config": w.configPath(), "decisionLog": false}}, &res); err != nil {
		t.Fatal(err)
	}
	if err := s.server.Initialized(s.ctx(), &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	home := uri.File(w.permissionsPath())
	broken := func(p *protocol.PublishDiagnosticsParams) bool { return len(p.Diagnostics) > 0 }
	s.waitFor(home, "the home file's findings from disk", broken)
	// Both folders read the home file: wait until each has published it.
	for i := 0; ; i++ {
		s.mu.Lock()
		n := len(s.versions[home])
		s.mu.Unlock()
		if n >= 2 {
			break
		}
		if i == 2000 {
			t.Fatal("the second folder never published the home file")
		}
		time.Sleep(5 * time.Millisecond)
	}
	text, _ := os.ReadFile(w.permissionsPath())
	s.open(w.permissionsPath(), 1, string(text))
	s.waitFor(home, "the open file's findings", func(p *protocol.PublishDiagnosticsParams) bool {
		v, ok := p.Version.Get()
		return ok && v == 1 && broken(p)
	})
	// The second folder checks again twice (a file of its own changes):
	// after the second, everything the first sent has arrived.
	for i, text := range []string{"bogus_key = 1\n", "bogus_key = 2\nother_bogus = 3\n"} {
		w.write(t, overlay, text)
		want := i + 1
		s.waitFor(uri.File(overlay), "the second folder's check", func(p *protocol.PublishDiagnosticsParams) bool { return len(p.Diagnostics) == want })
	}
	s.mu.Lock()
	counts := s.counts[home]
	s.mu.Unlock()
	if slices.Contains(counts, 0) {
		t.Fatalf("the open home file's findings were cleared by the other folder: diagnostics per publication %v", counts)
	}
	s.shutdown()
}

// TestASessionGrantIsTheAskingAgentSessions: "approve for session"
// answered in the editor to one Claude Code session over the socket lets
// that session run the same command unasked, but not Codex, not another
// Claude Code session, and not the editor's own agent; each decision still
// names its agent.
func TestASessionGrantIsTheAskingAgentSessions(t *testing.T) {
	w := newWorld(t)
	s := approvalSession(t, w, nil, choose("session"))
	waitServing(t, w)
	announced := 0
	// nextAnnounced waits for the next codewhale/decision: it may arrive
	// after the answer it announces.
	nextAnnounced := func() string {
		t.Helper()
		for range 2000 {
			s.mu.Lock()
			var raw json.RawMessage
			if len(s.decisions) > announced {
				raw = s.decisions[announced]
			}
			s.mu.Unlock()
			if raw != nil {
				announced++
				return string(raw)
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatal("no codewhale/decision")
		return ""
	}
	ask := func(agent, session string, wantPrompt bool) {
		t.Helper()
		before := s.promptCount()
		d, err := remote.Ask(context.Background(), remote.Request{
			Agent: agent, Session: session, Workspace: w.ws, Deadline: time.Now().Add(time.Minute),
			Call: gate.Request{Tool: "bash", Input: map[string]any{"command": "cargo test"}, Workspace: w.ws},
		})
		if err != nil {
			t.Fatal(err)
		}
		if d.Decision != gate.Allow || (s.promptCount() > before) != wantPrompt {
			t.Errorf("%s/%s: %s (%+v), prompted %v, want %v", agent, session, d.Decision, d.Approval, s.promptCount() > before, wantPrompt)
		}
		if decision := nextAnnounced(); !strings.Contains(decision, `"agent":"`+agent+`"`) {
			t.Errorf("codewhale/decision does not name %s: %s", agent, decision)
		}
	}
	ask("claude-code", "s1", true)
	ask("claude-code", "s1", false)
	ask("codex", "s1", true)
	ask("claude-code", "s2", true)
	before := s.promptCount()
	if d := s.authorize(w.call("bash", bash("cargo test"))); d.Decision != "allow" || s.promptCount() != before+1 {
		t.Errorf("the editor's own agent: %s, %d prompts, want a prompt of its own", d.Decision, s.promptCount()-before)
	}
	s.shutdown()
}
