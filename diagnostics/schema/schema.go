// Package schema holds the JSON Schemas (draft 2020-12) of the four policy
// file formats codewhale-ls understands: config.toml, permissions.toml,
// hooks.toml and constitution.json, for each implemented Codewhale
// release. Every property says what that release does with it, so editors
// using the schemas and codewhale-ls's own hover and completion
// (diagnostics/assist) tell the same story. The repository's top-level
// schemas/ directory holds the newest release's, for editors that fetch
// them by URL.
package schema

import (
	"embed"
	"slices"
	"sync"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

//go:embed *.schema.json
var files embed.FS

// names are the schemas in the order the contract lists the formats.
var names = []string{"config", "permissions", "hooks", "constitution"}

// Names lists the schema names Get accepts.
func Names() []string { return slices.Clone(names) }

// rendered holds every schema of every implemented release, keyed by
// release version then name; an annotation naming no change leaves the
// schema out (TestEverySchemaRendersForEveryRelease).
var rendered = sync.OnceValue(func() map[string]map[string][]byte {
	out := map[string]map[string][]byte{}
	for _, r := range release.Implemented {
		out[r.Version] = map[string][]byte{}
		for _, name := range names {
			src, err := files.ReadFile(name + ".schema.json")
			if err != nil {
				continue
			}
			if data, err := forRelease(src, r); err == nil {
				out[r.Version][name] = data
			}
		}
	}
	return out
})

// Get returns the schema of a format by name (see Names) as release r
// reads it (the zero Release is the oldest implemented); ok is false for
// any other name.
func Get(name string, r release.Release) ([]byte, bool) {
	data, ok := rendered()[r.Name()][name]
	return data, ok
}
