package rpc

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/gate/secrets/secretstest"
)

// neovim is how Neovim 0.12 names itself at initialize.
var neovim = &protocol.ClientInfo{Name: "Neovim", Version: protocol.NewOptional("0.12.0")}

// receipts are the receipts of the session's decision log
// (approvalSession's), read after the server shut down.
func receipts(t *testing.T, w *world) []approvals.Receipt {
	t.Helper()
	var out []approvals.Receipt
	for _, line := range readDecisionLog(t, filepath.Join(w.tmp, "decisions.jsonl")) {
		raw, _ := json.Marshal(line)
		var r approvals.Receipt
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestEditorReceiptsNameTheirDecider: each kind of decision the editor's
// server makes for the agent in the editor (codewhale/authorize, asked
// over codewhale/approve) leaves the receipt naming who decided: the
// person's answer in the editor named by its clientInfo, the grant of an
// earlier "session" answer and when, the card nobody answered, the rule's
// file and line, the hardening layer, the posture (issue 26).
func TestEditorReceiptsNameTheirDecider(t *testing.T) {
	for _, answer := range []string{"once", "always", "deny"} {
		t.Run("person "+answer, func(t *testing.T) {
			w := newWorld(t)
			s := approvalSessionAs(t, w, neovim, nil, choose(answer))
			s.authorize(w.call("bash", bash("cargo test")))
			s.shutdown()
			r := receipts(t, w)
			if len(r) != 1 {
				t.Fatalf("%d receipts", len(r))
			}
			if d := r[0].Decider; d.Kind != approvals.DecidedByPerson || d.Answer != answer || d.Where != "Neovim 0.12.0" || !strings.Contains(d.Summary, "you, in Neovim 0.12.0") {
				t.Errorf("decider %+v", d)
			}
			if r[0].Agent != "" || r[0].Repo != w.ws || r[0].Tool != "bash" || len(r[0].Input) != 1 || r[0].Input[0].Text != "cargo test" {
				t.Errorf("receipt %+v", r[0])
			}
		})
	}
	t.Run("no clientInfo", func(t *testing.T) {
		w := newWorld(t)
		s := approvalSession(t, w, nil, choose("once"))
		s.authorize(w.call("bash", bash("cargo test")))
		s.shutdown()
		if d := receipts(t, w)[0].Decider; d.Where != "the editor" {
			t.Errorf("decider %+v, want the editor named as \"the editor\"", d)
		}
	})
	t.Run("session grant", func(t *testing.T) {
		w := newWorld(t)
		s := approvalSessionAs(t, w, neovim, nil, choose("session"))
		started := time.Now().UTC()
		expect(t, s.authorize(w.call("bash", bash("cargo test"))), "allow", 8, "session/prompt")
		expect(t, s.authorize(w.call("bash", bash("cargo test --release"))), "allow", 8, "session/session-grant")
		s.shutdown()
		r := receipts(t, w)
		if len(r) != 2 {
			t.Fatalf("%d receipts", len(r))
		}
		d := r[1].Decider
		if d.Kind != approvals.DecidedBySessionGrant || d.GrantedAt == nil || d.GrantedAt.Before(started) || d.GrantedAt.After(r[0].Time) {
			t.Errorf("decider %+v, want the grant given between %v and the answer's receipt at %v", d, started, r[0].Time)
		}
	})
	t.Run("unanswered", func(t *testing.T) {
		w := newWorld(t)
		s := approvalSessionAs(t, w, neovim, map[string]any{"approvalTimeoutSeconds": 1}, nil)
		s.authorize(w.call("bash", bash("cargo test")))
		s.shutdown()
		if d := receipts(t, w)[0].Decider; d.Kind != approvals.DecidedByNobody || d.Answer != "timeout" || d.Where != "Neovim 0.12.0" {
			t.Errorf("decider %+v", d)
		}
	})
	t.Run("rule", func(t *testing.T) {
		w := newWorld(t)
		w.write(t, w.permissionsPath(), "# mine\n[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push\"\naction = \"deny\"\n")
		s := approvalSessionAs(t, w, neovim, nil, choose("once"))
		expect(t, s.authorize(w.call("bash", bash("git push origin main"))), "deny", 5, "")
		s.shutdown()
		if d := receipts(t, w)[0].Decider; d.Kind != approvals.DecidedByRule || d.File != w.permissionsPath() || d.Line != 2 || d.Rule != "git push" {
			t.Errorf("decider %+v, want %s:2", d, w.permissionsPath())
		}
	})
	t.Run("hardening", func(t *testing.T) {
		for _, on := range []bool{true, false} {
			w := newWorld(t)
			w.write(t, w.permissionsPath(), "[[rules]]\ntool = \"exec_shell\"\ncommand = \"rm -rf /\"\naction = \"deny\"\n")
			s := approvalSessionAs(t, w, neovim, map[string]any{"hardening": on}, choose("deny"))
			s.authorize(w.call("bash", bash("rm -fr /")))
			s.shutdown()
			r := receipts(t, w)[0]
			switch d := r.Decider; {
			case on && (d.Kind != approvals.DecidedByHardening || r.Hardening != "acted" || d.File != w.permissionsPath() || d.Line != 1):
				t.Errorf("hardened: %s, decider %+v", r.Hardening, d)
			case !on && (d.Kind != approvals.DecidedByPerson || r.Hardening != "off"):
				t.Errorf("exact: %s, decider %+v", r.Hardening, d)
			}
		}
	})
	t.Run("posture", func(t *testing.T) {
		w := newWorld(t)
		s := approvalSessionAs(t, w, neovim, nil, choose("once"))
		req := w.call("bash", bash("cargo test"))
		req["posture"] = "never" // a request may tighten the posture
		expect(t, s.authorize(req), "deny", 8, "")
		s.shutdown()
		if d := receipts(t, w)[0].Decider; d.Kind != approvals.DecidedByPosture || d.Posture != "never" || s.promptCount() != 0 {
			t.Errorf("decider %+v after %d prompts", d, s.promptCount())
		}
	})
}

// TestEditorReceiptsWithoutInputs: initializationOptions.logInputs false
// keeps receipts without the call's input, as does settings.toml's
// log_inputs = false; secrets in a call are masked either way.
func TestEditorReceiptsWithoutInputs(t *testing.T) {
	token := secretstest.Tokens(5)[0]
	command := "curl -H 'Authorization: token " + token.Text + "' https://api.github.com/user"
	for _, c := range []struct {
		name     string
		options  map[string]any
		settings string
		inputs   bool
	}{
		{"default", nil, "", true},
		{"option", map[string]any{"logInputs": false}, "", false},
		{"settings", nil, "log_inputs = false\n", false},
		{"option true, settings false", map[string]any{"logInputs": true}, "log_inputs = false\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			if c.settings != "" {
				w.write(t, approvals.SettingsPath(filepath.Join(w.home, ".codewhale")), c.settings)
			}
			s := approvalSessionAs(t, w, neovim, c.options, choose("once"))
			s.authorize(w.call("bash", bash(command)))
			s.shutdown()
			r := receipts(t, w)[0]
			line, _ := os.ReadFile(filepath.Join(w.tmp, "decisions.jsonl"))
			if bytes.Contains(line, []byte(token.Secret)) {
				t.Errorf("the token is in the log: %s", line)
			}
			if got := len(r.Input) > 0; got != c.inputs || (!c.inputs && bytes.Contains(line, []byte("api.github.com"))) {
				t.Errorf("input kept: %v, want %v: %s", got, c.inputs, line)
			}
		})
	}
}
