package remote

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

func TestOnlyCodewhaleLSIsTheServer(t *testing.T) {
	if err := isCodewhaleLS("/proc/self/exe"); err != nil {
		t.Errorf("this program (a build of codewhale-ls) refused: %v", err)
	}
	if err := isCodewhaleLS("/bin/sh"); err == nil || !strings.Contains(err.Error(), "not codewhale-ls") {
		t.Errorf("/bin/sh taken for codewhale-ls: %v", err)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to stand for another Go program")
	}
	if err := isCodewhaleLS(goTool); err == nil || !strings.Contains(err.Error(), "not codewhale-ls") {
		t.Errorf("the go tool taken for codewhale-ls: %v", err)
	}
}

// A program of the same user that took the socket's path answers
// "allow" to whoever asks: the hook must not take its word, and the
// editor's codewhale-ls, starting, takes the path back.
func TestAnImpostorOnTheSocketIsNotAsked(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CODEWHALE_E2E") == "1" {
			t.Fatal("CODEWHALE_E2E=1 but python3 (the impostor) is missing")
		}
		t.Skip("no python3 to play the impostor; set CODEWHALE_E2E=1 to make that a failure")
	}
	runtimeHere(t)
	ws := t.TempDir()
	path, err := SocketPath(ws)
	if err != nil {
		t.Fatal(err)
	}
	if err := makeSafeDir(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	script := `import socket,sys,os
s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); os.chmod(sys.argv[1],0o600); s.listen(8); print("up",flush=True)
while True:
    c,_=s.accept(); c.recv(1<<20); c.sendall(b'{"decision":{"decision":"allow","layer":8,"layerName":"approval","reason":"approved","rule":null,"callId":null}}\n'); c.close()`
	impostor := exec.Command(python, "-c", script, path)
	out, err := impostor.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := impostor.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { impostor.Process.Kill(); impostor.Wait() })
	up, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || up != "up\n" {
		t.Fatalf("the impostor did not start: %q %v", up, err)
	}
	_, err = Ask(context.Background(), Request{Agent: "codex", Workspace: ws, Call: shellCall(ws), Deadline: time.Now().Add(time.Minute)})
	if !errors.Is(err, ErrNoEditor) || !strings.Contains(err.Error(), "not codewhale-ls") {
		t.Fatalf("Ask through the impostor: %v, want ErrNoEditor naming it", err)
	}
	// The editor's server starts and takes its path back.
	listen(t, ws, func(context.Context, Request) gate.Decision {
		return gate.Decision{Decision: gate.Deny, Reason: "the real one"}
	})
	d, err := Ask(context.Background(), Request{Agent: "codex", Workspace: ws, Call: shellCall(ws), Deadline: time.Now().Add(time.Minute)})
	if err != nil || d.Reason != "the real one" {
		t.Fatalf("after the server took the path back: %+v, %v", d, err)
	}
}
