// Package assist answers an editor's questions about one policy file:
// hover, completion and document symbols. What it says about keys and
// values comes from the files' JSON Schemas (diagnostics/schema), so an
// editor using the schemas directly reads the same text; what it says
// about a permissions.toml rule comes from the gate's own rule model
// (execpolicy). It knows nothing of LSP: offsets and spans are bytes.
//
// Files being edited are often not valid TOML or JSON. Every function
// works on any bytes: TOML is read from the parsed tree when it parses and
// line by line when it does not; JSON by a tolerant reader.
package assist
