// Package session holds how a Codewhale session runs, which every layer of
// the gate reads: its mode (docs/codewhale/pipeline.md §0.2), its
// permission posture (§0.1) and where its calls come from (the run origin
// of auto-review, §6.2).
package session

import (
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
)

// Mode is Codewhale's session mode (docs/codewhale/pipeline.md §0.2).
type Mode int

const (
	Agent Mode = iota
	Plan
	Operate
	Yolo
)

// String is the request spelling: plan|agent|operate|yolo.
func (m Mode) String() string {
	switch m {
	case Plan:
		return "plan"
	case Operate:
		return "operate"
	case Yolo:
		return "yolo"
	default:
		return "agent"
	}
}

// EngineSpelling is how the engine names the mode to hooks (DEEPSEEK_MODE).
func (m Mode) EngineSpelling() string {
	switch m {
	case Plan:
		return "Plan"
	case Operate:
		return "Operate"
	case Yolo:
		return "Yolo"
	default:
		return "Agent"
	}
}

// Posture is the runtime permission posture (docs/codewhale/pipeline.md §0.1).
type Posture int

const (
	Ask Posture = iota
	AutoReview
	FullAccess
	Never
)

// String is the contract spelling: ask|auto-review|full-access|never.
func (p Posture) String() string {
	switch p {
	case AutoReview:
		return "auto-review"
	case FullAccess:
		return "full-access"
	case Never:
		return "never"
	default:
		return "ask"
	}
}

// Label is the UI chip label Codewhale shows in messages ("Full Access").
func (p Posture) Label() string {
	switch p {
	case AutoReview:
		return "Auto-Review"
	case FullAccess:
		return "Full Access"
	case Never:
		return "Never"
	default:
		return "Ask"
	}
}

// Strictness orders postures loose → strict: on config values the
// approval rank of docs/codewhale/pipeline.md §1.4 (auto < suggest|on-request|untrusted <
// never), with Full Access, which never asks and lets ordinary approvals
// pass, below Auto-Review, which never asks but keeps its holds.
func (p Posture) Strictness() int {
	switch p {
	case FullAccess:
		return 0
	case AutoReview:
		return 1
	case Never:
		return 3
	}
	return 2
}

// ParsePosture is Codewhale's string → posture parser (trimmed, ASCII
// case-insensitive). It also accepts approval_policy spellings.
func ParsePosture(s string) (Posture, bool) {
	switch ascii.Lower(strings.TrimSpace(s)) {
	case "auto", "auto-review", "auto_review":
		return AutoReview, true
	case "bypass", "yolo", "dontask", "dont_ask", "bypass-permissions", "bypasspermissions", "full-access", "full_access", "full":
		return FullAccess, true
	case "suggest", "suggested", "on-request", "untrusted", "ask":
		return Ask, true
	case "never", "deny", "denied":
		return Never, true
	}
	return Ask, false
}

// Origin is where a call comes from (auto-review's run origin).
type Origin int

const (
	Interactive Origin = iota
	Background
	Headless
)

func (o Origin) String() string {
	switch o {
	case Background:
		return "background"
	case Headless:
		return "headless"
	default:
		return "interactive"
	}
}

// ParseOrigin accepts interactive|background|headless exactly.
func ParseOrigin(s string) (Origin, bool) {
	switch s {
	case "interactive":
		return Interactive, true
	case "background":
		return Background, true
	case "headless":
		return Headless, true
	}
	return Interactive, false
}
