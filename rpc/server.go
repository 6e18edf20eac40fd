package rpc

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/approvals/remote"
	"github.com/codewhale-ls/codewhale-ls/diagnostics"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/hooks"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/rpc/document"
	"github.com/codewhale-ls/codewhale-ls/rpc/prompting"
	"github.com/codewhale-ls/codewhale-ls/watch"
)

// DefaultDebounce is how long edits settle before a check: long enough to
// coalesce a burst of keystrokes, short enough to feel immediate.
const DefaultDebounce = 50 * time.Millisecond

// Options configure a server.
type Options struct {
	// Env is the environment policy files are resolved in; nil is the
	// process environment.
	Env config.Env
	// Log receives the server's own messages; nil discards them. Never
	// stdout: that is the protocol stream.
	Log *slog.Logger
	// Debounce overrides DefaultDebounce when positive.
	Debounce time.Duration
	// Hooks runs tool_call_before hooks for decisions; nil runs them with
	// sh -c as Codewhale does.
	Hooks hooks.Runner
	// CodewhaleVersion is --codewhale-version (already validated); empty
	// lets initializationOptions or the codewhale on PATH decide.
	CodewhaleVersion string
}

// lifecycle is where the session is in LSP's initialize … exit sequence.
type lifecycle int

const (
	uninitialized lifecycle = iota
	running
	shutDown
)

// Server answers one client. It embeds protocol.UnimplementedServer so
// that methods it does not serve answer MethodNotFound (requests) or are
// ignored (notifications).
type Server struct {
	protocol.UnimplementedServer

	env      config.Env
	log      *slog.Logger
	debounce time.Duration
	client   protocol.Client
	conn     jsonrpc2.Conn
	hooks    hooks.Runner

	// Deciding: set up at initialize, torn down at shutdown or when the
	// client goes away (every pending prompt is then denied).
	authz   *approvals.Authorizer
	watcher *watch.Watcher
	// waiting are the prompts sent as notifications (approvalsAsync),
	// answered by codewhale/answerApproval.
	waiting *waitingPrompts
	// remotes serve other agents' hooks on each workspace folder's
	// approval socket (rpc/remote.go), by folder.
	remotes map[string]*remote.Server
	// lifetime ends when deciding stops (shutdown, exit, the client gone):
	// the detection of the user's Codewhale release ends with it.
	lifetime    context.Context
	endLifetime context.CancelFunc
	// authorizing counts codewhale/authorize calls in flight: the log
	// stays open until each has recorded its decision.
	authorizing sync.WaitGroup

	docs      *document.Store
	baselines *diagnostics.Baselines
	// views own the per-workspace state: snapshots, checks, publications.
	views  *views
	exited chan struct{}

	codewhaleFlag string
	codewhale     *codewhaleChoice
	detector      release.Detector

	mu    sync.Mutex
	state lifecycle
	// initializing: an initialize is setting up, outside s.mu; a second
	// one is refused.
	initializing bool
	init         initOptions
	// prompts: whether and how the client is given approval prompts
	// (rpc/prompting), decided at initialize.
	prompts    prompting.Choice
	encoding   protocol.PositionEncodingKind
	root       string   // the workspace from initialize; "" when the client named none
	folders    []string // the client's workspace folders
	lastOpened string   // the workspace of the policy file opened last
	exitClean  bool     // exit came after shutdown
	exitOnce   sync.Once
}

func newServer(opts Options) *Server {
	s := &Server{
		waiting:   newWaitingPrompts(),
		remotes:   map[string]*remote.Server{},
		env:       opts.Env,
		log:       opts.Log,
		debounce:  opts.Debounce,
		docs:      document.NewStore(),
		baselines: diagnostics.NewBaselines(),
		exited:    make(chan struct{}),
		encoding:  protocol.PositionEncodingKindUTF16,
		hooks:     opts.Hooks,

		codewhaleFlag: opts.CodewhaleVersion,
		codewhale:     newCodewhaleChoice(),
	}
	s.views = newViews(s)
	s.lifetime, s.endLifetime = context.WithCancel(context.Background())
	if s.hooks == nil {
		s.hooks = hooks.ShellRunner{}
	}
	if s.env == nil {
		s.env = config.OSEnv{}
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.debounce <= 0 {
		s.debounce = DefaultDebounce
	}
	return s
}

// positionEncoding is the encoding negotiated at initialize.
func (s *Server) positionEncoding() protocol.PositionEncodingKind {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.encoding
}

// stopChecks stops every debounce timer and waits for running checks, so
// that no goroutine of the server outlives the session.
func (s *Server) stopChecks() {
	s.views.stop()
}
