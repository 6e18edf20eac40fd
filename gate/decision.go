package gate

import (
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
)

// Verdict is the outcome of a decision.
type Verdict string

const (
	Allow Verdict = "allow"
	Deny  Verdict = "deny"
	Ask   Verdict = "ask"
)

// Layer numbers Codewhale's authorization order.
type Layer int

const (
	LayerPosture Layer = iota + 1
	LayerAdmission
	LayerHooks
	LayerBaseline
	LayerPermissions
	LayerAutoReview
	LayerRepoLaw
	LayerApproval
	LayerSandbox
)

var layerNames = [...]string{"", "posture", "admission", "hooks", "baseline", "permissions", "auto-review", "repo-law", "approval", "sandbox"}

func (l Layer) String() string {
	if l < 1 || int(l) >= len(layerNames) {
		return "unknown"
	}
	return layerNames[l]
}

// Effect is what one layer did to the call.
type Effect string

const (
	EffectNone    Effect = "none"
	EffectAllow   Effect = "allow"
	EffectAsk     Effect = "ask"
	EffectDeny    Effect = "deny"
	EffectRewrite Effect = "rewrite"
	EffectTighten Effect = "tighten"
)

// TraceEntry is one layer's line of the trace.
type TraceEntry struct {
	Layer  Layer  `json:"layer"`
	Name   string `json:"name"`
	Effect Effect `json:"effect"`
	Detail string `json:"detail"`
}

// Sandbox is the layer-9 policy the call would run under.
type Sandbox struct {
	Type          string   `json:"type"`
	WritableRoots []string `json:"writableRoots,omitempty"`
	NetworkAccess *bool    `json:"networkAccess,omitempty"`
}

// Approval records how layer 8 was answered over LSP.
type Approval struct {
	Choice string `json:"choice"`
	Source string `json:"source"`
}

// Decision is the contract's Decision (docs/codewhale/contract.md §3).
type Decision struct {
	Decision  Verdict        `json:"decision"`
	Layer     Layer          `json:"layer"`
	LayerName string         `json:"layerName"`
	Reason    string         `json:"reason"`
	Rule      *string        `json:"rule"`
	CallID    *string        `json:"callId"`
	Mode      string         `json:"mode"`
	Posture   string         `json:"posture"`
	Sandbox   Sandbox        `json:"sandbox"`
	Input     map[string]any `json:"input"`
	Trace     []TraceEntry   `json:"trace"`
	Approval  *Approval      `json:"approval"`
	// Codewhale is the release whose behaviour decided.
	Codewhale string `json:"codewhale,omitempty"`
	// Changes are the release changes (release.Change) that made this
	// decision differ from what the oldest implemented release decides,
	// so explain can say which release changed an outcome.
	Changes []string `json:"changes,omitempty"`
	// Location is where to look for what decided: the permissions.toml
	// record of the rule that decided, or the first error of a file that
	// stops Codewhale (location.go); nil when no file position is known.
	// codewhale-ls's addition, like Codewhale and Changes.
	Location *Location `json:"location,omitempty"`
	// Prompt describes what a human would be asked when Decision is ask.
	Prompt *Prompt `json:"-"`
	// Refused: codewhale-ls denied the call without deciding it (Refuse),
	// for its receipt.
	Refused bool `json:"-"`
	// ByPosture: the runtime permission posture itself settled layer 8
	// (approved the call, or denied it as a posture that never asks, as
	// Never and Auto-Review do), for its receipt.
	ByPosture bool `json:"-"`
}

// Prompt is what layer 8 would put on an approval card.
type Prompt struct {
	Description string
	Forced      bool
	// Choices Codewhale would offer: once, session, always (when eligible), deny.
	Choices     []Choice
	ExactKey    string
	GroupingKey string
	// SessionGrants are the keys "approve for session" adds, as the
	// snapshot's release grants them (the tool name too before 0.10.0).
	SessionGrants []string
	// Always are the rules the "always" choice would append.
	Always []execpolicy.Rule
	// AlwaysRefused says why "always" is not offered although the call has
	// rules to save: Codewhale would refuse to write permissions.toml.
	AlwaysRefused string
}

// AlwaysTOML is the exact TOML the "always" choice would append to
// permissions.toml, or "" when the choice is not offered.
func (p *Prompt) AlwaysTOML() string {
	var b strings.Builder
	for i, r := range p.Always {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(execpolicy.FormatRule(r))
	}
	return b.String()
}
