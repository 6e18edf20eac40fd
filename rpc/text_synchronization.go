package rpc

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/codewhale-ls/codewhale-ls/rpc/document"
)

// DidOpen starts tracking a policy file; any other document is ignored.
func (s *Server) DidOpen(ctx context.Context, params *protocol.DidOpenTextDocumentParams) error {
	item := params.TextDocument
	path := filePath(item.URI)
	if path == "" {
		return nil
	}
	v, kind, ok := s.views.open(s.rootFor(path), path)
	if !ok {
		return nil
	}
	s.mu.Lock()
	s.lastOpened = v.root
	s.mu.Unlock()
	s.baselines.Open(path)
	s.docs.Open(&document.Document{URI: item.URI, Path: path, Kind: kind, Workspace: v.root, Version: item.Version, Text: []byte(item.Text)})
	s.changed()
	return nil
}

// DidChange applies the edits in the negotiated position encoding.
func (s *Server) DidChange(ctx context.Context, params *protocol.DidChangeTextDocumentParams) error {
	if _, open := s.docs.Get(params.TextDocument.URI); !open {
		return nil // not a policy file
	}
	if _, err := s.docs.Change(params.TextDocument.URI, params.TextDocument.Version, params.ContentChanges, s.positionEncoding()); err != nil {
		return err
	}
	s.changed()
	return nil
}

// DidSave re-checks: the file on disk is what the other files' checks and
// the gate read.
func (s *Server) DidSave(ctx context.Context, params *protocol.DidSaveTextDocumentParams) error {
	if _, open := s.docs.Get(params.TextDocument.URI); open {
		s.changed()
	}
	return nil
}

// DidClose stops tracking a document: from now on its file on disk is
// checked (and its diagnostics cleared if the disk version is clean).
func (s *Server) DidClose(ctx context.Context, params *protocol.DidCloseTextDocumentParams) error {
	d, open := s.docs.Close(params.TextDocument.URI)
	if !open {
		return nil
	}
	s.baselines.Forget(d.Path)
	s.changed()
	return nil
}

// changed schedules the checks an edit affects.
func (s *Server) changed() {
	s.views.scheduleChecks()
}
