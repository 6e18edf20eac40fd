package config

import (
	"errors"
	"io/fs"
	"os"
)

// writable reports whether path may be written, as far as Windows says
// without trying: a file with the read-only attribute may not. ACLs are
// not consulted and a folder always counts as writable, so there the save
// itself reports a refusal (it never writes partially). A path that does
// not exist yet counts as writable.
func writable(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	return fi.IsDir() || fi.Mode().Perm()&0o200 != 0
}
