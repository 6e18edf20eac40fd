package shell

import (
	"slices"
	"strings"
)

// 0.10.0's expander (docs/codewhale/releases/0.10.0.md A.3.2) was never
// published; what is known is that it is 0.9.10's except that heredoc
// bodies are data: a body is code only when a shell (or source) reads it,
// an unquoted body's substitutions still run, and a `<<` in a comment opens
// nothing. Every form that table calls "fails safe" is read as 0.9.10 read
// it (every body line a command): text with a carriage return or `$'`, a
// delimiter that does not read as one word, an unterminated quote or body,
// and any code string (`bash -c "…"`), whose heredocs are not looked for.

// expandHeredocAware is Expand with the heredoc bodies of the top-level
// text taken out (data) or read as code (a shell's script, an unquoted
// body's substitutions).
func expandHeredocAware(command string) []string {
	if !strings.Contains(command, "<<") {
		return expandClassic(command)
	}
	code, substitutions, ok := withoutHeredocData(command)
	if !ok {
		return Expand(command)
	}
	x := &expansion{seen: map[string]bool{}}
	x.emit(strings.TrimSpace(command))
	x.expand(code, 0)
	for _, body := range substitutions {
		x.expand(body, 1)
	}
	return x.lines
}

// expandClassic is Expand, with the plain fast path: a plain command's
// lines are its trimmed text and its segments (fastpath_test.go proves it).
func expandClassic(command string) []string {
	if isPlain(command) {
		return appendPlainTargets(nil, command)
	}
	return Expand(command)
}

// withoutHeredocData is command without its heredoc data bodies, and the
// command substitutions of its unquoted bodies; ok is false when the text
// must be read as 0.9.10 read it.
func withoutHeredocData(command string) (code string, substitutions []string, ok bool) {
	if strings.ContainsRune(command, '\r') || strings.Contains(command, "$'") {
		return "", nil, false
	}
	// Data is blanked in place (newlines kept), so that it holds no word
	// and the offsets of the rest stay those of command.
	blanked := []byte(command)
	var pending []heredocSpec
	stdin := newStdinScan(command)
	for i := 0; i < len(command); {
		c := command[i]
		switch {
		case c == '\\':
			i = min(i+2, len(command))
		case c == '\'' || c == '"':
			end, closed := skipQuoted(command, i)
			if !closed {
				return "", nil, false
			}
			i = end
		case c == '#' && (i == 0 || strings.IndexByte(" \t\n;&|()", command[i-1]) >= 0):
			for i < len(command) && command[i] != '\n' {
				i++
			}
		case c == '<' && strings.HasPrefix(command[i:], "<<<"):
			i += 3
		case c == '<' && strings.HasPrefix(command[i:], "<<"):
			spec, end, read := readHeredocDelimiter(command, i+2)
			if !read {
				return "", nil, false
			}
			pending = append(pending, spec)
			i = end
		case c == '\n' && len(pending) > 0:
			i++
			shellReads := stdin.shellReadsBefore(i)
			for _, h := range pending {
				start := i
				body, end, terminated := readHeredocBody(command, i, h)
				if !terminated {
					return "", nil, false
				}
				i = end
				if shellReads {
					continue // the shell's script: its lines stay commands
				}
				if !h.quoted {
					bodies, certain := heredocSubstitutions(body)
					if !certain {
						return "", nil, false
					}
					substitutions = append(substitutions, bodies...)
				}
				for k := start; k < end; k++ {
					if blanked[k] != '\n' {
						blanked[k] = ' '
					}
				}
			}
			pending = pending[:0]
		default:
			i++
		}
	}
	if len(pending) > 0 {
		return "", nil, false // a heredoc whose body never started
	}
	return string(blanked), substitutions, true
}

// skipQuoted steps over the quoted text opening at i; closed is false when
// it runs to the end.
func skipQuoted(s string, i int) (end int, closed bool) {
	quote := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case quote == '"' && s[j] == '\\':
			j++
		case s[j] == quote:
			return j + 1, true
		}
	}
	return len(s), false
}

// readHeredocDelimiter reads the delimiter after `<<` (at i, an optional
// `-` first, then blanks): the heredoc and the index after the delimiter;
// read is false when the delimiter is not one shell word. A quote or
// backslash anywhere in it makes the body literal.
func readHeredocDelimiter(s string, i int) (heredocSpec, int, bool) {
	var h heredocSpec
	if i < len(s) && s[i] == '-' {
		h.stripTabs = true
		i++
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	start := i
	var quote byte
	for i < len(s) {
		c := s[i]
		if quote == 0 && strings.IndexByte(" \t\n;|&<>", c) >= 0 {
			break
		}
		switch {
		case c == '\\' && quote != '\'':
			h.quoted = true
			i = min(i+2, len(s))
			continue
		case c == quote:
			quote = 0
		case quote == 0 && (c == '\'' || c == '"'):
			h.quoted, quote = true, c
		}
		i++
	}
	words, ok := shlexSplit(s[start:i])
	if !ok || len(words) != 1 {
		return h, i, false
	}
	h.delimiter = words[0]
	return h, i, true
}

// readHeredocBody reads one body starting at i up to its delimiter line:
// the body, the index after the delimiter line, and whether there was one.
func readHeredocBody(s string, i int, h heredocSpec) (string, int, bool) {
	var body strings.Builder
	for i < len(s) {
		line, next := cutLine(s, i)
		i = next
		// An unquoted heredoc joins escaped newlines before looking for
		// its delimiter (`E\` + `OF` ends `EOF`).
		for !h.quoted && trailingBackslashes(line)%2 == 1 && i < len(s) {
			var more string
			more, i = cutLine(s, i)
			line = line[:len(line)-1] + more
		}
		if h.stripTabs {
			line = strings.TrimLeft(line, "\t")
		}
		if line == h.delimiter {
			return body.String(), i, true
		}
		body.WriteString(line)
		body.WriteByte('\n')
	}
	return body.String(), i, false
}

// cutLine is the text from i to the next newline and the index after it.
func cutLine(s string, i int) (string, int) {
	end := strings.IndexByte(s[i:], '\n')
	if end < 0 {
		return s[i:], len(s)
	}
	return s[i : i+end], i + end + 1
}

// shellReadsStdin reports a command in text whose command word, after
// assignments and wrappers, is a shell or source: a heredoc feeding it is
// its script.
func shellReadsStdin(text string) bool {
	commands, _ := tokenize(text)
	return slices.ContainsFunc(commands, readsStdinAsScript)
}

// readsStdinAsScript reports a command (tokenize's words) whose command
// word, after assignments and wrappers, is a shell or source.
func readsStdinAsScript(words []string) bool {
	if rest := stripWrappers(words); len(rest) > 0 {
		if name := commandName(rest[0]); shellNames[name] || name == "source" || name == "." {
			return true
		}
	}
	return false
}

// stdinScan answers shellReadsStdin(command[:b]) for increasing b in one
// pass of the tokenizer over command, where asking each prefix anew is
// quadratic (4,096 here-documents took seconds). It is exact: the
// tokenizer's top-level steps look at most one byte past what they take
// (peek(1)), and b always follows a newline, so where the pass over the
// whole command has a step boundary at b, the steps before it are those
// of tokenize(command[:b]) byte for byte, whose commands are then the
// ones ended so far and the one under way (its endCommand at the end of
// the text). Where one step spans b (a quote, substitution or backquote
// open across the line), the prefix is tokenized from that step's start
// with the state before it: the same steps, then one reading to the end.
// stdinscan_test.go compares it with shellReadsStdin on every prefix.
type stdinScan struct {
	t tokenizer
	// seen: a command ended before t.i reads stdin as its script.
	seen bool
	// The state before the step last taken, for when it spans b: where
	// it began, the words and word under way (the builder only grows, so
	// its text so far stays as it was), and seen.
	from       int
	words      []string
	word       string
	started    bool
	seenBefore bool
}

func newStdinScan(command string) *stdinScan {
	return &stdinScan{t: tokenizer{src: command}}
}

// shellReadsBefore is shellReadsStdin(command[:b]); b may not decrease
// from one call to the next.
func (s *stdinScan) shellReadsBefore(b int) bool {
	t := &s.t
	for t.i < b {
		s.from, s.words, s.word, s.started, s.seenBefore = t.i, t.words, t.word.String(), t.started, s.seen
		t.step()
		s.take()
	}
	if t.i == b {
		return s.seen || readsStdinAsScript(pendingCommand(t.words, t.word.String(), t.started))
	}
	// The step from s.from reads past b: take it again on the prefix.
	if s.seenBefore {
		return true
	}
	p := tokenizer{src: t.src[:b], i: s.from, started: s.started, words: slices.Clone(s.words)}
	p.word.WriteString(s.word)
	p.run()
	return slices.ContainsFunc(p.commands, readsStdinAsScript)
}

// take notes the commands the last step ended and forgets them.
func (s *stdinScan) take() {
	if !s.seen && slices.ContainsFunc(s.t.commands, readsStdinAsScript) {
		s.seen = true
	}
	s.t.commands, s.t.nested = s.t.commands[:0], s.t.nested[:0]
}

// pendingCommand is the command endCommand would end with words and the
// word under way (when started): its words without group braces.
func pendingCommand(words []string, word string, started bool) []string {
	var command []string
	for _, w := range words {
		if w != "{" && w != "}" {
			command = append(command, w)
		}
	}
	if started && word != "{" && word != "}" {
		command = append(command, word)
	}
	return command
}
