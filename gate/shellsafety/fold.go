package shellsafety

import "github.com/codewhale-ls/codewhale-ls/gate/ascii"

// ASCII case folding, as package ascii does it (A–Z only, as Codewhale's
// Rust code folds), compared in place instead of through a lowered copy.
// strings.EqualFold will not do: it also folds ſ to s and the Kelvin sign
// to k.

func hasUpperASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// hasPrefixFold is strings.HasPrefix(ascii.Lower(s), lower) for a
// lower-case prefix.
func hasPrefixFold(s, lower string) bool {
	if len(s) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		if ascii.LowerByte(s[i]) != lower[i] {
			return false
		}
	}
	return true
}

// equalFold is ascii.Lower(s) == lower for a lower-case string.
func equalFold(s, lower string) bool {
	return len(s) == len(lower) && hasPrefixFold(s, lower)
}

// containsFold is strings.Contains(ascii.Lower(s), lower) for a
// lower-case substring.
func containsFold(s, lower string) bool {
	for i := 0; i+len(lower) <= len(s); i++ {
		if hasPrefixFold(s[i:], lower) {
			return true
		}
	}
	return false
}
