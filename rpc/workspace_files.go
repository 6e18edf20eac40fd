package rpc

import (
	"context"
	"slices"

	"go.lsp.dev/protocol"
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

// DidChangeWorkspaceFolders keeps the folders an agent may name current.
func (s *Server) DidChangeWorkspaceFolders(ctx context.Context, params *protocol.DidChangeWorkspaceFoldersParams) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range params.Event.Removed {
		p := filePath(f.URI)
		s.folders = slices.DeleteFunc(s.folders, func(folder string) bool { return folder == p })
	}
	for _, f := range params.Event.Added {
		if p := filePath(f.URI); p != "" && !slices.Contains(s.folders, p) {
			s.folders = append(s.folders, p)
		}
	}
	return nil
}
