package rpc

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/internal/fakecodewhale"
)

// settledCodewhale asks codewhale/status until detection has finished.
func (s *session) settledCodewhale() release.Choice {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var st Status
		if _, err := s.conn.Call(s.ctx(), "codewhale/status", nil, &st); err != nil {
			s.t.Fatalf("codewhale/status: %v", err)
		}
		if st.Codewhale != detecting || time.Now().After(deadline) {
			return st.Codewhale
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStatusCodewhaleDetected(t *testing.T) {
	w := newWorld(t)
	path := fakecodewhale.Printing(t, "0.11.0")
	s := newSession(t, w, Options{Env: config.MapEnv{"HOME": w.home, "PATH": path}})
	s.initialize(protocol.ClientCapabilities{})
	want := release.Choice{Release: "0.11.0", Behaviour: "0.10.1", Source: "detected at " + filepath.Join(path, "codewhale") + " (0.11.0)", Note: release.NoteNewer}
	if got := s.settledCodewhale(); got != want {
		t.Errorf("status codewhale = %+v, want %+v", got, want)
	}
}

// The flag beats initializationOptions, which beats the codewhale on PATH.
func TestStatusCodewhaleNamed(t *testing.T) {
	path := fakecodewhale.Printing(t, "0.10.1")
	for _, tc := range []struct {
		name, flag, option string
		want               release.Choice
	}{
		{"flag", "0.9.10", "0.10.0", release.Choice{Release: "0.9.10", Behaviour: "0.9.10", Source: "--codewhale-version"}},
		{"option", "", "0.9.10", release.Choice{Release: "0.9.10", Behaviour: "0.9.10", Source: "initializationOptions.codewhaleVersion"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			s := newSession(t, w, Options{Env: config.MapEnv{"HOME": w.home, "PATH": path}, CodewhaleVersion: tc.flag})
			s.initializeWith(protocol.ClientCapabilities{}, map[string]any{"codewhaleVersion": tc.option})
			if got := s.settledCodewhale(); got != tc.want {
				t.Errorf("status codewhale = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestStatusCodewhaleNotFound(t *testing.T) {
	w := newWorld(t)
	s := newSession(t, w, Options{Env: config.MapEnv{"HOME": w.home, "PATH": t.TempDir()}})
	s.initialize(protocol.ClientCapabilities{})
	if got, want := s.settledCodewhale(), release.Default("no codewhale on PATH"); got != want {
		t.Errorf("status codewhale = %+v, want %+v", got, want)
	}
}

// A codewhale that never answers leaves the server answering meanwhile,
// and counts as not found once its time is up.
func TestStatusCodewhaleHangs(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep on this machine")
	}
	w := newWorld(t)
	path := fakecodewhale.Dir(t, "exec "+sleep+" 60\n")
	s := newSession(t, w, Options{Env: config.MapEnv{"HOME": w.home, "PATH": path}})
	s.initialize(protocol.ClientCapabilities{})
	var st Status
	if _, err := s.conn.Call(s.ctx(), "codewhale/status", nil, &st); err != nil || st.Codewhale != detecting {
		t.Fatalf("status while detecting = %+v, %v", st.Codewhale, err)
	}
	got := s.settledCodewhale()
	if got.Release != "" || got.Note != release.NoteNotFound || !strings.Contains(got.Source, "timed out after 2s") {
		t.Errorf("status codewhale = %+v", got)
	}
}

func TestInitializeBadCodewhaleVersion(t *testing.T) {
	w := newWorld(t)
	s := newSession(t, w, Options{})
	_, err := s.server.Initialize(s.ctx(), &protocol.InitializeParams{InitializationOptions: []byte(`{"codewhaleVersion": "0.10"}`)})
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.InvalidParams || !strings.Contains(rpcErr.Message, "initializationOptions.codewhaleVersion") {
		t.Errorf("initialize = %v", err)
	}
}

// CW900 appears on the user's config.toml once detection finds a release
// that is not implemented, and not when the flag names an implemented one.
func TestCW900(t *testing.T) {
	path := fakecodewhale.Printing(t, "0.11.0")
	for _, tc := range []struct {
		name, flag string
		want       bool
	}{{"detected 0.11.0", "", true}, {"flag 0.9.10", "0.9.10", false}, {"flag 0.10.0", "0.10.0", false}} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.write(t, w.configPath(), "modle = \"x\"\n")
			s := newSession(t, w, Options{Env: config.MapEnv{"HOME": w.home, "PATH": path}, CodewhaleVersion: tc.flag})
			s.initialize(protocol.ClientCapabilities{})
			s.settledCodewhale()
			u := s.open(w.configPath(), 1, "modle = \"x\"\n")
			if tc.want {
				s.waitForCode(u, "CW900")
				return
			}
			p := s.waitVersion(u, 1)
			if hasCode(p.Diagnostics, "CW900") {
				t.Errorf("CW900 under --codewhale-version %s: %+v", tc.flag, p.Diagnostics)
			}
		})
	}
}

// A file opened while `codewhale --version` still runs gets CW900 once it
// answers: settling the choice checks every workspace again. The fake
// answers only once the first check was published.
func TestCW900AfterSlowDetection(t *testing.T) {
	s, w, release := sessionWithSlowCodewhale(t, "0.11.0")
	u := s.open(w.configPath(), 1, "modle = \"x\"\n")
	if p := s.waitVersion(u, 1); hasCode(p.Diagnostics, "CW900") {
		t.Fatalf("CW900 before detection ended: %+v", p.Diagnostics)
	}
	release()
	s.waitForCode(u, "CW900")
}

// sessionWithSlowCodewhale is a session whose `codewhale --version` prints
// version only once release is called.
func sessionWithSlowCodewhale(t *testing.T, version string) (*session, *world, func()) {
	t.Helper()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep on this machine")
	}
	answer := filepath.Join(t.TempDir(), "answer")
	path := fakecodewhale.Dir(t, "while [ ! -e '"+answer+"' ]; do "+sleep+" 0.01; done\necho 'codewhale "+version+"'\n")
	w := newWorld(t)
	s := newSession(t, w, Options{Env: config.MapEnv{"HOME": w.home, "PATH": path}})
	s.initialize(protocol.ClientCapabilities{})
	return s, w, func() {
		if err := os.WriteFile(answer, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// A call made while `codewhale --version` still runs waits for it and is
// decided as the release found, never as the newest one status shows
// meanwhile. The fake answers 0.10.0 only after the call was sent.
func TestAuthorizeWaitsForDetection(t *testing.T) {
	s, _, release := sessionWithSlowCodewhale(t, "0.10.0")
	got := make(chan decided, 1)
	go func() {
		got <- s.explain(map[string]any{"tool": "read_file", "input": map[string]any{"path": "README.md"}})
	}()
	time.Sleep(100 * time.Millisecond) // the call is on its way
	release()
	if d := <-got; d.Codewhale != "0.10.0" {
		t.Errorf("decided as %q while 0.10.0 was being detected: %+v", d.Codewhale, d)
	}
}

// The editor's client for the user's own files names the Codewhale home
// as its workspace (Neovim's, for ~/.codewhale/config.toml): its status
// lists the user's files, not a .codewhale/.codewhale/config.toml
// overlay inside the home.
func TestStatusOfTheCodewhaleHome(t *testing.T) {
	w := newWorld(t)
	s := newSession(t, w, Options{Env: config.MapEnv{"HOME": w.home, "PATH": t.TempDir()}})
	home := filepath.Join(w.home, ".codewhale")
	opts, _ := json.Marshal(map[string]any{"config": w.configPath()})
	root := uri.File(home)
	//lint:ignore SA1019 Neovim's client names its root_dir by rootUri too, as initializeWith does
	if _, err := s.server.Initialize(s.ctx(), &protocol.InitializeParams{RootURI: &root, InitializationOptions: opts}); err != nil {
		t.Fatal(err)
	}
	if err := s.server.Initialized(s.ctx(), &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	var st Status
	if _, err := s.conn.Call(s.ctx(), "codewhale/status", nil, &st); err != nil {
		t.Fatal(err)
	}
	if st.Workspace != home {
		t.Fatalf("status workspace %s, want the Codewhale home %s", st.Workspace, home)
	}
	var paths []string
	for _, f := range st.Files {
		paths = append(paths, f.Path)
		if strings.Contains(filepath.ToSlash(f.Path), ".codewhale/.codewhale/") {
			t.Errorf("status lists %s", f.Path)
		}
	}
	if !slices.Contains(paths, w.configPath()) {
		t.Errorf("status files %q do not include the user's config.toml", paths)
	}
	// A project keeps its overlay.
	s2 := newSession(t, w, Options{Env: config.MapEnv{"HOME": w.home, "PATH": t.TempDir()}})
	s2.initialize(protocol.ClientCapabilities{})
	var st2 Status
	if _, err := s2.conn.Call(s2.ctx(), "codewhale/status", nil, &st2); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(st2.Files, func(f FileStatus) bool { return f.Path == filepath.Join(w.ws, ".codewhale", "config.toml") }) {
		t.Errorf("a project's status lost its overlay: %+v", st2.Files)
	}
}
