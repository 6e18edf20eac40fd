package shell

import "strings"

// tokenizer cuts one body of shell text into commands of words, the way the
// expander needs it (docs/codewhale/execpolicy.md §3.2). Every character it treats
// specially is ASCII and UTF-8 never reuses ASCII bytes inside a multi-byte
// character, so walking bytes is the same as walking Unicode scalar values
// and keeps the text byte-exact.
type tokenizer struct {
	src      string
	i        int
	word     strings.Builder
	started  bool // a quote opened the word, so `''` still yields a (empty) word
	words    []string
	commands [][]string
	nested   []string // substitution bodies, expanded one level deeper

	// With patterns set, each word is also written, in parallel, as the
	// pattern the shell will expand (Pattern): patternWords lines up
	// with words, patternCommands with commands.
	patterns        bool
	pattern         strings.Builder
	patternWords    []string
	patternCommands [][]string
}

// tokenize returns the commands of src in order and the bodies of every
// substitution in discovery order.
func tokenize(src string) (commands [][]string, nested []string) {
	t := &tokenizer{src: src}
	t.run()
	return t.commands, t.nested
}

// tokenizePatterns is tokenize that also returns each command's words as
// patterns (Pattern), aligned with commands.
func tokenizePatterns(src string) (commands, patterns [][]string, nested []string) {
	t := &tokenizer{src: src, patterns: true}
	t.run()
	return t.commands, t.patternCommands, t.nested
}

func (t *tokenizer) run() {
	for t.i < len(t.src) {
		t.step()
	}
	t.endCommand()
}

// active writes c to the pattern as the shell will read it: unquoted, so a
// glob, brace, tilde or `$` in it keeps its meaning.
func (t *tokenizer) active(c byte) {
	if t.patterns {
		t.pattern.WriteByte(c)
	}
}

// activeString is active for a run of bytes.
func (t *tokenizer) activeString(s string) {
	if t.patterns {
		t.pattern.WriteString(s)
	}
}

// quoted writes c to the pattern as a literal byte (PatternEscape).
func (t *tokenizer) quoted(c byte) {
	if t.patterns {
		if PatternSpecial(c) {
			t.pattern.WriteByte('\\')
		}
		t.pattern.WriteByte(c)
	}
}

func (t *tokenizer) peek(offset int) byte {
	if j := t.i + offset; j < len(t.src) {
		return t.src[j]
	}
	return 0
}

func (t *tokenizer) step() {
	switch c := t.src[t.i]; c {
	case '\\':
		t.escape()
	case '\'':
		t.i++
		t.singleQuoted()
	case '"':
		t.i++
		t.doubleQuoted()
	case '`':
		t.i++
		t.nested = append(t.nested, t.backtickBody())
		t.activeString(PatternUnknown)
	case '$':
		t.dollar()
	case '<', '>':
		if t.peek(1) == '(' {
			t.i += 2
			t.nested = append(t.nested, t.balancedBody('(', ')'))
			return
		}
		t.literal(c)
	case ' ', '\t':
		t.endWord()
		t.i++
	case '(', ')', '\n', '\r', ';', '&', '|':
		// A run of separators only ends empty commands, which are dropped,
		// so `&&`, `||`, `;;` and `|&` collapse into one break.
		t.endCommand()
		t.i++
	default:
		t.literal(c)
	}
}

func (t *tokenizer) literal(c byte) {
	t.word.WriteByte(c)
	t.active(c)
	t.started = true
	t.i++
}

// escape handles `\x` outside quotes: a literal x, nothing for a line
// continuation, nothing for a trailing lone backslash.
func (t *tokenizer) escape() {
	switch {
	case t.i+1 >= len(t.src):
		t.i++
	case t.src[t.i+1] == '\n':
		t.i += 2
	default:
		t.word.WriteByte(t.src[t.i+1])
		t.quoted(t.src[t.i+1])
		t.started = true
		t.i += 2
	}
}

func (t *tokenizer) singleQuoted() {
	t.started = true
	end := strings.IndexByte(t.src[t.i:], '\'')
	if end < 0 {
		end = len(t.src) - t.i
	}
	for _, c := range []byte(t.src[t.i : t.i+end]) {
		t.quoted(c)
	}
	t.word.WriteString(t.src[t.i : t.i+end])
	t.i = min(t.i+end+1, len(t.src))
}

// doubleQuoted reads up to the closing quote: no word splitting, `\x` is x,
// and substitution bodies are recorded without adding text to the word.
func (t *tokenizer) doubleQuoted() {
	t.started = true
	for t.i < len(t.src) {
		switch c := t.src[t.i]; {
		case c == '"':
			t.i++
			return
		case c == '\\':
			if t.i+1 < len(t.src) {
				t.word.WriteByte(t.src[t.i+1])
				t.quoted(t.src[t.i+1])
			}
			t.i += 2
		case c == '`':
			t.i++
			t.nested = append(t.nested, t.backtickBody())
			t.activeString(PatternUnknown)
		case c == '$' && (t.peek(1) == '(' || t.peek(1) == '{'):
			t.substitution()
		case c == '$':
			// A parameter still expands between double quotes.
			t.word.WriteByte(c)
			t.active(c)
			t.i++
		default:
			t.word.WriteByte(c)
			t.quoted(c)
			t.i++
		}
	}
}

// dollar handles `$'…'`, `$(…)` and `${…}`; any other `$` is literal.
func (t *tokenizer) dollar() {
	switch t.peek(1) {
	case '\'':
		t.i += 2
		t.ansiQuoted()
	case '(', '{':
		t.substitution()
	default:
		t.literal('$')
	}
}

// substitution records the body of `$(…)` or `${…}` starting at t.i.
func (t *tokenizer) substitution() {
	open := t.src[t.i+1]
	closer := byte(')')
	if open == '{' {
		closer = '}'
	}
	t.i += 2
	body := t.balancedBody(open, closer)
	t.nested = append(t.nested, body)
	if open == '{' {
		t.activeString("${" + body + "}")
	} else {
		t.activeString(PatternUnknown)
	}
}

// ansiQuoted reads `$'…'` literally except that `\x` is x; C escapes are
// not decoded.
func (t *tokenizer) ansiQuoted() {
	t.started = true
	for t.i < len(t.src) {
		c := t.src[t.i]
		switch c {
		case '\'':
			t.i++
			return
		case '\\':
			if t.i+1 < len(t.src) {
				t.word.WriteByte(t.src[t.i+1])
				t.quoted(t.src[t.i+1])
			}
			t.i += 2
		default:
			t.word.WriteByte(c)
			t.quoted(c)
			t.i++
		}
	}
}

// backtickBody reads to the closing backtick, keeping backslash pairs
// verbatim; an unterminated body runs to the end.
func (t *tokenizer) backtickBody() string {
	start := t.i
	for t.i < len(t.src) {
		switch t.src[t.i] {
		case '\\':
			t.i += 2
		case '`':
			body := t.src[start:t.i]
			t.i++
			return body
		default:
			t.i++
		}
	}
	t.i = len(t.src)
	return t.src[start:]
}

// balancedBody reads to the bracket closing an already consumed one,
// counting only that bracket type, skipping backslash pairs and ignoring
// quotes.
func (t *tokenizer) balancedBody(open, closer byte) string {
	start, depth := t.i, 1
	for t.i < len(t.src) {
		switch t.src[t.i] {
		case '\\':
			t.i += 2
			continue
		case open:
			depth++
		case closer:
			if depth--; depth == 0 {
				body := t.src[start:t.i]
				t.i++
				return body
			}
		}
		t.i++
	}
	t.i = len(t.src)
	return t.src[start:]
}

func (t *tokenizer) endWord() {
	if t.started {
		t.words = append(t.words, t.word.String())
		if t.patterns {
			t.patternWords = append(t.patternWords, t.pattern.String())
		}
	}
	t.word.Reset()
	t.pattern.Reset()
	t.started = false
}

// endCommand finishes the current command; standalone `{` and `}` (group
// braces) are not part of it.
func (t *tokenizer) endCommand() {
	t.endWord()
	words := t.words[:0]
	var patterns []string
	for i, w := range t.words {
		if w != "{" && w != "}" {
			words = append(words, w)
			if t.patterns {
				patterns = append(patterns, t.patternWords[i])
			}
		}
	}
	if len(words) > 0 {
		t.commands = append(t.commands, words)
		if t.patterns {
			t.patternCommands = append(t.patternCommands, patterns)
		}
	}
	t.words = nil
	t.patternWords = nil
}
