package shell

import (
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
)

const (
	// maxDepth is the deepest nested body still expanded; the input is 0.
	maxDepth = 8
	// maxLines caps the expander output.
	maxLines = 256
	// headScanWords is how many leading words may hold a shell or eval head.
	headScanWords = 8
)

// passthroughWrappers run their operands as a command (basename, ASCII
// case-insensitive).
var passthroughWrappers = map[string]bool{
	"sudo": true, "doas": true, "env": true, "nohup": true, "nice": true, "ionice": true,
	"time": true, "timeout": true, "stdbuf": true, "setsid": true, "command": true,
	"builtin": true, "exec": true, "xargs": true, "unbuffer": true, "busybox": true,
	"chroot": true, "proot": true,
}

// shellNames are the interpreters whose `-c` payload is expanded.
var shellNames = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "ksh93": true,
	"mksh": true, "ash": true, "fish": true, "csh": true, "tcsh": true, "rbash": true,
	"yash": true,
}

// Expand lists every command line a POSIX-ish shell could run for command,
// without evaluating anything (docs/codewhale/execpolicy.md §3.2): the trimmed input first,
// then each discovered command as its words joined by single spaces, each
// line once, at most 256 lines.
func Expand(command string) []string {
	x := &expansion{seen: map[string]bool{}}
	x.emit(strings.TrimSpace(command))
	x.expand(command, 0)
	return x.lines
}

type expansion struct {
	lines []string
	seen  map[string]bool
}

func (x *expansion) full() bool { return len(x.lines) >= maxLines }

func (x *expansion) emit(line string) {
	if line == "" || x.full() || x.seen[line] {
		return
	}
	x.seen[line] = true
	x.lines = append(x.lines, line)
}

func (x *expansion) expand(body string, depth int) {
	walkCommands(body, depth, false, x.full, func(words, _ []string, _ int) {
		x.emit(joinWords(words))
		if rest := stripWrappers(words); len(rest) < len(words) {
			x.emit(joinWords(rest))
		}
	})
}

// walkCommands visits every command body could run, without evaluating
// anything: its commands, the payload of an `eval` or a shell's `-c`, and
// the bodies of substitutions, to maxDepth levels, until done says so.
// With withPatterns, each command's words come also as patterns (Pattern);
// otherwise patterns is nil. depth is 0 for body's own commands.
func walkCommands(body string, depth int, withPatterns bool, done func() bool, visit func(words, patterns []string, depth int)) {
	if depth > maxDepth || done() {
		return
	}
	var commands, patterns [][]string
	var nested []string
	if withPatterns {
		commands, patterns, nested = tokenizePatterns(body)
	} else {
		commands, nested = tokenize(body)
	}
	for c, words := range commands {
		if withPatterns {
			visit(words, patterns[c], depth)
		} else {
			visit(words, nil, depth)
		}
		head, ok := wrapperHead(words)
		if !ok {
			continue
		}
		if ascii.Lower(basename(words[head])) == "eval" {
			walkCommands(strings.Join(words[head+1:], " "), depth+1, withPatterns, done, visit)
			continue
		}
		for i := head + 1; i < len(words); i++ {
			if isCommandFlag(words[i]) {
				if i+1 < len(words) {
					walkCommands(words[i+1], depth+1, withPatterns, done, visit)
				}
				break
			}
		}
	}
	for _, n := range nested {
		walkCommands(n, depth+1, withPatterns, done, visit)
	}
}

// joinWords drops the empty words quotes produced.
func joinWords(words []string) string {
	var b strings.Builder
	for _, w := range words {
		if w == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}

// suffixJoin is joinWords(words) with where each words[k:] begins in it,
// so that joinWords(words[k:]) is a slice of one string: the join skips
// empty words and puts one space between the others, so the join of a
// tail is the whole join from the tail's first non-empty word. The
// starts are worked out the first time a tail is asked for (a command
// without wrappers never asks).
type suffixJoin struct {
	words  []string
	text   string
	starts []int // starts[k]: where joinWords(words[k:]) begins in text
}

func newSuffixJoin(words []string) *suffixJoin {
	return &suffixJoin{words: words, text: joinWords(words)}
}

// from is joinWords(words[k:]).
func (j *suffixJoin) from(k int) string {
	if k == 0 {
		return j.text
	}
	if j.starts == nil {
		j.starts = make([]int, len(j.words)+1)
		at := len(j.text) // the join of no word is empty: the end
		j.starts[len(j.words)] = at
		for i := len(j.words) - 1; i >= 0; i-- {
			if w := j.words[i]; w != "" {
				at -= len(w)
				j.starts[i] = at
				at-- // the space before it, if any word comes before
			} else {
				j.starts[i] = j.starts[i+1]
			}
		}
	}
	return j.text[j.starts[k]:]
}

func isPassthrough(word string) bool { return passthroughWrappers[ascii.Lower(basename(word))] }

// stripWrappers drops leading assignments and passthrough wrappers, and,
// once a wrapper was dropped, scalar operands such as timeout's `5s`.
func stripWrappers(words []string) []string {
	sawWrapper := false
	i := 0
	for ; i < len(words); i++ {
		w := words[i]
		switch {
		case isAssignment(w):
		case isPassthrough(w):
			sawWrapper = true
		case sawWrapper && isScalar(w):
		default:
			return words[i:]
		}
	}
	return words[i:]
}

// wrapperHead finds a shell or eval word among the first words, skipping
// what may precede it: assignments, wrappers, flags, scalars and the value
// after a single-dash flag. Any other word means there is no head.
func wrapperHead(words []string) (int, bool) {
	afterShortFlag := false
	for i := 0; i < len(words) && i < headScanWords; i++ {
		w := words[i]
		base := ascii.Lower(basename(w))
		if shellNames[base] || base == "eval" {
			return i, true
		}
		switch {
		case isAssignment(w), isPassthrough(w), isScalar(w):
			afterShortFlag = false
		case strings.HasPrefix(w, "-"):
			afterShortFlag = !strings.HasPrefix(w, "--")
		case afterShortFlag:
			afterShortFlag = false
		default:
			return 0, false
		}
	}
	return 0, false
}

// isCommandFlag reports `--command` or a single-dash cluster holding `c`
// (`-c`, `-lc`, `-cx`).
func isCommandFlag(word string) bool {
	if ascii.Lower(word) == "--command" {
		return true
	}
	return strings.HasPrefix(word, "-") && !strings.HasPrefix(word, "--") && strings.ContainsRune(word, 'c')
}
