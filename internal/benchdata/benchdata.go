// Package benchdata makes the inputs the benchmarks and `go run ./bench`
// measure on, so that the numbers in docs/performance.md and the Go
// benchmarks are of the same shape of work.
package benchdata

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Permissions is a realistic large permissions.toml of n rules: mostly
// shell rules over common tools (prefix and exact, some scoped to this or
// another repository), file rules with paths, all three actions. The same
// n always gives the same text.
func Permissions(n int) string {
	rng := rand.New(rand.NewPCG(7, 11))
	heads := []string{"git status", "git push", "git log", "cargo test", "cargo build", "npm run", "npm test",
		"docker compose", "kubectl get", "make", "go test", "pytest", "rm -rf", "curl", "terraform plan"}
	fileTools := []string{"read_file", "write_file", "edit_file", "apply_patch", "list_dir"}
	actions := []string{"allow", "ask", "deny"}
	var b strings.Builder
	for i := range n {
		b.WriteString("[[rules]]\n")
		if rng.IntN(10) < 6 {
			c := fmt.Sprintf("%s target%d", heads[rng.IntN(len(heads))], i)
			if rng.IntN(8) == 0 {
				c = heads[rng.IntN(len(heads))] + " --flag" + fmt.Sprint(i%13)
			}
			fmt.Fprintf(&b, "tool = \"exec_shell\"\ncommand = %q\n", c)
			if rng.IntN(5) == 0 {
				b.WriteString("command_exact = true\n")
			}
		} else {
			fmt.Fprintf(&b, "tool = %q\npath = \"src/module%d/file%d.rs\"\n", fileTools[rng.IntN(len(fileTools))], i%97, i)
		}
		switch rng.IntN(10) {
		case 0, 1:
			fmt.Fprintf(&b, "workspace = \"/home/dev/repo%d\"\n", rng.IntN(20))
		case 2:
			b.WriteString("workspace = \"<ws>\"\n")
		}
		if a := rng.IntN(4); a < 3 {
			fmt.Fprintf(&b, "action = %q\n", actions[a])
		}
	}
	return b.String()
}
