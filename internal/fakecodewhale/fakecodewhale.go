// Package fakecodewhale puts a stand-in `codewhale` on a test's PATH, so
// that no test depends on a Codewhale installed on the machine. It is for
// tests only.
package fakecodewhale

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir writes an executable `codewhale` shell script running script into a
// new directory and returns the directory.
func Dir(t testing.TB, script string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "codewhale"), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Printing is Dir with a codewhale that prints "codewhale VERSION".
func Printing(t testing.TB, version string) string {
	t.Helper()
	return Dir(t, "echo 'codewhale "+version+"'\n")
}
