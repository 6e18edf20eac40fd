package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// TestCodewhalesOwnHooksApproval: a trusted workspace's hooks.toml that
// the user approved in Codewhale (/hooks approve, recorded by Codewhale
// 0.10 as hooks_sha256 in the workspace's [projects] table of the user
// config.toml, keyed by the workspace with symlinks resolved) loads, as it
// does in Codewhale; it was "unapproved" for codewhale-ls (issue 24,
// point 9). Only the exact record approves.
func TestCodewhalesOwnHooksApproval(t *testing.T) {
	project := "[[hooks]]\nevent = \"tool_call_before\"\ncommand = \"project-hook\"\n"
	digest := HookDigest([]byte(project))
	for _, tc := range []struct {
		name string
		// record is the workspace's table body besides its trust.
		record string
		// key spells the workspace: "real" resolved, "link" through a
		// symlink.
		key  string
		want ProjectHooksState
		why  string
	}{
		{"approved in Codewhale", "hooks_sha256 = " + tomlString(digest), "real", ProjectHooksLoaded, ""},
		{"edited since", "hooks_sha256 = " + tomlString(HookDigest([]byte("older"))), "real", ProjectHooksEdited, "edited since Codewhale approved it"},
		{"upper-case hex is not what Codewhale compares", "hooks_sha256 = " + tomlString(strings.ToUpper(digest)), "real", ProjectHooksEdited, "edited since Codewhale approved it"},
		{"wrong type", "hooks_sha256 = 1", "real", ProjectHooksStoreUnreadable, "not a string"},
		{"no record", "", "real", ProjectHooksNotApproved, "Codewhale has not approved these bytes"},
		{"record under the symlink's spelling", "hooks_sha256 = " + tomlString(digest), "link", ProjectHooksNotApproved, "Codewhale has not approved these bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			link := filepath.Join(w.root, "link")
			if err := os.Symlink(w.ws, link); err != nil {
				t.Skip(err)
			}
			real, err := filepath.EvalSymlinks(w.ws)
			if err != nil {
				t.Fatal(err)
			}
			key := real
			if tc.key == "link" {
				key = link
			}
			cfg := trustedWorkspace(w.ws)
			if tc.record != "" {
				cfg += "[projects." + tomlString(key) + "]\n" + tc.record + "\n"
				if key == w.ws {
					cfg = "[projects." + tomlString(key) + "]\ntrust_level = \"trusted\"\n" + tc.record + "\n"
				}
			}
			userPath := w.userConfig(cfg)
			writeFile(t, filepath.Join(w.ws, ".codewhale", "hooks.toml"), project)
			// The session names the workspace through the link: the key is
			// still its real path.
			s := Load(Options{Workspace: link, Env: w.vars, Release: release.Newest()})
			st := s.ProjectHooksStatus
			if st.State != tc.want || s.ProjectHooksLoaded != (tc.want == ProjectHooksLoaded) {
				t.Fatalf("status %+v, loaded %v; want %s", st, s.ProjectHooksLoaded, tc.want)
			}
			if tc.want == ProjectHooksLoaded {
				if st.ApprovedIn != userPath {
					t.Errorf("approved in %q, want %q", st.ApprovedIn, userPath)
				}
				return
			}
			if !strings.Contains(st.Why, tc.why) {
				t.Errorf("why %q does not say %q", st.Why, tc.why)
			}
			f := s.File(KindProjectHooks)
			var msg string
			for _, p := range f.Problems {
				if p.Code == "CW303" {
					msg = p.Message
				}
			}
			for _, part := range []string{"/hooks approve " + digest, "hooks_sha256", "codewhale-ls hooks approve " + filepath.Join(link, ".codewhale", "hooks.toml")} {
				if !strings.Contains(msg, part) {
					t.Errorf("CW303 %q does not say %q", msg, part)
				}
			}
		})
	}
}

// TestARepositoryCannotApproveItsOwnHooks: the record counts only in the
// user's own config: the project overlay (the repository's
// .codewhale/config.toml) holding it approves nothing, and neither does a
// user config that lies inside the workspace (CODEWHALE_CONFIG_PATH
// pointing into the repository), nor a codewhale-ls store there.
func TestARepositoryCannotApproveItsOwnHooks(t *testing.T) {
	project := "[[hooks]]\nevent = \"tool_call_before\"\ncommand = \"project-hook\"\n"
	digest := HookDigest([]byte(project))
	t.Run("overlay", func(t *testing.T) {
		w := newWorld(t)
		w.userConfig(trustedWorkspace(w.ws))
		w.overlay("[projects." + tomlString(w.ws) + "]\nhooks_sha256 = " + tomlString(digest) + "\n")
		writeFile(t, filepath.Join(w.ws, ".codewhale", "hooks.toml"), project)
		s := Load(Options{Workspace: w.ws, Env: w.vars, Release: release.Newest()})
		if s.ProjectHooksLoaded {
			t.Fatalf("the repository's overlay approved its own hooks: %+v", s.ProjectHooksStatus)
		}
	})
	t.Run("user config inside the workspace", func(t *testing.T) {
		w := newWorld(t)
		inRepo := writeFile(t, filepath.Join(w.ws, "cfg", "config.toml"),
			"[projects."+tomlString(w.ws)+"]\ntrust_level = \"trusted\"\nhooks_sha256 = "+tomlString(digest)+"\n")
		writeFile(t, filepath.Join(w.ws, ".codewhale", "hooks.toml"), project)
		s := Load(Options{ConfigFlag: inRepo, Workspace: w.ws, Env: w.vars, Release: release.Newest()})
		if s.ProjectHooksLoaded || !strings.Contains(s.ProjectHooksStatus.Why, "inside the workspace") {
			t.Fatalf("a config inside the repository approved its hooks: loaded %v, %+v", s.ProjectHooksLoaded, s.ProjectHooksStatus)
		}
	})
	t.Run("codewhale-ls store inside the workspace", func(t *testing.T) {
		w := newWorld(t)
		home := filepath.Join(w.ws, "cwhome")
		hooksPath := writeFile(t, filepath.Join(w.ws, ".codewhale", "hooks.toml"), project)
		writeFile(t, filepath.Join(home, "config.toml"), trustedWorkspace(w.ws))
		writeFile(t, filepath.Join(home, HookApprovalsFile), "[projects."+tomlString(hooksPath)+"]\napproved_sha256 = "+tomlString(digest)+"\n")
		w.vars["CODEWHALE_HOME"] = home
		s := Load(Options{Workspace: w.ws, Env: w.vars, Release: release.Newest()})
		if s.ProjectHooksLoaded || !strings.Contains(s.ProjectHooksStatus.Why, "inside the workspace") {
			t.Fatalf("a store inside the repository approved its hooks: loaded %v, %+v", s.ProjectHooksLoaded, s.ProjectHooksStatus)
		}
	})
}

// TestUnapprovedHooksStillLint: while a trusted workspace's hooks.toml
// waits for approval, what is wrong with it still shows (here a hook
// Codewhale drops at load), beside the CW303 that says how to approve.
func TestUnapprovedHooksStillLint(t *testing.T) {
	w := newWorld(t)
	w.userConfig(trustedWorkspace(w.ws))
	writeFile(t, filepath.Join(w.ws, ".codewhale", "hooks.toml"), "[[hooks]]\nevent = \"tool_call_before\"\ncommand = \"x\"\ntimeout_secs = 0\n")
	s := Load(Options{Workspace: w.ws, Env: w.vars, Release: release.Newest()})
	f := s.File(KindProjectHooks)
	if s.ProjectHooksLoaded || !hasCode(f, "CW303") || !hasCode(f, "CW300") {
		t.Fatalf("loaded %v, problems %q; want CW303 and CW300", s.ProjectHooksLoaded, codes(f))
	}
}

// TestSymlinkedCodewhaleFolderIsNeverApproved: Codewhale neither approves
// nor loads .codewhale/hooks.toml through a symlinked .codewhale, so a
// record of its bytes does not load it here either.
func TestSymlinkedCodewhaleFolderIsNeverApproved(t *testing.T) {
	w := newWorld(t)
	project := "[[hooks]]\nevent = \"tool_call_before\"\ncommand = \"x\"\n"
	elsewhere := filepath.Join(w.root, "elsewhere")
	writeFile(t, filepath.Join(elsewhere, "hooks.toml"), project)
	if err := os.Symlink(elsewhere, filepath.Join(w.ws, ".codewhale")); err != nil {
		t.Skip(err)
	}
	real, _ := filepath.EvalSymlinks(w.ws)
	w.userConfig("[projects." + tomlString(real) + "]\ntrust_level = \"trusted\"\nhooks_sha256 = " + tomlString(HookDigest([]byte(project))) + "\n")
	s := Load(Options{Workspace: w.ws, Env: w.vars, Release: release.Newest()})
	if s.ProjectHooksLoaded || !strings.Contains(s.ProjectHooksStatus.Why, "symlink") {
		t.Fatalf("loaded %v, %+v", s.ProjectHooksLoaded, s.ProjectHooksStatus)
	}
}
