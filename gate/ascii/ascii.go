// Package ascii folds case as Codewhale's Rust code does
// (str::to_ascii_lowercase): ASCII letters only, where strings.ToLower
// would also fold non-ASCII letters. It stands alone so that packages
// comparing names and words (tools, config values, paths, suggestions)
// fold alike without depending on each other.
package ascii

// Lower lower-cases ASCII letters only. Text with no upper-case letter,
// as most tool names and commands are, is returned as it is, without a
// copy: the gate lowers names on every decision.
func Lower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				b[j] = LowerByte(b[j])
			}
			return string(b)
		}
	}
	return s
}

// LowerByte is Lower for one byte, for comparing in place without a
// lowered copy.
func LowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
