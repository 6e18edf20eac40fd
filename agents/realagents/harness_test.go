package realagents

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
	// e2eEnv=1 turns a missing CLI or Node into a failure (.ci/run sets it).
	e2eEnv = "CODEWHALE_E2E"
	// agentsEnv names the npm prefix holding the CLIs; .ci/setup-agents.sh
	// installs them in defaultAgents.
	agentsEnv     = "CODEWHALE_AGENTS_DIR"
	defaultAgents = "/opt/codewhale-e2e/agents"
	// Node 24 from .ci/setup-agents.sh (and the other setup scripts).
	defaultNode = "/opt/codewhale-e2e/node/bin"

	// secret is the content of the fake private key in the test's home:
	// a result that carries it means the key reached the model.
	secret = "FAKE-PRIVATE-KEY-CONTENT"
	// readme is the content of the repository's README.md.
	readme = "hello from the readme"

	// runDeadline only keeps a hung CLI from hanging the suite (a Gemini
	// hook's "ask" waits forever under -p); no assertion reads a time.
	runDeadline = 3 * time.Minute
)

// requireE2E skips a test that runs a real agent CLI unless
// CODEWHALE_E2E=1.
func requireE2E(t *testing.T) {
	t.Helper()
	if os.Getenv(e2eEnv) != "1" {
		t.Skipf("runs the real agent CLIs; runs only with %s=1 (.ci/run sets it)", e2eEnv)
	}
}

func missing(t *testing.T, what string) {
	t.Helper()
	if os.Getenv(e2eEnv) == "1" {
		t.Fatalf("%s=1 but %s (run .ci/setup-agents.sh)", e2eEnv, what)
	}
	t.Skipf("%s (run .ci/setup-agents.sh); set %s=1 to make that a failure", what, e2eEnv)
}

// nodeDir returns a directory holding a Node of at least major version min.
func nodeDir(t *testing.T, min int) string {
	t.Helper()
	requireE2E(t)
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
	requireE2E(t)
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

// hookBinary builds cmd/codewhale-ls once; TestMain removes it. Its name
// starts with codewhale-ls, as `hook install` recognises its own entries
// by that (docs/agents.md "Installing the hook").
func hookBinary(t *testing.T) string {
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

// lastingDir is where the hook binary is built: the user's cache
// directory, else the package's own, neither of which hook install takes
// for a temporary one.
func lastingDir() string {
	if d, err := os.UserCacheDir(); err == nil && os.MkdirAll(d, 0o755) == nil {
		return d
	}
	return "."
}

// agent is how one CLI is set up, run and scripted.
type agent struct {
	// name is the argument of `codewhale-ls hook` and `hook install`.
	name string
	cli  string
	node int // the Node major version the CLI's package asks for
	// configure writes the agent's own settings (model server, auth,
	// telemetry off, trust) before the hook is installed.
	configure func(s *session)
	// afterInstall does what the user does after `hook install` (Codex:
	// trust the hook, as /hooks does).
	afterInstall func(s *session)
	env          func(s *session) []string
	args         func(s *session, prompt string) []string
	// The scripted calls in the agent's own tool names. read is nil where
	// the agent reads only through its shell.
	// mcpArgs attaches the fake MCP server (mcp_test.go) and returns the
	// arguments that do; nil where the configuration does it (Gemini) or
	// where no MCP case runs (Codex hides MCP tools behind tool_search).
	mcpArgs func(s *session) []string
	shell   func(command string) fakemodel.Step
	read    func(path string) fakemodel.Step
	write   func(path, content string) fakemodel.Step
}

// session is one test's world: a home with a fake key and a Codewhale
// home, a git repository with a subdirectory, the fake model, the hook.
type session struct {
	t     *testing.T
	a     *agent
	root  string // holds home/ and repo/, so ../../home is the home from repo/sub
	home  string
	repo  string
	cli   string
	node  string
	hook  string
	model *fakemodel.Server
	// extraEnv is added to the agent's environment (the editor's socket).
	extraEnv []string
	// extraArgs are added to the agent's arguments.
	extraArgs []string
}

func newSession(t *testing.T, a *agent) *session {
	t.Helper()
	s := &session{t: t, a: a, node: nodeDir(t, a.node), cli: cliPath(t, a.cli), hook: hookBinary(t)}
	root, err := os.MkdirTemp("", "cwra")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	s.root = root
	s.home = filepath.Join(root, "home")
	s.repo = filepath.Join(root, "repo")
	s.writeFile(filepath.Join(s.home, ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\n"+secret+"\n")
	s.writeFile(filepath.Join(s.repo, "README.md"), readme+"\n")
	s.writeFile(filepath.Join(s.repo, "sub", "inner.txt"), "inner\n")
	s.writeFile(filepath.Join(s.repo, "secrets", "README.md"), "secrets go here, never written by an agent\n")
	// Codewhale's home (docs/codewhale/contract.md §1): the Ask posture,
	// a shell, the workspace-write sandbox, and one deny rule to see a
	// typed rule's deny reach the agent.
	s.writeFile(filepath.Join(s.home, ".codewhale", "config.toml"), "sandbox_mode = \"workspace-write\"\nallow_shell = true\n")
	s.writeFile(filepath.Join(s.home, ".codewhale", "permissions.toml"),
		"[[rules]]\ntool = \"exec_shell\"\ncommand = \"cargo publish\"\naction = \"deny\"\n")
	// Repository law (pipeline.md §7): nothing is written under secrets/.
	s.writeFile(filepath.Join(s.repo, ".codewhale", "constitution.json"),
		`{"schema_version": 1, "protected_invariants": [{"text": "Secrets are never written by an agent", "paths": ["secrets/**"], "action": "block"}]}`+"\n")
	s.git("init", "-q")
	s.git("add", "-A")
	s.git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "init")

	model, err := fakemodel.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = model.Close() })
	s.model = model
	a.configure(s)
	return s
}

func (s *session) writeFile(path, content string) {
	s.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

func (s *session) writeJSON(path string, v any) {
	s.t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		s.t.Fatal(err)
	}
	s.writeFile(path, string(b)+"\n")
}

func (s *session) git(args ...string) {
	s.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = s.repo
	cmd.Env = s.baseEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// baseEnv is what every process of the session starts with: nothing of
// the developer's own environment but PATH, so no real config, key or
// home leaks into an agent.
func (s *session) baseEnv() []string {
	return []string{
		"HOME=" + s.home,
		"PATH=" + s.node + string(os.PathListSeparator) + "/usr/local/bin:/usr/bin:/bin",
		"USER=tester", "LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1",
		"XDG_CONFIG_HOME=" + filepath.Join(s.home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(s.home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(s.home, ".local", "share"),
		// The approval socket's directory (approvals/remote): the same
		// for the editor's server and the hooks the agents run.
		"XDG_RUNTIME_DIR=" + s.root,
		"TMPDIR=" + os.TempDir(),
	}
}

// install runs `codewhale-ls hook install AGENT --yes [flags]` in dir, as
// docs/agents.md tells users to.
func (s *session) install(dir string, flags ...string) {
	s.t.Helper()
	cmd := exec.Command(s.hook, append([]string{"hook", "install", s.a.name, "--yes"}, flags...)...)
	cmd.Dir = dir
	cmd.Env = s.baseEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("codewhale-ls hook install %s --yes %v: %v\n%s", s.a.name, flags, err, out)
	}
	if s.a.afterInstall != nil {
		s.a.afterInstall(s)
	}
}

// result is one run of the agent.
type result struct {
	// results are the tool results the agent sent the model, in order.
	results []string
	output  string
}

// run starts the agent in dir with script and waits for it to end.
func (s *session) run(dir string, script ...fakemodel.Step) result {
	s.t.Helper()
	s.model.SetScript(script)
	s.model.Reset()
	ctx, cancel := context.WithTimeout(context.Background(), runDeadline)
	defer cancel()
	cmd := exec.Command(s.cli, append(s.a.args(s, "Do the task."), s.extraArgs...)...)
	cmd.Dir = dir
	cmd.Env = append(append(s.baseEnv(), s.a.env(s)...), s.extraEnv...)
	cmd.Stdin = nil // headless: no terminal, no input
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	procgroup.Own(cmd)
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		procgroup.Kill(cmd)
		<-done
		s.t.Fatalf("%s did not end within %v; output:\n%s", s.a.cli, runDeadline, out.String())
	}
	// The agent's own children (a shell it left, a node helper) go with it.
	procgroup.Kill(cmd)
	r := result{results: s.model.Results(), output: out.String()}
	if err != nil {
		s.t.Fatalf("%s: %v; output:\n%s", s.a.cli, err, r.output)
	}
	if len(r.results) < len(script) {
		s.t.Fatalf("%s reported %d tool results for %d scripted calls: %q; output:\n%s",
			s.a.cli, len(r.results), len(script), r.results, r.output)
	}
	return r
}

func (s *session) exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// noSecret fails when a tool result carried the fake key.
func (r result) noSecret(t *testing.T) {
	t.Helper()
	for i, res := range r.results {
		if strings.Contains(res, secret) {
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

func (s *session) startAppServer() *appServer {
	s.t.Helper()
	cmd := exec.Command(s.cli, "app-server")
	cmd.Dir = s.repo
	cmd.Env = append(s.baseEnv(), s.a.env(s)...)
	in, err := cmd.StdinPipe()
	if err != nil {
		s.t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		s.t.Fatal(err)
	}
	procgroup.Own(cmd)
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	sc := bufio.NewScanner(outPipe)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	a := &appServer{cmd: cmd, in: in, out: sc}
	a.call(s.t, "initialize", map[string]any{"clientInfo": map[string]any{"name": "codewhale-ls-tests", "version": "1"}})
	a.send(s.t, map[string]any{"method": "initialized"})
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
