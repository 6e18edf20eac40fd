package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"go.lsp.dev/jsonrpc2"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/internal/buildinfo"
)

func init() { register("codewhale/status", status) }

// Status is the result of codewhale/status (docs/codewhale/contract.md §4): what
// Codewhale itself would load for the workspace, from disk.
type Status struct {
	Version         string       `json:"version"`
	ConfigPath      string       `json:"configPath"`
	PermissionsPath string       `json:"permissionsPath"`
	Workspace       string       `json:"workspace"`
	Posture         string       `json:"posture"`
	Sandbox         gate.Sandbox `json:"sandbox"`
	// PendingApprovals is how many prompts wait for the user.
	PendingApprovals int `json:"pendingApprovals"`
	// PendingAgents are the other agents (pre-tool hooks) whose calls
	// wait for the user, sorted.
	PendingAgents []string     `json:"pendingAgents"`
	Files         []FileStatus `json:"files"`
	// Codewhale is the release whose behaviour decides, and why.
	Codewhale release.Choice `json:"codewhale"`
	// Hardening: the hardening layer is on (docs/hardening.md); false
	// when the editor asked for Codewhale's decision alone.
	Hardening bool `json:"hardening"`
	// Approvals says whether this editor is given prompts and serves its
	// folders' approval sockets (issue 25).
	Approvals ApprovalsStatus `json:"approvals"`
}

// ApprovalsStatus is codewhale/status's approvals: how prompts reach the
// editor, or why they do not (rpc/prompting).
type ApprovalsStatus struct {
	// Served: prompts are shown here and other agents' hooks reach this
	// editor through its folders' approval sockets.
	Served bool `json:"served"`
	// Prompt is the method prompts travel by: codewhale/approve,
	// codewhale/approvalRequested, window/showMessageRequest, or none.
	Prompt string `json:"prompt"`
	// Reason, when not served, says why.
	Reason string `json:"reason,omitempty"`
}

// FileStatus is one policy file as Codewhale loads it.
type FileStatus struct {
	Path   string           `json:"path"`
	State  config.FileState `json:"state"`
	Errors []string         `json:"errors"`
}

// status describes one workspace: the one named by the optional params
// {"workspace": "<folder>"} (a folder of a multi-root window, which must
// be one the editor opened), else the client's workspace, else, when it
// named none, the workspace of the policy file opened last. Params that
// are absent, null or {} name none.
func status(ctx context.Context, s *Server, params jsonrpc2.RawMessage) (any, error) {
	named, err := statusWorkspace(params)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	if named != "" {
		if why := s.outsideWorkspaces(named); why != "" {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "workspace: "+why)
		}
	}
	s.mu.Lock()
	root := s.root
	if root == "" {
		// A client that named no workspace: the one of the policy file
		// the user opened last, as `codewhale-ls check` run there.
		root = s.lastOpened
	}
	s.mu.Unlock()
	if named != "" {
		root = named
	}
	// Decisions are made from the snapshot of the files on disk, not from
	// editor buffers.
	snap := s.policyFor(root)
	pending, agents := s.authz.Pending()
	st := &Status{
		Version:          buildinfo.Version(),
		ConfigPath:       snap.Paths.Config,
		PermissionsPath:  snap.Paths.Permissions,
		Workspace:        root,
		Posture:          snap.Policy.Posture.String(),
		Sandbox:          gate.SandboxOf(snap, root),
		PendingApprovals: pending,
		PendingAgents:    agents,
		Files:            []FileStatus{},
		Codewhale:        s.codewhale.current(),
		Hardening:        s.authz.Hardening(),
		Approvals:        s.approvalsStatus(),
	}
	home := userFilesOnly(snap.Paths, root)
	for _, f := range snap.Files {
		if home && projectKind(f.Kind) {
			// The Codewhale home's own files (~/.codewhale, where the
			// editor names the home as the workspace of the user's
			// config.toml) are no project: a .codewhale/.codewhale/
			// config.toml there is not a file anyone keeps.
			continue
		}
		fs := FileStatus{Path: f.Path, State: f.State, Errors: []string{}}
		for _, p := range f.Problems {
			if p.Severity == problem.Error {
				fs.Errors = append(fs.Errors, string(p.Code)+": "+p.Message)
			}
		}
		st.Files = append(st.Files, fs)
	}
	return st, nil
}

// approvalsStatus is how the client is prompted, decided at initialize.
func (s *Server) approvalsStatus() ApprovalsStatus {
	s.mu.Lock()
	prompts := s.prompts
	s.mu.Unlock()
	return ApprovalsStatus{Served: prompts.Served(), Prompt: string(prompts.Kind), Reason: prompts.Why}
}

// userFilesOnly reports whether root is the directory of the user's own
// Codewhale files (the Codewhale home, or the directory of the active
// config.toml), which editors name as the workspace of those files.
func userFilesOnly(p config.Paths, root string) bool {
	if root == "" {
		return false
	}
	root = filepath.Clean(root)
	return (p.CodewhaleDir != "" && filepath.Clean(p.CodewhaleDir) == root) ||
		(p.Config != "" && filepath.Dir(p.Config) == root)
}

// projectKind reports whether files of kind k belong to a project.
func projectKind(k config.Kind) bool {
	return k == config.KindOverlay || k == config.KindProjectHooks || k == config.KindConstitution
}

// statusWorkspace reads codewhale/status's optional params strictly.
func statusWorkspace(params jsonrpc2.RawMessage) (string, error) {
	if len(params) == 0 || string(params) == "null" {
		return "", nil
	}
	var p struct {
		Workspace *string `json:"workspace"`
	}
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return "", fmt.Errorf("params must be {\"workspace\": \"<absolute folder>\"} or absent: %v", err)
	}
	if p.Workspace == nil {
		return "", nil
	}
	if !filepath.IsAbs(*p.Workspace) {
		return "", fmt.Errorf("workspace: %q is not an absolute path", problem.Excerpt(*p.Workspace))
	}
	return filepath.Clean(*p.Workspace), nil
}
