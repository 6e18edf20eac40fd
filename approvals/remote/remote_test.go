package remote

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// runtimeHere points the runtime directory at a fresh temporary one, so no
// test touches the user's.
// Its name is short: a socket's path has to fit in 104 bytes, and
// t.TempDir's names hold the test's.
func runtimeHere(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cw")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	t.Setenv("XDG_RUNTIME_DIR", dir)
	// Hooks also look in the temporary directory (dirs.go): this one
	// holds no server but the test's.
	t.Setenv("TMPDIR", dir)
	return dir
}

func shellCall(workspace string) gate.Request {
	posture := session.AutoReview
	id := "toolu_1"
	return gate.Request{Tool: "exec_shell", Input: map[string]any{"command": "git push --force"}, Workspace: workspace,
		Mode: session.Operate, Posture: &posture, CallID: &id}
}

func listen(t *testing.T, workspace string, h Handler) *Server {
	t.Helper()
	s, err := Listen(workspace, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestAskRoundTripCarriesTheCallAndTheAgent(t *testing.T) {
	runtimeHere(t)
	ws := t.TempDir()
	// The handler's goroutine hands over what it saw: the reply on the
	// socket orders the two for the kernel, not for the race detector.
	type seen struct {
		req      Request
		deadline time.Time
	}
	handled := make(chan seen, 1)
	listen(t, ws, func(ctx context.Context, req Request) gate.Decision {
		deadline, _ := ctx.Deadline()
		handled <- seen{req, deadline}
		return gate.Decision{Decision: gate.Deny, Reason: "typed deny", LayerName: "permissions"}
	})
	deadline := time.Now().Add(time.Minute)
	d, err := Ask(context.Background(), Request{Agent: "claude-code", Session: "3b068eb0", Workspace: ws, Call: shellCall(ws), Deadline: deadline})
	if err != nil {
		t.Fatal(err)
	}
	if d.Decision != gate.Deny || d.Reason != "typed deny" {
		t.Fatalf("decision = %+v", d)
	}
	h := <-handled
	got, gotDeadline := h.req, h.deadline
	if got.Agent != "claude-code" || got.Session != "3b068eb0" || got.Workspace != ws || !got.Deadline.Equal(deadline) {
		t.Fatalf("request = %+v", got)
	}
	want := shellCall(ws)
	if got.Call.Tool != want.Tool || got.Call.Input["command"] != "git push --force" || got.Call.Mode != session.Operate ||
		got.Call.Posture == nil || *got.Call.Posture != session.AutoReview || got.Call.CallID == nil || *got.Call.CallID != "toolu_1" {
		t.Fatalf("call = %+v", got.Call)
	}
	if !gotDeadline.Equal(deadline.Add(-ServerMargin)) {
		t.Fatalf("handler deadline = %v, want the agent's less ServerMargin %v", gotDeadline, deadline.Add(-ServerMargin))
	}
}

func TestAskKeepsAnEmptyAllowList(t *testing.T) {
	runtimeHere(t)
	ws := t.TempDir()
	handled := make(chan gate.Request, 1)
	listen(t, ws, func(ctx context.Context, req Request) gate.Decision {
		handled <- req.Call
		return gate.Decision{Decision: gate.Deny}
	})
	call := shellCall(ws).WithAllowList(nil)
	call.DisallowedTools = []string{"exec_shell"}
	if _, err := Ask(context.Background(), Request{Agent: "codex", Workspace: ws, Call: call, Deadline: time.Now().Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if got := <-handled; !got.HasAllowList() || len(got.AllowedTools) != 0 || len(got.DisallowedTools) != 1 {
		t.Fatalf("lists = %v (has %v) / %v", got.AllowedTools, got.HasAllowList(), got.DisallowedTools)
	}
}

// BenchmarkAskWithoutAServer is what asking costs where nobody serves
// approvals: the hook then takes the next step of the order (the agent's
// own ask, or a deny), so a socket nobody listens on must fail at once,
// leaving the deadline whole for what comes next (docs/agents.md, "Who is
// asked").
func BenchmarkAskWithoutAServer(b *testing.B) {
	runtimeHere(b)
	ws := b.TempDir()
	req := Request{Agent: "codex", Workspace: ws, Call: shellCall(ws), Deadline: time.Now().Add(time.Hour)}
	for b.Loop() {
		if _, err := Ask(context.Background(), req); !errors.Is(err, ErrNoEditor) {
			b.Fatalf("err = %v, want ErrNoEditor", err)
		}
	}
}

func TestAskWithoutAServerIsNoEditor(t *testing.T) {
	runtimeHere(t)
	ws := t.TempDir()
	_, err := Ask(context.Background(), Request{Agent: "cursor", Workspace: ws, Call: shellCall(ws), Deadline: time.Now().Add(time.Minute)})
	if !errors.Is(err, ErrNoEditor) {
		t.Fatalf("err = %v, want ErrNoEditor", err)
	}
	// A server for another workspace does not answer for this one.
	other := t.TempDir()
	listen(t, other, func(context.Context, Request) gate.Decision { return gate.Decision{Decision: gate.Allow} })
	_, err = Ask(context.Background(), Request{Agent: "cursor", Workspace: ws, Call: shellCall(ws), Deadline: time.Now().Add(time.Minute)})
	if !errors.Is(err, ErrNoEditor) {
		t.Fatalf("err = %v, want ErrNoEditor", err)
	}
}

func TestAPeerOfAnotherUserIsRefused(t *testing.T) {
	// The comparison with any uid; a real second user's process, with the
	// kernel's credentials, is TestASecondUsersProcessCannotConnect.
	if err := samePeer(os.Getuid()+1, os.Getuid()); err == nil {
		t.Fatal("a peer of another uid was admitted")
	}
	if err := samePeer(os.Getuid(), os.Getuid()); err != nil {
		t.Fatal(err)
	}
}

func TestARefusalIsNoEditor(t *testing.T) {
	line := []byte(`{"refused":"peer runs as uid 1001"}` + "\n")
	_, err := parseReply(line)
	if !errors.Is(err, ErrNoEditor) {
		t.Fatalf("err = %v, want ErrNoEditor", err)
	}
}

func TestAReplyThatIsNotFinalIsAnError(t *testing.T) {
	for _, line := range []string{`{"decision":{"decision":"ask"}}`, `{}`, `not json`, `{"error":"field \"agent\": required"}`} {
		if _, err := parseReply([]byte(line + "\n")); err == nil {
			t.Errorf("reply %s gave no error", line)
		}
	}
}

// rawExchange sends line on the workspace's socket and returns the reply.
func rawExchange(t *testing.T, s *Server, line string) string {
	t.Helper()
	conn, err := net.Dial("unix", s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(line)); err != nil {
		t.Fatal(err)
	}
	conn.(*net.UnixConn).CloseWrite()
	buf := make([]byte, 4096)
	var out []byte
	for {
		n, err := conn.Read(buf)
		out = append(out, buf[:n]...)
		if err != nil {
			return string(out)
		}
	}
}

// TestAnOlderServerSaysSo: a server that does not know a field of the
// hook's request (a hook newer than the editor's codewhale-ls) refuses
// it, and the hook's error says to restart the older one.
func TestAnOlderServerSaysSo(t *testing.T) {
	runtimeHere(t)
	ws := t.TempDir()
	s := listen(t, ws, func(context.Context, Request) gate.Decision { return gate.Decision{Decision: gate.Allow} })
	deadline := time.Now().Add(time.Minute).Format(time.RFC3339Nano)
	raw := rawExchange(t, s, `{"agent":"x","workspace":"`+ws+`","deadline":"`+deadline+`","call":{},"fieldOfANewerHook":1}`+"\n")
	_, err := parseReply([]byte(raw))
	if err == nil || errors.Is(err, ErrNoEditor) || !strings.Contains(err.Error(), `unknown field "fieldOfANewerHook"`) || !strings.Contains(err.Error(), "older than this codewhale-ls hook: restart") {
		t.Fatalf("a field the server does not know: %v", err)
	}
}

func TestMalformedRequestsGetAnErrorAndTheServerGoesOn(t *testing.T) {
	runtimeHere(t)
	ws := t.TempDir()
	s := listen(t, ws, func(context.Context, Request) gate.Decision { return gate.Decision{Decision: gate.Allow} })
	deadline := time.Now().Add(time.Minute).Format(time.RFC3339Nano)
	cases := map[string]struct{ line, want string }{
		"not json":        {"{oops\n", "not a valid JSON object"},
		"no newline":      {`{"agent":"x"}`, "ended by a newline"},
		"unknown field":   {`{"agent":"x","extra":1}` + "\n", "extra"},
		"no agent":        {`{"workspace":"` + ws + `","deadline":"` + deadline + `","call":{}}` + "\n", `"agent"`},
		"no deadline":     {`{"agent":"x","workspace":"` + ws + `","call":{}}` + "\n", `"deadline"`},
		"other workspace": {`{"agent":"x","workspace":"/elsewhere","deadline":"` + deadline + `","call":{}}` + "\n", `"workspace"`},
		"bad call":        {`{"agent":"x","workspace":"` + ws + `","deadline":"` + deadline + `","call":{"tool":"exec_shell"}}` + "\n", `"input"`},
		"call elsewhere": {`{"agent":"x","workspace":"` + ws + `","deadline":"` + deadline +
			`","call":{"tool":"exec_shell","input":{},"workspace":"/elsewhere"}}` + "\n", `"call.workspace"`},
		"too long": {strings.Repeat(" ", maxMessage+1) + "\n", "longer than"},
	}
	for name, c := range cases {
		raw := rawExchange(t, s, c.line)
		var got wireReply
		if err := json.Unmarshal([]byte(raw), &got); err != nil || got.Decision != nil || !strings.Contains(got.Error, c.want) {
			t.Errorf("%s: reply %q, want an error naming %s", name, raw, c.want)
		}
	}
	d, err := Ask(context.Background(), Request{Agent: "gemini-cli", Workspace: ws, Call: shellCall(ws), Deadline: time.Now().Add(time.Minute)})
	if err != nil || d.Decision != gate.Allow {
		t.Fatalf("after malformed requests: %+v, %v", d, err)
	}
}

func TestTheServersDecisionEndsBeforeTheAgentsDeadline(t *testing.T) {
	runtimeHere(t)
	ws := t.TempDir()
	listen(t, ws, func(ctx context.Context, req Request) gate.Decision {
		<-ctx.Done() // the editor's prompt is never answered
		return gate.Refuse(req.Call, "the prompt timed out")
	})
	d, err := Ask(context.Background(), Request{Agent: "copilot-cli", Workspace: ws, Call: shellCall(ws), Deadline: time.Now().Add(ServerMargin + time.Second)})
	if err != nil {
		t.Fatalf("the server's timeout should arrive as its deny before the agent's deadline: %v", err)
	}
	if d.Decision != gate.Deny || d.Reason != "the prompt timed out" {
		t.Fatalf("decision = %+v", d)
	}
}

// TestAskGivesUpAtTheDeadline: a server that ignores its deadline does not
// hold the hook past the Deadline it gave Ask.
func TestAskGivesUpAtTheDeadline(t *testing.T) {
	runtimeHere(t)
	ws := t.TempDir()
	release := make(chan struct{})
	s := listen(t, ws, func(ctx context.Context, req Request) gate.Decision {
		<-release // a server that ignores its deadline
		return gate.Decision{Decision: gate.Allow}
	})
	defer func() { close(release); s.Close() }()
	deadline := time.Now().Add(ServerMargin + time.Second)
	_, err := Ask(context.Background(), Request{Agent: "claude-code", Workspace: ws, Call: shellCall(ws), Deadline: deadline})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	// The server answers only when the test ends; a second is scheduling.
	if late := time.Since(deadline); late > time.Second {
		t.Fatalf("Ask returned %v after its deadline", late)
	}
}

func TestAskRefusesADeadlineTooCloseToAsk(t *testing.T) {
	runtimeHere(t)
	ws := t.TempDir()
	listen(t, ws, func(context.Context, Request) gate.Decision { return gate.Decision{Decision: gate.Allow} })
	if _, err := Ask(context.Background(), Request{Agent: "codex", Workspace: ws, Call: shellCall(ws), Deadline: time.Now().Add(ServerMargin / 2)}); !errors.Is(err, ErrNoEditor) {
		t.Fatalf("a deadline inside the server's margin: %v, want ErrNoEditor (no editor can be asked in time)", err)
	}
	if _, err := Ask(context.Background(), Request{Agent: "codex", Workspace: ws, Call: shellCall(ws)}); err == nil {
		t.Fatal("a request without a deadline was accepted")
	}
}

func TestServerClosedMidRequestIsServerGone(t *testing.T) {
	runtimeHere(t)
	ws := t.TempDir()
	started := make(chan struct{})
	s, err := Listen(ws, func(ctx context.Context, req Request) gate.Decision {
		close(started)
		<-ctx.Done()
		return gate.Decision{Decision: gate.Allow} // must never reach the agent
	})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-started
		s.Close()
	}()
	_, err = Ask(context.Background(), Request{Agent: "claude-code", Workspace: ws, Call: shellCall(ws), Deadline: time.Now().Add(time.Minute)})
	wg.Wait()
	if !errors.Is(err, ErrServerGone) {
		t.Fatalf("err = %v, want ErrServerGone", err)
	}
	if _, err := os.Lstat(s.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left after Close: %v", err)
	}
}

func TestSocketAndDirectoryPermissions(t *testing.T) {
	runtimeHere(t)
	ws := t.TempDir()
	s := listen(t, ws, func(context.Context, Request) gate.Decision { return gate.Decision{Decision: gate.Deny} })
	sock, err := os.Lstat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if sock.Mode().Type() != os.ModeSocket || sock.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode = %v", sock.Mode())
	}
	dir, err := os.Lstat(filepath.Dir(s.Path()))
	if err != nil {
		t.Fatal(err)
	}
	if !dir.IsDir() || dir.Mode().Perm() != 0o700 {
		t.Fatalf("directory mode = %v", dir.Mode())
	}
}

func TestUnsafeRuntimeDirectoriesAreRefused(t *testing.T) {
	plant := map[string]func(t *testing.T, dir string){
		"symlink": func(t *testing.T, dir string) {
			target := t.TempDir()
			os.Chmod(target, 0o700)
			if err := os.Symlink(target, dir); err != nil {
				t.Fatal(err)
			}
		},
		"group and other bits": func(t *testing.T, dir string) {
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			os.Chmod(dir, 0o755)
		},
		"a file": func(t *testing.T, dir string) {
			if err := os.WriteFile(dir, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, make := range plant {
		t.Run(name, func(t *testing.T) {
			base := runtimeHere(t)
			make(t, filepath.Join(base, "codewhale-ls"))
			ws := t.TempDir()
			if s, err := Listen(ws, func(context.Context, Request) gate.Decision { return gate.Decision{Decision: gate.Allow} }); err == nil {
				s.Close()
				t.Fatal("Listen accepted an unsafe directory")
			}
			if _, err := Ask(context.Background(), Request{Agent: "cursor", Workspace: ws, Call: shellCall(ws), Deadline: time.Now().Add(time.Minute)}); !errors.Is(err, ErrNoEditor) {
				t.Fatalf("Ask through an unsafe directory: %v, want ErrNoEditor", err)
			}
		})
	}
}

func TestADirectoryOfAnotherUserIsRefused(t *testing.T) {
	// Making a directory another uid owns needs root: the owner check is
	// run on a real directory with a fake uid for us.
	dir := t.TempDir()
	os.Chmod(dir, 0o700)
	info, err := os.Lstat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := dirSafety(dir, info, os.Getuid()); err != nil {
		t.Fatal(err)
	}
	if err := dirSafety(dir, info, os.Getuid()+1); err == nil || !strings.Contains(err.Error(), "owned by uid") {
		t.Fatalf("err = %v, want a refusal of the owner", err)
	}
}

func TestAStaleSocketIsReplacedAndALiveOneKept(t *testing.T) {
	runtimeHere(t)
	ws := t.TempDir()
	first := listen(t, ws, func(context.Context, Request) gate.Decision { return gate.Decision{Decision: gate.Allow} })
	if s, err := Listen(ws, func(context.Context, Request) gate.Decision { return gate.Decision{Decision: gate.Deny} }); !errors.Is(err, ErrInUse) {
		if err == nil {
			s.Close()
		}
		t.Fatalf("second Listen: %v, want ErrInUse", err)
	}
	// A server that died leaves its socket: a dead listener's file.
	path := first.Path()
	first.ln.SetUnlinkOnClose(false)
	first.Close()
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("stale socket not left for the test: %v", err)
	}
	listen(t, ws, func(context.Context, Request) gate.Decision { return gate.Decision{Decision: gate.Deny} })
	d, err := Ask(context.Background(), Request{Agent: "codex", Workspace: ws, Call: shellCall(ws), Deadline: time.Now().Add(time.Minute)})
	if err != nil || d.Decision != gate.Deny {
		t.Fatalf("after replacing a stale socket: %+v, %v", d, err)
	}
}

func TestATooLongSocketPathIsAClearError(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "/"+strings.Repeat("d", maxSocketPath))
	if _, err := SocketPath("/ws"); err == nil || !strings.Contains(err.Error(), "longer than a socket address") {
		t.Fatalf("err = %v", err)
	}
}

// TestAskCarriesWhyAHumanMustDecide: Request.NeedsHuman, which an
// AuthorizeRequest has no field for, reaches the editor's server, so the
// hold it adds is not lost on the way (docs/architecture.md, "What is
// carried").
func TestAskCarriesWhyAHumanMustDecide(t *testing.T) {
	runtimeHere(t)
	ws := t.TempDir()
	handled := make(chan Request, 1)
	listen(t, ws, func(ctx context.Context, req Request) gate.Decision {
		handled <- req
		return gate.Decision{Decision: gate.Deny, Reason: "no"}
	})
	call := shellCall(ws)
	call.NeedsHuman = "no URL found"
	if _, err := Ask(context.Background(), Request{Agent: "gemini-cli", Workspace: ws, Call: call, Deadline: time.Now().Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if got := <-handled; got.Call.NeedsHuman != "no URL found" {
		t.Fatalf("NeedsHuman = %q", got.Call.NeedsHuman)
	}
}
