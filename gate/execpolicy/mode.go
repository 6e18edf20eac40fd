package execpolicy

import (
	"fmt"
	"strings"
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

// ParseMode reads the String spelling; Reject may list any of its flags
// (`Reject{sandbox_approval:false,rules:true,mcp_elicitations:false}`).
func ParseMode(s string) (Mode, error) {
	switch s {
	case "UnlessTrusted":
		return Mode{Kind: UnlessTrusted}, nil
	case "OnFailure":
		return Mode{Kind: OnFailure}, nil
	case "OnRequest":
		return Mode{Kind: OnRequest}, nil
	case "Never":
		return Mode{Kind: Never}, nil
	}
	body, isReject := strings.CutPrefix(s, "Reject{")
	body, closed := strings.CutSuffix(body, "}")
	if !isReject || !closed {
		return Mode{}, fmt.Errorf("unknown approval mode %q", s)
	}
	m := Mode{Kind: Reject}
	for _, field := range strings.Split(body, ",") {
		if field = strings.TrimSpace(field); field == "" {
			continue
		}
		name, value, _ := strings.Cut(field, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if value != "true" && value != "false" {
			return Mode{}, fmt.Errorf("approval mode %q: flag %q is not true or false", s, name)
		}
		switch name {
		case "rules":
			m.RejectRules = value == "true"
		case "sandbox_approval", "mcp_elicitations":
		default:
			return Mode{}, fmt.Errorf("approval mode %q: unknown flag %q", s, name)
		}
	}
	return m, nil
}
