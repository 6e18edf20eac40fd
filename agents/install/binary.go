package install

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
)

// Transient says why binary will not be there later ("" when nothing
// says so): it lies under one of dirs (a temporary directory, Go's build
// cache: TransientDirs), or in a directory named go-build*, where `go
// run` and `go test` put the programs they build and delete them when
// they end. A hook entry naming such a binary fails every later call
// (`|| exit 2`), which locks the agent out (issue 24, point 7).
func Transient(binary string, dirs []string) string {
	paths := []string{filepath.Clean(binary)}
	if r := resolved(binary); r != paths[0] {
		paths = append(paths, r)
	}
	for _, p := range paths {
		for _, part := range strings.Split(filepath.ToSlash(p), "/") {
			if strings.HasPrefix(part, "go-build") {
				return p + " is in a directory `go run` or `go test` built it in (" + part + "), which is deleted when they end"
			}
		}
		for _, d := range dirs {
			if within(p, d) {
				return p + " is under the temporary or build-cache directory " + d + ", whose files are deleted"
			}
		}
	}
	return ""
}

// within reports whether p is dir or below it, comparing dir as given and
// with its symlinks resolved (macOS's /var is /private/var).
func within(p, dir string) bool {
	if dir == "" {
		return false
	}
	for _, d := range []string{filepath.Clean(dir), resolved(dir)} {
		if rel, err := filepath.Rel(d, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// resolved is p with the symlinks of its existing part resolved.
func resolved(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if dir := filepath.Dir(p); dir != p {
		return filepath.Join(resolved(dir), filepath.Base(p))
	}
	return p
}

// TransientDirs are the directories whose programs do not last: the
// system's temporary directory ($TMPDIR), $GOTMPDIR, and Go's build cache
// ($GOCACHE, else go-build in the user's cache directory, as `go env
// GOCACHE` says without a setting).
func TransientDirs(env config.Env) []string {
	if env == nil {
		env = config.OSEnv{}
	}
	dirs := []string{os.TempDir()}
	if d := env.Getenv("TMPDIR"); d != "" {
		dirs = append(dirs, d)
	}
	if d := env.Getenv("GOTMPDIR"); d != "" {
		dirs = append(dirs, d)
	}
	switch cache := env.Getenv("GOCACHE"); {
	case cache == "off":
	case cache != "":
		dirs = append(dirs, cache)
	default:
		if d, err := os.UserCacheDir(); err == nil {
			dirs = append(dirs, filepath.Join(d, "go-build"))
		}
	}
	slices.Sort(dirs)
	return slices.Compact(dirs)
}

// ProjectCommand is the program a project's hook entry names: the bare
// name codewhale-ls, which every developer's agent looks up on its own
// PATH, since a project file is committed and this machine's absolute
// path means nothing on another. lookPath (exec.LookPath) must find it
// here, or the error says why it cannot be written.
func ProjectCommand(lookPath func(string) (string, error)) (string, error) {
	const name = "codewhale-ls"
	if _, err := lookPath(name); err != nil {
		return "", errors.New("a project's file is committed and read on other machines, so its hook names `" + name + "` to be found on each one's PATH, and there is none on this PATH: install it (go install github.com/codewhale-ls/codewhale-ls/cmd/codewhale-ls@latest, then put $(go env GOPATH)/bin on PATH) and run this again, or install at user level (without --project), which names this binary's absolute path")
	}
	return name, nil
}
