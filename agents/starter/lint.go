package starter

import (
	"github.com/codewhale-ls/codewhale-ls/diagnostics"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// Linter is the Lint of `codewhale-ls check` for the permissions.toml at
// path, with the user's and workspace's other files of opts as they are
// on disk: the findings of warning or error severity at every implemented
// Codewhale release, since the user may upgrade or downgrade.
func Linter(opts config.Options, path string) Lint {
	return func(content []byte) []problem.Problem {
		var out []problem.Problem
		for _, rel := range release.Implemented {
			in := opts
			in.Buffers = config.Buffers{path: content}
			res := diagnostics.Check(diagnostics.Input{Options: in, Codewhale: release.Choice{Release: rel.Version, Behaviour: rel.Version, Source: "starter"}})
			f := res.File(path)
			if f == nil {
				continue
			}
			for _, p := range f.Problems {
				if p.Severity == problem.Error || p.Severity == problem.Warning {
					out = append(out, p)
				}
			}
		}
		return out
	}
}
