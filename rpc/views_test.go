package rpc

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"go.lsp.dev/uri"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/rpc/document"
)

// viewsOf is a server's views with no client, in a hermetic home.
func viewsOf(t *testing.T, folders ...string) *Server {
	t.Helper()
	s := newServer(Options{Env: config.MapEnv{"HOME": t.TempDir()}})
	s.folders = folders
	t.Cleanup(s.stopChecks)
	return s
}

// The views kept are bounded: beyond maxViews unheld ones the least
// recently used goes, never the one just used, and never one a folder or
// an open document holds.
func TestViewsAreBounded(t *testing.T) {
	s := viewsOf(t, "/folder")
	s.views.get("/folder")
	s.docs.Open(&document.Document{URI: uri.File("/open/permissions.toml"), Path: "/open/permissions.toml", Workspace: "/open"})
	s.views.get("/open")
	for i := range maxViews + 40 {
		s.views.get(fmt.Sprint("/ws", i))
		s.views.get("/ws0") // stays in use
	}
	if got := len(s.views.all()); got != maxViews+2 {
		t.Errorf("%d views kept, want %d and the two held", got, maxViews)
	}
	for _, root := range []string{"/folder", "/open", "/ws0", fmt.Sprint("/ws", maxViews+39)} {
		if _, ok := s.views.lookup(root); !ok {
			t.Errorf("%s was let go", root)
		}
	}
	if _, ok := s.views.lookup("/ws1"); ok {
		t.Errorf("/ws1, the least recently used, is kept")
	}
}

// A view goes when its folder goes, unless a document open in it holds
// it; one that went is made afresh on its next use.
func TestViewGoesWithItsFolder(t *testing.T) {
	s := viewsOf(t, "/a", "/b")
	a, b := s.views.get("/a"), s.views.get("/b")
	a.lint()
	s.docs.Open(&document.Document{URI: uri.File("/b/.codewhale/config.toml"), Path: "/b/.codewhale/config.toml", Workspace: "/b"})
	s.folders = nil
	s.views.release([]string{"/a", "/b"})
	if _, ok := s.views.lookup("/a"); ok {
		t.Error("the view of a removed folder stayed")
	}
	if got, ok := s.views.lookup("/b"); !ok || got != b {
		t.Error("the view of a removed folder with an open document went")
	}
	a.schedule() // a view let go checks no more
	if a.timer != nil {
		t.Error("a view let go scheduled a check")
	}
	if again := s.views.get("/a"); again == a || again.isLinted() {
		t.Error("a view let go came back as it was")
	}
}

// A folder without policy files of its own is served but never linted: no
// check is scheduled (so none runs, nothing is published and no baseline
// is read) until one of its files appears. (A folder with one is linted
// at once, as before: TestDiskChangeRepublishes and the other sessions
// whose repository has an overlay.)
func TestOnlyFoldersWithPolicyFilesAreLinted(t *testing.T) {
	plain, policed := t.TempDir(), t.TempDir()
	writeFile(t, policed+"/.codewhale/hooks.toml", "")
	s := viewsOf(t, plain, policed)
	// The folder with one would be checked at once, and this server has
	// no client to publish to: its view is only asked.
	if !s.views.get(policed).hasPolicyFiles() {
		t.Error("a hooks.toml of its own is not a policy file of its own")
	}
	s.lintFolders([]string{plain})
	p, _ := s.views.lookup(plain)
	if p.isLinted() {
		t.Fatal("a folder without policy files was linted")
	}
	p.schedule()
	p.mu.Lock()
	scheduled := p.timer != nil || p.unfinished != 0
	p.mu.Unlock()
	if scheduled {
		t.Error("a check was scheduled in a folder without policy files")
	}
	if !slices.Contains(s.views.watched(), plain+"/.codewhale/config.toml") {
		t.Error("where its overlay would appear is not watched")
	}
	s.views.lintAppeared()
	if p.isLinted() {
		t.Error("linted before any policy file appeared")
	}
	writeFile(t, plain+"/.codewhale/config.toml", "")
	s.views.lintAppeared()
	if !p.isLinted() {
		t.Error("not linted once its overlay appeared")
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
