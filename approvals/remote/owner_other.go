//go:build !unix

package remote

import "io/fs"

// fileOwner cannot be read here: every directory is refused, so no socket
// is served or used (fail closed; the hook then decides without an editor).
func fileOwner(fs.FileInfo) (int, bool) { return -1, false }
