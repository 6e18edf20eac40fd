package nvimtest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestReadResults(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) string {
		path := filepath.Join(dir, "results.json")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	var got struct{ Seen int }
	if err := ReadResults(write(`{"seen": 3, "errors": []}`), &got); err != nil || got.Seen != 3 {
		t.Errorf("clean results: %+v, %v", got, err)
	}
	err := ReadResults(write(`{"seen": 4, "errors": ["timed out waiting for x", "and y"]}`), &got)
	if !errors.Is(err, ErrScript) || !strings.Contains(err.Error(), "timed out waiting for x\nand y") || got.Seen != 3 {
		t.Errorf("a script's errors: %v (decoded %+v)", err, got)
	}
	if err := ReadResults(write(`{"seen": `), &got); err == nil || errors.Is(err, ErrScript) {
		t.Errorf("malformed results: %v", err)
	}
	if err := ReadResults(filepath.Join(dir, "missing.json"), &got); err == nil || !strings.Contains(err.Error(), "no results") {
		t.Errorf("missing results: %v", err)
	}
}

func TestWriteMakesDirectories(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "bin")
	Write(t, path, []byte("#!/bin/sh\n"), 0o755)
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o755 {
		t.Fatalf("written %v, %v", info, err)
	}
}
