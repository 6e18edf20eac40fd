package shell

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// headWalk is what commandHeads found.
type headWalk struct {
	// heads are every index that may be a command word, ascending;
	// wrapper words are command words too.
	heads []int
	// splitPayloads are `env -S` values, which are command lines.
	splitPayloads []string
	// truncated: the walk ran out of states before every reading was
	// explored.
	truncated bool
}

// headState is a position of the wrapper walk: at a command word
// (wrapper == ""), or inside the arguments of a wrapper.
type headState struct {
	index        int
	wrapper      string
	operands     int
	optionsDone  bool
	commandState bool
}

// commandHeads walks leading assignments and wrapper words with their
// option grammar (docs/codewhale/releases/0.10.1.md A.3.2). Where the
// grammar is ambiguous (an option the table does not know, a bare scalar
// after a wrapper) both readings are kept: an extra candidate only makes
// deny matching stricter, a missing one is a bypass.
func commandHeads(words []string) headWalk {
	var walk headWalk
	seen := map[headState]bool{}
	stack := []headState{{index: 0, commandState: true}}
	for len(stack) > 0 {
		st := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if st.index >= len(words) || seen[st] {
			continue
		}
		if len(seen) >= maxHeadStates {
			walk.truncated = true
			break
		}
		seen[st] = true
		word := words[st.index]
		if st.commandState {
			if isAssignment(word) {
				stack = append(stack, headState{index: st.index + 1, commandState: true})
				continue
			}
			if !slices.Contains(walk.heads, st.index) {
				walk.heads = append(walk.heads, st.index)
			}
			name := commandName(word)
			if g, ok := wrapperGrammars[name]; ok {
				stack = append(stack, headState{index: st.index + 1, wrapper: name, operands: g.operands})
			}
			continue
		}
		g := wrapperGrammars[st.wrapper]
		at := func(index int) headState {
			next := st
			next.index = index
			return next
		}
		switch {
		case !st.optionsDone && word == "--":
			next := at(st.index + 1)
			next.optionsDone = true
			stack = append(stack, next)
		case !st.optionsDone && len(word) > 1 && word[0] == '-':
			stack = walk.option(stack, words, st, g, at)
		case st.operands > 0:
			next := at(st.index + 1)
			next.operands--
			stack = append(stack, next)
		default:
			if isScalar(word) {
				stack = append(stack, at(st.index+1))
			}
			stack = append(stack, headState{index: st.index, commandState: true})
		}
	}
	slices.Sort(walk.heads)
	return walk
}

// option steps over one option of a wrapper, pushing the positions it may
// end at.
func (walk *headWalk) option(stack []headState, words []string, st headState, g wrapperGrammar, at func(int) headState) []headState {
	word := words[st.index]
	nextWord := func() {
		if st.index+1 < len(words) {
			walk.splitPayloads = append(walk.splitPayloads, words[st.index+1])
		}
	}
	if long, ok := strings.CutPrefix(word, "--"); ok {
		name, inline, hasInline := strings.Cut(long, "=")
		if st.wrapper == "env" && name == "split-string" {
			if hasInline {
				walk.splitPayloads = append(walk.splitPayloads, inline)
			} else {
				nextWord()
			}
		}
		switch {
		case hasInline || slices.Contains(g.longSwitches, name):
			return append(stack, at(st.index+1))
		case slices.Contains(g.longValues, name):
			return append(stack, at(st.index+2))
		}
		return append(stack, at(st.index+1), at(st.index+2))
	}
	flags := word[1:]
	// `command -v NAME` / `-V` only looks NAME up: it runs nothing.
	if st.wrapper == "command" && strings.ContainsAny(flags, "vV") {
		return stack
	}
	if st.wrapper == "env" {
		if k := strings.IndexByte(flags, 'S'); k >= 0 {
			if value := flags[k+1:]; value != "" {
				walk.splitPayloads = append(walk.splitPayloads, value)
			} else {
				nextWord()
			}
		}
	}
	// A switch continues the cluster, a value option takes the rest of the
	// word or the next word, an unknown option is read both ways.
	step := 1
	for k, r := range flags {
		if strings.ContainsRune(g.shortValues, r) {
			if k+runeWidthAt(flags, k) == len(flags) {
				step = 2
			}
			break
		}
		if !('0' <= r && r <= '9') && !strings.ContainsRune(g.shortSwitches, r) {
			return append(stack, at(st.index+1), at(st.index+2))
		}
	}
	return append(stack, at(st.index+step))
}

// runeWidthAt is the byte width of the rune ranging over s yields at k
// (1 for a byte that is no valid UTF-8).
func runeWidthAt(s string, k int) int {
	_, width := utf8.DecodeRuneInString(s[k:])
	return width
}

// markReplacementOperands marks the operands of an xargs that hold its
// replacement string (`-I R`, `-J R`, `-i[R]`, `--replace[=R]`) as known
// only at run time: `xargs -I{} sh -c {}` runs whatever arrives on stdin.
//
// An operand after an xargs, not one of its option values, holding one of
// its replacement strings, is marked: each distinct string is looked for
// once per operand, against the xargs that have it, rather than each
// xargs reading all the operands after it (a line of 512 `xargs -I{}`
// read the rest of the line 512 times).
func markReplacementOperands(words []string, heads []int, dynamic []bool) {
	type holder struct {
		head   int
		values map[int]bool // its option values, never its operands
	}
	var distinct []string
	holders := map[string][]holder{}
	first := len(words)
	forEachReplacement(words, heads, func(head int, replacements []string, values map[int]bool) {
		for _, r := range replacements {
			if r == "" {
				continue
			}
			hs := holders[r]
			if hs == nil {
				distinct = append(distinct, r)
			}
			if len(hs) == 0 || hs[len(hs)-1].head != head {
				holders[r] = append(hs, holder{head, values})
			}
			first = min(first, head)
		}
	})
	for _, r := range distinct {
		slices.SortFunc(holders[r], func(a, b holder) int { return a.head - b.head })
	}
	for at := first + 1; at < len(words); at++ {
		if strings.HasPrefix(words[at], "-") {
			continue
		}
	marking:
		for _, r := range distinct {
			if !strings.Contains(words[at], r) {
				continue
			}
			for _, h := range holders[r] {
				if h.head >= at {
					break // the holders ascend
				}
				if !h.values[at] {
					dynamic[at] = true
					break marking
				}
			}
		}
	}
}

// forEachReplacement calls fn with each xargs head's replacement strings
// and the positions of its option values, heads in order.
func forEachReplacement(words []string, heads []int, fn func(head int, replacements []string, values map[int]bool)) {
	g := wrapperGrammars["xargs"]
	for _, head := range heads {
		if commandName(words[head]) != "xargs" {
			continue
		}
		var replacements []string
		values := map[int]bool{}
		for index := head + 1; index < len(words) && strings.HasPrefix(words[index], "-") && words[index] != "--"; index++ {
			word := words[index]
			if long, ok := strings.CutPrefix(word, "--"); ok {
				name, value, hasValue := strings.Cut(long, "=")
				switch {
				case hasValue && name == "replace":
					replacements = append(replacements, value)
				case !hasValue && long == "replace":
					replacements = append(replacements, "{}")
				case !hasValue && slices.Contains(g.longValues, long):
					values[index+1] = true
					index++
				}
				continue
			}
			for k, r := range word[1:] {
				rest := word[1+k+runeWidthAt(word[1:], k):]
				if r == 'i' {
					if rest == "" {
						rest = "{}"
					}
					replacements = append(replacements, rest)
					break
				}
				if strings.ContainsRune(g.shortValues, r) {
					value, ok := rest, true
					if rest == "" {
						values[index+1] = true
						index++
						ok = index < len(words)
						if ok {
							value = words[index]
						}
					}
					if ok && (r == 'I' || r == 'J') {
						replacements = append(replacements, value)
					}
					break
				}
			}
		}
		if len(replacements) > 0 {
			fn(head, replacements, values)
		}
	}
}

// codeString is a command line handed to another command, and whether it
// is known only at run time.
type codeString struct {
	text    string
	dynamic bool
}

// commandOptionPayloads are the values of `-c CMD`, `-cCMD`, `--command
// CMD`, `--command=CMD` and `--session-command` after words[head]: the
// code su, runuser, flock and script hand to a shell.
func commandOptionPayloads(words []string, head int, dynamic []bool) []codeString {
	var payloads []codeString
	next := func(at int) {
		if at+1 < len(words) {
			payloads = append(payloads, codeString{words[at+1], dynamic[at+1]})
		}
	}
	for at := head + 1; at < len(words); at++ {
		word := words[at]
		if long, ok := strings.CutPrefix(word, "--"); ok {
			name, value, hasValue := strings.Cut(long, "=")
			if name == "command" || name == "session-command" {
				if hasValue {
					payloads = append(payloads, codeString{value, dynamic[at]})
				} else {
					next(at)
				}
			}
			continue
		}
		if flags, ok := strings.CutPrefix(word, "-"); ok {
			if k := strings.IndexByte(flags, 'c'); k >= 0 {
				if value := flags[k+1:]; value != "" {
					payloads = append(payloads, codeString{value, dynamic[at]})
				} else {
					next(at)
				}
			}
		}
	}
	return payloads
}

// shellInput is how a shell invocation receives its script: from the
// words at commands (`-c`), from the script operand at script, or, when
// both are unset, from stdin.
type shellInput struct {
	commands []int
	script   int
}

// readShellInput reads a shell's arguments (words[0] is the shell). The
// scan does not stop at the first operand (`bash -o vi -c '…'`), and `-c`
// only switches to command mode: the command is the first operand after
// the options, and also the word right after `-c` for fish-style shells.
func readShellInput(words []string) shellInput {
	script, fromStdin, optionsDone := 0, false, false
	var commands []int
	for index := 1; index < len(words); index++ {
		word := words[index]
		long, isLong := strings.CutPrefix(word, "--")
		switch {
		case !optionsDone && word == "--":
			optionsDone = true
		case !optionsDone && word == "-":
			// `bash -` reads stdin; after `-c` it only ends the options.
			fromStdin = fromStdin || len(commands) == 0
			optionsDone = true
		case isLong && !optionsDone:
			if strings.EqualFold(long, "command") {
				if index+1 < len(words) {
					return shellInput{commands: []int{index + 1}}
				}
				return shellInput{}
			}
			if long == "rcfile" || long == "init-file" {
				index++
			}
		case !optionsDone && len(word) > 1 && (word[0] == '-' || word[0] == '+'):
			flags := word[1:]
			if word[0] == '-' && strings.ContainsRune(flags, 'c') && len(commands) == 0 {
				commands = append(commands, index+1)
			}
			fromStdin = fromStdin || word[0] == '-' && strings.ContainsRune(flags, 's')
			if strings.ContainsAny(flags, "oO") {
				index++
			}
		case len(commands) > 0:
			if commands[0] != index {
				commands = append(commands, index)
			}
			return shellInput{commands: commands}
		case script == 0:
			script = index
		}
	}
	commands = slices.DeleteFunc(commands, func(at int) bool { return at >= len(words) })
	switch {
	case len(commands) > 0:
		return shellInput{commands: commands}
	case script > 0 && !fromStdin:
		return shellInput{script: script}
	}
	return shellInput{}
}

// scriptReadAtRunTime reports a script operand naming a descriptor
// (`/dev/stdin`, `/dev/fd/N`, `/proc/<pid>/fd/N`): its text arrives at run
// time, unless it is stdin and a heredoc (already expanded) feeds it.
func scriptReadAtRunTime(script string, heredoc bool) bool {
	if !strings.HasPrefix(script, "/") {
		return false
	}
	var parts []string
	for part := range strings.SplitSeq(script, "/") {
		switch part {
		case "", ".":
		case "..":
			if len(parts) > 0 {
				parts = parts[:len(parts)-1]
			}
		default:
			parts = append(parts, part)
		}
	}
	var descriptor string
	switch {
	case len(parts) == 2 && parts[0] == "dev" && parts[1] == "stdin":
		descriptor = "0"
	case len(parts) == 3 && parts[0] == "dev" && parts[1] == "fd":
		descriptor = parts[2]
	case len(parts) == 4 && parts[0] == "proc" && parts[2] == "fd" &&
		(parts[1] == "self" || parts[1] == "thread-self" || strings.Trim(parts[1], "0123456789") == ""):
		descriptor = parts[3]
	default:
		return false
	}
	return descriptor != "0" || !heredoc
}

// recordFindExec records the command of each `-exec`, `-execdir`, `-ok`
// and `-okdir` of a find as nested code; a word holding `{}` is replaced by
// each file found, so it is known only at run time.
func (x *rewriteExpander) recordFindExec(c *simpleCommand, head, depth int) {
	words := c.words
	for index := head + 1; index < len(words); index++ {
		switch words[index] {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		start, end := index+1, index+1
		for end < len(words) && words[end] != ";" && words[end] != "+" {
			end++
		}
		if start < end {
			x.Nested = true
			payload := simpleCommand{words: words[start:end], dynamic: make([]bool, end-start)}
			for k := start; k < end; k++ {
				payload.dynamic[k-start] = c.dynamic[k] || strings.Contains(words[k], "{}")
			}
			x.record(&payload, depth+1)
		}
		index = end
	}
}
