package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/approvals/otelexport"
	"github.com/codewhale-ls/codewhale-ls/approvals/remote"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/rpc/prompting"
	"github.com/codewhale-ls/codewhale-ls/watch"
)

// watchDebounce coalesces the burst of events one save makes.
const watchDebounce = 30 * time.Millisecond

// newAuthorizer makes what codewhale/authorize needs from the
// initializationOptions. It opens the decision log: s.mu must not be held.
func (s *Server) newAuthorizer(opts initOptions, root string, prompts prompting.Choice, editor string) (*approvals.Authorizer, error) {
	timeout := approvals.DefaultTimeout
	if opts.ApprovalTimeoutSeconds != nil {
		if *opts.ApprovalTimeoutSeconds <= 0 {
			return nil, fmt.Errorf("initializationOptions.approvalTimeoutSeconds must be a positive number of seconds, got %d", *opts.ApprovalTimeoutSeconds)
		}
		timeout = time.Duration(*opts.ApprovalTimeoutSeconds) * time.Second
	}
	switch opts.Approvals {
	case "", "codewhale", "showMessageRequest":
	default:
		return nil, fmt.Errorf(`initializationOptions.approvals must be "codewhale" (the client implements codewhale/approve) or absent, got %q`, opts.Approvals)
	}
	paths, _ := config.ResolvePaths(config.Options{ConfigFlag: opts.Config, Workspace: root, Env: s.env})
	logPath, enabled, err := decisionLogPath(opts, paths.CodewhaleDir)
	if err != nil {
		return nil, err
	}
	var log *approvals.Recorder
	if enabled {
		// A log that cannot be opened leaves diagnostics working; only the
		// decisions it would record are refused.
		noInputs := opts.LogInputs != nil && !*opts.LogInputs
		// What the OpenTelemetry export could not deliver goes to the
		// server's log, which the editor keeps.
		export := func(settings approvals.ExportSettings) (approvals.ReceiptSink, error) {
			sink, err := otelexport.NewSink(settings, s.env.Getenv)
			return otelexport.Reporting(sink, func(err error) { s.log.Warn("decision records were not exported", "error", err) }), err
		}
		log = approvals.OpenUserRecorder(logPath, paths.CodewhaleDir, approvals.RecorderOptions{NoInputs: noInputs, Where: editor}, export)
		if err := log.Failure(); err != nil {
			s.log.Error("cannot open the decision log; every allow will be refused", "path", logPath, "error", err)
		}
	}
	asker := editorAsker{conn: s.conn, client: s.client, prompts: prompts, waiting: s.waiting}
	exact := opts.Hardening != nil && !*opts.Hardening
	return approvals.New(approvals.Config{Asker: asker, Timeout: timeout, Policies: serverPolicies{s}, Hooks: s.hooks, Log: log, Exact: exact}), nil
}

// serverPolicies are the server's snapshots of the files on disk, as the
// Authorizer reads them.
type serverPolicies struct{ s *Server }

// Snapshot refuses a workspace the editor did not open, and waits for the
// user's Codewhale release to be known.
func (p serverPolicies) Snapshot(ctx context.Context, workspace string) (*config.Snapshot, string) {
	if reason := p.s.outsideWorkspaces(workspace); reason != "" {
		return nil, reason
	}
	if _, ok := p.s.codewhale.wait(ctx); !ok {
		return nil, releaseUnknown
	}
	return p.s.policyFor(workspace), ""
}

// Reload replaces every snapshot with a fresh load.
func (p serverPolicies) Reload() { p.s.reloadPolicies() }

// releaseUnknown is the deny of a call whose request ended before the
// user's Codewhale release was known: no decision is made as a release the
// user may not run.
const releaseUnknown = "The call ended before codewhale-ls knew which Codewhale release to decide as (codewhale --version was still running); a call not decided is denied."

// decisionLogPath is initializationOptions.decisionLog: a path, false
// (no log), or absent (the default under codewhaleHome). Only a
// malformed option is an error.
func decisionLogPath(opts initOptions, codewhaleHome string) (path string, enabled bool, err error) {
	raw := opts.DecisionLog
	if len(raw) == 0 || string(raw) == "null" {
		return approvals.DefaultDecisionLogPath(codewhaleHome), true, nil
	}
	var on bool
	if json.Unmarshal(raw, &on) == nil && !on {
		return "", false, nil
	}
	if err := json.Unmarshal(raw, &path); err != nil || path == "" {
		return "", false, fmt.Errorf("initializationOptions.decisionLog must be a path or false, got %s", raw)
	}
	return path, true, nil
}

// startWatching watches the policy files on disk from initialized on.
func (s *Server) startWatching() {
	w, err := watch.New(watchDebounce, s.policiesChanged)
	if err != nil {
		s.log.Error("cannot watch the policy files; decisions follow the files as they were at start", "error", err)
		return
	}
	s.mu.Lock()
	if s.state != running {
		s.mu.Unlock()
		_ = w.Close()
		return
	}
	s.watcher = w
	root := s.root
	s.mu.Unlock()
	if root != "" {
		s.policyFor(root) // loads, and watches what it read
	}
}

// stopDeciding stops serving the approval socket, closes the Authorizer
// (every pending prompt is denied at once, the decisions in flight end and
// are logged, then the log closes) and ends the watcher. It is safe to
// call twice. The approval sockets close first, so that a hook waiting on
// a prompt sees the server go (and denies) rather than the prompt's
// cut-short answer.
func (s *Server) stopDeciding() {
	s.mu.Lock()
	authz, w, rs := s.authz, s.watcher, s.remotes
	s.watcher, s.remotes = nil, map[string]*remote.Server{}
	s.mu.Unlock()
	for _, srv := range rs {
		_ = srv.Close()
	}
	if authz != nil {
		authz.Close()
	}
	s.endLifetime()
	s.authorizing.Wait()
	if w != nil {
		_ = w.Close()
	}
}
