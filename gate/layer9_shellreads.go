package gate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy/shell"
	"github.com/codewhale-ls/codewhale-ls/gate/shellpath"
)

// Bounds on what one decision does to find the denied paths a shell line
// could read; past any of them the call is refused, with the bound named.
const (
	// maxBraceWords is how many words one word's brace lists may expand to.
	maxBraceWords = 256
	// maxWorkingDirs is how many directories (the call's, `cd` and `-C`
	// targets) the words of one line are taken relative to.
	maxWorkingDirs = 16
	// maxPathChecks is how many distinct paths (a word in one directory)
	// one line may need checked, as written and as patterns, and
	// maxPatternChecks how many of them may be globs or hold a variable,
	// each a table per rule.
	maxPathChecks    = 4096
	maxPatternChecks = 256
	// maxDiskEntries is how many directory entries globs and recursive
	// reads may list from disk.
	maxDiskEntries = 20000
)

// shellRead is one path a shell line could read that the deny-list
// refuses, or, with bound set, the bound that kept us from telling.
type shellRead struct {
	reach string // the denied path, or the .env name
	word  string // the word, as the command spells it, that reaches it
	how   string // how the word reaches it
	rule  config.ReadDenyRule
	bound string
}

// reason is the deny reason: the path it could reach and how.
func (r shellRead) reason(list config.ReadDenyList) string {
	if r.bound != "" {
		return fmt.Sprintf("codewhale-ls could not tell whether this command reads a path on the sandbox read deny-list (%s): %s. Codewhale's OS sandbox would refuse such reads when the command runs; this command will not run in that sandbox, so it is refused.", list.Spelled(), r.bound)
	}
	return fmt.Sprintf("Read access to '%s' is denied: `%s` %s; it is on the sandbox read deny-list (%s), which Codewhale's OS sandbox applies to shell commands; this command will not run in that sandbox, so codewhale-ls refuses it before it runs.", r.reach, r.word, r.how, r.rule.Spelled)
}

// shellReads finds what a line outside the sandbox could read.
type shellReads struct {
	list   config.ReadDenyList
	env    shellpath.Env
	seen   []shellpath.Pattern // every directory the line may work in, the call's first
	budget shellpath.Budget
	// checked are the patterns already found harmless, by check: a word
	// repeated, or read again in the same directory, costs nothing.
	checked                   map[string]bool
	literals, paths, patterns int
}

func newShellReads(list config.ReadDenyList, dir, home string, dotGlob bool) *shellReads {
	return &shellReads{
		list:    list,
		env:     shellpath.Env{Home: home, DotGlob: dotGlob},
		seen:    []shellpath.Pattern{shellpath.Literal(dir)},
		budget:  shellpath.Budget{Entries: maxDiskEntries},
		checked: map[string]bool{},
	}
}

// deniedShellRead is the first denied path command, run in dir, could
// read: a word that could name one (globs, brace lists, `~`, `~user`,
// parameters: shellpath) in the directory its command runs in, or a
// directory a recursive reader reads that holds one (recursiveRoots).
//
// The directory a command runs in is the call's until a `cd` moves the
// line; `-C DIR` and the like move one command. A move is only taken as
// certain (the words after it are no longer also read in the directory
// before) when it cannot silently not happen: the target exists as a
// directory, and the line has no subshell, pipeline, background job or
// `||` that could keep the move from the commands after it. Otherwise
// the words are read in both. Commands in a substitution or a shell's -c
// payload are read in every directory the line may be in.
func deniedShellRead(list config.ReadDenyList, command, dir, home string) (shellRead, bool) {
	cmds := shell.Commands(command)
	r := newShellReads(list, dir, home, turnsOnDotGlob(cmds))
	// A command run inside a denied directory reads it without naming it.
	if found, ok := r.couldRead(shellpath.Literal(dir), dir, "is the directory the command runs in"); ok {
		return found, true
	}
	sequential := !strings.ContainsAny(command, "(|`") && !strings.Contains(strings.ReplaceAll(command, "&&", ""), "&")
	current := r.seen[:1:1]
	namesFed := feedsNames(cmds)
	for _, c := range cmds {
		dirs := current
		if c.Depth > 0 {
			dirs = r.seen
		}
		targets, cd := workingDirWords(c)
		var moved []shellpath.Pattern
		for _, t := range targets {
			ps, found, ok := r.dirsOf(t, dirs)
			if ok {
				return found, true
			}
			moved = append(moved, ps...)
		}
		if !cd && len(moved) > 0 {
			dirs = moveTo(dirs, moved, oneCommandMoveCertain(c))
		}
		if found, ok := r.commandReads(c, dirs, namesFed); ok {
			return found, true
		}
		if cd && c.Depth == 0 {
			current = moveTo(current, moved, sequential)
		}
	}
	return shellRead{}, false
}

// moveTo is the directories after a move from dirs to moved: moved alone
// when the move is certain and each target is a directory now.
func moveTo(dirs, moved []shellpath.Pattern, certain bool) []shellpath.Pattern {
	if len(moved) == 0 {
		return dirs
	}
	for _, m := range moved {
		path, plain := m.Path()
		info, err := os.Stat(path)
		certain = certain && plain && err == nil && info.IsDir()
	}
	if certain {
		return moved
	}
	return append(dirs[:len(dirs):len(dirs)], moved...)
}

// commandReads checks c's words, and the trees it reads recursively, in
// the directories it may run in.
func (r *shellReads) commandReads(c shell.Command, dirs []shellpath.Pattern, namesFed bool) (shellRead, bool) {
	// The words as the program gets them, quotes removed: many expand a
	// quoted `~` or $HOME themselves (ssh -i '~/.ssh/id_rsa'). This is
	// also the whole check where shellpath's slash-separated patterns do
	// not meet the rules' paths (Windows).
	for _, word := range c.Words {
		for _, path := range literalPathsIn(word, r.env.Home) {
			for _, d := range dirs {
				if r.literals++; r.literals > maxPathChecks {
					return shellRead{bound: fmt.Sprintf("it has more than %d paths to check", maxPathChecks)}, true
				}
				if dir, plain := d.Path(); plain {
					if rule, denied := r.list.Denies(path, r.env.Home, dir); denied {
						return shellRead{reach: path, word: word, how: "names it", rule: rule}, true
					}
				}
			}
		}
	}
	for _, word := range c.Patterns {
		for _, part := range pathParts(word) {
			if found, ok := r.eachPath(part, dirs, "name", func(p shellpath.Pattern) (shellRead, bool) {
				return r.couldRead(p, part, "could name it")
			}); ok {
				return found, true
			}
		}
	}
	roots, reads := recursiveRoots(c, namesFed)
	for _, root := range roots {
		if found, ok := r.eachPath(root, dirs, fmt.Sprint("recursive ", reads), func(p shellpath.Pattern) (shellRead, bool) {
			return r.recursiveRead(p, root, reads)
		}); ok {
			return found, true
		}
	}
	return shellRead{}, false
}

// deniedToolRead is deniedShellRead for another agent's search tools
// (Glob, Grep, … mapped to file_search and grep_files, docs/agents.md):
// grep_files reads its path (default the working directory) recursively;
// file_search names its path and the glob pattern below it, judged as a
// shell word would be.
func deniedToolRead(list config.ReadDenyList, semantic string, input map[string]any, dir, home string) (shellRead, bool) {
	r := newShellReads(list, dir, home, false)
	path, _ := input["path"].(string)
	if path = strings.TrimSpace(path); path == "" {
		path = "."
	}
	if semantic == "grep_files" {
		return r.eachPath(path, r.seen, "recursive true", func(p shellpath.Pattern) (shellRead, bool) {
			return r.recursiveRead(p, path, true)
		})
	}
	if found, ok := r.eachPath(path, r.seen, "name", func(p shellpath.Pattern) (shellRead, bool) {
		return r.couldRead(p, path, "could name it")
	}); ok {
		return found, true
	}
	pattern, _ := input["pattern"].(string)
	if pattern = strings.TrimSpace(pattern); pattern == "" {
		return shellRead{}, false
	}
	if !strings.HasPrefix(pattern, "/") && !strings.HasPrefix(pattern, "~") {
		pattern = strings.TrimSuffix(path, "/") + "/" + pattern
	}
	return r.eachPath(pattern, r.seen, "name", func(p shellpath.Pattern) (shellRead, bool) {
		return r.couldRead(p, pattern, "could name it")
	})
}

// dirsOf are the directories word could name, in each of dirs, which
// join those the line may work in.
func (r *shellReads) dirsOf(word string, dirs []shellpath.Pattern) ([]shellpath.Pattern, shellRead, bool) {
	alternatives, ok := shellpath.Braces(word, maxBraceWords)
	if !ok {
		return nil, shellRead{bound: fmt.Sprintf("`%s` expands to more than %d words", word, maxBraceWords)}, true
	}
	var out []shellpath.Pattern
	for _, alt := range alternatives {
		out = append(out, r.parse(alt, dirs)...)
	}
	if len(r.seen)+len(out) > maxWorkingDirs {
		return nil, shellRead{bound: fmt.Sprintf("it moves between more than %d directories", maxWorkingDirs)}, true
	}
	r.seen = append(r.seen, out...)
	return out, shellRead{}, false
}

// parse reads one brace-free word: once when it does not depend on the
// working directory, else once in each of dirs.
func (r *shellReads) parse(word string, dirs []shellpath.Pattern) []shellpath.Pattern {
	if strings.HasPrefix(word, "/") || strings.HasPrefix(word, "~") || strings.HasPrefix(word, "$") {
		return []shellpath.Pattern{shellpath.Parse(word, dirs[0], r.env)}
	}
	out := make([]shellpath.Pattern, len(dirs))
	for i, d := range dirs {
		out[i] = shellpath.Parse(word, d, r.env)
	}
	return out
}

// eachPath runs check (named kind, for the cache) on every path pattern
// word could be in dirs, within the bounds.
func (r *shellReads) eachPath(word string, dirs []shellpath.Pattern, kind string, check func(shellpath.Pattern) (shellRead, bool)) (shellRead, bool) {
	alternatives, ok := shellpath.Braces(word, maxBraceWords)
	if !ok {
		return shellRead{bound: fmt.Sprintf("`%s` expands to more than %d words", word, maxBraceWords)}, true
	}
	for _, alt := range alternatives {
		for _, p := range r.parse(alt, dirs) {
			key := kind + "\x00" + p.Key()
			if r.checked[key] {
				continue
			}
			if r.paths++; r.paths > maxPathChecks {
				return shellRead{bound: fmt.Sprintf("it has more than %d paths to check", maxPathChecks)}, true
			}
			if _, plain := p.Path(); !plain {
				if r.patterns++; r.patterns > maxPatternChecks {
					return shellRead{bound: fmt.Sprintf("it has more than %d globs and variables to check", maxPatternChecks)}, true
				}
			}
			if found, ok := check(p); ok {
				return found, true
			}
			r.checked[key] = true
		}
	}
	return shellRead{}, false
}

// couldRead: p could name a denied path, by the rules (even if no such
// file exists yet) or, for a glob, by what it matches on disk now
// (symlinks resolved).
func (r *shellReads) couldRead(p shellpath.Pattern, word, how string) (shellRead, bool) {
	if rule, reach, denied := r.list.CouldDeny(p); denied {
		return shellRead{reach: reach, word: word, how: how, rule: rule}, true
	}
	if _, plain := p.Path(); plain {
		return shellRead{}, false
	}
	matches, err := p.Expand(&r.budget)
	if err != nil {
		return shellRead{bound: fmt.Sprintf("expanding `%s` would list more than %d directory entries", word, maxDiskEntries)}, true
	}
	for _, m := range matches {
		if rule, denied := r.list.Denies(m, "", ""); denied {
			return shellRead{reach: m, word: word, how: "matches it on disk", rule: rule}, true
		}
	}
	return shellRead{}, false
}

// recursiveRead: a recursive read of p reads every path below it. A
// directory that could hold a denied path is refused without a look at
// the disk; for the rules by file name (.env) the tree is walked, within
// maxDiskEntries, when reads says the command reads file contents (a
// listing only names them).
func (r *shellReads) recursiveRead(p shellpath.Pattern, word string, reads bool) (shellRead, bool) {
	const how = "reads it recursively"
	if found, ok := r.couldRead(p, word, how); ok {
		return found, true
	}
	if rule, ok := r.list.CouldHold(p); ok {
		return shellRead{reach: rule.Path, word: word, how: how, rule: rule}, true
	}
	if !reads || !r.list.HasNameRule() {
		return shellRead{}, false
	}
	roots, err := p.Expand(&r.budget)
	if path, plain := p.Path(); plain {
		roots, err = []string{path}, nil
	}
	if err != nil {
		return shellRead{bound: fmt.Sprintf("expanding `%s` would list more than %d directory entries", word, maxDiskEntries)}, true
	}
	for _, root := range roots {
		// The operand itself is followed, as grep -r and cp -r do.
		if real, err := filepath.EvalSymlinks(root); err == nil && real != root {
			if rule, ok := r.list.CouldHold(shellpath.Literal(real)); ok {
				return shellRead{reach: rule.Path, word: word, how: how, rule: rule}, true
			}
		}
		var found shellRead
		hit, err := shellpath.Walk(root, &r.budget, func(path string, e os.DirEntry) bool {
			rule, denied := r.list.DeniesName(e.Name())
			if !denied && e.Type()&os.ModeSymlink != 0 {
				rule, denied = r.list.Denies(path, "", "")
			}
			if denied {
				found = shellRead{reach: path, word: word, how: how, rule: rule}
			}
			return denied
		})
		if err != nil {
			return shellRead{bound: fmt.Sprintf("`%s` holds more than %d directory entries to search for %s", word, maxDiskEntries, r.list.Spelled())}, true
		}
		if hit {
			return found, true
		}
	}
	return shellRead{}, false
}

// literalPathsIn are the paths a word, quotes removed, may name to a
// program that expands `~` and $HOME itself: the word, the part after a
// redirection or an option's `=`, up to a glob's first metacharacter.
func literalPathsIn(word, home string) []string {
	var out []string
	for _, p := range pathParts(word) {
		if i := strings.IndexAny(p, "*?["); i >= 0 {
			p = p[:i]
		}
		for _, v := range []string{"$HOME", "${HOME}"} {
			if rest, ok := strings.CutPrefix(p, v); ok && home != "" && (rest == "" || rest[0] == '/') {
				p = home + rest
			}
		}
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// pathParts are the parts of a word that may be paths: the word, the
// part after a redirection operator, and the value after `=` (an
// assignment or `--opt=path`, where a tilde expands too).
func pathParts(word string) []string {
	parts := []string{word}
	if rest := strings.TrimLeft(word, "0123456789<>&|"); rest != word && rest != "" {
		parts = append(parts, rest)
	}
	if i := strings.IndexByte(word, '='); i >= 0 && (i == 0 || word[i-1] != '\\') && i+1 < len(word) {
		parts = append(parts, word[i+1:])
	}
	return parts
}

// turnsOnDotGlob: a line setting bash's dotglob or zsh's GLOB_DOTS has
// wildcards that match a leading dot (`*` then matches .env).
func turnsOnDotGlob(cmds []shell.Command) bool {
	for _, c := range cmds {
		for _, w := range c.Words {
			switch strings.ReplaceAll(strings.ToLower(w), "_", "") {
			case "dotglob", "globdots":
				return true
			}
		}
	}
	return false
}

// nameFeeders are the programs and builtins that turn a listing's names
// into arguments or variables another command then opens.
var nameFeeders = map[string]bool{"xargs": true, "parallel": true, "read": true, "mapfile": true, "readarray": true}

// feedsNames: a line running xargs or a `while read` loop may hand them
// every name a listing prints, so a `find` there reads what it finds.
func feedsNames(cmds []shell.Command) bool {
	for _, c := range cmds {
		for _, w := range c.Words {
			if nameFeeders[filepath.Base(w)] {
				return true
			}
		}
	}
	return false
}
