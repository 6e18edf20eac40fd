// Package document keeps the text an editor holds for each open policy
// file, applying full and incremental changes in the negotiated position
// encoding.
package document

import (
	"fmt"
	"slices"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
)

// Document is one open file at one version. It is never modified: a change
// makes a new Document, so a check can hold one while edits go on.
type Document struct {
	URI  uri.URI
	Path string // absolute file path
	Kind config.Kind
	// Workspace is the root of the workspace the document is linted in.
	Workspace string
	Version   int32
	Text      []byte
}

// Store is the set of open documents. Safe for concurrent use.
type Store struct {
	mu   sync.Mutex
	docs map[uri.URI]*Document
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{docs: map[uri.URI]*Document{}} }

// Open records a document the editor opened (or re-opened).
func (s *Store) Open(d *Document) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.docs[d.URI] = d
}

// Close forgets a document and returns it; ok is false when it was not open.
func (s *Store) Close(u uri.URI) (*Document, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[u]
	delete(s.docs, u)
	return d, ok
}

// Get returns the current version of an open document.
func (s *Store) Get(u uri.URI) (*Document, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[u]
	return d, ok
}

// Change applies an editor's changes, in order, and records the new
// version. Either every change applies or none does: an invalid range
// leaves the document as it was and returns an error.
func (s *Store) Change(u uri.URI, version int32, changes []protocol.TextDocumentContentChangeEvent, encoding protocol.PositionEncodingKind) (*Document, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[u]
	if !ok {
		return nil, fmt.Errorf("%s is not open", u)
	}
	text, err := Apply(d.Text, changes, encoding)
	if err != nil {
		return nil, fmt.Errorf("%s version %d: %w", u, version, err)
	}
	next := *d
	next.Version, next.Text = version, text
	s.docs[u] = &next
	return &next, nil
}

// Snapshot is every open document at one moment, in URI order.
func (s *Store) Snapshot() []*Document {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Document, 0, len(s.docs))
	for _, d := range s.docs {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b *Document) int {
		switch {
		case a.URI < b.URI:
			return -1
		case a.URI > b.URI:
			return 1
		}
		return 0
	})
	return out
}

// Versions maps every open document to its version: two equal Versions
// mean no document changed, opened or closed in between.
func (s *Store) Versions() map[uri.URI]int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[uri.URI]int32, len(s.docs))
	for u, d := range s.docs {
		out[u] = d.Version
	}
	return out
}

// Apply returns text with changes applied in order: a change without a
// range replaces the whole text; a ranged one is located in the text as
// the previous changes left it.
func Apply(text []byte, changes []protocol.TextDocumentContentChangeEvent, encoding protocol.PositionEncodingKind) ([]byte, error) {
	for i, c := range changes {
		switch c := c.(type) {
		case *protocol.TextDocumentContentChangeWholeDocument:
			text = []byte(c.Text)
		case *protocol.TextDocumentContentChangePartial:
			span, ok := NewMapper(text, encoding).Span(c.Range)
			if !ok {
				return nil, fmt.Errorf("change %d: range ends before it starts", i)
			}
			next := make([]byte, 0, len(text)-(span.End-span.Start)+len(c.Text))
			next = append(next, text[:span.Start]...)
			next = append(next, c.Text...)
			text = append(next, text[span.End:]...)
		default:
			return nil, fmt.Errorf("change %d: neither a range change nor a full text", i)
		}
	}
	return text, nil
}
