// Package filetest holds the file fixtures of the tests that check what a
// write leaves on disk (gate/policyfile's Rewrite, approvals' grants and
// decision log), so that each package's tests need not restate them. Each
// fails the test at once on an error.
package filetest

import (
	"os"
	"testing"
)

// Write puts content at path, mode 0600 (what permissions.toml has).
func Write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Read is the content of the file at path.
func Read(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Names lists a directory, to catch a temporary file left behind.
func Names(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
