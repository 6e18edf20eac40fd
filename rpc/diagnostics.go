package rpc

import (
	"context"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/codewhale-ls/codewhale-ls/diagnostics"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/rpc/document"
)

// publish sends textDocument/publishDiagnostics for every open document
// of the workspace and every other file with problems, and clears the
// files that had problems last time and have none now.
func (v *view) publish(res *diagnostics.Result, docs []*document.Document, enc protocol.PositionEncodingKind) {
	s := v.set.s
	open := map[uri.URI]*document.Document{}
	for _, d := range docs {
		if d.Workspace == v.root {
			open[d.URI] = d
		}
	}
	var out []*protocol.PublishDiagnosticsParams
	published := map[uri.URI]bool{}
	for _, f := range res.Files {
		u := uri.File(f.Path)
		d, isOpen := open[u]
		if !isOpen && (len(f.Problems) == 0 || s.ownedElsewhere(u, v.root)) {
			continue
		}
		p := &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: toDiagnostics(res, f, enc)}
		if isOpen {
			p.Version = protocol.NewOptional(d.Version)
			delete(open, u)
		}
		out = append(out, p)
		published[u] = len(p.Diagnostics) > 0
	}
	// An open policy document the check did not read (a constitution.json
	// outside the search path) has no findings; say so.
	for _, d := range docs {
		if _, left := open[d.URI]; left {
			out = append(out, &protocol.PublishDiagnosticsParams{URI: d.URI, Version: protocol.NewOptional(d.Version), Diagnostics: []protocol.Diagnostic{}})
		}
	}
	var cleared []uri.URI
	v.mu.Lock()
	for u := range v.published {
		if _, again := published[u]; !again {
			cleared = append(cleared, u)
		}
	}
	v.published = map[uri.URI]bool{}
	for u, has := range published {
		if has {
			v.published[u] = true
		}
	}
	v.mu.Unlock()
	s.sendDiagnostics(append(out, s.clearings(cleared, v.root)...))
}

// clearings are the empty publications that clear the findings of
// files, published by the workspace at root. A file another workspace now
// holds open is that one's to publish: clearing it here would wipe the
// findings it showed.
func (s *Server) clearings(files []uri.URI, root string) []*protocol.PublishDiagnosticsParams {
	var out []*protocol.PublishDiagnosticsParams
	for _, u := range files {
		if !s.ownedElsewhere(u, root) {
			out = append(out, &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: []protocol.Diagnostic{}})
		}
	}
	return out
}

// clearDiagnostics clears the findings the workspace at root published
// for files (it went).
func (s *Server) clearDiagnostics(files []uri.URI, root string) {
	s.sendDiagnostics(s.clearings(files, root))
}

// sendDiagnostics publishes each in turn, stopping at the first the
// client does not take.
func (s *Server) sendDiagnostics(all []*protocol.PublishDiagnosticsParams) {
	for _, p := range all {
		if err := s.client.PublishDiagnostics(context.Background(), p); err != nil {
			s.log.Warn("publishDiagnostics failed", "uri", p.URI, "error", err)
			return
		}
	}
}

// Diagnostic answers a pull (textDocument/diagnostic) with the same
// findings the server publishes, as a full report.
func (s *Server) Diagnostic(ctx context.Context, params *protocol.DocumentDiagnosticParams) (protocol.DocumentDiagnosticReport, error) {
	report := &protocol.RelatedFullDocumentDiagnosticReport{FullDocumentDiagnosticReport: protocol.FullDocumentDiagnosticReport{
		Kind: string(protocol.DocumentDiagnosticReportKindFull), Items: []protocol.Diagnostic{}}}
	res, f, err := s.fileResult(params.TextDocument.URI)
	if err != nil || f == nil {
		return report, err
	}
	report.Items = toDiagnostics(res, f, s.positionEncoding())
	return report, nil
}

// fileResult is the current check of an open policy document; f is nil
// for any other document.
func (s *Server) fileResult(u uri.URI) (*diagnostics.Result, *diagnostics.FileResult, error) {
	d, ok := s.docs.Get(u)
	if !ok {
		return nil, nil, nil
	}
	res, err := s.views.get(d.Workspace).result()
	if err != nil {
		return nil, nil, err
	}
	return res, res.File(d.Path), nil
}

// toDiagnostics converts one file's problems to LSP diagnostics.
func toDiagnostics(res *diagnostics.Result, f *diagnostics.FileResult, enc protocol.PositionEncodingKind) []protocol.Diagnostic {
	m := document.NewMapper(f.Src, enc)
	out := make([]protocol.Diagnostic, 0, len(f.Problems))
	for _, p := range f.Problems {
		out = append(out, toDiagnostic(m, p, func(path string) document.Mapper {
			if path == "" || path == f.Path {
				return m
			}
			return document.NewMapper(sourceOf(res, path), enc)
		}, f.Path))
	}
	return out
}

// toDiagnostic is one problem as an LSP diagnostic. The message is always
// the plain-string form: LSP 3.17 clients know no other.
func toDiagnostic(m document.Mapper, p problem.Problem, mapperOf func(path string) document.Mapper, path string) protocol.Diagnostic {
	d := protocol.Diagnostic{
		Range:           m.Range(p.Span),
		Severity:        severity(p.Severity),
		Code:            protocol.String(p.Code),
		CodeDescription: protocol.CodeDescription{Href: uri.URI(diagnostics.DocURL(p.Code))},
		Source:          protocol.NewOptional("codewhale"),
		Message:         protocol.String(p.Message),
	}
	for _, r := range p.Related {
		file := r.File
		if file == "" {
			file = path
		}
		d.RelatedInformation = append(d.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: uri.File(file), Range: mapperOf(file).Range(r.Span)},
			Message:  r.Message,
		})
	}
	return d
}

func severity(s problem.Severity) protocol.DiagnosticSeverity {
	switch s {
	case problem.Error:
		return protocol.DiagnosticSeverityError
	case problem.Warning:
		return protocol.DiagnosticSeverityWarning
	}
	return protocol.DiagnosticSeverityInformation
}
