package shellpath

import (
	"errors"
	"io"
	"os"
	"path/filepath"
)

// ErrBudget is returned when a look at the disk would read more directory
// entries than its Budget allows; the caller fails closed.
var ErrBudget = errors.New("too many directory entries to read")

// Budget bounds the directory entries one decision reads from disk, so a
// glob or a recursive read of a huge tree cannot hold the answer.
type Budget struct{ Entries int }

func (b *Budget) take(n int) error {
	b.Entries -= n
	if b.Entries < 0 {
		return ErrBudget
	}
	return nil
}

// Expand lists the existing paths p matches on disk, as the shell's
// globbing would (symlinks followed). A pattern with a variable or `**`
// expands to nothing here: only the lexical tests can judge it.
func (p Pattern) Expand(b *Budget) ([]string, error) {
	if p.Variable() {
		return nil, nil
	}
	paths := []string{"/"}
	var comp []token
	step := func() error {
		if len(comp) == 0 {
			return nil
		}
		var next []string
		name, plain := Pattern{tokens: comp}.Path()
		for _, dir := range paths {
			if plain {
				next = append(next, filepath.Join(dir, name))
				continue
			}
			names, err := readNames(dir, b)
			if err != nil {
				return err
			}
			for _, n := range names {
				m := matcher{tokens: comp, s: n, dotGlob: p.dotGlob, critical: -1}
				if m.run(0, true) {
					next = append(next, filepath.Join(dir, n))
				}
			}
		}
		if err := b.take(len(next)); err != nil {
			return err
		}
		paths, comp = next, nil
		return nil
	}
	for _, t := range p.tokens[1:] {
		if t.kind == lit && t.b == '/' {
			if err := step(); err != nil {
				return nil, err
			}
			continue
		}
		comp = append(comp, t)
	}
	if err := step(); err != nil {
		return nil, err
	}
	existing := paths[:0]
	for _, path := range paths {
		if _, err := os.Lstat(path); err == nil {
			existing = append(existing, path)
		}
	}
	return existing, nil
}

// readNames reads dir's entry names, charging b; a directory that cannot
// be read has none (the command could not read it either).
func readNames(dir string, b *Budget) ([]string, error) {
	entries, err := readEntries(dir, b)
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, err
}

func readEntries(dir string, b *Budget) ([]os.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	var all []os.DirEntry
	for {
		// In chunks, so a directory of a million entries stops at the
		// budget rather than after reading them all.
		chunk, err := f.ReadDir(256)
		if err := b.take(len(chunk)); err != nil {
			return nil, err
		}
		all = append(all, chunk...)
		if err == io.EOF || len(chunk) == 0 {
			return all, nil
		}
		if err != nil {
			return all, nil
		}
	}
}

// Walk visits every path below root (symlinks not followed, as a
// recursive read does not follow them below its operands), charging b,
// until visit returns true; it reports whether visit did.
func Walk(root string, b *Budget, visit func(path string, e os.DirEntry) bool) (bool, error) {
	dirs := []string{root}
	for len(dirs) > 0 {
		dir := dirs[len(dirs)-1]
		dirs = dirs[:len(dirs)-1]
		entries, err := readEntries(dir, b)
		if err != nil {
			return false, err
		}
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			if visit(path, e) {
				return true, nil
			}
			if e.IsDir() {
				dirs = append(dirs, path)
			}
		}
	}
	return false, nil
}
