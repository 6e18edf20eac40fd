package gate

import (
	"slices"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// The same permissions.toml and call decide differently under 0.9.10 and
// 0.10.1, and the newer decision names the release change that made the
// difference, so explain can say it (docs/codewhale/releases/0.10.0.md
// A.3.4: the `*` of a deny prefix).
func TestDecisionNamesTheEngineChange(t *testing.T) {
	const permissions = "[[rules]]\ntool = \"exec_shell\"\ncommand = \"dd * of=/dev/sda\"\naction = \"deny\"\n"
	decide := func(version string) Decision {
		fx := load(t, files{git: true, permissions: permissions, release: version}).noFatal(t)
		req := withPosture(fx.call("bash", map[string]any{"command": "dd if=/dev/zero of=/dev/sda"}), session.FullAccess)
		return fx.decide(t, req, Deps{})
	}

	old := decide("0.9.10")
	if old.Decision == Deny || len(old.Changes) != 0 || old.Codewhale != "0.9.10" {
		t.Fatalf("0.9.10: %s at layer %d (%s), changes %q", old.Decision, old.Layer, old.Reason, old.Changes)
	}
	got := decide("0.10.1")
	if got.Decision != Deny || got.Layer != LayerPermissions || got.Codewhale != "0.10.1" {
		t.Fatalf("0.10.1: %s at layer %d (%s)", got.Decision, got.Layer, got.Reason)
	}
	if want := release.DenyWildcard.String(); !slices.Contains(got.Changes, want) {
		t.Errorf("0.10.1 changes %q, want %q", got.Changes, want)
	}
}
