package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/hooks"
	"github.com/codewhale-ls/codewhale-ls/watch"
)

// watchDebounce coalesces the burst of events one save makes.
const watchDebounce = 30 * time.Millisecond

// deciding is what codewhale/authorize needs, made from the
// initializationOptions before the session starts.
type deciding struct {
	authz      *approvals.Authorizer
	background *hooks.Background
	decisions  *approvals.DecisionLog // nil when disabled or unopenable
}

// close ends what newDeciding started, for an initialize that lost.
func (d *deciding) close() {
	d.authz.Broker.Close()
	d.background.Close()
	if d.decisions != nil {
		_ = d.decisions.Close()
	}
}

// newDeciding sets up what codewhale/authorize needs from the
// initializationOptions. It opens the decision log: s.mu must not be held.
func (s *Server) newDeciding(opts initOptions, root string) (*deciding, error) {
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
	logPath, enabled, err := s.decisionLogPath(opts, root)
	if err != nil {
		return nil, err
	}
	d := &deciding{}
	record := func(approvals.LogEntry) error { return nil }
	if enabled {
		// A log that cannot be opened leaves diagnostics working; only the
		// decisions it would record are refused.
		l, err := approvals.OpenDecisionLog(logPath)
		if err != nil {
			s.log.Error("cannot open the decision log; every allow will be refused", "path", logPath, "error", err)
			record = func(approvals.LogEntry) error { return err }
		} else {
			d.decisions = l
			record = l.Append
		}
	}
	d.background = hooks.NewBackground(s.hooks)
	asker := editorAsker{conn: s.conn, client: s.client, custom: opts.Approvals == "codewhale", async: opts.ApprovalsAsync, waiting: s.waiting}
	d.authz = &approvals.Authorizer{
		Broker:   approvals.NewBroker(asker, timeout),
		Sessions: approvals.NewSessions(),
		// The agent being judged sends the request: it may not pick a
		// looser posture than the one the user chose.
		Deps:  gate.Deps{Hooks: s.hooks, Background: d.background, SessionID: gate.NewSessionID(), RequestMayOnlyTighten: true},
		Grant: approvals.AppendRules,
		// The watcher reports the write too, and re-checks then; the
		// snapshot must not wait for it.
		Granted: func() { s.reloadPolicies() },
		Current: s.policyFor,
		Record:  record,
	}
	return d, nil
}

// decisionContext is ctx cut short when deciding stops.
func (s *Server) decisionContext(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.lifetime, cancel)
	return ctx, func() { stop(); cancel() }
}

// decisionLogPath is initializationOptions.decisionLog: a path, false
// (no log), or absent (the default under the Codewhale home). Only a
// malformed option is an error.
func (s *Server) decisionLogPath(opts initOptions, root string) (path string, enabled bool, err error) {
	raw := opts.DecisionLog
	if len(raw) == 0 || string(raw) == "null" {
		paths, _ := config.ResolvePaths(config.Options{ConfigFlag: opts.Config, Workspace: root, Env: s.env})
		if paths.CodewhaleDir == "" {
			return "", true, nil // OpenDecisionLog fails, naming no path
		}
		return approvals.DefaultDecisionLogPath(paths.CodewhaleDir), true, nil
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

// stopDeciding stops serving the approval socket, denies every pending
// prompt at once and ends the watcher,
// the background hooks and the decision log. It is safe to call twice.
// The prompts are closed before the lifetime ends, so that a call waiting
// on its prompt is recorded as "disconnected" rather than as cancelled;
// ending the lifetime then stops the hooks still running.
func (s *Server) stopDeciding() {
	s.mu.Lock()
	authz, w, bg, l, rs := s.authz, s.watcher, s.background, s.decisions, s.remote
	s.watcher, s.background, s.decisions, s.remote = nil, nil, nil, nil
	s.mu.Unlock()
	if rs != nil {
		// First, so that a hook waiting on a prompt sees the server go
		// (and denies) rather than the prompt's cut-short answer.
		_ = rs.Close()
	}
	if authz != nil {
		authz.Broker.Close()
	}
	s.endLifetime()
	s.authorizing.Wait()
	if w != nil {
		_ = w.Close()
	}
	if bg != nil {
		bg.Close()
	}
	if l != nil {
		_ = l.Close()
	}
}
