package approvals

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/policyfile"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// AppendRules appends the rules an "always" answer saves to the
// permissions.toml at path, creating it (mode 0600, parent dirs 0700) if
// missing. Under an exclusive flock on path+".lock" (the lock file is
// created 0600 and left in place) it reads the file, skips every rule
// identical to one already there (execpolicy.SameRecord), and replaces the
// file atomically: temp file in the same directory, fsync, mode 0600,
// rename, fsync of the directory. Every byte of the existing file is kept;
// the new rules go at the end as `[[rules]]` tables, or, when the file
// writes `rules = [ ... ]`, as inline tables before its closing bracket.
// The new content must load and hold every requested rule, or nothing is
// written; an existing file that does not load is never rewritten. When
// nothing is new the file is not touched at all. A permissions.toml or lock
// file that is a symlink or not a regular file is refused (Codewhale
// refuses approval saves to a symlinked file). Editors save without the
// lock: a save made meanwhile is re-read before the new file goes in, and
// the new file goes in by exchanging it with the old one, so that a save
// landing at the last moment comes out of the exchange, is seen, and is
// put back, and the rules are appended to it: the user's bytes are never
// lost. (Where the file system cannot exchange, a plain rename follows the
// re-read, which leaves a window of microseconds.)
func AppendRules(path string, rules []execpolicy.Rule) (added int, err error) {
	return grantWriter{install: installFile}.appendRules(path, rules)
}

// grantWriter lets tests fail the install (the test process runs as root
// here, which writes into read-only directories) and save the file as an
// editor would while a grant is being written.
type grantWriter struct {
	install       func(tmp, path string, exists bool) (exchanged bool, err error)
	written       func() // nil, or called once the temporary file is complete
	beforeInstall func() // nil, or called after the re-read, just before the install
}

func (w grantWriter) appendRules(path string, rules []execpolicy.Rule) (int, error) {
	if len(rules) == 0 {
		return 0, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return 0, grantError(path, "cannot create its directory", err)
	}
	unlock, err := lockExclusive(path + ".lock")
	if err != nil {
		return 0, grantError(path, "cannot lock "+path+".lock", err)
	}
	defer unlock()
	// Editors save without our lock, by rename or in place: a save that
	// lands between our read and our rename is seen before the rename,
	// and the rules are appended to it instead.
	var added int
	_, err = w.rewrite(path, rewriteSpec{mode: 0o600, fail: grantError}, func(old []byte, _ bool) ([]byte, error) {
		content, n, err := appendedContent(old, rules)
		if err != nil {
			return nil, fmt.Errorf("cannot save rules to %s: %w", path, err)
		}
		added = n
		if n == 0 {
			return old, nil
		}
		return content, nil
	})
	if err != nil {
		return 0, err
	}
	return added, nil
}

// RewriteFile replaces the regular file at path (not a symlink: resolve
// it first) with what edit makes of its content, as AppendRules does
// without the lock file: temp file in the same directory, fsync, rename
// or exchange, a save landing meanwhile re-read and edited again. The
// file keeps its mode; a new one gets newMode. edit sees nil and false
// for a missing file; when it returns the content unchanged (or nil for a
// missing file) nothing is written. changed reports a write.
func RewriteFile(path string, newMode fs.FileMode, edit func(old []byte, exists bool) ([]byte, error)) (changed bool, err error) {
	spec := rewriteSpec{mode: newMode, keepMode: true, fail: func(path, what string, err error) error {
		return fmt.Errorf("cannot write %s: %s: %w", path, what, err)
	}}
	return grantWriter{install: installFile}.rewrite(path, spec, edit)
}

// rewriteSpec is how a rewrite sets the mode and words its errors.
type rewriteSpec struct {
	mode     fs.FileMode // of a new file, and of every file unless keepMode
	keepMode bool        // an existing file keeps its own mode
	fail     func(path, what string, err error) error
}

// rewrite is RewriteFile with the writer's hooks.
func (w grantWriter) rewrite(path string, spec rewriteSpec, edit func(old []byte, exists bool) ([]byte, error)) (bool, error) {
	for range maxGrantAttempts {
		old, err := readTarget(path)
		if err != nil {
			return false, spec.fail(path, "cannot read it", err)
		}
		content, err := edit(old.content, old.exists)
		if err != nil {
			return false, err
		}
		if (!old.exists && content == nil) || (old.exists && bytes.Equal(content, old.content)) {
			return false, nil
		}
		mode := spec.mode
		if old.exists && spec.keepMode {
			mode = old.mode
		}
		replaced, err := w.replace(path, content, old, mode)
		if err != nil {
			return false, spec.fail(path, "cannot replace it", err)
		}
		if replaced {
			return true, nil
		}
	}
	return false, spec.fail(path, "it kept changing while it was written", errors.New("nothing was written"))
}

// maxGrantAttempts bounds how often a grant starts over because the file
// changed under it.
const maxGrantAttempts = 5

// target is permissions.toml as a grant read it.
type target struct {
	content []byte
	exists  bool
	ino     uint64
	dev     uint64
	size    int64
	mtime   int64
	mode    fs.FileMode
}

// same reports whether t and u are the same file with the same content.
func (t target) same(u target) bool {
	return t.exists == u.exists && t.ino == u.ino && t.dev == u.dev && t.size == u.size && t.mtime == u.mtime && bytes.Equal(t.content, u.content)
}

// readTarget reads permissions.toml without following a symlink: Codewhale
// refuses approval saves to a symlinked file, and replacing the link with
// a plain file would cut off the file it points to.
func readTarget(path string) (target, error) {
	f, err := policyfile.OpenNoFollow(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return target{}, nil
	}
	if err != nil {
		return target{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return target{}, err
	}
	content, err := policyfile.ReadAll(f)
	if err != nil {
		return target{}, err
	}
	t := target{content: content, exists: true, size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: fi.Mode().Perm()}
	t.ino, t.dev = fileIdentity(fi)
	return t, nil
}

func grantError(path, what string, err error) error {
	return fmt.Errorf("cannot save rules to %s: %s: %w", path, what, err)
}

// lockExclusive takes the writers' lock. Each call opens the lock file
// itself so the flock also serialises goroutines of one process.
func lockExclusive(lockPath string) (unlock func(), err error) {
	f, err := policyfile.OpenNoFollow(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, err
	}
	// Closing the only descriptor releases the lock.
	return func() { f.Close() }, nil
}

// appendedContent is src with the rules it lacks added in its own style,
// and how many were added; (nil, 0, nil) when none is new.
func appendedContent(src []byte, rules []execpolicy.Rule) ([]byte, int, error) {
	file, problems := execpolicy.ParseFile(src)
	if err := loadError(file, problems); err != nil {
		return nil, 0, fmt.Errorf("it does not load, so it is left as it is: %w", err)
	}
	existing := file.RuleValues()
	fresh := missingRules(existing, rules)
	if len(fresh) == 0 {
		return nil, 0, nil
	}
	content, err := withRules(file, fresh)
	if err != nil {
		return nil, 0, err
	}
	if err := verifyAppended(content, len(existing)+len(fresh), rules); err != nil {
		return nil, 0, fmt.Errorf("the new content would be wrong, so nothing was written: %w", err)
	}
	return content, len(fresh), nil
}

// loadError is why Codewhale would not load the file, or nil.
func loadError(file *execpolicy.File, problems []problem.Problem) error {
	for _, p := range problems {
		if p.Severity == problem.Error {
			return fmt.Errorf("%s at byte %d: %s", p.Code, p.Span.Start, p.Message)
		}
	}
	if !file.Accepted {
		return errors.New("not accepted by the loader")
	}
	return nil
}

// missingRules are the wanted rules not already recorded, each once.
func missingRules(existing, wanted []execpolicy.Rule) []execpolicy.Rule {
	var fresh []execpolicy.Rule
	for _, r := range wanted {
		if !containsRecord(existing, r) && !containsRecord(fresh, r) {
			fresh = append(fresh, r)
		}
	}
	return fresh
}

func containsRecord(rules []execpolicy.Rule, r execpolicy.Rule) bool {
	for _, have := range rules {
		if execpolicy.SameRecord(have, r) {
			return true
		}
	}
	return false
}

// verifyAppended re-loads the content to be written: it must load, hold
// exactly count rules, and every requested one.
func verifyAppended(content []byte, count int, requested []execpolicy.Rule) error {
	file, problems := execpolicy.ParseFile(content)
	if err := loadError(file, problems); err != nil {
		return err
	}
	got := file.RuleValues()
	if len(got) != count {
		return fmt.Errorf("it would hold %d rules, want %d", len(got), count)
	}
	for _, r := range requested {
		if !containsRecord(got, r) {
			return fmt.Errorf("it would not hold the rule %s", r.Label())
		}
	}
	return nil
}

// withRules adds fresh to an accepted file in the style it already uses.
func withRules(file *execpolicy.File, fresh []execpolicy.Rule) ([]byte, error) {
	if file.Doc != nil {
		if e := file.Doc.Root.Get("rules"); e != nil && e.Value.Kind == tomldoc.Array && !e.Value.IsArrayOfTables() {
			return insertInline(file.Src, e.Value, fresh)
		}
	}
	return appendTables(file.Src, fresh), nil
}

// appendTables adds the `[[rules]]` tables the approval card previews,
// after one blank line.
func appendTables(src []byte, fresh []execpolicy.Rule) []byte {
	var b bytes.Buffer
	b.Write(src)
	b.WriteString(separatorAfter(src))
	b.WriteString((&gate.Prompt{Always: fresh}).AlwaysTOML())
	return b.Bytes()
}

// separatorAfter is what makes src end in one blank line ("" for an empty
// file). The file's own line ends stay; ours are "\n".
func separatorAfter(src []byte) string {
	text := string(src)
	switch {
	case text == "":
		return ""
	case !strings.HasSuffix(text, "\n"):
		return "\n\n"
	}
	lastLineBody := strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
	if lastLineBody == "" || strings.HasSuffix(lastLineBody, "\n") {
		return ""
	}
	return "\n"
}

// insertion is text to put before the byte at offset.
type insertion struct {
	offset int
	text   string
}

// insertInline adds fresh as inline tables to the `rules = [...]` array:
// one per line when the closing bracket has a line of its own, else on the
// bracket's line. A trailing comma is kept as the file's convention.
func insertInline(src []byte, array *tomldoc.Value, fresh []execpolicy.Rule) ([]byte, error) {
	closeAt := array.Span.End - 1
	if closeAt <= array.Span.Start || closeAt >= len(src) || src[closeAt] != ']' {
		return nil, errors.New("cannot find the closing bracket of `rules = [...]`")
	}
	tables := make([]string, len(fresh))
	for i, r := range fresh {
		tables[i] = execpolicy.FormatInlineRule(r)
	}
	var edits []insertion
	items := array.Items
	trailingComma, after := false, array.Span.Start+1
	if len(items) > 0 {
		lastEnd := items[len(items)-1].Span.End
		var comma int
		comma, trailingComma = commaAfter(src, lastEnd, closeAt)
		after = lastEnd
		if trailingComma {
			after = comma + 1
		} else {
			edits = append(edits, insertion{lastEnd, ","})
		}
	}
	if lineBreak, ok := lineBreakBefore(src, array.Span.Start, closeAt); ok {
		indent := "  "
		if len(items) > 0 {
			indent = problem.NewLines(src).Indent(items[len(items)-1].Span.Start)
		}
		edits = append(edits, insertion{lineBreak, "\n" + indent + strings.Join(tables, ",\n"+indent) + commaIf(trailingComma)})
	} else {
		lead := ""
		if len(items) > 0 {
			lead = " "
		}
		edits = append(edits, insertion{after, lead + strings.Join(tables, ", ") + commaIf(trailingComma)})
	}
	return applyInsertions(src, edits), nil
}

func commaIf(yes bool) string {
	if yes {
		return ","
	}
	return ""
}

// commaAfter finds the comma that follows an array item before the closing
// bracket, across blanks, line breaks and comments.
func commaAfter(src []byte, from, closeAt int) (int, bool) {
	for i := from; i < closeAt; i++ {
		switch src[i] {
		case ' ', '\t', '\r', '\n':
		case '#':
			for i < closeAt && src[i] != '\n' {
				i++
			}
		case ',':
			return i, true
		default:
			return 0, false
		}
	}
	return 0, false
}

// lineBreakBefore reports whether only blanks precede the closing bracket
// on its line, and where that line's break starts ("\r\n" or "\n").
func lineBreakBefore(src []byte, openAt, closeAt int) (int, bool) {
	i := closeAt - 1
	for i > openAt && (src[i] == ' ' || src[i] == '\t') {
		i--
	}
	if i <= openAt || src[i] != '\n' {
		return 0, false
	}
	if src[i-1] == '\r' {
		i--
	}
	return i, true
}

// applyInsertions applies edits given in ascending offset order.
func applyInsertions(src []byte, edits []insertion) []byte {
	var b bytes.Buffer
	done := 0
	for _, e := range edits {
		b.Write(src[done:e.offset])
		b.WriteString(e.text)
		done = e.offset
	}
	b.Write(src[done:])
	return b.Bytes()
}

// replace writes content to path atomically with mode, unless path
// is no longer what was read (then it reports false and leaves path as the
// editor saved it). The temp file is removed on any failure before the
// install.
func (w grantWriter) replace(path string, content []byte, read target, mode fs.FileMode) (bool, error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return false, fmt.Errorf("cannot create a temporary file: %w", err)
	}
	installed := false
	defer func() {
		if !installed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(content); err != nil {
		return false, fmt.Errorf("cannot write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return false, fmt.Errorf("cannot set the mode of %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		return false, fmt.Errorf("cannot fsync %s: %w", tmp.Name(), err)
	}
	ours, err := readTarget(tmp.Name())
	if err != nil {
		return false, err
	}
	if err := tmp.Close(); err != nil {
		return false, fmt.Errorf("cannot close %s: %w", tmp.Name(), err)
	}
	if w.written != nil {
		w.written()
	}
	now, err := readTarget(path)
	if err != nil {
		return false, err
	}
	if !now.same(read) {
		return false, nil
	}
	if w.beforeInstall != nil {
		w.beforeInstall()
	}
	exchanged, err := w.install(tmp.Name(), path, read.exists)
	if errors.Is(err, fs.ErrExist) {
		return false, nil // created by an editor since the read
	}
	if err != nil {
		return false, err
	}
	installed = true
	if exchanged {
		// tmp.Name() now holds what was at path.
		if ok, err := w.keptUnchanged(tmp.Name(), path, read, ours); !ok {
			return false, err
		}
	}
	if err := syncDir(dir); err != nil {
		return true, fmt.Errorf("installed, but the directory could not be fsynced, so the rules may not survive a crash: %w", err)
	}
	return true, nil
}

// keptUnchanged checks what the exchange took out of path (now at
// displacedAt) against what the grant read. The same file: it is removed
// and the grant stands. An editor's save that landed after the re-read:
// it is exchanged back in, and false asks the caller to start over from
// it. A displaced file that is neither is never removed: the error says
// where it is.
func (w grantWriter) keptUnchanged(displacedAt, path string, read, ours target) (bool, error) {
	displaced, err := readTarget(displacedAt)
	if err == nil && displaced.same(read) {
		return true, os.Remove(displacedAt)
	}
	if _, err := w.install(displacedAt, path, true); err != nil {
		return false, fmt.Errorf("an editor saved it while the rules were written, and its save could not be put back (%w); it is kept at %s", err, displacedAt)
	}
	back, err := readTarget(displacedAt)
	if err != nil || !back.same(ours) {
		return false, fmt.Errorf("an editor saved it twice while the rules were written; one of its saves is kept at %s", displacedAt)
	}
	return false, os.Remove(displacedAt)
}

// installFile puts tmp at path: where path exists, by exchanging the two
// (renameat2 RENAME_EXCHANGE), so that what was at path comes out at tmp;
// where it does not, by a rename that fails with fs.ErrExist if path
// appeared meanwhile. Where the file system cannot do either, a plain
// rename (exchanged = false).
func installFile(tmp, path string, exists bool) (exchanged bool, err error) {
	if exists {
		err = exchangeFiles(tmp, path)
	} else {
		err = renameNoReplace(tmp, path)
	}
	if errors.Is(err, errNoAtomicInstall) {
		return false, os.Rename(tmp, path)
	}
	return exists && err == nil, err
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
