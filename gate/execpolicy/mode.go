package execpolicy

import (
	"fmt"
)

// ModeKind is the engine's approval policy (AskForApproval).
type ModeKind int

const (
	UnlessTrusted ModeKind = iota
	OnFailure
	OnRequest
	Reject
	Never
)

// Mode is an approval policy; RejectRules is Reject's `rules` flag, the only
// one of its three flags the decision reads.
type Mode struct {
	Kind        ModeKind
	RejectRules bool
}

// String is the spelling the conformance vectors use ("OnRequest",
// "Reject{rules:true}").
func (m Mode) String() string {
	switch m.Kind {
	case UnlessTrusted:
		return "UnlessTrusted"
	case OnFailure:
		return "OnFailure"
	case OnRequest:
		return "OnRequest"
	case Never:
		return "Never"
	}
	return fmt.Sprintf("Reject{rules:%t}", m.RejectRules)
}
