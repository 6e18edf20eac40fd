//go:build unix

package hooks

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

func shellHook(command string) Hook {
	return Hook{Event: ToolCallBefore, Command: command, Name: "h", TimeoutSecs: 5, ContinueOnError: true}
}

// TestRealExecutorVectors are the real executor vectors of docs/codewhale/pipeline.md §3.6.
func TestRealExecutorVectors(t *testing.T) {
	cases := []struct {
		command string
		exit    int
		denied  bool
	}{
		{"exit 2", 2, true},
		{"exit 0", 0, false},
		{"exit 1", 1, false},
	}
	call := bashCall
	call.Workspace = t.TempDir()
	for _, c := range cases {
		t.Run(c.command, func(t *testing.T) {
			cfg := Config{Enabled: true, Hooks: []Hook{shellHook(c.command)}}
			got := Before(context.Background(), ShellRunner{}, nil, cfg, call)
			if got.Denied != c.denied {
				t.Errorf("denied = %v (%s)", got.Denied, got.Reason)
			}
			if code := got.Records[0].ExitCode; code == nil || *code != c.exit {
				t.Errorf("exit code %v", code)
			}
		})
	}
}

func TestShellRunnerEnvironment(t *testing.T) {
	t.Setenv("CW_HOOK_TEST_INHERITED", "inherited")
	call := Call{ToolName: "File", CallID: "call_9", Input: map[string]any{"action": "read", "path": "<a&b>"},
		Mode: "Plan", SessionID: "sess_12345678", Workspace: "/ws", Model: "deepseek-v4"}
	env, err := call.env(release.Release{})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "env")
	res := ShellRunner{}.Run(context.Background(), shellHook("env > "+out), env, t.TempDir(), 5*time.Second)
	if res.ExitCode == nil || *res.ExitCode != 0 {
		t.Fatalf("%+v", res)
	}
	printed := readFile(t, out)
	for _, want := range []string{
		"DEEPSEEK_TOOL_NAME=File", "DEEPSEEK_TOOL_CALL_ID=call_9", "CODEWHALE_TOOL_CALL_ID=call_9",
		`DEEPSEEK_TOOL_ARGS={"action":"read","path":"<a&b>"}`, "DEEPSEEK_MODE=Plan",
		"DEEPSEEK_SESSION_ID=sess_12345678", "CODEWHALE_SESSION_ID=sess_12345678",
		"DEEPSEEK_WORKSPACE=/ws", "DEEPSEEK_MODEL=deepseek-v4", "CW_HOOK_TEST_INHERITED=inherited",
	} {
		if !strings.Contains(printed, "\n"+want+"\n") && !strings.HasPrefix(printed, want+"\n") {
			t.Errorf("env lacks %s", want)
		}
	}
}

func TestToolArgsTruncation(t *testing.T) {
	call := bashCall
	call.Input = map[string]any{"command": strings.Repeat("a", 20_000)}
	env, err := call.env(release.Release{})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "args")
	ShellRunner{}.Run(context.Background(), shellHook(`printf %s "$DEEPSEEK_TOOL_ARGS" > `+out), env, "", 5*time.Second)
	args := readFile(t, out)
	if len(args) != maxArgsBytes+len(argsTruncated) || !strings.HasSuffix(args, "a...[truncated]") ||
		!strings.HasPrefix(args, `{"command":"aaa`) {
		t.Errorf("args %d bytes, ends %q", len(args), args[max(0, len(args)-20):])
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTruncateArgsKeepsCharacters(t *testing.T) {
	exact := strings.Repeat("a", maxArgsBytes)
	if truncateArgs(exact) != exact {
		t.Error("truncated a value of exactly 10 000 bytes")
	}
	s := strings.Repeat("a", maxArgsBytes-1) + "é" // é straddles byte 10 000
	if got := truncateArgs(s); got != strings.Repeat("a", maxArgsBytes-1)+argsTruncated {
		t.Errorf("got %q", got[len(got)-20:])
	}
}

func TestShellRunnerProcess(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, command, dir string
		exit               int // -1: no exit code
		stdout             string
	}{
		{"stdin is empty", `cat; echo '{"reason":"done"}'`, "", 0, `{"reason":"done"}`},
		{"working directory", `printf '{"reason":"%s"}' "$(pwd)"`, dir, 0, `{"reason":"` + dir + `"}`},
		{"exit code kept", `echo '{"decision":"ask"}'; echo err >&2; exit 7`, "", 7, `{"decision":"ask"}`},
		{"not JSON says nothing", "echo out", "", 0, ""},
		{"killed by a signal", "kill -9 $$", "", -1, ""},
		{"spawn failure", "true", filepath.Join(dir, "missing"), -1, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := ShellRunner{}.Run(context.Background(), shellHook(c.command), nil, c.dir, 5*time.Second)
			if c.exit < 0 {
				if res.ExitCode != nil || res.Err == "" {
					t.Errorf("%+v", res)
				}
				return
			}
			if res.ExitCode == nil || *res.ExitCode != c.exit || res.Stdout != c.stdout {
				t.Errorf("%+v", res)
			}
		})
	}
}

func TestShellRunnerCancel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	res := ShellRunner{}.Run(ctx, shellHook("sleep 30"), nil, "", 5*time.Second)
	if res.ExitCode != nil || res.TimedOut || time.Since(start) > 2*time.Second {
		t.Errorf("%+v after %v", res, time.Since(start))
	}
}

func pidFile(t *testing.T) string { return filepath.Join(t.TempDir(), "pgid") }

func readPgid(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// What the hook wrote before it exited is read however slowly the reader
// gets to it: a deadline fixed at the exit failed every read after it, so
// on a loaded machine a deny at the end of a large output was lost and the
// call allowed. Only waiting for new data is bounded.
func TestDrainReadsWhatIsInThePipeHoweverSlowly(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := w.Write([]byte(`{"decision":"deny"}`)); err != nil {
		t.Fatal(err)
	}
	pipe := &drainingReader{f: r, hardStop: time.Now().Add(time.Minute)}
	pipe.drain()
	time.Sleep(drainGrace + 100*time.Millisecond) // the reader is busy elsewhere
	buf := make([]byte, 64)
	n, err := pipe.Read(buf)
	if err != nil || string(buf[:n]) != `{"decision":"deny"}` {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	// Nothing more comes while the writer stays open: the read ends.
	if _, err := pipe.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("an idle pipe: %v", err)
	}
	w.Close()
}
