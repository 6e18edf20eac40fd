package approvals

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// openRegular opens a file of ours (permissions.toml, its lock, the
// decision log) without following a symlink and without blocking on a
// FIFO or device planted there, and refuses anything but a regular file:
// writing through a link would change a file the user did not name, and
// opening a FIFO blocks until someone opens its other end.
func openRegular(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, perm)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symlink, which codewhale-ls never writes through", path)
	}
	if errors.Is(err, syscall.ENXIO) {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", path)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// readLimited reads f to its end, refusing more than limit bytes.
func readLimited(f *os.File, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = fmt.Errorf("%s is larger than %d bytes", f.Name(), limit)
	}
	return data, err
}
