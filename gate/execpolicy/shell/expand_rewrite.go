package shell

import (
	"slices"
	"strings"
	"unicode"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
)

// The 0.10.1 expander (docs/codewhale/releases/0.10.1.md A.3.2, N9, and
// A.2.2 for what makes a command dynamic): each simple command is read the
// way a POSIX shell word-splits it, with redirections, heredocs, wrappers by
// their option grammar and every code string another command runs, and the
// result says what could not be resolved statically.

// maxHeadStates bounds the wrapper walk; running out makes the command
// dynamic.
const maxHeadStates = 512

// rewriteExpander collects 0.10.1's expansion of one command.
type rewriteExpander struct {
	Expansion
	seen map[string]bool
}

// expandRewrite is 0.10.1's expander; PrefixGrantEligible is left false.
// A plain command is its own one line, with no flag set.
func expandRewrite(command string) Expansion {
	if isPlainRewrite(command) {
		return Expansion{Commands: []string{command}}
	}
	return expandRewriteGeneral(command)
}

// expandRewriteGeneral is expandRewrite without its plain fast path.
func expandRewriteGeneral(command string) Expansion {
	x := &rewriteExpander{seen: map[string]bool{}}
	x.expand(command, 0)
	return x.Expansion
}

// emit records one command line: its non-empty words joined by spaces, once.
// A line dropped at the cap was never checked, so the command is dynamic.
func (x *rewriteExpander) emit(words []string) { x.emitLine(joinWords(words)) }

// emitLine records one line, joined already.
func (x *rewriteExpander) emitLine(line string) {
	if line == "" || x.seen[line] {
		return
	}
	if len(x.Commands) >= maxLines {
		x.Dynamic = true
		return
	}
	x.seen[line] = true
	x.Commands = append(x.Commands, line)
}

// simpleCommand is one command of the input: its words, which of them are
// known only at run time, and whether a heredoc feeds its stdin.
type simpleCommand struct {
	words   []string
	dynamic []bool
	heredoc bool
}

// pendingWord is the word being read and what the reader learnt about it.
type pendingWord struct {
	text            strings.Builder
	started         bool
	quoted          bool
	redirectOperand bool // the word is a redirection's target: dropped
	dynamic         bool
	brace           bool // an unquoted `{` appeared
	bracket         bool // an unquoted `[` appeared
}

// flush ends the word. `[` alone is the test builtin and `{}` a find
// placeholder: only a closed bracket or a brace list expands.
func (w *pendingWord) flush(c *simpleCommand) {
	if w.started || w.text.Len() > 0 || w.dynamic {
		if w.redirectOperand {
			w.text.Reset()
			w.redirectOperand = false
		} else {
			text := w.text.String()
			dynamic := w.dynamic ||
				(w.bracket && len(text) > 1 && strings.Contains(text, "]")) ||
				(w.brace && (strings.Contains(text, ",") || strings.Contains(text, "..")))
			c.words = append(c.words, text)
			c.dynamic = append(c.dynamic, dynamic)
			w.text.Reset()
		}
		w.started = false
	}
	w.quoted, w.dynamic, w.brace, w.bracket = false, false, false, false
}

// clearDescriptor drops an IO number (`2>`) read as the word before a
// redirection operator.
func (w *pendingWord) clearDescriptor() {
	if !w.quoted && isRedirectDescriptor(w.text.String()) {
		w.text.Reset()
		w.started = false
	}
}

// heredocSpec is a heredoc waiting for the end of its line.
type heredocSpec struct {
	delimiter string
	quoted    bool // a quoted or escaped delimiter: the body is literal
	stripTabs bool // `<<-`
}

// rewriteScan is the state of one pass over one body of shell text.
type rewriteScan struct {
	x        *rewriteExpander
	src      string
	i        int
	commands []simpleCommand
	current  simpleCommand
	word     pendingWord
	nested   []string
	heredocs []heredocSpec
	// shellStdin: one of commands[:headsRead] has a shell or source as a
	// command head, so a heredoc after it is read as code; kept across
	// lines since commands only grow (4,096 heredoc lines read every
	// command again each: seconds).
	shellStdin bool
	headsRead  int
	// uncertain: the text does not parse cleanly (an unterminated quote,
	// substitution or heredoc, a `case` inside a substitution), so where
	// this reader ends a region may not be where the shell does.
	uncertain bool
}

func (x *rewriteExpander) expand(input string, depth int) {
	if depth > maxDepth || len(x.Commands) >= maxLines {
		x.Dynamic = true // unexamined code is unresolved code
		return
	}
	if depth > 0 && strings.TrimSpace(input) != "" {
		x.Nested = true
	}
	// ANSI-C and localized quoting and carriage returns are beyond the
	// reader: the naive segments are extra candidates, so that a misread
	// heredoc delimiter cannot hide the lines after it.
	if strings.ContainsRune(input, '\r') || strings.Contains(input, "$'") || strings.Contains(input, `$"`) {
		for _, segment := range Segments(input) {
			x.emit([]string{segment})
		}
	}
	s := &rewriteScan{x: x, src: input}
	for s.i < len(s.src) {
		s.step()
	}
	s.word.flush(&s.current)
	s.endCommand()
	x.Dynamic = x.Dynamic || s.uncertain
	for i := range s.commands {
		x.record(&s.commands[i], depth)
	}
	for _, body := range s.nested {
		x.expand(body, depth+1)
	}
}

func (s *rewriteScan) at(j int) byte {
	if j < len(s.src) {
		return s.src[j]
	}
	return 0
}

func (s *rewriteScan) step() {
	c := s.src[s.i]
	next := s.at(s.i + 1)
	switch {
	case c == '#' && !s.word.started && s.word.text.Len() == 0:
		for s.i < len(s.src) && s.src[s.i] != '\n' {
			s.i++
		}
	case c == '\\':
		// One escaped character, operators included (`echo a\;b` is one
		// word); backslash-newline continues the line.
		if s.i+1 < len(s.src) {
			if next != '\n' {
				s.word.text.WriteByte(next)
				s.word.started, s.word.quoted = true, true
			}
			s.i += 2
		} else {
			s.i++
		}
	case c == '\'':
		s.word.started, s.word.quoted = true, true
		end := strings.IndexByte(s.src[s.i+1:], '\'')
		if end < 0 {
			s.word.text.WriteString(s.src[s.i+1:])
			s.uncertain = true
			s.i = len(s.src)
			return
		}
		s.word.text.WriteString(s.src[s.i+1 : s.i+1+end])
		s.i += end + 2
	case c == '"':
		s.doubleQuoted()
	case c == '$' && next == '\'':
		s.ansiQuoted()
	case c == '`':
		s.word.started = s.word.started || s.word.redirectOperand
		s.word.dynamic = true
		body, end, certain := readBacktick(s.src, s.i)
		s.nestBody(body, end, certain)
	case (c == '$' || c == '<' || c == '>') && (next == '(' || c == '$' && next == '{'):
		s.word.started = s.word.started || s.word.redirectOperand
		s.word.dynamic = true
		body, end, certain := readRegion(s.src, s.i+1)
		s.nestBody(body, end, certain)
	case c == '<' && next == '<' && s.at(s.i+2) != '<':
		s.heredocOperator()
	case (c == '<' || c == '>' || c == '&') && redirectionLen(s.src[s.i:]) > 0:
		s.x.Redirects = true
		s.word.clearDescriptor()
		s.word.flush(&s.current)
		s.word.redirectOperand = true
		s.i += redirectionLen(s.src[s.i:])
	case c == ' ' || c == '\t':
		s.word.flush(&s.current)
		s.i++
	case c == '(' || c == ')':
		// `$(`, `<(` and `>(` were taken above: a bare paren groups.
		s.x.Control = true
		s.word.flush(&s.current)
		s.endCommand()
		s.word.redirectOperand = false
		if c == '(' && next == '(' {
			// `(( … ))` is arithmetic, where `<<` shifts; its body is
			// rescanned on its own, so a heredoc it seems to open cannot
			// swallow the lines after it.
			body, end, certain := readRegion(s.src, s.i)
			s.nestBody(body, end, certain)
			return
		}
		s.i++
	case c == '\n' || c == '\r' || c == ';' || c == '&' || c == '|':
		s.x.Control = true
		s.word.flush(&s.current)
		s.endCommand()
		s.word.redirectOperand = false
		s.i++
		if c == '\n' && len(s.heredocs) > 0 {
			s.readHeredocBodies()
		}
	default:
		switch {
		case c == '$' && startsParameter(next):
			s.word.dynamic = true
		case c == '*' || c == '?':
			s.word.dynamic = true
		case c == '[':
			s.word.bracket = true
		case c == '{':
			s.word.brace = true
		}
		s.word.text.WriteByte(c)
		s.word.started = true
		s.i++
	}
}

func (s *rewriteScan) nestBody(body string, end int, certain bool) {
	s.uncertain = s.uncertain || !certain
	s.nested = append(s.nested, body)
	s.i = end
}

// doubleQuoted reads `"…"`: no word splitting, but substitutions run and
// parameters expand.
func (s *rewriteScan) doubleQuoted() {
	s.word.started, s.word.quoted = true, true
	s.i++
	for s.i < len(s.src) && s.src[s.i] != '"' {
		c := s.src[s.i]
		next := s.at(s.i + 1)
		switch {
		case c == '\\' && s.i+1 < len(s.src):
			s.word.text.WriteByte(next)
			s.i += 2
		case c == '`':
			s.word.dynamic = true
			body, end, certain := readBacktick(s.src, s.i)
			s.nestBody(body, end, certain)
		case c == '$' && (next == '(' || next == '{'):
			s.word.dynamic = true
			body, end, certain := readRegion(s.src, s.i+1)
			s.nestBody(body, end, certain)
		default:
			if c == '$' && startsParameter(next) {
				s.word.dynamic = true
			}
			s.word.text.WriteByte(c)
			s.i++
		}
	}
	s.closeQuote()
}

// closeQuote steps over a closing quote, noting an unterminated one.
func (s *rewriteScan) closeQuote() {
	if s.i >= len(s.src) {
		s.uncertain = true
		return
	}
	s.i++
}

// ansiQuoted reads `$'…'`; its C escapes are not decoded, so a word using
// one is known only at run time (`$'\x72m'` is `rm`).
func (s *rewriteScan) ansiQuoted() {
	s.word.started, s.word.quoted = true, true
	s.i += 2
	for s.i < len(s.src) && s.src[s.i] != '\'' {
		if s.src[s.i] == '\\' && s.i+1 < len(s.src) {
			s.word.dynamic = true
			s.word.text.WriteByte(s.src[s.i+1])
			s.i += 2
			continue
		}
		s.word.text.WriteByte(s.src[s.i])
		s.i++
	}
	s.closeQuote()
}

// heredocOperator reads `<<` or `<<-` and its delimiter word; the body is
// read at the end of the line.
func (s *rewriteScan) heredocOperator() {
	s.x.Redirects = true
	s.word.clearDescriptor()
	s.word.flush(&s.current)
	s.current.heredoc = true
	h, end, ok := readHeredocDelimiter(s.src, s.i+2)
	s.i = end
	if ok {
		s.heredocs = append(s.heredocs, h)
	}
}

// readHeredocBodies reads the bodies of the line's heredocs, after its
// newline. A body fed to a shell (or source) is its script; an unquoted
// body's substitutions run; anything else is data.
func (s *rewriteScan) readHeredocBodies() {
	for _, c := range s.commands[s.headsRead:] {
		for _, head := range commandHeads(c.words).heads {
			name := commandName(c.words[head])
			s.shellStdin = s.shellStdin || shellNames[name] || name == "source" || name == "."
		}
	}
	s.headsRead = len(s.commands)
	shellStdin := s.shellStdin
	for _, h := range s.heredocs {
		body, end, terminated := readHeredocBody(s.src, s.i, h)
		s.i = end
		// A body running to the end may be a misread `<<`.
		s.uncertain = s.uncertain || !terminated
		switch {
		case shellStdin:
			s.nested = append(s.nested, body)
		case !h.quoted:
			bodies, certain := heredocSubstitutions(body)
			s.uncertain = s.uncertain || !certain
			s.nested = append(s.nested, bodies...)
		}
	}
	s.heredocs = s.heredocs[:0]
}

func trailingBackslashes(s string) int {
	return len(s) - len(strings.TrimRight(s, `\`))
}

// endCommand closes the current simple command. Standalone `{` and `}`
// split it (`function f { rm x; }` runs `rm x`), and leading reserved words
// are dropped so the word after them is read as the command word.
func (s *rewriteScan) endCommand() {
	line := s.current
	s.current = simpleCommand{}
	piece := simpleCommand{heredoc: line.heredoc}
	push := func() {
		if len(piece.words) > 0 {
			s.commands = append(s.commands, piece)
			piece = simpleCommand{heredoc: line.heredoc}
		}
	}
	for k, w := range line.words {
		switch {
		case w == "{" || w == "}":
			push()
		case len(piece.words) == 0 && reservedLeaders[w]:
		default:
			piece.words = append(piece.words, w)
			piece.dynamic = append(piece.dynamic, line.dynamic[k])
		}
	}
	push()
}

// startsParameter reports whether `$` followed by next expands a parameter
// (`$v`, `$1`, `$@`, `$"…"`) rather than being a literal dollar.
func startsParameter(next byte) bool {
	return '0' <= next && next <= '9' || 'a' <= next && next <= 'z' || 'A' <= next && next <= 'Z' ||
		strings.IndexByte(`_@*#?$!-"`, next) >= 0
}

// heredocSubstitutions lists the command substitutions of an unquoted
// heredoc body (quotes and ordinary lines are data), and whether each was
// read with certainty.
func heredocSubstitutions(body string) ([]string, bool) {
	var bodies []string
	certain := true
	for i := 0; i < len(body); {
		switch c := body[i]; {
		case c == '\\' && i+1 < len(body) && strings.IndexByte("$`\\\n", body[i+1]) >= 0:
			i += 2
		case c == '`':
			inner, end, ok := readBacktick(body, i)
			bodies, certain, i = append(bodies, inner), certain && ok, end
		case c == '$' && i+1 < len(body) && body[i+1] == '(':
			inner, end, ok := readRegion(body, i+1)
			bodies, certain, i = append(bodies, inner), certain && ok, end
		default:
			i++
		}
	}
	return bodies, certain
}

// redirectionLen is the length of the redirection operator opening s, or 0.
func redirectionLen(s string) int {
	switch {
	case strings.HasPrefix(s, "&>>"), strings.HasPrefix(s, "<<<"), strings.HasPrefix(s, "<<-"):
		return 3
	case strings.HasPrefix(s, "&>"), strings.HasPrefix(s, "<<"), strings.HasPrefix(s, "<>"), strings.HasPrefix(s, "<&"),
		strings.HasPrefix(s, ">>"), strings.HasPrefix(s, ">&"), strings.HasPrefix(s, ">|"):
		return 2
	case strings.HasPrefix(s, "<"), strings.HasPrefix(s, ">"):
		return 1
	}
	return 0
}

// isRedirectDescriptor reports an IO number (`2`) or bash's `{name}` form.
func isRedirectDescriptor(word string) bool {
	if word != "" && strings.Trim(word, "0123456789") == "" {
		return true
	}
	name, ok := strings.CutPrefix(word, "{")
	if !ok {
		return false
	}
	if name, ok = strings.CutSuffix(name, "}"); !ok || name == "" {
		return false
	}
	if c := name[0]; !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
		return false
	}
	return isAssignment(name + "=")
}

// readBacktick reads a backtick substitution opening at start: its body,
// the index after the closing backtick and whether there was one.
func readBacktick(src string, start int) (string, int, bool) {
	var inner strings.Builder
	i := start + 1
	for i < len(src) {
		switch c := src[i]; {
		case c == '\\' && i+1 < len(src):
			inner.WriteString(src[i : i+2])
			i += 2
		case c == '`':
			return inner.String(), i + 1, true
		default:
			inner.WriteByte(c)
			i++
		}
	}
	return inner.String(), i, false
}

// readRegion reads a `( … )` or `{ … }` region whose opening bracket is at
// open: its body, the index after the matching close, and whether it was
// read with certainty. Quotes, escapes, backticks and nested `$(`/`${` are
// skipped as the shell skips them; a `case` inside `( … )` is uncertain
// (its `pattern)` closes no paren), and so is an unterminated region.
func readRegion(src string, open int) (string, int, bool) {
	opener, closer := byte('('), byte(')')
	if src[open] == '{' {
		opener, closer = '{', '}'
	}
	start, depth, certain := open+1, 1, true
	n := len(src)
	for i := start; i < n; {
		switch c := src[i]; {
		case c == '\\':
			i += 2
		case c == '\'':
			end := strings.IndexByte(src[i+1:], '\'')
			if end < 0 {
				return src[start:], n, false
			}
			i += end + 2
		case c == '"':
			i++
			for i < n && src[i] != '"' {
				switch {
				case src[i] == '\\':
					i += 2
				case src[i] == '`':
					_, next, ok := readBacktick(src, i)
					certain, i = certain && ok, next
				case src[i] == '$' && i+1 < n && (src[i+1] == '(' || src[i+1] == '{'):
					_, next, ok := readRegion(src, i+1)
					certain, i = certain && ok, next
				default:
					i++
				}
			}
			certain = certain && i < n
			i++
		case c == '`':
			_, next, ok := readBacktick(src, i)
			certain, i = certain && ok, next
		case c == '$' && i+1 < n && (src[i+1] == '(' || src[i+1] == '{'):
			_, next, ok := readRegion(src, i+1)
			certain, i = certain && ok, next
		case c == closer:
			if depth--; depth == 0 {
				return src[start:i], i + 1, certain
			}
			i++
		default:
			if c == opener {
				depth++
			} else if opener == '(' && opensCase(src, start, i) {
				certain = false
			}
			i++
		}
	}
	return src[start:], n, false
}

// opensCase reports a `case` word at i, at the start of a command.
func opensCase(src string, start, i int) bool {
	if !strings.HasPrefix(src[i:], "case") {
		return false
	}
	if j := i + 4; j < len(src) && !isSpaceByteAt(src, j) {
		return false
	}
	return i == start || strings.IndexByte(" \t\n;&|(!", src[i-1]) >= 0
}

// isSpaceByteAt reports Unicode whitespace starting at src[j].
func isSpaceByteAt(src string, j int) bool {
	return strings.TrimLeftFunc(src[j:], unicode.IsSpace) != src[j:]
}

// record emits one simple command and what its wrappers run, expands the
// code strings it hands to other commands, and notes what is dynamic.
func (x *rewriteExpander) record(c *simpleCommand, depth int) {
	words := c.words
	if len(words) == 0 {
		return
	}
	if depth > maxDepth {
		x.Dynamic = true
		return
	}
	// The lines from each head are suffixes of the whole command's:
	// slices of one join, not a join each (half a million wrappers made
	// 512 copies of a megabyte).
	joined := newSuffixJoin(words)
	x.emitLine(joined.from(0))
	heads := commandHeads(words)
	x.Dynamic = x.Dynamic || heads.truncated
	for _, payload := range heads.splitPayloads {
		x.expand(payload, depth+1) // `env -S 'cmd args'`
	}
	dynamic := slices.Clone(c.dynamic)
	markReplacementOperands(words, heads.heads, dynamic)
	for _, head := range heads.heads {
		if head > 0 {
			x.emitLine(joined.from(head))
		}
		// A wrapper's options stay in front of what it runs too, so a deny
		// rule can skip them as flags if the grammar misread one.
		if _, ok := wrapperGrammars[commandName(words[head])]; ok && slices.ContainsFunc(heads.heads, func(inner int) bool { return inner > head }) {
			x.emitLine(joined.from(head + 1))
		}
		for k := 0; k <= head; k++ {
			if dynamic[k] && !isAssignment(words[k]) {
				x.Dynamic = true
			}
		}
		argsDynamic := slices.Contains(dynamic[head+1:], true)
		x.ArgumentsDynamic = x.ArgumentsDynamic || argsDynamic
		x.recordPayloads(c, heads.heads, head, dynamic, argsDynamic, depth)
	}
}

// recordPayloads expands the code the command at head runs as a string.
func (x *rewriteExpander) recordPayloads(c *simpleCommand, heads []int, head int, dynamic []bool, argsDynamic bool, depth int) {
	words := c.words
	name := commandName(words[head])
	if !codeRunners[name] && !shellNames[name] {
		return
	}
	switch {
	case name == "eval":
		x.codePayload(strings.Join(words[head+1:], " "), argsDynamic, depth)
	case name == "source" || name == ".":
		switch {
		case head+1 >= len(words):
			x.Dynamic = x.Dynamic || !c.heredoc
		case dynamic[head+1]:
			x.Dynamic = true
		default:
			x.Dynamic = x.Dynamic || scriptReadAtRunTime(words[head+1], c.heredoc)
		}
	case name == "find":
		x.recordFindExec(c, head, depth)
	case name == "trap":
		// `trap 'code' SIGNAL…` runs its first operand later.
		for at := head + 1; at < len(words); at++ {
			if !strings.HasPrefix(words[at], "-") {
				x.codePayload(words[at], dynamic[at], depth)
				break
			}
		}
	case name == "su" || name == "runuser" || name == "flock" || name == "script":
		for _, p := range commandOptionPayloads(words, head, dynamic) {
			x.codePayload(p.text, p.dynamic, depth)
		}
	case name == "watch" || name == "sg":
		// Both join their operands and hand them to `sh -c`.
		for _, inner := range heads {
			if inner > head {
				x.codePayload(strings.Join(words[inner:], " "), slices.Contains(dynamic[inner:], true), depth)
			}
		}
	case name == "cmd":
		// cmd.exe expands `%VAR%` and `!VAR!` and strips `^` itself.
		for at := head + 1; at < len(words); at++ {
			if switchName := ascii.Lower(words[at]); switchName == "/c" || switchName == "/k" || switchName == "/r" {
				payload := strings.Join(words[at+1:], " ")
				x.codePayload(payload, slices.Contains(dynamic[at+1:], true) || strings.ContainsAny(payload, "%!^"), depth)
				break
			}
		}
	case name == "powershell" || name == "pwsh":
		x.recordPowershell(words, head, dynamic, depth)
	case shellNames[name]:
		input := readShellInput(words[head:])
		switch {
		case input.commands != nil:
			for _, offset := range input.commands {
				x.codePayload(words[head+offset], dynamic[head+offset], depth)
			}
		case input.script > 0:
			x.Dynamic = x.Dynamic || dynamic[head+input.script] || scriptReadAtRunTime(words[head+input.script], c.heredoc)
		default:
			// A heredoc body was already expanded as the script; any other
			// stdin is known only at run time.
			x.Dynamic = x.Dynamic || !c.heredoc
		}
	}
}

// codeRunners are the commands (besides the shells) whose arguments
// recordPayloads reads as code or scripts.
var codeRunners = map[string]bool{
	"eval": true, "source": true, ".": true, "find": true, "trap": true, "su": true, "runuser": true,
	"flock": true, "script": true, "watch": true, "sg": true, "cmd": true, "powershell": true, "pwsh": true,
}

// isPlainRewrite reports a command the 0.10.1 expander reads as one simple
// command of literal words and nothing else: words of plain bytes
// separated by single spaces, whose first word is no assignment, reserved
// word, wrapper, shell or other code runner (so it is the only head and
// runs no payload).
func isPlainRewrite(command string) bool {
	if command == "" || command[0] == ' ' || command[len(command)-1] == ' ' || strings.Contains(command, "  ") {
		return false
	}
	for i := 0; i < len(command); i++ {
		if !isPlainWordByte(command[i]) && command[i] != ' ' {
			return false
		}
	}
	first, _, _ := strings.Cut(command, " ")
	name := commandName(first)
	_, wrapper := wrapperGrammars[name]
	return !wrapper && !isAssignment(first) && !reservedLeaders[first] && !codeRunners[name] && !shellNames[name]
}

// isPlainWordByte reports an ASCII letter, digit or one of -_./,:=+@%^~:
// none quotes, expands, globs, redirects, comments or separates.
func isPlainWordByte(c byte) bool { return plainWordBytes[c] }

// plainWordBytes is isPlainWordByte's table, since every byte of every
// 0.10.1 command is looked up in it.
var plainWordBytes = func() (table [256]bool) {
	for c := range 256 {
		table[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_./,:=+@%^~", byte(c)) >= 0
	}
	return table
}()

// codePayload expands code handed to another command as a string.
func (x *rewriteExpander) codePayload(payload string, dynamic bool, depth int) {
	x.Dynamic = x.Dynamic || dynamic
	x.expand(payload, depth+1)
}

// recordPowershell: `-Command` (or any prefix of it) takes the rest of the
// line as code, `-EncodedCommand` cannot be read, `-File` is an opaque
// script, and a first bare operand starts code too.
func (x *rewriteExpander) recordPowershell(words []string, head int, dynamic []bool, depth int) {
	rest := func(at int) (string, bool) {
		return strings.Join(words[at:], " "), slices.Contains(dynamic[at:], true)
	}
	positionalSeen := false
	for at := head + 1; at < len(words); at++ {
		w := words[at]
		if w == "" || (w[0] != '-' && w[0] != '/') {
			if !positionalSeen {
				positionalSeen = true
				payload, payloadDynamic := rest(at)
				x.codePayload(payload, payloadDynamic, depth)
			}
			continue
		}
		option := ascii.Lower(w[1:])
		switch {
		case option == "":
		case strings.HasPrefix("command", option):
			if at+1 >= len(words) || words[at+1] == "-" {
				x.Dynamic = true // the code arrives on stdin
			} else {
				payload, payloadDynamic := rest(at + 1)
				x.codePayload(payload, payloadDynamic, depth)
			}
			return
		case option == "ec" || strings.HasPrefix("encodedcommand", option):
			x.Dynamic = true
			return
		case strings.HasPrefix("file", option):
			return
		}
	}
}
