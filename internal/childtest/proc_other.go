//go:build !linux

// Package childtest ends, with the test binary, every process its tests
// started. Only Linux has the /proc and PR_SET_CHILD_SUBREAPER the sweep
// needs; elsewhere the tests' own cleanups are all that ends them.
package childtest

import "testing"

// Run runs m's tests and returns their exit code.
func Run(m *testing.M) int { return m.Run() }
