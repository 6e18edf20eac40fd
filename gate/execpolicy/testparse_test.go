package execpolicy

import (
	"fmt"
	"strings"
)

// The readers of the serde spellings the conformance vectors use, and the
// rule behind a verdict: test instruments, not used by the product.

// ParseLayer accepts the serde spellings.
func ParseLayer(s string) (Layer, error) {
	switch s {
	case "builtin_default":
		return BuiltinDefault, nil
	case "agent":
		return Agent, nil
	case "user":
		return User, nil
	}
	return User, fmt.Errorf("unknown ruleset layer %q", s)
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

// Source locates the rule behind the verdict for a trace: the typed rule
// whose action decided, else the prefix or rule named in Rule; nil when no
// rule was involved.
func (v Verdict) Source() *Source {
	if v.Result == nil {
		return nil
	}
	if v.Result.ActionSource != nil {
		return v.Result.ActionSource
	}
	return v.Result.RuleSource
}
