package gate

// The Codewhale behaviour this gate reproduces. When Codewhale moves on,
// re-check the specs against the new source (docs/architecture.md lists
// what to compare) and bump these together with the conformance vectors.
const (
	CodewhaleVersion = "0.9.10"
	CodewhaleCommit  = "75dca2cfbe1b5e0e9fd58c9eed27dbc1b4705c48"
)

// Version is codewhale-ls's own version.
const Version = "0.1.0"
