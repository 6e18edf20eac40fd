//lint:file-ignore SA1019 rootUri is deprecated in LSP 3.17 in favour of workspaceFolders, yet clients that name no folders (Neovim without a root, older editors) still send it, and the workspace they name must be honoured

package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/internal/buildinfo"
	"github.com/codewhale-ls/codewhale-ls/rpc/prompting"
)

// initOptions are the client's initializationOptions (docs/codewhale/contract.md §4).
// Only config is used by the linter; the approval broker reads the rest.
type initOptions struct {
	Config                 string `json:"config"`
	ApprovalTimeoutSeconds *int   `json:"approvalTimeoutSeconds"`
	Approvals              string `json:"approvals"`
	// ApprovalsAsync (with approvals = "codewhale"): prompts as the
	// codewhale/approvalRequested notification, answered by the client's
	// codewhale/answerApproval request (rpc/approve_async.go).
	ApprovalsAsync   bool            `json:"approvalsAsync"`
	DecisionLog      json.RawMessage `json:"decisionLog"` // a path, or false
	CodewhaleVersion string          `json:"codewhaleVersion"`
	// Hardening is the hardening layer (docs/hardening.md): on unless
	// false, for Codewhale's decision alone.
	Hardening *bool `json:"hardening"`
	// LogInputs false keeps receipts without the call's input, whatever
	// settings.toml says (docs/receipts.md).
	LogInputs *bool `json:"logInputs"`
}

func parseInitOptions(raw protocol.LSPAny) (initOptions, error) {
	var o initOptions
	if len(raw) == 0 || string(raw) == "null" {
		return o, nil
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return o, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "initializationOptions: %v", err)
	}
	if _, _, err := release.Named(nil, given(o.CodewhaleVersion)); err != nil {
		return o, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	return o, nil
}

// Initialize negotiates capabilities and records the workspace.
func (s *Server) Initialize(ctx context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	opts, err := parseInitOptions(params.InitializationOptions)
	if err != nil {
		return nil, err
	}
	errAgain := jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already called")
	s.mu.Lock()
	if s.state != uninitialized || s.initializing {
		s.mu.Unlock()
		return nil, errAgain
	}
	s.initializing = true
	s.mu.Unlock()
	root := workspaceRoot(params)
	prompts := prompting.Choose(prompting.Client{Approvals: opts.Approvals, Async: opts.ApprovalsAsync, MessageActions: declaresMessageActions(params.Capabilities)})
	// Opening the decision log touches the disk: not under s.mu.
	authz, err := s.newAuthorizer(opts, root, prompts, editorName(params.ClientInfo))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.initializing = false
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	if s.state != uninitialized { // the session ended meanwhile
		authz.Close()
		return nil, errAgain
	}
	s.init = opts
	s.root = root
	s.folders = workspaceFolders(params)
	s.authz = authz
	s.prompts = prompts
	s.state = running
	s.chooseCodewhale(s.codewhaleFlag, opts.CodewhaleVersion)
	s.encoding = negotiateEncoding(params.Capabilities.General)
	return &protocol.InitializeResult{
		Capabilities: s.capabilities(),
		ServerInfo:   protocol.ServerInfo{Name: "codewhale-ls", Version: protocol.NewOptional(buildinfo.Version())},
	}, nil
}

// capabilities is what the server offers. s.mu must be held.
func (s *Server) capabilities() protocol.ServerCapabilities {
	openClose, change, supported := true, protocol.TextDocumentSyncKindIncremental, true
	c := protocol.ServerCapabilities{
		PositionEncoding: s.encoding,
		TextDocumentSync: &protocol.TextDocumentSyncOptions{OpenClose: &openClose, Change: &change},
		CodeActionProvider: &protocol.CodeActionOptions{
			CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, protocol.CodeActionKindSourceFixAll},
		},
		HoverProvider:          protocol.Boolean(true),
		DocumentSymbolProvider: protocol.Boolean(true),
		CompletionProvider:     &protocol.CompletionOptions{TriggerCharacters: []string{`"`, "=", ".", "["}},
		// Asked for, so that a folder added to the window later is served
		// (syncRemotes): VS Code's language client sends
		// workspace/didChangeWorkspaceFolders only to a server that says
		// changeNotifications (vscode-languageclient workspaceFolder.js).
		Workspace: &protocol.WorkspaceOptions{WorkspaceFolders: &protocol.WorkspaceFoldersServerCapabilities{
			Supported: &supported, ChangeNotifications: protocol.Boolean(true),
		}},
	}
	// No diagnosticProvider, even for a client that can pull: every finding
	// is pushed (a disk change or another file's edit changes them, which
	// a pull client would not ask for), and a client that pulled as well
	// would show each one twice (VS Code and Neovim 0.11+ keep the two in
	// separate collections). A textDocument/diagnostic request sent anyway
	// is still answered with the same findings.
	return c
}

// declaresMessageActions reports whether the client declared
// window/showMessageRequest with actions (LSP 3.16).
func declaresMessageActions(c protocol.ClientCapabilities) bool {
	return c.Window != nil && c.Window.ShowMessage != nil && c.Window.ShowMessage.MessageActionItem != nil
}

// negotiateEncoding prefers UTF-16, which every client must support, and
// takes UTF-8 only from a client that does not offer UTF-16. UTF-32 is not
// supported.
func negotiateEncoding(general *protocol.GeneralClientCapabilities) protocol.PositionEncodingKind {
	if general == nil || len(general.PositionEncodings) == 0 ||
		slices.Contains(general.PositionEncodings, protocol.PositionEncodingKindUTF16) ||
		!slices.Contains(general.PositionEncodings, protocol.PositionEncodingKindUTF8) {
		return protocol.PositionEncodingKindUTF16
	}
	return protocol.PositionEncodingKindUTF8
}

// workspaceRoot is the first workspace folder, else rootUri, else "" (each
// file is then linted in the workspace of its git root).
func workspaceRoot(params *protocol.InitializeParams) string {
	if folders, ok := params.WorkspaceFolders.Get(); ok && len(folders) > 0 {
		if p := filePath(folders[0].URI); p != "" {
			return p
		}
	}
	if params.RootURI != nil {
		return filePath(*params.RootURI)
	}
	return ""
}

// workspaceFolders are every folder the client opened: an agent's request
// may name any of them (or a directory inside one).
func workspaceFolders(params *protocol.InitializeParams) []string {
	var out []string
	if folders, ok := params.WorkspaceFolders.Get(); ok {
		for _, f := range folders {
			if p := filePath(f.URI); p != "" {
				out = append(out, p)
			}
		}
	}
	if params.RootURI != nil {
		if p := filePath(*params.RootURI); p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// filePath is the absolute path of a file: URI, else "".
func filePath(u uri.URI) string {
	if !u.IsFile() {
		return ""
	}
	p := u.FsPath()
	if !filepath.IsAbs(p) {
		return ""
	}
	return filepath.Clean(p)
}

// Initialized serves the folders' approval sockets and checks each folder
// with policy files of its own at once, so that problems in files the
// user has not opened show up without an edit.
func (s *Server) Initialized(ctx context.Context, params *protocol.InitializedParams) error {
	// Watch first: a file that changes after the watches are set reports
	// an event, and the first check, which follows, reads what came before.
	s.startWatching()
	s.syncRemotes()
	s.mu.Lock()
	folders := slices.Clone(s.folders)
	prompts := s.prompts
	s.mu.Unlock()
	if !prompts.Served() {
		s.log.Debug("not serving approvals: the client cannot show prompts", "why", prompts.Why)
		s.logToClient(protocol.MessageTypeWarning, notServed(prompts))
	}
	s.lintFolders(folders)
	return nil
}

// notServed is the message, sent once, to a client that is given no
// prompts: what happened, why, and where the agents' asks go instead.
func notServed(prompts prompting.Choice) string {
	return "codewhale-ls is not serving approvals to other agents in this editor: " + prompts.Why +
		". Their asks go to `codewhale-ls approvals` in a terminal if one runs, else to the agent's own prompt, else they are denied; an agent inside this editor asking codewhale/authorize is denied when its call needs a person (docs/editors.md)."
}

// Shutdown stops every pending and running check; the client then sends
// exit.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.state = shutDown
	s.mu.Unlock()
	s.stopDeciding()
	s.stopChecks()
	return nil
}

// Exit ends the session; Serve returns.
func (s *Server) Exit(ctx context.Context) error {
	s.mu.Lock()
	s.exitClean = s.state == shutDown
	s.mu.Unlock()
	s.exitOnce.Do(func() { close(s.exited) })
	return nil
}

// errNotRunning is the answer to a request outside initialize … shutdown.
func (s *Server) errNotRunning(method string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.state == uninitialized && method != protocol.MethodInitialize:
		return jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, "the server is not initialized")
	case s.state == shutDown:
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, fmt.Sprintf("%s after shutdown", method))
	}
	return nil
}

// editorName is the client as it names itself ("Neovim 0.12.0"), for the
// receipts of the calls its user answers; "the editor" when it gives no
// name.
func editorName(info protocol.ClientInfo) string {
	if strings.TrimSpace(info.Name) == "" {
		return "the editor"
	}
	name := info.Name
	if v, ok := info.Version.Get(); ok && v != "" {
		name += " " + v
	}
	shown, _ := problem.Visible{}.Show(name)
	return shown
}
