// Package gate decides a tool call the way Codewhale does: nine layers, in
// the order of Codewhale's authorization document (docs/codewhale/pipeline.md),
// each in its own file (layer1_posture.go … layer9_sandbox.go). Everything
// is a pure function of one policy snapshot and one request, except running
// hooks, which goes through an interface.
package gate
