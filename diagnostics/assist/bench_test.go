package assist

import (
	"fmt"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// bigPermissions is a permissions.toml of n rules, the size a long-lived
// approval history can reach.
func bigPermissions(n int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "[[rules]]\ntool = \"exec_shell\"\ncommand = \"tool%d run\"\naction = \"allow\"\n\n", i)
	}
	return []byte(b.String())
}

func BenchmarkHoverRule(b *testing.B) {
	src := bigPermissions(1000)
	off := len(src) - 20
	for b.Loop() {
		Hover(config.KindPermissions, src, off, nil, release.Release{})
	}
}

func BenchmarkCompleteValue(b *testing.B) {
	src := append(bigPermissions(1000), "[[rules]]\naction = "...)
	for b.Loop() {
		Complete(config.KindPermissions, src, len(src), release.Release{})
	}
}

func BenchmarkSymbols(b *testing.B) {
	src := bigPermissions(1000)
	for b.Loop() {
		Symbols(config.KindPermissions, src)
	}
}
