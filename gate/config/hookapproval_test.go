package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/hooks"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// TestProjectHooksDigestApproval is docs/codewhale/releases/0.10.0.md B.3:
// from 0.10.0 a trusted workspace's hooks.toml loads only when the approval
// store holds the digest of its exact bytes; 0.9.10 needs trust alone. An
// unreadable store approves nothing.
func TestProjectHooksDigestApproval(t *testing.T) {
	project := "[[hooks]]\nevent = \"tool_call_before\"\ncommand = \"project-hook\"\n"
	digest := HookDigest([]byte(project))
	approve := func(w *world, sha string) string {
		hooksPath := filepath.Join(w.ws, ".codewhale", "hooks.toml")
		return "[projects." + tomlString(hooksPath) + "]\napproved_sha256 = " + tomlString(sha) + "\n"
	}
	tests := []struct {
		name  string
		store func(w *world) (string, bool) // contents; false = no store file
		// want is the state at 0.10.x; 0.9.10 always loads.
		want ProjectHooksState
		why  string
	}{
		{name: "approved", store: func(w *world) (string, bool) { return approve(w, digest), true }, want: ProjectHooksLoaded},
		{name: "approved, upper-case hex", store: func(w *world) (string, bool) { return approve(w, strings.ToUpper(digest)), true }, want: ProjectHooksLoaded},
		{name: "no store", store: func(w *world) (string, bool) { return "", false }, want: ProjectHooksNotApproved, why: "not approved"},
		{name: "store names another file", store: func(w *world) (string, bool) {
			return "[projects.\"/elsewhere/.codewhale/hooks.toml\"]\napproved_sha256 = " + tomlString(digest) + "\n", true
		}, want: ProjectHooksNotApproved, why: "no approval for this file"},
		{name: "edited since approval", store: func(w *world) (string, bool) { return approve(w, HookDigest([]byte("older bytes"))), true },
			want: ProjectHooksEdited, why: "edited since codewhale-ls approved it"},
		{name: "store does not parse", store: func(w *world) (string, bool) { return "[projects\n", true }, want: ProjectHooksStoreUnreadable, why: "do not parse"},
		{name: "approval of the wrong type", store: func(w *world) (string, bool) {
			return strings.Replace(approve(w, digest), tomlString(digest), "1", 1), true
		}, want: ProjectHooksStoreUnreadable, why: "no approved_sha256 string"},
		{name: "projects is not a table", store: func(w *world) (string, bool) { return "projects = 1\n", true }, want: ProjectHooksStoreUnreadable, why: "not a table"},
	}
	for _, tc := range tests {
		for _, r := range release.Implemented {
			t.Run(tc.name+"/"+r.Version, func(t *testing.T) {
				w := newWorld(t)
				w.userConfig(trustedWorkspace(w.ws))
				writeFile(t, filepath.Join(w.ws, ".codewhale", "hooks.toml"), project)
				if src, ok := tc.store(w); ok {
					writeFile(t, filepath.Join(w.home, ".codewhale", HookApprovalsFile), src)
				}
				s := Load(Options{Workspace: w.ws, Env: w.vars, Release: r})
				want := tc.want
				if !r.Has(release.HookDigestApproval) {
					want = ProjectHooksLoaded
				}
				st := s.ProjectHooksStatus
				if st.State != want || st.Digest != digest || s.ProjectHooksLoaded != (want == ProjectHooksLoaded) {
					t.Fatalf("status %+v loaded %v, want %s with digest %s", st, s.ProjectHooksLoaded, want, digest)
				}
				projectHooks := 0
				for _, h := range s.Hooks.Hooks {
					if h.Source == hooks.Project {
						projectHooks++
					}
				}
				f := s.File(KindProjectHooks)
				if want == ProjectHooksLoaded {
					if projectHooks != 1 || hasCode(f, "CW303") {
						t.Errorf("loaded: %d project hooks, problems %q", projectHooks, codes(f))
					}
					return
				}
				if projectHooks != 0 {
					t.Errorf("%d project hooks loaded, want none", projectHooks)
				}
				var msg string
				for _, p := range f.Problems {
					if p.Code == "CW303" {
						msg = p.Message
					}
				}
				for _, part := range []string{tc.why, "trusted", "/hooks approve " + digest, r.Version} {
					if !strings.Contains(msg, part) {
						t.Errorf("CW303 %q does not say %q", msg, part)
					}
				}
			})
		}
	}
}

// TestProjectHooksApprovalStoreSymlink: a store that is a symlink is not
// read (as every policy file), so nothing is approved.
func TestProjectHooksApprovalStoreSymlink(t *testing.T) {
	w := newWorld(t)
	w.userConfig(trustedWorkspace(w.ws))
	src := "[[hooks]]\nevent = \"tool_call_before\"\ncommand = \"x\"\n"
	hooksPath := writeFile(t, filepath.Join(w.ws, ".codewhale", "hooks.toml"), src)
	real := writeFile(t, filepath.Join(w.root, "elsewhere.toml"),
		"[projects."+tomlString(hooksPath)+"]\napproved_sha256 = "+tomlString(HookDigest([]byte(src)))+"\n")
	if err := os.Symlink(real, filepath.Join(w.home, ".codewhale", HookApprovalsFile)); err != nil {
		t.Skip(err)
	}
	s := Load(Options{Workspace: w.ws, Env: w.vars, Release: release.Newest()})
	if s.ProjectHooksLoaded || s.ProjectHooksStatus.State != ProjectHooksStoreUnreadable {
		t.Errorf("status %+v", s.ProjectHooksStatus)
	}
}

// TestProjectHooksUntrustedStatus: an untrusted workspace says so, at every
// release, before any approval is looked at.
func TestProjectHooksUntrustedStatus(t *testing.T) {
	w := newWorld(t)
	w.userConfig("")
	writeFile(t, filepath.Join(w.ws, ".codewhale", "hooks.toml"), "[[hooks]]\nevent = \"tool_call_before\"\ncommand = \"x\"\n")
	s := Load(Options{Workspace: w.ws, Env: w.vars, Release: release.Newest()})
	if s.ProjectHooksStatus.State != ProjectHooksUntrusted || s.ProjectHooksLoaded {
		t.Errorf("status %+v", s.ProjectHooksStatus)
	}
}

// TestSourcesWatchTheHookApprovals: an approval written by Codewhale must
// reload the snapshot, so the store is among the watched paths.
func TestSourcesWatchTheHookApprovals(t *testing.T) {
	w := newWorld(t)
	s := w.load()
	want := filepath.Join(w.home, ".codewhale", HookApprovalsFile)
	for _, p := range s.Sources() {
		if p == want {
			return
		}
	}
	t.Errorf("Sources() = %q lacks %s", s.Sources(), want)
}

// TestUnreadableProjectHooksAskNoApproval: a symlinked hooks.toml has no
// bytes to approve; it is dropped as unreadable, with no digest to approve.
func TestUnreadableProjectHooksAskNoApproval(t *testing.T) {
	w := newWorld(t)
	w.userConfig(trustedWorkspace(w.ws))
	real := writeFile(t, filepath.Join(w.root, "real-hooks.toml"), "[[hooks]]\nevent = \"tool_call_before\"\ncommand = \"x\"\n")
	mkdir(t, filepath.Join(w.ws, ".codewhale"))
	if err := os.Symlink(real, filepath.Join(w.ws, ".codewhale", "hooks.toml")); err != nil {
		t.Skip(err)
	}
	s := Load(Options{Workspace: w.ws, Env: w.vars, Release: release.Newest()})
	st := s.ProjectHooksStatus
	if s.ProjectHooksLoaded || st.State != ProjectHooksRejected || st.Digest != "" || hasCode(s.File(KindProjectHooks), "CW303") {
		t.Errorf("status %+v, problems %q", st, codes(s.File(KindProjectHooks)))
	}
}
