// Package releasecache remembers, across processes, what each `codewhale`
// binary answered to --version (release.Store): the version it printed,
// or for release.FailureTTL why it printed none (a timeout), in one small
// file in the user's cache directory. Each hook call is a new process,
// and without it every call would run `codewhale --version` again (2.2 s
// with one that times out).
//
// The file is a cache, never a source of truth: anything wrong with it
// (missing, not a regular file, too large, unreadable, not our JSON, an
// entry whose version does not parse) reads as empty, and the binary is
// asked again. It is read without following a symlink or blocking on a
// FIFO, at most MaxSize bytes, and written whole to a temporary file (mode
// 0600) that is renamed over it, so a reader never sees half a file.
package releasecache

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// FileName is the cache file's name inside the cache directory.
const FileName = "codewhale-versions.json"

// MaxSize bounds the file read; a larger one is ignored.
const MaxSize = 64 << 10

// MaxEntries bounds the binaries remembered; the oldest are forgotten.
const MaxEntries = 32

// File is a release.Store kept in Dir/FileName.
type File struct {
	Dir string
}

// User is the store in the user's cache directory
// (os.UserCacheDir()/codewhale-ls), nil when there is none: detection is
// then remembered only within the process.
func User() release.Store {
	dir, err := os.UserCacheDir()
	if err != nil || dir == "" {
		return nil
	}
	return File{Dir: filepath.Join(dir, "codewhale-ls")}
}

type entry struct {
	Key     string    `json:"key"`
	Version string    `json:"version,omitempty"`
	Failure string    `json:"failure,omitempty"`
	At      time.Time `json:"at"`
}

// maxFailure bounds a remembered failure's text.
const maxFailure = 1024

type content struct {
	Entries []entry `json:"entries"`
}

func (f File) path() string { return filepath.Join(f.Dir, FileName) }

// Recall returns the answer remembered for key: a version that parses,
// or a failure of bounded length.
func (f File) Recall(key string) (release.Answer, bool) {
	for _, e := range f.read() {
		if e.Key != key {
			continue
		}
		if e.Version != "" {
			v, ok := release.Parse(e.Version)
			return release.Answer{Read: true, Version: v, At: e.At}, ok
		}
		if e.Failure != "" && len(e.Failure) <= maxFailure && !e.At.IsZero() {
			return release.Answer{Failure: e.Failure, At: e.At}, true
		}
		return release.Answer{}, false
	}
	return release.Answer{}, false
}

// Remember records key's answer, newest last, keeping at most
// MaxEntries; a failure to write is ignored (the next call asks again).
func (f File) Remember(key string, a release.Answer) {
	e := entry{Key: key, At: a.At}
	switch {
	case a.Read:
		e.Version = a.Version.String()
	case a.Failure != "":
		e.Failure = a.Failure[:min(len(a.Failure), maxFailure)]
	default:
		return
	}
	entries := slices.DeleteFunc(f.read(), func(e entry) bool { return e.Key == key })
	entries = append(entries, e)
	if len(entries) > MaxEntries {
		entries = entries[len(entries)-MaxEntries:]
	}
	data, err := json.Marshal(content{Entries: entries})
	if err != nil || len(data) > MaxSize {
		return
	}
	_ = f.write(data)
}

// read returns the file's entries, none when anything is wrong with it.
func (f File) read() []entry {
	p := f.path()
	info, err := os.Lstat(p)
	if err != nil || !info.Mode().IsRegular() || info.Size() > MaxSize {
		return nil
	}
	// Opened without blocking: a FIFO swapped in after the Lstat must not
	// hang the hook; checked again on the open file.
	file, err := os.OpenFile(p, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil
	}
	defer file.Close()
	if info, err := file.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(file, MaxSize+1))
	if err != nil || len(data) > MaxSize {
		return nil
	}
	var c content
	if json.Unmarshal(data, &c) != nil {
		return nil
	}
	return c.Entries
}

// write replaces the file with data atomically, mode 0600, in a directory
// of mode 0700.
func (f File) write(data []byte) error {
	if err := os.MkdirAll(f.Dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(f.Dir, FileName+".*.tmp")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(0o600)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, f.path())
	}
	if err != nil {
		return errors.Join(err, os.Remove(name))
	}
	return nil
}
