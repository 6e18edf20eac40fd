package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/codewhale-ls/codewhale-ls/rpc/workspaces"
)

// DidChangeWatchedFiles is the client's own file watching: a change it
// saw reloads the policy as the server's watcher would.
func (s *Server) DidChangeWatchedFiles(ctx context.Context, params *protocol.DidChangeWatchedFilesParams) error {
	var paths []string
	for _, c := range params.Changes {
		if p := filePath(c.URI); p != "" {
			paths = append(paths, p)
		}
	}
	if len(paths) > 0 {
		s.policiesChanged(paths)
	}
	return nil
}

func init() {
	// Decoded here rather than by protocol.ServerHandler, which rejects the
	// whole message for one malformed folder: Neovim 0.7 sends
	// "removed": [[]] when it adds a folder.
	register(protocol.MethodWorkspaceDidChangeWorkspaceFolders, didChangeWorkspaceFolders)
}

// didChangeWorkspaceFolders keeps the folders an agent may name current,
// and the default workspace one of them, and lints the added ones. A malformed entry is skipped (and logged); the
// valid ones still apply.
func didChangeWorkspaceFolders(ctx context.Context, s *Server, params jsonrpc2.RawMessage) (any, error) {
	var p struct {
		Event struct {
			Added   json.RawMessage `json:"added"`
			Removed json.RawMessage `json:"removed"`
		} `json:"event"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "workspace/didChangeWorkspaceFolders: "+err.Error())
	}
	removed := s.folderPaths("event.removed", p.Event.Removed)
	added := s.folderPaths("event.added", p.Event.Added)
	s.mu.Lock()
	s.folders = slices.DeleteFunc(s.folders, func(folder string) bool { return slices.Contains(removed, folder) })
	for _, f := range added {
		if !slices.Contains(s.folders, f) {
			s.folders = append(s.folders, f)
		}
	}
	s.root = workspaces.Default(s.root, s.folders)
	s.mu.Unlock()
	s.syncRemotes()
	// A view goes when its folder goes (unless a document open in it
	// holds it); a folder removed and added back in one event stays.
	if gone := slices.DeleteFunc(removed, func(f string) bool { return slices.Contains(added, f) }); len(gone) > 0 {
		s.views.release(gone)
		s.watchPolicies() // their files are no longer read
	}
	s.lintFolders(added)
	return nil, nil
}

// folderPaths are the paths of the valid WorkspaceFolder entries of list
// (the field named where); each malformed one is logged by its index.
func (s *Server) folderPaths(where string, list json.RawMessage) []string {
	if len(list) == 0 || string(list) == "null" {
		return nil
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(list, &entries); err != nil {
		s.log.Warn("ignored a malformed list of workspace folders", "field", where, "error", err)
		return nil
	}
	var out []string
	for i, raw := range entries {
		field := fmt.Sprintf("%s[%d]", where, i)
		var f protocol.WorkspaceFolder
		if err := json.Unmarshal(raw, &f); err != nil {
			s.log.Warn("ignored a malformed workspace folder", "field", field, "value", string(raw), "error", err)
			continue
		}
		p := filePath(f.URI)
		if p == "" {
			s.log.Warn("ignored a workspace folder that is not a file: URI", "field", field+".uri", "value", string(f.URI))
			continue
		}
		out = append(out, p)
	}
	return out
}

// lintFolders watches each folder's files, then checks those that have
// policy files of their own: watched first, so a change made while the
// check runs is reported by the watcher instead of being read as the
// baseline the watcher compares with. A folder without any (most
// repositories: the policy lives in ~/.codewhale) is served for
// approvals and costs nothing more: no check, no publication, no git
// call, until a policy file is opened there or appears on disk.
func (s *Server) lintFolders(folders []string) {
	if len(folders) == 0 {
		return
	}
	added := make([]*view, 0, len(folders))
	for _, f := range folders {
		v := s.views.get(f)
		if !v.hasPolicyFiles() {
			continue
		}
		v.lint()
		added = append(added, v)
	}
	s.watchPolicies()
	for _, v := range added {
		v.schedule()
	}
}
