// Package shell holds the three shell splitters of Codewhale's execution
// policy and the matchers built on them (docs/codewhale/execpolicy.md §3). They disagree on
// purpose: the naive segmenter decides whether a command is chained, the
// expander lists every command line a shell could run (deny targets only),
// and the matchers compare whitespace tokens. A faithful port keeps all of
// them, including their over- and under-matching.
//
// Text handling follows Rust: whitespace is the Unicode White_Space property
// (Go's unicode.IsSpace, strings.TrimSpace and strings.Fields use exactly that
// set, so NBSP and a lone \r separate words) and lower-casing is ASCII-only.
package shell
