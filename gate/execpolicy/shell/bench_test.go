package shell

import (
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// benchCommands are the shapes a decision meets: plain commands (most of
// them), wrappers, code strings, heredocs and substitutions.
var benchCommands = map[string]string{
	"plain":   "git status --porcelain",
	"chain":   "cargo build --release && cargo test --workspace",
	"wrapped": "sudo -u root timeout -s KILL 5 bash -c 'rm -rf /tmp/x; ls'",
	"heredoc": "cat <<'EOF' | tee notes.txt\nline one\n$(not run)\nEOF\ngit add notes.txt",
	"dynamic": `eval "$(pyenv init -)"; $PYTHON -m pytest "${ARGS[@]}" *.py`,
}

// BenchmarkExpandAs measures each release's expander on each shape.
func BenchmarkExpandAs(b *testing.B) {
	benchEachRelease(b, func(r release.Release, command string) { ExpandAs(r, command) })
}

// benchEachRelease runs one sub-benchmark of run per release and shape.
func benchEachRelease(b *testing.B, run func(r release.Release, command string)) {
	for _, r := range release.Implemented {
		for name, command := range benchCommands {
			b.Run(r.Version+"/"+name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					run(r, command)
				}
			})
		}
	}
}
