package tomldoc

import (
	"fmt"
	"strings"
	"testing"
)

// permissions5000 is a permissions.toml of the size the linter's budget is
// stated for.
func permissions5000() []byte {
	var sb strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&sb, "[[rules]]\ntool = \"exec_shell\"\ncommand = \"cmd%d sub --flag\"\naction = \"allow\"\nworkspace = \"/w/%d\"\n", i, i)
	}
	return []byte(sb.String())
}

func BenchmarkParse5000(b *testing.B) {
	src := permissions5000()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}
