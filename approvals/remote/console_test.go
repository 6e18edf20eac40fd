package remote

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

func listenConsole(t *testing.T, serves func(string) error, h Handler) *Server {
	t.Helper()
	s, err := ListenConsole(serves, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func servesAll(string) error { return nil }

func decides(verdict gate.Verdict, reason string) Handler {
	return func(context.Context, Request) gate.Decision {
		return gate.Decision{Decision: verdict, Reason: reason}
	}
}

func TestConsolePathIsInTheSafeRuntimeDirectory(t *testing.T) {
	dir := runtimeHere(t)
	path, err := ConsolePath()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "codewhale-ls", "console.sock"); path != want {
		t.Fatalf("ConsolePath = %s, want %s", path, want)
	}
	s := listenConsole(t, servesAll, decides(gate.Deny, "x"))
	if s.Path() != path {
		t.Fatalf("the console listens on %s, not %s", s.Path(), path)
	}
	info, err := os.Lstat(path)
	if err != nil || info.Mode().Perm() != 0o600 || info.Mode().Type() != os.ModeSocket {
		t.Fatalf("console socket: %v %v", info, err)
	}
}

// The order of finding a person: the workspace's editor, then the
// console, then nobody (ErrNoEditor naming both).
func TestAskTriesTheEditorThenTheConsole(t *testing.T) {
	runtimeHere(t)
	ws := t.TempDir()
	deadline := time.Now().Add(time.Minute)
	ask := func() (gate.Decision, error) {
		return Ask(context.Background(), Request{Agent: "codex", Workspace: ws, Call: shellCall(ws), Deadline: deadline})
	}

	_, err := ask()
	if !errors.Is(err, ErrNoEditor) || !strings.Contains(err.Error(), "no approval console (codewhale-ls approvals) answered either: none is running") {
		t.Fatalf("with neither: %v", err)
	}

	console := listenConsole(t, servesAll, decides(gate.Allow, "the console's answer"))
	d, err := ask()
	if err != nil || d.Reason != "the console's answer" {
		t.Fatalf("with the console alone: %+v %v", d, err)
	}

	listen(t, ws, decides(gate.Deny, "the editor's answer"))
	d, err = ask()
	if err != nil || d.Reason != "the editor's answer" {
		t.Fatalf("with an editor and the console: %+v %v, want the editor's", d, err)
	}
	console.Close()
}

// An editor that refuses us (another user's, a client that cannot show a
// prompt) passes the call on to the console.
func TestAnEditorsRefusalFallsToTheConsole(t *testing.T) {
	runtimeHere(t)
	ws := t.TempDir()
	path, err := SocketPath(ws)
	if err != nil {
		t.Fatal(err)
	}
	refusing, err := listenAt(path, &Server{handle: decides(gate.Allow, "never"), serves: func(string) error { return errors.New("this editor shows no prompts") }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { refusing.Close() })
	listenConsole(t, servesAll, decides(gate.Allow, "the console's answer"))
	d, err := Ask(context.Background(), Request{Agent: "codex", Workspace: ws, Call: shellCall(ws), Deadline: time.Now().Add(time.Minute)})
	if err != nil || d.Reason != "the console's answer" {
		t.Fatalf("%+v %v", d, err)
	}
}

func TestTheConsoleRefusesAWorkspaceItDoesNotServe(t *testing.T) {
	runtimeHere(t)
	served, other := t.TempDir(), t.TempDir()
	// Atomic: the race detector does not see the reply read by recvmsg
	// as ordering the handler before Ask returns.
	var called atomic.Bool
	listenConsole(t, func(ws string) error {
		if ws != served {
			return errors.New("not one of its repositories")
		}
		return nil
	}, func(context.Context, Request) gate.Decision {
		called.Store(true)
		return gate.Decision{Decision: gate.Allow}
	})
	_, err := Ask(context.Background(), Request{Agent: "codex", Workspace: other, Call: shellCall(other), Deadline: time.Now().Add(time.Minute)})
	if !errors.Is(err, ErrNoEditor) || !strings.Contains(err.Error(), "the approval console does not serve "+other+": not one of its repositories") {
		t.Fatalf("an unserved workspace: %v", err)
	}
	if called.Load() {
		t.Fatal("the console decided a call of a workspace it does not serve")
	}
	if _, err := Ask(context.Background(), Request{Agent: "codex", Workspace: served, Call: shellCall(served), Deadline: time.Now().Add(time.Minute)}); err != nil || !called.Load() {
		t.Fatalf("a served workspace: %v (decided: %v)", err, called.Load())
	}
}

func TestASecondConsoleIsRefusedNamingTheFirst(t *testing.T) {
	runtimeHere(t)
	first := listenConsole(t, servesAll, decides(gate.Deny, "first"))
	_, err := ListenConsole(servesAll, decides(gate.Deny, "second"))
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "another approval console (pid "+strconv.Itoa(os.Getpid())+") already serves") {
		t.Fatalf("a second console: %v", err)
	}
	// The first one still answers.
	ws := t.TempDir()
	if d, err := Ask(context.Background(), Request{Agent: "codex", Workspace: ws, Call: shellCall(ws), Deadline: time.Now().Add(time.Minute)}); err != nil || d.Reason != "first" {
		t.Fatalf("after the second was refused: %+v %v", d, err)
	}
	// A console that ended leaves a stale socket the next one takes.
	first.Close()
	listenConsole(t, servesAll, decides(gate.Deny, "third"))
}

// A hook that disconnects ends its request's context at once, with
// ErrClientGone as the cause: the console takes the card off the screen.
func TestAHookThatLeavesEndsTheConsolesRequest(t *testing.T) {
	runtimeHere(t)
	ended := make(chan error, 1)
	listenConsole(t, servesAll, func(ctx context.Context, req Request) gate.Decision {
		<-ctx.Done()
		ended <- context.Cause(ctx)
		return gate.Decision{Decision: gate.Deny}
	})
	ws := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	asked := make(chan error, 1)
	go func() {
		_, err := Ask(ctx, Request{Agent: "codex", Workspace: ws, Call: shellCall(ws), Deadline: time.Now().Add(time.Minute)})
		asked <- err
	}()
	time.Sleep(50 * time.Millisecond) // let the request reach the handler; the test passes either way
	cancel()
	if err := <-ended; !errors.Is(err, ErrClientGone) {
		t.Fatalf("the handler's context ended with %v, want ErrClientGone", err)
	}
	<-asked
}

// A console that closes mid-request (killed, Ctrl-C) is ErrServerGone
// for the hook at once, which denies: not its deadline.
func TestAConsoleClosedMidRequestIsServerGone(t *testing.T) {
	runtimeHere(t)
	reached := make(chan struct{})
	s, err := ListenConsole(servesAll, func(ctx context.Context, req Request) gate.Decision {
		close(reached)
		<-ctx.Done()
		return gate.Decision{Decision: gate.Allow, Reason: "cut short"}
	})
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	go func() {
		<-reached
		s.Close()
	}()
	_, err = Ask(context.Background(), Request{Agent: "codex", Workspace: ws, Call: shellCall(ws), Deadline: time.Now().Add(time.Hour)})
	if !errors.Is(err, ErrServerGone) || !strings.Contains(err.Error(), "it was the approval console") {
		t.Fatalf("the console closed mid-request: %v", err)
	}
}

func TestAConsoleRequestNamingNoAbsoluteWorkspaceIsAnError(t *testing.T) {
	runtimeHere(t)
	s := listenConsole(t, servesAll, decides(gate.Allow, "never"))
	reply := rawExchange(t, s, `{"agent":"codex","workspace":"rel","deadline":"2099-01-01T00:00:00Z","call":{"tool":"exec_shell","input":{"command":"ls"}}}`+"\n")
	if !strings.Contains(reply, `is not an absolute path`) || strings.Contains(reply, "decision") {
		t.Fatalf("reply: %s", reply)
	}
}
