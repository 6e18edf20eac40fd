//go:build linux

package editors_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals/remote"
	"github.com/codewhale-ls/codewhale-ls/internal/agentcli"
)

// Issue 25: VS Code serves the approvals of every repository it has open,
// from start-up, not only where a .codewhale/ is. code-server is opened on
// a git repository without .codewhale/, its source file open in the
// editor, and editors/e2e/vscode-repos.mjs is the person at it.

// reposReport is editors/e2e/vscode-repos.mjs's report.
type reposReport struct {
	Steps     []string    `json:"steps"`
	SourceTab string      `json:"sourceTab"`
	Cards     []reposCard `json:"cards"`
}

type reposCard struct {
	Name        string   `json:"name"`
	Answer      string   `json:"answer"`
	Buttons     []string `json:"buttons"`
	Text        string   `json:"text"`
	GoneAfterMs int64    `json:"goneAfterMs"`
	// Told is the notification's text while the window was away (AWAY=1).
	Told             *string `json:"told"`
	ToldGoneWhenBack bool    `json:"toldGoneWhenBack"`
}

// cardPlan is one card the person answers: answer is deny, esc, once or
// deadline (editors/e2e/vscode-repos.mjs).
type cardPlan struct {
	Name   string `json:"name"`
	Answer string `json:"answer"`
}

// plainRepository makes dir a git repository with a source file and no
// .codewhale/, and returns the source file's path.
func plainRepository(t *testing.T, dir string) string {
	t.Helper()
	source := filepath.Join(dir, "src", "main.rs")
	if err := os.MkdirAll(filepath.Dir(source), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(source, []byte("fn main() {\n    println!(\"hello\");\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "init", "-q")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return source
}

// The tests of this file have short names: the approval socket's path
// (under t.TempDir(), named after the test) must fit a socket address.

// reposBrowser is vscode-repos.mjs running beside the test: the test
// meets it through files in sync and collects its report with wait.
type reposBrowser struct {
	sync string
	done chan struct{}
	// Set before done closes.
	report reposReport
	err    error
	stderr bytes.Buffer
}

// startReposBrowser starts editors/e2e/vscode-repos.mjs on the workbench
// at url, opening open ({folder} or {workspace}) and the source file, to
// answer the cards of plan. The script and its Chromium are killed by group at
// the test's end whatever happens; their report is reposBrowser.wait's.
func startReposBrowser(t *testing.T, s *vscodeSession, url string, open map[string]string, source string, plan []cardPlan, extra ...string) *reposBrowser {
	t.Helper()
	b := &reposBrowser{sync: filepath.Join(s.root, "sync"), done: make(chan struct{})}
	if err := os.MkdirAll(b.sync, 0o700); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("e2e/vscode-repos.mjs")
	if err != nil {
		t.Fatal(err)
	}
	browserPIDFile := filepath.Join(s.root, "chromium.pid")
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	cmd := exec.CommandContext(ctx, s.tools.node, script)
	cmd.Dir = s.root
	cmd.Env = append(s.browserEnv(url,
		"CODEWHALE_E2E_OPEN_PARAMS="+mustJSON(t, open),
		"CODEWHALE_E2E_SOURCE_FILE="+source,
		"CODEWHALE_E2E_SYNC="+b.sync,
		"CODEWHALE_E2E_PLAN="+mustJSON(t, plan),
		"CODEWHALE_E2E_BROWSER_PID="+browserPIDFile, "CODEWHALE_E2E_CHROMIUM="+s.tools.chromium,
	), extra...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &b.stderr
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	go func() {
		defer close(b.done)
		defer cancel()
		runErr := cmd.Wait()
		if runErr != nil {
			b.err = runErr
			return
		}
		b.err = json.Unmarshal(stdout.Bytes(), &b.report)
	}()
	t.Cleanup(func() {
		// The test is over, whatever it got to: the script may end.
		b.signal(t, "done.json", map[string]any{})
		select {
		case <-b.done:
		case <-time.After(30 * time.Second):
			cancel()
			<-b.done
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // anything the script left behind
		if data, err := os.ReadFile(browserPIDFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && pid > 0 {
				killGroup(t, pid, nil)
			}
		}
	})
	return b
}

// waitFor waits for the script's file name in the sync directory, failing
// the test (with the script's steps) when the script ends first or the
// bound passes.
func (b *reposBrowser) waitFor(t *testing.T, name string, bound time.Duration) {
	t.Helper()
	end := time.Now().Add(bound)
	for {
		if _, err := os.Stat(filepath.Join(b.sync, name)); err == nil {
			return
		}
		select {
		case <-b.done:
			t.Fatalf("editors/e2e/vscode-repos.mjs ended before %s: %v\n%s", name, b.err, b.stderr.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(end) {
			t.Fatalf("no %s from editors/e2e/vscode-repos.mjs within %v\n%s", name, bound, b.stderr.String())
		}
	}
}

// signal writes name for the script, atomically.
func (b *reposBrowser) signal(t *testing.T, name string, value any) {
	t.Helper()
	tmp := filepath.Join(b.sync, name+".tmp")
	if err := os.WriteFile(tmp, []byte(mustJSON(t, value)), 0o600); err != nil {
		t.Error(err)
		return
	}
	if err := os.Rename(tmp, filepath.Join(b.sync, name)); err != nil {
		t.Error(err)
	}
}

// wait tells the script the test is done and returns its report.
func (b *reposBrowser) wait(t *testing.T) reposReport {
	t.Helper()
	b.signal(t, "done.json", map[string]any{})
	select {
	case <-b.done:
	case <-time.After(e2eTimeout):
		t.Fatal("editors/e2e/vscode-repos.mjs did not end")
	}
	t.Logf("browser steps:\n%s", b.stderr.String())
	if b.err != nil {
		t.Fatalf("editors/e2e/vscode-repos.mjs: %v", b.err)
	}
	return b.report
}

// approvalSocket is where the editor serves folder's approvals for the
// session's processes (XDG_RUNTIME_DIR is the session's home).
func approvalSocket(t *testing.T, s *vscodeSession, folder string) string {
	t.Helper()
	t.Setenv("XDG_RUNTIME_DIR", s.dirs["home"])
	path, err := remote.SocketPath(folder)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// waitServed waits until a socket is listening at path, and says how long
// that took.
func waitServed(t *testing.T, path string, bound time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		if st, err := os.Lstat(path); err == nil && st.Mode()&os.ModeSocket != 0 {
			return time.Since(start)
		}
		if time.Since(start) > bound {
			t.Fatalf("no approval socket at %s within %v", path, bound)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// claudeHook runs `codewhale-ls hook claude-code` in dir, as Claude Code
// runs its PreToolUse hook, for a Bash command that needs a person, and
// returns what it answered Claude Code.
func claudeHook(t *testing.T, s *vscodeSession, dir, command string) string {
	t.Helper()
	event := map[string]any{
		"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": command},
		"tool_use_id": "toolu_repos", "permission_mode": "default", "cwd": dir, "session_id": "s1",
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, serverBinary(t), "hook", "claude-code", "--codewhale-version", "0.10.1")
	cmd.Dir, cmd.Env = dir, s.env
	cmd.Stdin = strings.NewReader(mustJSON(t, event))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("codewhale-ls hook claude-code: %v\n%s", err, stderr.String())
	}
	return string(out)
}

// reposCommand needs a person in the test's policy (the Ask posture): a
// shell line that fetches from the network.
const reposCommand = "npm test && curl -s https://example.com"

// TestVSCodeServesPlainRepo: VS Code opened on a
// repository without .codewhale/, a source file open: the folder's
// approval socket is served from start-up, a Claude Code hook's call gets
// its card, and Deny on the card is Claude Code's answer.
func TestVSCodeServesPlainRepo(t *testing.T) {
	s := newVSCodeSession(t, nil)
	repo := s.dirs["ws"]
	source := plainRepository(t, repo)
	serverBinary(t) // the hook's binary, built before code-server starts, not while a card waits
	socket := approvalSocket(t, s, repo)
	server := s.start(t, repo, "--disable-workspace-trust")
	b := startReposBrowser(t, s, server, map[string]string{"folder": repo}, source, []cardPlan{{Name: "repos-deny", Answer: "deny"}}, "CODEWHALE_E2E_AWAY=1")
	b.waitFor(t, "ready.json", 3*time.Minute)
	t.Logf("the repository's approval socket served %v after the source file opened", waitServed(t, socket, time.Minute))
	logIdleServer(t, s.dirs["extensions"])
	b.signal(t, "away-0.json", map[string]any{})
	b.waitFor(t, "away-0-ready.json", time.Minute)
	answer := claudeHook(t, s, repo, reposCommand)
	report := b.wait(t)
	if !strings.Contains(report.SourceTab, "main.rs") {
		t.Errorf("the editor's active tab is %q, want the source file", report.SourceTab)
	}
	if len(report.Cards) != 1 {
		t.Fatalf("cards: %+v, want one", report.Cards)
	}
	c := report.Cards[0]
	if !strings.Contains(c.Text, "Claude Code asks") || !strings.Contains(c.Text, "curl -s https://example.com") || !strings.Contains(c.Text, repo) {
		t.Errorf("the card says %q; want Claude Code, the whole command and the repository", c.Text)
	}
	if !strings.Contains(answer, `"permissionDecision":"deny"`) {
		t.Errorf("Claude Code was answered %s; want the card's deny", answer)
	}
	// The card came while the person was in another window: VS Code's
	// notification told them, and went once they were back.
	if c.Told == nil || !regexp.MustCompile(`Codewhale: Claude Code awaits your answer by \d\d:\d\d:\d\d \(exec_shell\)`).MatchString(*c.Told) {
		t.Errorf("away from the window, the person was told %q; want the notification naming Claude Code, the deadline and the tool", deref(c.Told))
	}
	if !c.ToldGoneWhenBack {
		t.Errorf("the notification stayed once the window had the focus again")
	}
	checkScreenshot(t, filepath.Join(s.dirs["shots"], "vscode-repos-deny.png"))
	checkScreenshot(t, filepath.Join(s.dirs["shots"], "vscode-repos-deny-away.png"))
}

// TestVSCodeServeAllOff: with codewhale.serveAllFolders off, the
// same window serves nothing once the extension has started (a Claude Code
// hook keeps Claude Code's own prompt), until a policy file is opened:
// then it serves the folder, as before issue 25.
func TestVSCodeServeAllOff(t *testing.T) {
	s := newVSCodeSession(t, map[string]any{"codewhale.serveAllFolders": false})
	repo := s.dirs["ws"]
	source := plainRepository(t, repo)
	serverBinary(t)
	socket := approvalSocket(t, s, repo)
	server := s.start(t, repo, "--disable-workspace-trust")
	b := startReposBrowser(t, s, server, map[string]string{"folder": repo}, source, []cardPlan{{Name: "repos-policy-open", Answer: "deny"}})
	b.waitFor(t, "ready.json", 3*time.Minute)
	// The extension has been activated (onStartupFinished) and has decided.
	waitActivated(t, filepath.Join(s.dirs["user-data"], "logs"), time.Minute)
	if _, err := os.Lstat(socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("with codewhale.serveAllFolders off, the repository's approval socket is there (%v)", err)
	}
	if answer := claudeHook(t, s, repo, reposCommand); !strings.Contains(answer, `"permissionDecision":"ask"`) {
		t.Errorf("with nobody serving, Claude Code was answered %s; want its own prompt (ask)", answer)
	}
	// A policy file opened: the window serves, as before.
	b.signal(t, "policy-0.json", map[string]string{"path": filepath.Join(s.dirs["home/.codewhale"], "permissions.toml")})
	b.waitFor(t, "policy-0-open.json", time.Minute)
	waitServed(t, socket, time.Minute)
	answer := claudeHook(t, s, repo, reposCommand)
	report := b.wait(t)
	if len(report.Cards) != 1 || !strings.Contains(report.Cards[0].Text, "Claude Code asks") {
		t.Errorf("cards once the policy file was open: %+v", report.Cards)
	}
	if !strings.Contains(answer, `"permissionDecision":"deny"`) {
		t.Errorf("Claude Code was answered %s; want the card's deny", answer)
	}
}

// TestVSCodeAddedFolder: in a multi-root window of repositories without
// .codewhale/, each folder's approvals are served; a folder added to the
// window later is served too, and one removed is no longer (the server
// asks VS Code for workspace/didChangeWorkspaceFolders). Turning
// codewhale.serveAllFolders off while the window is open stops serving
// them; on again serves them.
func TestVSCodeAddedFolder(t *testing.T) {
	s := newVSCodeSession(t, nil)
	folders := map[string]string{}
	for _, name := range []string{"alpha", "beta", "gamma"} {
		folders[name] = filepath.Join(s.dirs["ws"], name)
		plainRepository(t, folders[name])
	}
	workspaceFile := filepath.Join(s.dirs["ws"], "repos.code-workspace")
	window := func(names ...string) {
		var list []map[string]string
		for _, n := range names {
			list = append(list, map[string]string{"path": folders[n]})
		}
		writeJSON(t, workspaceFile, map[string]any{"folders": list})
	}
	window("alpha", "beta")
	serverBinary(t)
	server := s.start(t, workspaceFile, "--disable-workspace-trust")
	b := startReposBrowser(t, s, server, map[string]string{"workspace": workspaceFile}, filepath.Join(folders["alpha"], "src", "main.rs"), []cardPlan{})
	b.waitFor(t, "ready.json", 3*time.Minute)
	waitServed(t, approvalSocket(t, s, folders["alpha"]), time.Minute)
	waitServed(t, approvalSocket(t, s, folders["beta"]), time.Minute)
	// The person edits the window's folders (the workspace file, which
	// VS Code follows as it does Add Folder to Workspace).
	window("alpha", "gamma")
	t.Logf("a folder added to the window served after %v", waitServed(t, approvalSocket(t, s, folders["gamma"]), time.Minute))
	waitUnserved(t, approvalSocket(t, s, folders["beta"]), "the folder removed from the window")
	if answer := claudeHook(t, s, folders["beta"], reposCommand); !strings.Contains(answer, `"permissionDecision":"ask"`) {
		t.Errorf("in the removed folder, Claude Code was answered %s; want its own prompt (ask)", answer)
	}
	// codewhale.serveAllFolders turned off in the remote's settings, as
	// the README says for a remote window: these folders, without policy
	// files, are no longer served; turned on again, they are.
	machine := filepath.Join(s.dirs["user-data"], "Machine", "settings.json")
	writeJSON(t, machine, map[string]any{"codewhale.serveAllFolders": false})
	waitUnserved(t, approvalSocket(t, s, folders["alpha"]), "with codewhale.serveAllFolders turned off, alpha")
	writeJSON(t, machine, map[string]any{"codewhale.serveAllFolders": true})
	waitServed(t, approvalSocket(t, s, folders["gamma"]), time.Minute)
	b.wait(t)
}

// waitUnserved waits until nothing is served at path, which what names.
func waitUnserved(t *testing.T, path, what string) {
	t.Helper()
	for end := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("%s is still served at %s", what, path)
		}
	}
}

// waitActivated waits until the extension host's log says the Codewhale
// extension was activated.
func waitActivated(t *testing.T, logs string, bound time.Duration) {
	t.Helper()
	end := time.Now().Add(bound)
	for time.Now().Before(end) {
		found := false
		filepath.WalkDir(logs, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.Contains(d.Name(), "exthost") {
				return nil
			}
			data, _ := os.ReadFile(path)
			if bytes.Contains(data, []byte("codewhale-ls.codewhale")) {
				found = true
			}
			return nil
		})
		if found {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("the extension host's log under %s never names codewhale-ls.codewhale within %v", logs, bound)
}

// agentAnswer is one call a real agent makes and how the person answers
// its card: the file the call would create, and what the agent's model is
// told when it is denied (gate/layer8_answer.go).
type agentAnswer struct {
	answer string
	file   string
	told   string
}

// TestVSCodeAgents: a real Claude Code and a real Codex (internal/agentcli,
// against the fake model), their hook installed as docs/agents.md says, in
// a repository without .codewhale/ that VS Code has open with a source file
// in front. Each asks four times to create a file; the card comes up in
// VS Code and the person answers it: Deny and Esc leave no file and the
// model is told which, once creates it, and no answer by the deadline
// (the agent's own hook timeout, shortened to 12 s for that call) denies
// it. One code-server per agent.
func TestVSCodeAgents(t *testing.T) {
	for _, a := range []*agentcli.Agent{agentcli.Claude, agentcli.Codex} {
		t.Run(a.Name, func(t *testing.T) {
			s := agentcli.NewSession(t, a)
			// The repository has no .codewhale/ (agentcli gives it a
			// constitution): the case of issue 25.
			if err := os.RemoveAll(filepath.Join(s.Repo, ".codewhale")); err != nil {
				t.Fatal(err)
			}
			s.Install(s.Repo, "--user")
			v := newVSCodeSession(t, nil)
			// The hook meets the editor's server at the same socket
			// directory and decides by the same Codewhale home.
			s.ExtraEnv = append(s.ExtraEnv, "XDG_RUNTIME_DIR="+v.dirs["home"], "CODEWHALE_HOME="+v.dirs["home/.codewhale"])
			source := filepath.Join(s.Repo, "src", "main.rs")
			s.WriteFile(source, "fn main() {}\n")
			socket := approvalSocket(t, v, s.Repo)
			calls := []agentAnswer{
				{answer: "deny", file: "edited-deny.txt", told: "denied by user"},
				{answer: "esc", file: "edited-esc.txt", told: "dismissed"},
				{answer: "once", file: "edited-once.txt"},
				{answer: "deadline", file: "edited-deadline.txt", told: "timed out"},
			}
			var plan []cardPlan
			for _, c := range calls {
				plan = append(plan, cardPlan{Name: "agents-" + a.Name + "-" + c.answer, Answer: c.answer})
			}
			server := v.start(t, s.Repo, "--disable-workspace-trust")
			b := startReposBrowser(t, v, server, map[string]string{"folder": s.Repo}, source, plan)
			b.waitFor(t, "ready.json", 3*time.Minute)
			waitServed(t, socket, time.Minute)
			results := make([]string, len(calls))
			for i, c := range calls {
				if c.answer == "deadline" {
					shortenHookTimeout(t, s, 12)
				}
				start := time.Now()
				r := s.Run(s.Repo, a.Shell("touch "+c.file))
				results[i] = r.Results[0]
				t.Logf("%s, %s: the agent ended after %v; its model was told %q", a.Name, c.answer, time.Since(start).Round(time.Millisecond), r.Results[0])
				b.waitFor(t, fmt.Sprintf("card-%d.json", i), time.Minute)
				if written := s.Exists(filepath.Join(s.Repo, c.file)); written != (c.answer == "once") {
					t.Errorf("%s: %s written = %v; the model was told %q", c.answer, c.file, written, r.Results[0])
				}
				if c.told != "" && (!strings.Contains(r.Results[0], c.told) || !strings.Contains(r.Results[0], "codewhale-ls")) {
					t.Errorf("%s: the model was told %q; want codewhale-ls's %q", c.answer, r.Results[0], c.told)
				}
			}
			report := b.wait(t)
			if len(report.Cards) != len(calls) {
				t.Fatalf("cards: %+v, want %d", report.Cards, len(calls))
			}
			for i, card := range report.Cards {
				if !strings.Contains(card.Text, agentName(a.Name)+" asks") || !strings.Contains(card.Text, calls[i].file) {
					t.Errorf("card %d (%s) says %q; want %s and the command", i, calls[i].answer, card.Text, agentName(a.Name))
				}
				checkScreenshot(t, filepath.Join(v.dirs["shots"], "vscode-"+card.Name+".png"))
			}
			// The deadline card went by the hook's own deadline, not the
			// editor's 15 s prompt timeout.
			if d := report.Cards[3]; d.GoneAfterMs > approvalTimeoutSeconds*1000 {
				t.Errorf("the deadline card went %d ms after it showed; want the 12 s hook timeout's deadline first", d.GoneAfterMs)
			}
		})
	}
}

// agentName is how a card names the agent (editors/vscode/src/approvalHtml.ts).
func agentName(name string) string {
	return map[string]string{"claude-code": "Claude Code", "codex": "Codex"}[name]
}

// shortenHookTimeout sets the installed hook's timeout to seconds, in the
// agent's field and in --timeout alike, as docs/agents.md tells a user to
// change it, and has the agent trust the changed hook (Codex's /hooks).
func shortenHookTimeout(t *testing.T, s *agentcli.Session, seconds int) {
	t.Helper()
	file := map[string]string{"claude-code": filepath.Join(s.Home, ".claude", "settings.json"), "codex": filepath.Join(s.Home, ".codex", "hooks.json")}[s.A.Name]
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	long := regexp.MustCompile(`(--timeout |"timeout": ?)\d+`)
	if len(long.FindAll(data, -1)) != 2 {
		t.Fatalf("%s: want one hook with --timeout and its timeout field:\n%s", file, data)
	}
	s.WriteFile(file, string(long.ReplaceAll(data, []byte("${1}"+strconv.Itoa(seconds)))))
	if s.A.AfterInstall != nil {
		s.A.AfterInstall(s)
	}
}

func deref(s *string) string {
	if s == nil {
		return "(nothing)"
	}
	return *s
}

// logIdleServer logs what the extension's idle codewhale-ls costs, serving
// a folder without policy files: its resident memory and how often it
// woke (context switches) in five idle seconds. For the record only:
// targets belong in benchmarks.
func logIdleServer(t *testing.T, extensions string) {
	t.Helper()
	pid := 0
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.HasPrefix(cmdline, []byte(extensions)) && bytes.Contains(cmdline, []byte("codewhale-ls\x00serve")) {
			pid, _ = strconv.Atoi(e.Name())
		}
	}
	if pid == 0 {
		t.Errorf("no codewhale-ls serve from %s is running", extensions)
		return
	}
	status := func() (rss string) {
		data, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
		for _, line := range strings.Split(string(data), "\n") {
			if name, value, _ := strings.Cut(line, ":"); name == "VmRSS" {
				return strings.TrimSpace(value)
			}
		}
		return "unknown"
	}
	// Every thread's switches: /proc/PID/status counts the main thread's
	// alone, the Go runtime's others are in /proc/PID/task.
	tasks := func() int {
		total := 0
		entries, _ := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
		for _, e := range entries {
			data, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "task", e.Name(), "status"))
			for _, line := range strings.Split(string(data), "\n") {
				if name, value, ok := strings.Cut(line, ":"); ok && strings.HasSuffix(name, "ctxt_switches") {
					n, _ := strconv.Atoi(strings.TrimSpace(value))
					total += n
				}
			}
		}
		return total
	}
	before := tasks()
	time.Sleep(5 * time.Second)
	rss := status()
	after := tasks()
	t.Logf("the idle codewhale-ls (pid %d) serving a folder without policy files: VmRSS %s, %d wake-ups (context switches, all threads) in 5 s (%d since it started)", pid, rss, after-before, after)
}
