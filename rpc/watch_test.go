package rpc

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
)

// until polls explain until it decides want at layer, and returns how long
// the change took to show.
func (s *session) until(req map[string]any, want string, layer int) time.Duration {
	s.t.Helper()
	start := time.Now()
	deadline := start.Add(10 * time.Second)
	for {
		d := s.explain(req)
		if d.Decision == want && d.Layer == layer {
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("still %s at layer %d (%s), want %s at %d", d.Decision, d.Layer, d.Reason, want, layer)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func rule(command, action string) string {
	return fmt.Sprintf("[[rules]]\ntool = \"exec_shell\"\ncommand = %q\naction = %q\n", command, action)
}

// renameOver saves as JetBrains, VS Code and sed -i do: a temp file
// renamed over the target.
func renameOver(t testing.TB, path, text string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// TestPolicyFollowsDisk: every way of changing permissions.toml on disk,
// and a constitution whose directory appears later, shows in the next
// decisions.
func TestPolicyFollowsDisk(t *testing.T) {
	w := newWorld(t)
	if err := os.RemoveAll(filepath.Join(w.ws, ".codewhale")); err != nil {
		t.Fatal(err)
	}
	s := approvalSession(t, w, nil, choose("deny"))
	cargo := w.call("bash", bash("cargo test"))
	s.until(cargo, "ask", 8)
	steps := []struct {
		name   string
		change func()
		req    map[string]any
		want   string
		layer  int
	}{
		{"created", func() { w.write(t, w.permissionsPath(), rule("cargo test", "deny")) }, cargo, "deny", 5},
		{"edited in place", func() { w.write(t, w.permissionsPath(), rule("cargo test", "allow")) }, cargo, "allow", 5},
		{"renamed over", func() { renameOver(t, w.permissionsPath(), rule("cargo test", "deny")) }, cargo, "deny", 5},
		{"deleted", func() { os.Remove(w.permissionsPath()) }, cargo, "ask", 8},
		{"recreated", func() { w.write(t, w.permissionsPath(), rule("cargo", "allow")) }, cargo, "allow", 5},
		{"broken", func() { w.write(t, w.permissionsPath(), "[[rules]\n") }, cargo, "deny", 1},
		{"repaired", func() { w.write(t, w.permissionsPath(), rule("cargo", "ask")) }, cargo, "ask", 8},
		{"directory created later", func() {
			w.write(t, filepath.Join(w.ws, ".codewhale", "constitution.json"),
				`{"schema_version": 1, "protected_invariants": [{"text": "frozen", "paths": ["src/**"], "action": "block"}]}`)
		}, w.call("write", map[string]any{"path": "src/x.rs", "content": "x"}), "deny", 7},
	}
	for _, st := range steps {
		st.change()
		took := s.until(st.req, st.want, st.layer)
		t.Logf("%s: the decision changed after %v", st.name, took.Round(time.Millisecond))
	}
	s.shutdown()
}

// TestClientWatchedFiles: a didChangeWatchedFiles from the client reloads
// before the next request is read (notifications are handled in order).
func TestClientWatchedFiles(t *testing.T) {
	w := newWorld(t)
	s := approvalSession(t, w, nil, choose("deny"))
	cargo := w.call("bash", bash("cargo test"))
	if d := s.explain(cargo); d.Decision != "ask" {
		t.Fatalf("setup: %s", d.Decision)
	}
	w.write(t, w.permissionsPath(), rule("cargo test", "allow"))
	if err := s.server.DidChangeWatchedFiles(s.ctx(), &protocol.DidChangeWatchedFilesParams{Changes: []protocol.FileEvent{
		{URI: uri.File(w.permissionsPath()), Type: protocol.FileChangeTypeChanged}}}); err != nil {
		t.Fatal(err)
	}
	if d := s.explain(cargo); d.Decision != "allow" || d.Layer != 5 {
		t.Fatalf("after didChangeWatchedFiles: %s at %d", d.Decision, d.Layer)
	}
	s.shutdown()
}

// TestDecisionsSeeWholeVersions: 1,000 decisions made while
// permissions.toml is rewritten 100 times each see one whole version:
// even versions allow, odd ones deny, and a torn or missing file (which
// would ask, or refuse to start) never shows.
func TestDecisionsSeeWholeVersions(t *testing.T) {
	w := newWorld(t)
	version := func(k int) string {
		action := "allow"
		if k%2 == 1 {
			action = "deny"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "# version %d\n", k)
		for i := range 200 {
			b.WriteString(rule(fmt.Sprintf("tool%d-%d", k, i), "ask"))
		}
		b.WriteString(rule("cargo test", action))
		return b.String()
	}
	w.write(t, w.configPath(), w.hermeticKeys())
	w.write(t, w.permissionsPath(), version(0))
	s := approvalSession(t, w, nil, choose("deny"))
	cargo := w.call("bash", bash("cargo test"))
	s.until(cargo, "allow", 5)

	done := make(chan struct{})
	var writer sync.WaitGroup
	writer.Add(1)
	go func() {
		defer writer.Done()
		defer close(done)
		// Longer apart than the watcher's debounce, so each version is
		// served for a while.
		for k := 1; k <= 100; k++ {
			renameOver(t, w.permissionsPath(), version(k))
			time.Sleep(40 * time.Millisecond)
		}
	}()
	const deciders, each = 4, 250
	var wg sync.WaitGroup
	seen := make([]map[string]int, deciders)
	for g := range deciders {
		seen[g] = map[string]int{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				time.Sleep(15 * time.Millisecond) // spread over the rewrites
				d := s.explain(cargo)
				key := fmt.Sprintf("%s@%d", d.Decision, d.Layer)
				if key != "allow@5" && key != "deny@5" {
					t.Errorf("a decision saw no whole version: %s (%s)", key, d.Reason)
					return
				}
				seen[g][key]++
			}
		}()
	}
	wg.Wait()
	writer.Wait()
	total := map[string]int{}
	for _, m := range seen {
		for k, n := range m {
			total[k] += n
		}
	}
	t.Logf("1,000 decisions during 100 rewrites: %v", total)
	if total["allow@5"] == 0 || total["deny@5"] == 0 {
		t.Errorf("the decisions did not follow the rewrites: %v", total)
	}
	// Version 100 allows.
	s.until(cargo, "allow", 5)
	s.shutdown()
}

// TestConcurrentAlwaysGrants: 100 calls answered "always" at once leave one
// valid permissions.toml holding all 100 rules.
func TestConcurrentAlwaysGrants(t *testing.T) {
	w := newWorld(t)
	w.write(t, w.configPath(), w.hermeticKeys())
	w.write(t, w.permissionsPath(), "# mine\n")
	s := approvalSession(t, w, nil, choose("always"))
	const n = 100
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var d decided
			if _, err := s.conn.Call(s.ctx(), "codewhale/authorize", w.call("bash", bash(fmt.Sprintf("cargo test -p crate%d", i))), &d); err != nil {
				t.Error(err)
				return
			}
			if d.Decision != "allow" || d.approval() != "always/prompt" {
				t.Errorf("call %d: %s %q %s", i, d.Decision, d.approval(), d.Reason)
			}
		}()
	}
	wg.Wait()
	data, err := os.ReadFile(w.permissionsPath())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "# mine\n") {
		t.Errorf("the file's own bytes changed")
	}
	f, problems := execpolicy.ParseFile(data)
	if !f.Accepted || len(problems) > 0 || len(f.Rules) != n {
		t.Fatalf("%d rules, problems %v; want %d rules", len(f.Rules), problems, n)
	}
	for i := range n {
		cmd := fmt.Sprintf("cargo test -p crate%d", i)
		if d := s.explain(w.call("bash", bash(cmd))); d.Decision != "allow" || d.Layer != 5 {
			t.Errorf("%s: %s at %d after the grant", cmd, d.Decision, d.Layer)
		}
	}
	s.shutdown()
}

// TestDiskChangeRepublishes: a policy file nobody opened is linted again
// when it changes on disk, and cleared when it is fixed.
func TestDiskChangeRepublishes(t *testing.T) {
	w := newWorld(t)
	w.write(t, w.overlayPath(), "") // a repository with a policy file of its own is linted
	s := approvalSession(t, w, nil, choose("deny"))
	u := uri.File(w.permissionsPath())
	w.write(t, w.permissionsPath(), "[[rules]]\ntool = \"exec_shell\"\nacton = \"deny\"\n")
	s.waitFor(u, "a diagnostic for the broken file", func(p *protocol.PublishDiagnosticsParams) bool { return len(p.Diagnostics) > 0 })
	// A file-tool deny: no lint has anything to say of it (a shell deny
	// gets CW211's note on the spellings that walk past it).
	w.write(t, w.permissionsPath(), "[[rules]]\ntool = \"read_file\"\npath = \".env\"\naction = \"deny\"\n")
	s.waitFor(u, "the diagnostics cleared", func(p *protocol.PublishDiagnosticsParams) bool { return len(p.Diagnostics) == 0 })
	s.shutdown()
}

// A repository without policy files of its own publishes nothing, even
// with the user's files broken; once its overlay is created on disk, the
// watcher makes it linted and its findings and the user's are published.
func TestFolderWithoutPolicyFilesLintsWhenOneAppears(t *testing.T) {
	w := newWorld(t)
	w.write(t, w.configPath(), w.hermeticKeys())
	w.write(t, w.permissionsPath(), "[[rules]]\ntool = \"exec_shell\"\nacton = \"deny\"\n")
	s := newSession(t, w, Options{})
	s.initialize(editor)
	waitServingAt(t, w.ws) // served for approvals all the same
	w.write(t, w.overlayPath(), "bogus_key = 1\n")
	s.waitFor(uri.File(w.overlayPath()), "the new overlay's finding", func(p *protocol.PublishDiagnosticsParams) bool { return len(p.Diagnostics) > 0 })
	s.waitFor(uri.File(w.permissionsPath()), "the user's file's finding", func(p *protocol.PublishDiagnosticsParams) bool { return len(p.Diagnostics) > 0 })
	s.shutdown()
}
