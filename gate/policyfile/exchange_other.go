//go:build !linux

package policyfile

import "errors"

// errNoAtomicInstall: only Linux's renameat2 is used; elsewhere a plain
// rename follows the re-read.
var errNoAtomicInstall = errors.New("atomic exchange is implemented on Linux only")

func exchangeFiles(a, b string) error { return errNoAtomicInstall }

func renameNoReplace(from, to string) error { return errNoAtomicInstall }
