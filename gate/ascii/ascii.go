// Package ascii folds case as Codewhale's Rust code does
// (str::to_ascii_lowercase): ASCII letters only, where strings.ToLower
// would also fold non-ASCII letters. It stands alone so that packages
// comparing names and words (tools, config values, paths, suggestions)
// fold alike without depending on each other.
package ascii

// Lower lower-cases ASCII letters only.
func Lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = LowerByte(c)
	}
	return string(b)
}

// LowerByte is Lower for one byte, for comparing in place without a
// lowered copy.
func LowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
