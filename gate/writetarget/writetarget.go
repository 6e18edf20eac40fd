// Package writetarget is the write-target test of the Ask write carve-out
// (docs/codewhale/pipeline.md §4.3), which Auto-Review also uses as "write targets
// bounded" (§6.3): may a file tool write these paths without a human?
//
// It reads the disk (does the workspace have .git, where do symlinks
// lead), through the small Disk interface so tests can substitute it.
package writetarget

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Disk is the file-system access the test needs.
type Disk interface {
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	EvalSymlinks(path string) (string, error)
}

// OS is the real file system.
type OS struct{}

func (OS) Stat(name string) (fs.FileInfo, error)    { return os.Stat(name) }
func (OS) Lstat(name string) (fs.FileInfo, error)   { return os.Lstat(name) }
func (OS) EvalSymlinks(path string) (string, error) { return filepath.EvalSymlinks(path) }

// Qualifies runs Checker.Qualifies on the real file system.
func Qualifies(workspace string, paths []string) bool {
	return Checker{Disk: OS{}}.Qualifies(workspace, paths)
}

// Checker runs the test against a Disk.
type Checker struct{ Disk Disk }

// Qualifies reports whether every path is a write target the carve-out
// accepts: the (absolute) workspace has a .git directory or file, and each
// path is non-empty, lexically inside the workspace, free of sensitive
// names, and still inside and free of them once symlinks are resolved. An
// empty list does not qualify. Any disk error (unreadable directory,
// dangling or looping symlink) means "does not qualify": the caller then
// asks for approval.
//
// The workspace root itself is not a qualifying target.
func (c Checker) Qualifies(workspace string, paths []string) bool {
	if len(paths) == 0 || !filepath.IsAbs(workspace) {
		return false
	}
	ws := filepath.Clean(workspace)
	if info, err := c.Disk.Stat(filepath.Join(ws, ".git")); err != nil || !(info.IsDir() || info.Mode().IsRegular()) {
		return false
	}
	realWS, err := c.Disk.EvalSymlinks(ws)
	if err != nil {
		return false
	}
	for _, p := range paths {
		if !c.qualifies(ws, realWS, p) {
			return false
		}
	}
	return true
}

func (c Checker) qualifies(ws, realWS, p string) bool {
	if p == "" {
		return false
	}
	lexical := filepath.Clean(p)
	if !filepath.IsAbs(p) {
		lexical = filepath.Join(ws, p)
	}
	if !insideAndSafe(ws, lexical) {
		return false
	}
	real, err := c.realPath(ws, p)
	return err == nil && insideAndSafe(realWS, real)
}

// realPath resolves the deepest existing ancestor of p and appends the part
// that does not exist yet. The ancestors are the raw, uncleaned prefixes of
// the path, so `link/../x` goes wherever the OS would take it.
func (c Checker) realPath(ws, p string) (string, error) {
	raw := p
	if !filepath.IsAbs(p) {
		raw = ws + string(filepath.Separator) + p
	}
	sep := string(filepath.Separator)
	parts := strings.FieldsFunc(raw, func(r rune) bool { return r == filepath.Separator })
	for i := len(parts); i >= 0; i-- {
		ancestor := sep + strings.Join(parts[:i], sep)
		_, err := c.Disk.Lstat(ancestor)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		resolved, err := c.Disk.EvalSymlinks(ancestor)
		if err != nil {
			return "", err
		}
		return filepath.Join(append([]string{resolved}, parts[i:]...)...), nil
	}
	return "", fs.ErrNotExist
}

// insideAndSafe: target is strictly inside root and no component of the
// part below root has a sensitive name.
func insideAndSafe(root, target string) bool {
	rel, err := filepath.Rel(root, target)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return false
	}
	for _, name := range strings.Split(rel, string(filepath.Separator)) {
		if sensitive(name) {
			return false
		}
	}
	return true
}
