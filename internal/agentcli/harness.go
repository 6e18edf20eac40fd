// Package agentcli runs the real agent CLIs (Claude Code, Gemini CLI,
// Codex, Copilot CLI) headless against the fake model server
// (internal/fakemodel), each in a world of its own: a home with a fake
// private key and a Codewhale home, a git repository, `codewhale-ls hook
// AGENT` installed as docs/agents.md tells users to. The way each CLI runs
// offline is docs/codewhale/deps.md Appendix F. agents/realagents tests
// the hook's verdicts with it; editors/ tests a real editor answering a
// real agent's ask.
//
// The CLIs come from .ci/setup-agents.sh. Everything here runs only with
// CODEWHALE_E2E=1, under which a missing CLI or Node is a failure: a
// user's own claude or codex on PATH does not start them.
package agentcli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/internal/fakemodel"
	"github.com/codewhale-ls/codewhale-ls/internal/procgroup"
)

const (
	// E2EEnv=1 turns a missing CLI or Node into a failure (.ci/run sets it).
	E2EEnv = "CODEWHALE_E2E"
	// agentsEnv names the npm prefix holding the CLIs; .ci/setup-agents.sh
	// installs them in defaultAgents.
	agentsEnv     = "CODEWHALE_AGENTS_DIR"
	defaultAgents = "/opt/codewhale-e2e/agents"
	// Node 24 from .ci/setup-agents.sh (and the other setup scripts).
	defaultNode = "/opt/codewhale-e2e/node/bin"

	// Secret is the content of the fake private key in the test's home:
	// a result that carries it means the key reached the model.
	Secret = "FAKE-PRIVATE-KEY-CONTENT"
	// Readme is the content of the repository's README.md.
	Readme = "hello from the readme"

	// runDeadline only keeps a hung CLI from hanging the suite (a Gemini
	// hook's "ask" waits forever under -p); no assertion reads a time.
	runDeadline = 3 * time.Minute
)

// RequireE2E skips a test that runs a real agent CLI unless
// CODEWHALE_E2E=1.
func RequireE2E(t *testing.T) {
	t.Helper()
	if os.Getenv(E2EEnv) != "1" {
		t.Skipf("runs the real agent CLIs; runs only with %s=1 (.ci/run sets it)", E2EEnv)
	}
}

func missing(t *testing.T, what string) {
	t.Helper()
	if os.Getenv(E2EEnv) == "1" {
		t.Fatalf("%s=1 but %s (run .ci/setup-agents.sh)", E2EEnv, what)
	}
	t.Skipf("%s (run .ci/setup-agents.sh); set %s=1 to make that a failure", what, E2EEnv)
}

// nodeDir returns a directory holding a Node of at least major version min.
func nodeDir(t *testing.T, min int) string {
	t.Helper()
	RequireE2E(t)
	candidates := []string{defaultNode}
	if p, err := exec.LookPath("node"); err == nil {
		candidates = append(candidates, filepath.Dir(p))
	}
	for _, dir := range candidates {
		out, err := exec.Command(filepath.Join(dir, "node"), "-p", "process.versions.node.split('.')[0]").Output()
		if err != nil {
			continue
		}
		if major, _ := strconv.Atoi(strings.TrimSpace(string(out))); major >= min {
			return dir
		}
	}
	missing(t, fmt.Sprintf("no Node >= %d in %s or on PATH", min, defaultNode))
	return ""
}

// cliPath finds an agent's CLI in the setup script's prefix, else on PATH.
func cliPath(t *testing.T, name string) string {
	t.Helper()
	RequireE2E(t)
	dir := os.Getenv(agentsEnv)
	if dir == "" {
		dir = defaultAgents
	}
	p := filepath.Join(dir, "node_modules", ".bin", name)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	missing(t, fmt.Sprintf("%s is not installed in %s nor on PATH", name, dir))
	return ""
}

var (
	buildOnce sync.Once
	buildDir  string
	built     string
	buildErr  error
)

// HookBinary builds cmd/codewhale-ls once; RemoveBuilt, in TestMain, removes it. Its name
// starts with codewhale-ls, as `hook install` recognises its own entries
// by that (docs/agents.md "Installing the hook").
func HookBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		// Not in the temporary directory: `hook install` refuses a
		// binary there, which would be deleted (issue 24, point 7).
		buildDir, buildErr = os.MkdirTemp(lastingDir(), "cw-realagents-bin")
		if buildErr != nil {
			return
		}
		built = filepath.Join(buildDir, "codewhale-ls")
		out, err := exec.Command("go", "build", "-o", built, "github.com/codewhale-ls/codewhale-ls/cmd/codewhale-ls").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

// RemoveBuilt removes what HookBinary built; TestMain calls it after the
// tests.
func RemoveBuilt() {
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
}

// lastingDir is where the hook binary is built: the user's cache
// directory, else the package's own, neither of which hook install takes
// for a temporary one.
func lastingDir() string {
	if d, err := os.UserCacheDir(); err == nil && os.MkdirAll(d, 0o755) == nil {
		return d
	}
	return "."
}

// Agent is how one CLI is set up, run and scripted.
type Agent struct {
	// Name is the argument of `codewhale-ls hook` and `hook install`.
	Name string
	CLI  string
	Node int // the Node major version the CLI's package asks for
	// Configure writes the agent's own settings (model server, auth,
	// telemetry off, trust) before the hook is installed.
	Configure func(s *Session)
	// AfterInstall does what the user does after `hook install` (Codex:
	// trust the hook, as /hooks does).
	AfterInstall func(s *Session)
	Env          func(s *Session) []string
	Args         func(s *Session, prompt string) []string
	// The scripted calls in the agent's own tool names. read is nil where
	// the agent reads only through its shell.
	// MCPArgs attaches the fake MCP server (mcp_test.go) and returns the
	// arguments that do; nil where the configuration does it (Gemini) or
	// where no MCP case runs (Codex hides MCP tools behind tool_search).
	MCPArgs func(s *Session) []string
	Shell   func(command string) fakemodel.Step
	Read    func(path string) fakemodel.Step
	Write   func(path, content string) fakemodel.Step
}

// Session is one test's world: a home with a fake key and a Codewhale
// home, a git repository with a subdirectory, the fake model, the hook.
type Session struct {
	T     *testing.T
	A     *Agent
	Root  string // holds home/ and repo/, so ../../home is the home from repo/sub
	Home  string
	Repo  string
	CLI   string
	Node  string
	Hook  string
	Model *fakemodel.Server
	// ExtraEnv is added to the agent's environment (the editor's socket).
	ExtraEnv []string
	// ExtraArgs are added to the agent's arguments.
	ExtraArgs []string
}

func NewSession(t *testing.T, a *Agent) *Session {
	t.Helper()
	s := &Session{T: t, A: a, Node: nodeDir(t, a.Node), CLI: cliPath(t, a.CLI), Hook: HookBinary(t)}
	root, err := os.MkdirTemp("", "cwra")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	s.Root = root
	s.Home = filepath.Join(root, "home")
	s.Repo = filepath.Join(root, "repo")
	s.WriteFile(filepath.Join(s.Home, ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\n"+Secret+"\n")
	s.WriteFile(filepath.Join(s.Repo, "README.md"), Readme+"\n")
	s.WriteFile(filepath.Join(s.Repo, "sub", "inner.txt"), "inner\n")
	s.WriteFile(filepath.Join(s.Repo, "secrets", "README.md"), "secrets go here, never written by an agent\n")
	// Codewhale's home (docs/codewhale/contract.md §1): the Ask posture,
	// a shell, the workspace-write sandbox, and one deny rule to see a
	// typed rule's deny reach the agent.
	s.WriteFile(filepath.Join(s.Home, ".codewhale", "config.toml"), "sandbox_mode = \"workspace-write\"\nallow_shell = true\n")
	s.WriteFile(filepath.Join(s.Home, ".codewhale", "permissions.toml"),
		"[[rules]]\ntool = \"exec_shell\"\ncommand = \"cargo publish\"\naction = \"deny\"\n")
	// Repository law (pipeline.md §7): nothing is written under secrets/.
	s.WriteFile(filepath.Join(s.Repo, ".codewhale", "constitution.json"),
		`{"schema_version": 1, "protected_invariants": [{"text": "Secrets are never written by an agent", "paths": ["secrets/**"], "action": "block"}]}`+"\n")
	s.Git("init", "-q")
	s.Git("add", "-A")
	s.Git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "init")

	model, err := fakemodel.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = model.Close() })
	s.Model = model
	a.Configure(s)
	return s
}

func (s *Session) WriteFile(path, content string) {
	s.T.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		s.T.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		s.T.Fatal(err)
	}
}

func (s *Session) WriteJSON(path string, v any) {
	s.T.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		s.T.Fatal(err)
	}
	s.WriteFile(path, string(b)+"\n")
}

func (s *Session) Git(args ...string) {
	s.T.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = s.Repo
	cmd.Env = s.BaseEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		s.T.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// BaseEnv is what every process of the session starts with: nothing of
// the developer's own environment but PATH, so no real config, key or
// home leaks into an agent.
func (s *Session) BaseEnv() []string {
	return []string{
		"HOME=" + s.Home,
		"PATH=" + s.Node + string(os.PathListSeparator) + "/usr/local/bin:/usr/bin:/bin",
		"USER=tester", "LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1",
		"XDG_CONFIG_HOME=" + filepath.Join(s.Home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(s.Home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(s.Home, ".local", "share"),
		// The approval socket's directory (approvals/remote): the same
		// for the editor's server and the hooks the agents run.
		"XDG_RUNTIME_DIR=" + s.Root,
		"TMPDIR=" + os.TempDir(),
	}
}

// Install runs `codewhale-ls hook install AGENT --yes [flags]` in dir, as
// docs/agents.md tells users to.
func (s *Session) Install(dir string, flags ...string) {
	s.T.Helper()
	cmd := exec.Command(s.Hook, append([]string{"hook", "install", s.A.Name, "--yes"}, flags...)...)
	cmd.Dir = dir
	cmd.Env = s.BaseEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		s.T.Fatalf("codewhale-ls hook install %s --yes %v: %v\n%s", s.A.Name, flags, err, out)
	}
	if s.A.AfterInstall != nil {
		s.A.AfterInstall(s)
	}
}

// Result is one run of the agent.
type Result struct {
	// Results are the tool results the agent sent the model, in order.
	Results []string
	Output  string
}

// Run starts the agent in dir with script and waits for it to end.
func (s *Session) Run(dir string, script ...fakemodel.Step) Result {
	s.T.Helper()
	s.Model.SetScript(script)
	s.Model.Reset()
	ctx, cancel := context.WithTimeout(context.Background(), runDeadline)
	defer cancel()
	cmd := exec.Command(s.CLI, append(s.A.Args(s, "Do the task."), s.ExtraArgs...)...)
	cmd.Dir = dir
	cmd.Env = append(append(s.BaseEnv(), s.A.Env(s)...), s.ExtraEnv...)
	cmd.Stdin = nil // headless: no terminal, no input
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	procgroup.Own(cmd)
	if err := cmd.Start(); err != nil {
		s.T.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		procgroup.Kill(cmd)
		<-done
		s.T.Fatalf("%s did not end within %v; output:\n%s", s.A.CLI, runDeadline, out.String())
	}
	// The agent's own children (a shell it left, a node helper) go with it.
	procgroup.Kill(cmd)
	r := Result{Results: s.Model.Results(), Output: out.String()}
	if err != nil {
		s.T.Fatalf("%s: %v; output:\n%s", s.A.CLI, err, r.Output)
	}
	if len(r.Results) < len(script) {
		s.T.Fatalf("%s reported %d tool results for %d scripted calls: %q; output:\n%s",
			s.A.CLI, len(r.Results), len(script), r.Results, r.Output)
	}
	return r
}

func (s *Session) Exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// NoSecret fails when a tool result carried the fake key.
func (r Result) NoSecret(t *testing.T) {
	t.Helper()
	for i, res := range r.Results {
		if strings.Contains(res, Secret) {
			t.Errorf("call %d: the key's content reached the model: %q", i, res)
		}
	}
}

// appServer drives `codex app-server` (JSONL over stdio) for the requests
// a test needs; the process ends when its input closes.
type appServer struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Scanner
	next int
}

func (s *Session) startAppServer() *appServer {
	s.T.Helper()
	cmd := exec.Command(s.CLI, "app-server")
	cmd.Dir = s.Repo
	cmd.Env = append(s.BaseEnv(), s.A.Env(s)...)
	in, err := cmd.StdinPipe()
	if err != nil {
		s.T.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		s.T.Fatal(err)
	}
	procgroup.Own(cmd)
	if err := cmd.Start(); err != nil {
		s.T.Fatal(err)
	}
	sc := bufio.NewScanner(outPipe)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	a := &appServer{cmd: cmd, in: in, out: sc}
	a.call(s.T, "initialize", map[string]any{"clientInfo": map[string]any{"name": "codewhale-ls-tests", "version": "1"}})
	a.send(s.T, map[string]any{"method": "initialized"})
	return a
}

func (a *appServer) send(t *testing.T, msg map[string]any) {
	t.Helper()
	b, _ := json.Marshal(msg)
	if _, err := a.in.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
}

// call sends a request and returns its result; notifications are skipped.
func (a *appServer) call(t *testing.T, method string, params any) json.RawMessage {
	t.Helper()
	a.next++
	a.send(t, map[string]any{"id": a.next, "method": method, "params": params})
	for a.out.Scan() {
		var msg struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(a.out.Bytes(), &msg) != nil || msg.ID == nil || *msg.ID != a.next {
			continue
		}
		if msg.Error != nil {
			t.Fatalf("codex app-server %s: %s", method, msg.Error)
		}
		return msg.Result
	}
	t.Fatalf("codex app-server ended before answering %s", method)
	return nil
}

func (a *appServer) close() {
	_ = a.in.Close()
	done := make(chan struct{})
	go func() {
		for a.out.Scan() { // drain, so that the server's last writes do not block its exit
		}
		_ = a.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		procgroup.Kill(a.cmd)
		<-done
	}
	procgroup.Kill(a.cmd)
}

// CodewhaleLS runs codewhale-ls with args in dir, in the session's environment,
// and returns its stdout and stderr; a failure ends the test.
func (s *Session) CodewhaleLS(dir string, args ...string) string {
	s.T.Helper()
	cmd := exec.Command(s.Hook, args...)
	cmd.Dir = dir
	cmd.Env = s.BaseEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.T.Fatalf("codewhale-ls %v: %v\n%s", args, err, out)
	}
	return string(out)
}
