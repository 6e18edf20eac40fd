package repolaw

import (
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/session"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

// docs/codewhale/pipeline.md §7.3 "Posture": a repo-law ask prompts only in Ask without
// auto-approval; a block blocks everywhere.
func TestEffectByPosture(t *testing.T) {
	ask := Hold{Action: Ask, Reason: "R", Invariant: "I", Target: "T"}
	block := Hold{Action: Block, Reason: "R", Invariant: "I", Target: "T"}
	tests := []struct {
		hold        Hold
		posture     session.Posture
		autoApprove bool
		want        Outcome
	}{
		{ask, session.Ask, false, Outcome{ForcePrompt, "R"}},
		{ask, session.Ask, true, Outcome{Blocked, "Repository law blocked tool 'write' in Ask: R. Switch to Ask to review this protected change."}},
		{ask, session.AutoReview, false, Outcome{Blocked, "Repository law blocked tool 'write' in Auto-Review: R. Switch to Ask to review this protected change."}},
		{ask, session.Never, false, Outcome{Blocked, "Repository law blocked tool 'write' in Never: R. Switch to Ask to review this protected change."}},
		{ask, session.FullAccess, true, Outcome{Blocked, "Repository law blocked tool 'write' in Full Access: R. Switch to Ask to review this protected change."}},
		{block, session.Ask, false, Outcome{Blocked, "R"}},
		{block, session.Ask, true, Outcome{Blocked, "R"}},
		{block, session.AutoReview, false, Outcome{Blocked, "R"}},
		{block, session.Never, false, Outcome{Blocked, "R"}},
		{block, session.FullAccess, true, Outcome{Blocked, "R"}},
		{Hold{}, session.Ask, false, Outcome{}},
		{Hold{}, session.FullAccess, true, Outcome{}},
	}
	for _, tt := range tests {
		if got := Effect(tt.hold, tt.posture, tt.autoApprove, "write"); got != tt.want {
			t.Errorf("Effect(%v, %v, %v) = %+v, want %+v", tt.hold.Action, tt.posture, tt.autoApprove, got, tt.want)
		}
	}
}

// full_access_permission_allow_cannot_bypass_repo_law (docs/codewhale/pipeline.md §7.3).
// The typed allow is another layer's; here: the hold and its effect.
func TestFullAccessCannotBypassRepoLaw(t *testing.T) {
	law := mustParse(t, `{"protected_invariants":[{"text":"Release notes need human review","paths":["CHANGELOG.md"]}]}`)
	input := map[string]any{"action": "write", "path": "CHANGELOG.md", "content": "## 1.0\n"}
	hold := law.Check(testWorkspace, tool.Semantic("File", input), input)
	got := Effect(hold, session.FullAccess, true, "File")
	const prefix = `Repository law blocked tool 'File' in Full Access: Repo law holds this write: "Release notes need human review"`
	if got.Kind != Blocked || !strings.HasPrefix(got.Reason, prefix) {
		t.Fatalf("Effect = %+v, want Blocked starting %q", got, prefix)
	}
}

func TestAuditSpelling(t *testing.T) {
	for kind, want := range map[OutcomeKind]string{Proceed: "none", ForcePrompt: "force_prompt", Blocked: "block"} {
		if kind.String() != want {
			t.Errorf("%d.String() = %q, want %q", kind, kind.String(), want)
		}
	}
}
