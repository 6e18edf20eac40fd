package gate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/hooks"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// files describes one hermetic Codewhale home and workspace.
type files struct {
	config      string // extra config.toml text (appended after the hermetic keys)
	permissions string // permissions.toml; "" = no file
	law         string // .codewhale/constitution.json; "" = no file
	git         bool   // create <ws>/.git/HEAD
	release     string // the Codewhale release loaded as; "" = 0.9.10
}

type fixture struct {
	home, ws string
	snap     *config.Snapshot
}

// load writes the files under t.TempDir() and loads a snapshot with
// config.Load over them. The managed config and requirements are pointed at
// files that do not exist, so the real /etc is never read.
func load(t testing.TB, f files) fixture {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	ws := filepath.Join(root, "ws")
	must(t, os.MkdirAll(filepath.Join(home, ".codewhale"), 0o755))
	must(t, os.MkdirAll(ws, 0o755))
	if f.git {
		must(t, os.MkdirAll(filepath.Join(ws, ".git"), 0o755))
		must(t, os.WriteFile(filepath.Join(ws, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	}
	cfg := "managed_config_path = " + quoteTOML(filepath.Join(root, "etc", "managed_config.toml")) + "\n" +
		"requirements_path = " + quoteTOML(filepath.Join(root, "etc", "requirements.toml")) + "\n" + f.config
	cfgPath := filepath.Join(home, ".codewhale", "config.toml")
	must(t, os.WriteFile(cfgPath, []byte(cfg), 0o644))
	if f.permissions != "" {
		must(t, os.WriteFile(filepath.Join(home, ".codewhale", "permissions.toml"), []byte(strings.ReplaceAll(f.permissions, "<ws>", ws)), 0o600))
	}
	if f.law != "" {
		must(t, os.MkdirAll(filepath.Join(ws, ".codewhale"), 0o755))
		must(t, os.WriteFile(filepath.Join(ws, ".codewhale", "constitution.json"), []byte(f.law), 0o644))
	}
	var r release.Release
	if f.release != "" {
		r = release.MustOf(f.release)
	}
	snap := config.Load(config.Options{ConfigFlag: cfgPath, Workspace: ws, Env: config.MapEnv{"HOME": home}, Release: r})
	return fixture{home: home, ws: ws, snap: snap}
}

func quoteTOML(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// noFatal fails the test when the snapshot would stop Codewhale: a test
// fixture that does not load tests nothing.
func (fx fixture) noFatal(t testing.TB) fixture {
	t.Helper()
	if len(fx.snap.Fatal()) > 0 {
		t.Fatalf("fixture does not load: %v", fx.snap.Fatal())
	}
	return fx
}

func postureP(p session.Posture) *session.Posture { return &p }

// call builds a request in the fixture's workspace.
func (fx fixture) call(name string, input map[string]any) Request {
	return Request{Tool: name, Input: input, Workspace: fx.ws}
}

func withPosture(r Request, p session.Posture) Request {
	r.Posture = postureP(p)
	return r
}

func (fx fixture) decide(t testing.TB, req Request, deps Deps) Decision {
	t.Helper()
	return Decide(context.Background(), fx.snap, req, deps)
}

// fakeSessions is a scripted layer-8 session.
type fakeSessions struct {
	approved map[string]bool // tool names and grouping keys
	denied   map[string]bool // exact keys
}

func (s fakeSessions) Approved(key string) bool    { return s.approved[key] }
func (s fakeSessions) Denied(exactKey string) bool { return s.denied[exactKey] }

func approvedFor(keys ...string) fakeSessions {
	s := fakeSessions{approved: map[string]bool{}, denied: map[string]bool{}}
	for _, k := range keys {
		s.approved[k] = true
	}
	return s
}

// fakeRunner answers every hook from a script keyed by the hook's command.
type fakeRunner struct {
	mu      sync.Mutex
	script  map[string]hooks.Result
	calls   []string
	panicky bool
}

func (r *fakeRunner) Run(_ context.Context, h hooks.Hook, _ []string, _ string, _ time.Duration) hooks.Result {
	if r.panicky {
		panic("runner exploded")
	}
	r.mu.Lock()
	r.calls = append(r.calls, h.Command)
	r.mu.Unlock()
	return r.script[h.Command]
}

func exit(code int, stdout string) hooks.Result {
	return hooks.Result{ExitCode: &code, Stdout: stdout}
}

// hookConfig is a [hooks] table with one tool_call_before hook.
func hookConfig(command string, strict bool) string {
	s := "[hooks]\n[[hooks.hooks]]\nevent = \"tool_call_before\"\nname = " + quoteTOML(command) + "\ncommand = " + quoteTOML(command) + "\n"
	if strict {
		s += "continue_on_error = false\n"
	}
	return s
}

// checkTrace asserts the trace invariants every decision keeps.
func checkTrace(t testing.TB, d Decision) {
	t.Helper()
	last := Layer(0)
	for _, e := range d.Trace {
		if e.Layer <= last {
			t.Fatalf("trace not strictly increasing by layer: %+v", d.Trace)
		}
		last = e.Layer
		if e.Name != e.Layer.String() {
			t.Fatalf("trace entry name %q for layer %d", e.Name, e.Layer)
		}
	}
	if d.Decision == Allow {
		for _, e := range d.Trace {
			if e.Effect == EffectDeny {
				t.Fatalf("allow with a deny trace entry: %+v", d.Trace)
			}
		}
	}
	if d.LayerName != d.Layer.String() {
		t.Fatalf("layerName %q for layer %d", d.LayerName, d.Layer)
	}
}

func traceEffect(d Decision, l Layer) (Effect, bool) {
	for _, e := range d.Trace {
		if e.Layer == l {
			return e.Effect, true
		}
	}
	return "", false
}
