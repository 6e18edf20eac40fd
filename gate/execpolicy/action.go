package execpolicy

// Action is what a typed rule does on match; the order allow < ask < deny is
// how same-layer rules rank.
type Action int

const (
	Allow Action = iota
	Ask
	Deny
)

// String is the file spelling: allow|ask|deny.
func (a Action) String() string {
	switch a {
	case Allow:
		return "allow"
	case Deny:
		return "deny"
	default:
		return "ask"
	}
}

// ParseAction accepts exactly the lower-case file spellings.
func ParseAction(s string) (Action, bool) {
	switch s {
	case "allow":
		return Allow, true
	case "ask":
		return Ask, true
	case "deny":
		return Deny, true
	}
	return Ask, false
}

// Layer is a ruleset's priority; a higher layer's typed winner beats any
// lower one whatever the actions.
type Layer int

const (
	BuiltinDefault Layer = iota
	Agent
	User
)

// String is the serde spelling: builtin_default|agent|user.
func (l Layer) String() string {
	switch l {
	case BuiltinDefault:
		return "builtin_default"
	case Agent:
		return "agent"
	default:
		return "user"
	}
}
