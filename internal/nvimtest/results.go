// Package nvimtest reads what the Lua scripts of the real-Neovim tests
// (cmd/codewhale-ls, editors) wrote: one JSON object with the values the
// script noted and an "errors" list of what went wrong inside Neovim.
package nvimtest

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ErrScript is wrapped by the error ReadResults returns when the script
// itself recorded errors (its results are not decoded then).
var ErrScript = errors.New("the script failed")

// ReadResults reads the results file at path into out. It fails when the
// file is missing or malformed, and with ErrScript, listing them, when
// the script recorded errors.
func ReadResults(path string, out any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("the script wrote no results: %w", err)
	}
	var errs struct{ Errors []string }
	if err := json.Unmarshal(raw, &errs); err != nil {
		return fmt.Errorf("results %s: %w", raw, err)
	}
	if len(errs.Errors) > 0 {
		return fmt.Errorf("%w:\n%s", ErrScript, strings.Join(errs.Errors, "\n"))
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("results %s: %w", raw, err)
	}
	return nil
}

// Write writes a fixture file of a test's world, making its directories;
// any failure ends the test.
func Write(t testing.TB, path string, data []byte, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
}

//go:embed results.lua
var resultsLua []byte

// WriteResultsLib writes the Lua half of ReadResults (results.lua: note,
// fail, write the JSON and quit) into dir and returns its path, for the
// scripts to load from $CWLS_RESULTS.
func WriteResultsLib(t testing.TB, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "results.lua")
	Write(t, path, resultsLua, 0o644)
	return path
}
