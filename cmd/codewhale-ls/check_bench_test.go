package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkCheck5000Rules is `codewhale-ls check` on the 5,000-rule
// permissions.toml rpc's BenchmarkDidChangeToPublish edits.
func BenchmarkCheck5000Rules(b *testing.B) {
	dir := b.TempDir()
	var rules strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&rules, "[[rules]]\ntool = \"exec_shell\"\ncommand = \"tool%d run --fast\"\naction = %q\nworkspace = \"/work/repo%d\"\n\n", i, []string{"allow", "deny", "ask"}[i%3], i%7)
	}
	cfg := filepath.Join(dir, "config.toml")
	for path, text := range map[string]string{
		cfg:                                    fmt.Sprintf("managed_config_path = %q\nrequirements_path = %q\n", filepath.Join(dir, "m.toml"), filepath.Join(dir, "r.toml")),
		filepath.Join(dir, "permissions.toml"): rules.String(),
	} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	b.Setenv("HOME", dir)
	ws := b.TempDir()
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		run([]string{"check", "--config", cfg, "--workspace", ws, "--fail-level", "none"}, strings.NewReader(""), io.Discard, io.Discard)
	}
}
