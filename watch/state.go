package watch

import (
	"crypto/sha256"
	"errors"
	"io/fs"
	"syscall"

	"github.com/codewhale-ls/codewhale-ls/gate/policyfile"
)

// stateKind separates the states that have no content to hash.
type stateKind uint8

const (
	stateUnknown    stateKind = iota // not read yet
	stateMissing                     // no such file (or a path component is not a directory)
	stateUnreadable                  // exists but cannot be read, e.g. a directory or no permission
	stateContent                     // read; sum is the content's hash
)

// fileState is comparable, so "changed" is a plain !=.
type fileState struct {
	kind stateKind
	sum  [sha256.Size]byte
}

// readState reads what path holds now. policyfile never blocks on what
// sits at a policy path: a FIFO, a device or a file over its limit is
// unreadable, as Codewhale's loaders find it.
func readState(path string) fileState {
	data, err := policyfile.Read(path)
	switch {
	case err == nil:
		return fileState{kind: stateContent, sum: sha256.Sum256(data)}
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return fileState{kind: stateMissing}
	default:
		return fileState{kind: stateUnreadable}
	}
}

func readStates(paths []string) []fileState {
	out := make([]fileState, len(paths))
	for i, p := range paths {
		out[i] = readState(p)
	}
	return out
}
