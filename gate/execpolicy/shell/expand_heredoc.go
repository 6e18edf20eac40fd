package shell

import "strings"

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
			shellReads := shellReadsStdin(command[:i])
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
	for _, words := range commands {
		if rest := stripWrappers(words); len(rest) > 0 {
			if name := commandName(rest[0]); shellNames[name] || name == "source" || name == "." {
				return true
			}
		}
	}
	return false
}
