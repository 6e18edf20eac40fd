package execpolicy

// SourceKind says which list a matched rule came from.
type SourceKind int

const (
	TypedRule SourceKind = iota + 1
	DeniedPrefix
	TrustedPrefix
)

func (k SourceKind) String() string {
	switch k {
	case TypedRule:
		return "typed rule"
	case DeniedPrefix:
		return "denied prefix"
	default:
		return "trusted prefix"
	}
}

// LegacyRuleset is Source.Ruleset for the legacy flat prefix lists.
const LegacyRuleset = -1

// Source locates a rule for a trace: Ruleset is the position in the list
// given to NewEngine (or LegacyRuleset), Index the position within that
// ruleset's Typed, DeniedPrefixes or TrustedPrefixes. For an engine built
// from a permissions.toml, File.RecordOf maps it back to the record.
type Source struct {
	Kind    SourceKind
	Layer   Layer
	Ruleset int
	Index   int
}
