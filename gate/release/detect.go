package release

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate/gitroot"
	"github.com/codewhale-ls/codewhale-ls/internal/procgroup"
)

// DetectTimeout bounds one `codewhale --version`.
const DetectTimeout = 2 * time.Second

// maxVersionOutput is how much of `codewhale --version`'s output is kept.
const maxVersionOutput = 4096

// maxCached bounds the cache; past it the cache starts again empty.
const maxCached = 32

// binaryKey identifies one build of a binary: a replaced binary has a new
// modification time or size, and is asked again.
type binaryKey struct {
	path    string
	modTime time.Time
	size    int64
}

// Store remembers what binaries answered beyond one process, so that
// each hook call (a new process) does not run `codewhale --version` again:
// a version read is remembered for as long as the binary is unchanged; a
// binary that timed out, failed or printed no version is remembered for
// FailureTTL, so a slow one costs its timeout once in that while rather
// than on every call (2.2 s each), and is asked again afterwards. The
// detector itself never touches the disk: the caller gives it a Store
// (internal/releasecache keeps one in the user's cache directory). Key
// identifies one build of one binary (BinaryKey).
type Store interface {
	// Recall returns the answer remembered for key.
	Recall(key string) (Answer, bool)
	// Remember records key's answer; errors are the store's to swallow
	// (a cache that cannot be written is no cache).
	Remember(key string, a Answer)
}

// Answer is what one binary answered to --version: the version read
// (Read), or why none could be (Failure, as Choice.Source says it).
type Answer struct {
	Read    bool
	Version Version
	Failure string
	// At is when it answered.
	At time.Time
}

// FailureTTL is how long a Store's remembered failure stands.
const FailureTTL = 15 * time.Minute

// Detector finds the user's Codewhale on a PATH and asks its version,
// remembering the answer per binary: in memory, and in Store when set.
type Detector struct {
	// Timeout bounds each run; zero means DetectTimeout.
	Timeout time.Duration
	// Store, when not nil, remembers versions across processes.
	Store Store

	mu    sync.Mutex
	cache map[binaryKey]Choice
}

// Detect returns the choice for the codewhale found on pathList (a PATH
// value). Not found, not runnable, timed out or unreadable output: the
// default choice, with the reason in Source. A codewhale inside one of
// workspaces or inside any git work tree is never run: it is a
// repository's own file (node_modules/.bin, put on PATH by npx, npm run or
// direnv), and running it would let the repository both execute code on
// every call and pick the release whose rules judge it. Such a binary
// counts as none found. ctx bounds the run: past its deadline the child's
// process group is killed and the choice says it timed out.
func (d *Detector) Detect(ctx context.Context, pathList string, workspaces ...string) Choice {
	path, info, found := lookPath("codewhale", pathList)
	if !found {
		return Default("no codewhale on PATH")
	}
	if where, inside := repositoryOwned(path, workspaces); inside {
		return Default(fmt.Sprintf("%s is not run: it lies inside %s, whose files may not choose the release", path, where))
	}
	key := binaryKey{path: path, modTime: info.ModTime(), size: info.Size()}
	d.mu.Lock()
	cached, ok := d.cache[key]
	d.mu.Unlock()
	if ok {
		return cached
	}
	stored := ""
	if d.Store != nil {
		stored = BinaryKey(path, info)
		if a, ok := d.Store.Recall(stored); ok {
			switch age := time.Since(a.At); {
			case a.Read:
				choice := detected(path, a.Version)
				d.remember(key, choice)
				return choice
			case a.Failure != "" && age >= 0 && age < FailureTTL:
				// Not put in the memory cache: past FailureTTL a
				// long-lived server asks again too.
				return Default(fmt.Sprintf("%s (remembered from %s; asked again after %s)", a.Failure, a.At.UTC().Format(time.RFC3339), FailureTTL))
			}
		}
	}
	choice, a := d.ask(ctx, path, outsideRepositories(pathList, workspaces))
	if ctx.Err() != nil {
		return choice // an ended caller is no fact about the binary
	}
	if d.Store != nil {
		d.Store.Remember(stored, a)
	}
	d.remember(key, choice)
	return choice
}

// BinaryKey identifies one build of the binary at path for a Store: its
// path, size and modification time, and where the system has them its
// device, inode and status-change time, so that a binary replaced or
// rewritten in place, even within the same second and at the same size,
// is asked again.
func BinaryKey(path string, info os.FileInfo) string {
	return fmt.Sprintf("%s\x00%d\x00%d%s", path, info.Size(), info.ModTime().UnixNano(), fileIdentity(info))
}

// detected is the choice for version v read from the binary at path.
func detected(path string, v Version) Choice {
	return Choose(v, fmt.Sprintf("detected at %s (%s)", path, v))
}

func (d *Detector) remember(key binaryKey, choice Choice) {
	d.mu.Lock()
	if d.cache == nil || len(d.cache) >= maxCached {
		d.cache = map[binaryKey]Choice{}
	}
	d.cache[key] = choice
	d.mu.Unlock()
}

// ask runs path --version: the choice, and the answer to remember.
func (d *Detector) ask(ctx context.Context, path, pathList string) (Choice, Answer) {
	timeout := d.Timeout
	if timeout <= 0 {
		timeout = DetectTimeout
	}
	at := time.Now()
	failed := func(why string) (Choice, Answer) {
		return Default(why), Answer{Failure: why, At: at}
	}
	out, err := runVersion(ctx, path, pathList, timeout)
	switch {
	case ctx.Err() != nil:
		// The caller's deadline (the hook's timeout) or cancellation,
		// reached before our own timeout.
		return failed(fmt.Sprintf("%s --version timed out: the caller's deadline passed (%v)", path, ctx.Err()))
	case errors.Is(err, context.DeadlineExceeded):
		return failed(fmt.Sprintf("%s --version timed out after %s", path, timeout))
	case err != nil:
		return failed(fmt.Sprintf("%s --version failed: %v", path, err))
	}
	v, ok := ParseVersionOutput(out)
	if !ok {
		return failed(fmt.Sprintf("%s --version printed no version we can read", path))
	}
	return detected(path, v), Answer{Read: true, Version: v, At: at}
}

// runVersion runs `path --version` with only PATH (a launcher script, such
// as a package manager's shim, needs it to find its interpreter) and
// NO_COLOR in its environment; on timeout its process group is killed,
// and pipes still held by anything that escaped the group are closed
// shortly after, so Wait always returns.
func runVersion(ctx context.Context, path, pathList string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = []string{"PATH=" + pathList, "NO_COLOR=1"}
	var out cappedBuffer
	cmd.Stdout = &out
	procgroup.Own(cmd)
	cmd.Cancel = func() error {
		procgroup.Kill(cmd)
		return nil
	}
	cmd.WaitDelay = 200 * time.Millisecond
	err := cmd.Run()
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	return out.buf.String(), err
}

// cappedBuffer keeps the first maxVersionOutput bytes and discards the
// rest, so a chatty binary cannot grow memory.
type cappedBuffer struct{ buf bytes.Buffer }

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := maxVersionOutput - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// lookPath is exec.LookPath over the given PATH value rather than the
// process's own, so the server can use the environment it was given.
// Only regular executable files count (a FIFO named codewhale is skipped);
// on Windows, where no mode bit says executable, name.exe is looked for.
func lookPath(name, pathList string) (string, os.FileInfo, bool) {
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative PATH entry would depend on our cwd
		}
		p := filepath.Join(dir, name)
		info, err := os.Stat(p)
		if err != nil || !info.Mode().IsRegular() || (runtime.GOOS != "windows" && info.Mode().Perm()&0o111 == 0) {
			continue
		}
		return p, info, true
	}
	return "", nil, false
}

// repositoryOwned reports where path lies when it is inside one of
// workspaces or inside a git work tree. Both the path as PATH spells it
// and its symlinks resolved are checked: a link in a repository chooses
// what runs as surely as a file there, and a link elsewhere to a
// repository's file runs that file. A path whose links cannot be resolved
// is taken as inside, failing closed.
func repositoryOwned(path string, workspaces []string) (string, bool) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Sprintf("a path whose links cannot be resolved (%v)", err), true
	}
	for _, p := range []string{path, real} {
		if where, inside := repositoryHolds(filepath.Dir(p), workspaces); inside {
			return where, true
		}
	}
	return "", false
}

// repositoryHolds reports where dir lies when it is inside one of
// workspaces or inside a git work tree.
func repositoryHolds(dir string, workspaces []string) (string, bool) {
	for _, ws := range workspaces {
		if ws == "" {
			continue
		}
		for _, root := range []string{ws, resolvedOr(ws)} {
			if rel, err := filepath.Rel(root, dir); err == nil && filepath.IsLocal(rel) {
				return "the workspace " + ws, true
			}
		}
	}
	if root := gitroot.Of(dir); root != "" {
		return "the git work tree " + root, true
	}
	return "", false
}

// outsideRepositories is pathList without the directories that lie, as
// spelled or resolved, inside a workspace or a git work tree: a codewhale
// found elsewhere is a launcher (`#!/usr/bin/env node`) that would
// otherwise run the repository's own node_modules/.bin/node, and so let
// the repository choose the release after all.
func outsideRepositories(pathList string, workspaces []string) string {
	var kept []string
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		_, spelled := repositoryHolds(dir, workspaces)
		_, resolved := repositoryHolds(resolvedOr(dir), workspaces)
		if !spelled && !resolved {
			kept = append(kept, dir)
		}
	}
	return strings.Join(kept, string(os.PathListSeparator))
}

// resolvedOr is p with its symlinks resolved, or p when they cannot be.
func resolvedOr(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}
