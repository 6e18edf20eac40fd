package hardening

import (
	"strings"
)

// sed inspects a sed script for what GNU sed runs as a shell command:
// the e command (its text, or the pattern space when it has none) and
// the s command's e flag (the pattern space after the substitution). The
// script is read by sed's grammar (sedScript), so a regex, a replacement
// or a/i/c text holding an e is no command.
func (in *inspector) sed(c *command) {
	opts, operands := sedOptions.read(in.argTexts(c))
	var parts []string
	given := false
	for _, o := range opts {
		if o.unsure {
			in.unseeable("sed is given an option built when the line runs, which may be a script")
			return
		}
		switch o.name {
		case "sandbox":
			return // GNU sed rejects e, r and w before it runs anything
		case "e", "expression":
			given = true
			parts = append(parts, o.value)
		case "f", "file":
			given = true
			// A file that exists before the line is judged by its name.
			text, _ := in.codeFrom(c, o.value, "sed -f")
			parts = append(parts, text)
		}
	}
	files := operands
	if !given {
		if len(operands) == 0 {
			return
		}
		parts, files = operands[:1], operands[1:]
	}
	script := strings.Join(parts, "\n")
	if !in.spend(len(script)) {
		return
	}
	p := sedScript{text: script}
	p.parse()
	for _, r := range p.runs {
		switch {
		case r.command == "":
			in.unseeable(r.why)
		case strings.Contains(r.command, hole):
			in.unseeable("sed's e command runs a command built when the line runs")
		default:
			in.line(r.command, c.depth+1, "sed's e command")
		}
	}
	switch rest := script[p.errAt:]; {
	case p.err == "":
	case strings.Contains(rest, hole):
		in.unseeable("sed runs a script built when the line runs")
	case strings.ContainsRune(rest, 'e'):
		// sed rejects a script it cannot compile, but one this reading
		// rejects may still hold an e.
		in.unseeable("codewhale-ls cannot read the sed script (" + p.err + "), which may run commands")
	}
	for _, f := range p.writes {
		if f != "/dev/stdout" && f != "/dev/stderr" && !strings.Contains(f, hole) {
			in.write(f, value{}, false)
		}
	}
	if inPlace(opts) {
		for _, f := range files {
			if _, ok := in.files[f]; ok {
				in.write(f, value{}, false)
			}
		}
	}
}

// sedOptions are GNU sed's options.
var sedOptions = getopt{
	short:   "bsnrzuEe:f:l:i::",
	permute: true,
	long: map[string]int{
		"binary": 0, "debug": 0, "expression": 1, "file": 1, "follow-symlinks": 0, "help": 0,
		"in-place": 2, "line-length": 1, "null-data": 0, "zero-terminated": 0, "posix": 0,
		"quiet": 0, "silent": 0, "regexp-extended": 0, "sandbox": 0, "separate": 0,
		"unbuffered": 0, "version": 0,
	},
}

func inPlace(opts []option) bool {
	for _, o := range opts {
		if o.name == "i" || o.name == "in-place" {
			return true
		}
	}
	return false
}

// sedScript reads a sed script as GNU sed compiles it: addresses
// (numbers, first~step, $, /re/ and \cREc with their escapes and bracket
// expressions, addr,+N, addr,~N, 0,/re/, the I and M flags), !, { and },
// a i c with their text (one line, or a\ and the lines after), s with any
// delimiter and its flags (w takes the rest of the line), y, r R w W and
// their file, e and its command (the rest of the line), b t T v and :
// with their label, q Q l L with their number, and the commands of one
// letter. It notes what e runs and the files w writes.
type sedScript struct {
	text string
	i    int
	// runs are what the script runs as shell commands.
	runs []sedRun
	// writes are the files it writes (w, W and the s flag w).
	writes []string
	// err says why the script cannot be read from errAt on; sed compiles
	// the whole script before it runs any of it.
	err   string
	errAt int
	// holeAt is where the command being read has a part built when the
	// line runs in place of a number, -1 when it has none.
	holeAt int
}

// sedRun is one shell command a script runs: its text, or "" with why
// when it runs the pattern space.
type sedRun struct {
	command string
	why     string
}

func (p *sedScript) parse() {
	for p.err == "" {
		p.holeAt = -1
		p.skip(" \t\n;")
		if p.i >= len(p.text) {
			return
		}
		switch p.text[p.i] {
		case '#':
			p.toEOL()
			continue
		case '}':
			p.i++
			continue
		}
		if !p.address() {
			return
		}
		p.skip(" \t")
		if p.peek() == ',' {
			p.i++
			p.skip(" \t")
			if !p.address2() {
				return
			}
		}
		p.skip(" \t")
		for p.peek() == '!' {
			p.i++
			p.skip(" \t")
		}
		p.command()
	}
}

func (p *sedScript) fail(why string) {
	if p.err == "" {
		p.err, p.errAt = why, min(p.i, len(p.text))
		if p.holeAt >= 0 {
			p.errAt = p.holeAt
		}
	}
}

func (p *sedScript) peek() byte {
	if p.i < len(p.text) {
		return p.text[p.i]
	}
	return 0
}

func (p *sedScript) skip(set string) {
	for p.i < len(p.text) && strings.IndexByte(set, p.text[p.i]) >= 0 {
		p.i++
	}
}

// toEOL is the rest of the line, the newline consumed.
func (p *sedScript) toEOL() string {
	start := p.i
	for p.i < len(p.text) && p.text[p.i] != '\n' {
		p.i++
	}
	s := p.text[start:p.i]
	if p.i < len(p.text) {
		p.i++
	}
	return s
}

// digits reads a number. A part built when the line runs where a number
// stands (`sed "${n}d"`) is read as one; holeAt notes where, so that a
// command missing after it makes the script one built when the line runs
// (`sed "$SCRIPT"`).
func (p *sedScript) digits() bool {
	start := p.i
	for p.i < len(p.text) && ('0' <= p.text[p.i] && p.text[p.i] <= '9' || p.text[p.i] == hole[0]) {
		if p.text[p.i] == hole[0] && p.holeAt < 0 {
			p.holeAt = p.i
		}
		p.i++
	}
	return p.i > start
}

// address reads a first address, if there is one.
func (p *sedScript) address() bool {
	switch c := p.peek(); {
	case '0' <= c && c <= '9' || c == hole[0]:
		p.digits()
		if p.peek() == '~' {
			p.i++
			p.digits()
		}
	case c == '$':
		p.i++
	case c == '/' || c == '\\':
		return p.regexAddress()
	}
	return true
}

// address2 reads the address after a comma.
func (p *sedScript) address2() bool {
	switch c := p.peek(); {
	case c == '+' || c == '~':
		p.i++
		if !p.digits() {
			p.fail("a number must follow " + string(c))
			return false
		}
	case '0' <= c && c <= '9' || c == hole[0]:
		p.digits()
	case c == '$':
		p.i++
	case c == '/' || c == '\\':
		return p.regexAddress()
	default:
		p.fail("an address must follow a comma")
		return false
	}
	return true
}

func (p *sedScript) regexAddress() bool {
	if p.text[p.i] == '\\' {
		p.i++
	}
	if p.i >= len(p.text) || p.text[p.i] == '\n' || p.text[p.i] == '\\' {
		p.fail("an address's delimiter is missing")
		return false
	}
	delim := p.text[p.i]
	p.i++
	if _, ok := p.delimited(delim, true); !ok {
		return false
	}
	for p.peek() == 'I' || p.peek() == 'M' {
		p.i++
	}
	return true
}

// delimited reads up to the delimiter, which it consumes: a regex (with
// brackets, in which the delimiter does not end it) or a replacement.
// A backslash escapes the character after it, a newline too.
func (p *sedScript) delimited(delim byte, regex bool) (string, bool) {
	start := p.i
	for p.i < len(p.text) {
		c := p.text[p.i]
		switch {
		case c == '\\':
			p.i += 2
			continue
		case c == delim:
			s := p.text[start:p.i]
			p.i++
			return s, true
		case c == '\n' && regex:
			p.fail("a newline ends a regex unterminated")
			return "", false
		case c == '[' && regex:
			p.bracket()
			continue
		}
		p.i++
	}
	p.fail("unterminated")
	return "", false
}

// bracket reads a bracket expression: [, an optional ^, a ] taken as
// itself first, then up to ], with [:class:], [.coll.] and [=equiv=]
// whole.
func (p *sedScript) bracket() {
	p.i++
	if p.peek() == '^' {
		p.i++
	}
	if p.peek() == ']' {
		p.i++
	}
	for p.i < len(p.text) && p.text[p.i] != ']' {
		if p.text[p.i] == '[' && p.i+1 < len(p.text) && strings.IndexByte(".:=", p.text[p.i+1]) >= 0 {
			end := classEnd(p.text[p.i+2:], p.text[p.i+1])
			if end >= 0 {
				p.i += end + 4
				continue
			}
		}
		p.i++
	}
	p.i++
}

// command reads one command after its addresses.
func (p *sedScript) command() {
	if p.i >= len(p.text) {
		p.fail("a command is missing")
		return
	}
	c := p.text[p.i]
	p.i++
	switch c {
	case '{':
	case 'a', 'i', 'c':
		p.text1()
	case 's':
		p.substitute()
	case 'y':
		if p.i >= len(p.text) || p.text[p.i] == '\n' || p.text[p.i] == '\\' {
			p.fail("y has no delimiter")
			return
		}
		delim := p.text[p.i]
		p.i++
		if _, ok := p.delimited(delim, false); ok {
			p.delimited(delim, false)
		}
		p.end()
	case 'r', 'R':
		p.skip(" \t")
		p.toEOL()
	case 'w', 'W':
		p.skip(" \t")
		p.writes = append(p.writes, p.toEOL())
	case 'e':
		// GNU sed reads e's command as it reads a's text.
		if cmd := p.text1(); cmd != "" {
			p.runs = append(p.runs, sedRun{command: cmd})
		} else {
			p.runs = append(p.runs, sedRun{why: "sed's e command runs its pattern space as a shell command"})
		}
	case 'b', 't', 'T', 'v', ':':
		p.skip(" \t")
		for p.i < len(p.text) && p.text[p.i] != '\n' && p.text[p.i] != ';' {
			p.i++
		}
	case 'q', 'Q', 'l', 'L':
		p.skip(" \t")
		p.digits()
		p.end()
	case '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		p.end()
	default:
		p.i--
		p.fail("unknown command " + string(c))
	}
}

// end reads what may follow a command: blanks, then ;, a newline, } or
// a comment.
func (p *sedScript) end() {
	p.skip(" \t")
	switch p.peek() {
	case 0, ';', '\n', '}', '#':
	default:
		p.fail("extra characters after a command")
	}
}

// text1 reads the text of a, i, c (and e, read alike): `a\` and the
// lines after it, each but the last ending in a backslash, or GNU's
// one-line form `a text`, the blanks before it skipped. A backslash
// keeps the character after it, a newline too.
func (p *sedScript) text1() string {
	p.skip(" \t")
	if p.peek() == '\\' {
		p.i++
		p.skip(" \t")
		if p.peek() == '\n' {
			p.i++
		}
	}
	var b strings.Builder
	for p.i < len(p.text) && p.text[p.i] != '\n' {
		if p.text[p.i] == '\\' {
			p.i++
			if p.i == len(p.text) {
				break
			}
		}
		b.WriteByte(p.text[p.i])
		p.i++
	}
	if p.i < len(p.text) {
		p.i++
	}
	return b.String()
}

// substitute reads s's regex, replacement and flags.
func (p *sedScript) substitute() {
	if p.i >= len(p.text) || p.text[p.i] == '\n' || p.text[p.i] == '\\' {
		p.fail("s has no delimiter")
		return
	}
	delim := p.text[p.i]
	p.i++
	if _, ok := p.delimited(delim, true); !ok {
		return
	}
	replacement, ok := p.delimited(delim, false)
	if !ok {
		return
	}
	runs := false
	for p.err == "" {
		switch c := p.peek(); {
		case c == 'g' || c == 'p' || c == 'i' || c == 'I' || c == 'm' || c == 'M' || c == ' ' || c == '\t':
			p.i++
		case '0' <= c && c <= '9':
			p.digits()
		case c == 'e':
			p.i++
			runs = true
		case c == 'w':
			p.i++
			p.skip(" \t")
			start := p.i
			for p.i < len(p.text) && p.text[p.i] != '\n' {
				p.i++
			}
			p.writes = append(p.writes, p.text[start:p.i])
			fallthrough
		case c == 0 || c == ';' || c == '\n' || c == '}' || c == '#':
			if runs {
				p.runs = append(p.runs, sedRun{why: "sed's s///e runs its pattern space as a shell command after it puts `" + shorten(strings.ReplaceAll(replacement, hole, "…")) + "` in it"})
			}
			return
		case c == hole[0]:
			p.fail("its flags are built when the line runs")
		default:
			p.fail("unknown option to s: " + string(c))
		}
	}
}
