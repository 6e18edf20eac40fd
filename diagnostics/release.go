package diagnostics

import (
	"bytes"
	"fmt"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// lintRelease tells the user, on the first line of their config.toml, that
// their Codewhale is a release whose behaviour is not implemented, so that
// every other finding is read as what the reproduced release would do.
// Nothing is said when no Codewhale was named or found: the choice is then
// a default, shown by check and codewhale/status.
func lintRelease(against release.Choice, files []*FileResult) {
	if against.Release == "" || against.Exact() {
		return
	}
	for _, fr := range files {
		if fr.Kind != config.KindUserConfig {
			continue
		}
		end := len(fr.Src)
		if i := bytes.IndexByte(fr.Src, '\n'); i >= 0 {
			end = i
		}
		fr.Problems = append(fr.Problems, problem.Problem{Code: problem.ReleaseNotImplemented, Severity: problem.Info, Span: problem.Span{Start: 0, End: end},
			Message: fmt.Sprintf("Codewhale %s (%s): %s; codewhale-ls reproduces Codewhale %s and checks against that (implemented: %s)",
				against.Release, against.Source, against.Note, against.Behaviour, release.ImplementedList())})
	}
}
