// Package schema holds the JSON Schemas (draft 2020-12) of the four policy
// file formats codewhale-ls understands: config.toml, permissions.toml,
// hooks.toml and constitution.json. Every property says what Codewhale does
// with it, so editors using the schemas and codewhale-ls's own hover and
// completion (diagnostics/assist) tell the same story. The repository's
// top-level schemas/ directory holds identical copies for editors that
// fetch them by URL.
package schema

import (
	"embed"
	"slices"
)

//go:embed *.schema.json
var files embed.FS

// names are the schemas in the order the contract lists the formats.
var names = []string{"config", "permissions", "hooks", "constitution"}

// Names lists the schema names Get accepts.
func Names() []string { return slices.Clone(names) }

// Get returns the schema of a format by name (see Names); ok is false for
// any other name.
func Get(name string) ([]byte, bool) {
	if !slices.Contains(names, name) {
		return nil, false
	}
	data, err := files.ReadFile(name + ".schema.json")
	return data, err == nil
}
