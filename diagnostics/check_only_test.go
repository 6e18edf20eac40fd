package diagnostics

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/policyfile"
)

// TestCheckOnlyReadsTheNamedFiles (issue 24, point 1): linting named files
// reads them and the posture files their findings are judged against, and
// no other policy file: a huge permissions.toml, a hooks.toml that is a
// directory and a broken constitution.json beside them are not even
// read (the snapshot lists every file a load found, Missing when it read
// nothing).
func TestCheckOnlyReadsTheNamedFiles(t *testing.T) {
	w := newLintWorld(t, "approval_policy = \"never\"\n")
	w.write(w.overlay, "approval_policy = \"on-request\"\n")
	w.write(w.constitution, "{not json")
	w.write(w.permissions, "")
	if err := os.Truncate(w.permissions, policyfile.MaxBytes+1); err != nil {
		t.Fatal(err)
	}
	hooks := filepath.Join(w.ws, ".codewhale", "hooks.toml")
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	looked := func(res *Result) (kinds []config.Kind) {
		for _, f := range res.Snapshot.Files {
			if f.State != config.Missing {
				kinds = append(kinds, f.Kind)
			}
		}
		return kinds
	}
	reported := func(res *Result) (paths []string) {
		for _, f := range res.Files {
			paths = append(paths, f.Path)
		}
		return paths
	}

	all := Check(Input{Options: w.options(nil)})
	for _, k := range []config.Kind{config.KindPermissions, config.KindProjectHooks, config.KindConstitution} {
		if !slices.Contains(looked(all), k) {
			t.Fatalf("the unnamed check does not read %s, so this test shows nothing: read %v", k, looked(all))
		}
	}

	overlay := Check(Input{Options: w.options(nil), Only: []string{w.overlay}})
	if got := reported(overlay); !slices.Equal(got, []string{w.overlay}) {
		t.Errorf("check %s reports %v", w.overlay, got)
	}
	for _, k := range []config.Kind{config.KindPermissions, config.KindProjectHooks, config.KindConstitution} {
		if slices.Contains(looked(overlay), k) {
			t.Errorf("check %s read the %s file: read %v", w.overlay, k, looked(overlay))
		}
	}
	// The user's approval_policy is context: the overlay's does not tighten it.
	if len(problemsWithCode(overlay, w.overlay, "CW100")) != 1 {
		t.Errorf("check %s lacks CW100 against the user's approval_policy: %v", w.overlay, overlay.File(w.overlay))
	}

	// A constitution.json stands alone: not even the user config is read.
	law := Check(Input{Options: w.options(nil), Only: []string{w.constitution}})
	if got := looked(law); !slices.Equal(got, []config.Kind{config.KindConstitution}) {
		t.Errorf("check %s read %v, want the constitution alone", w.constitution, got)
	}
	if len(problemsWithCode(law, w.constitution, "CW001")) == 0 && len(problemsWithCode(law, w.constitution, "CW400")) == 0 {
		t.Errorf("check %s does not report the broken JSON: %v", w.constitution, law.File(w.constitution))
	}
}
