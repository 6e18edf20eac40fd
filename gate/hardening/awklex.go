package hardening

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// An awk program read by its grammar, as much as finding the commands it
// runs needs: a lexer (strings with their escapes, regex literals where
// a regex may start, comments, numbers, names, operators), and the
// values of constant string expressions.

// awkTok is one token of an awk program.
type awkTok struct {
	// kind is 's' a string (text decoded), 'r' a regex, 'n' a number, 'w'
	// a name or keyword, 'o' an operator or punctuation, ';' the end of a
	// statement (a newline or ;), 'h' a part built when the line runs.
	kind byte
	text string
}

func (t awkTok) is(kind byte, text string) bool { return t.kind == kind && t.text == text }

// awkOperators, longest first.
var awkOperators = []string{"**=", "**", "^=", "+=", "-=", "*=", "/=", "%=", "==", "<=", ">=", "!=", "!~", "++", "--", "&&", "||", "|&", ">>", "::"}

// awkReading is how one awk reads what its implementations read
// otherwise.
type awkReading struct {
	// mawk reads a / after ++, -- or length as mawk does (regexMayStart).
	mawk bool
	// flatBrackets ends a regex at its first unescaped /, inside a
	// bracket expression too, as older awks do (mawk before 1.3.4).
	flatBrackets bool
	// gawk reads case as a keyword (switch), after which a / starts a
	// regex; to the others it is a variable, after which a / divides.
	gawk bool
}

// awkReadings are the readings each program is judged in: gawk's, BWK
// awk's, mawk's, and the older ones'.
var awkReadings = []awkReading{{gawk: true}, {}, {flatBrackets: true}, {mawk: true}, {mawk: true, flatBrackets: true}}

// lexAwk reads an awk program's tokens in one reading. codeHole says a
// part built when the line runs stands where code does (outside a string
// or regex).
func lexAwk(src string, how awkReading) (toks []awkTok, codeHole bool, err string) {
	i := 0
	prev := func() awkTok {
		if len(toks) == 0 {
			return awkTok{kind: ';'}
		}
		return toks[len(toks)-1]
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			i += 2
		case c == '\\' && strings.HasPrefix(src[i+1:], "\r\n"):
			i += 3
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '\n' || c == ';':
			// A newline after , { && || do else continues the statement.
			if p := prev(); c == ';' || !(p.is('o', ",") || p.is('o', "{") || p.is('o', "&&") || p.is('o', "||") || p.is('w', "do") || p.is('w', "else")) {
				toks = append(toks, awkTok{kind: ';', text: string(c)})
			}
			i++
		case c == '"':
			s, n, ok := awkString(src[i+1:])
			if !ok {
				return toks, codeHole, "an unterminated string"
			}
			toks = append(toks, awkTok{kind: 's', text: s})
			i += n + 2
		case c == '/' && regexMayStart(prev(), how):
			n, ok := awkRegex(src[i+1:], !how.flatBrackets)
			if !ok {
				return toks, codeHole, "an unterminated regex"
			}
			toks = append(toks, awkTok{kind: 'r', text: src[i+1 : i+1+n]})
			i += n + 2
		case '0' <= c && c <= '9' || c == '.' && i+1 < len(src) && '0' <= src[i+1] && src[i+1] <= '9':
			j := awkNumberEnd(src, i)
			toks = append(toks, awkTok{kind: 'n', text: src[i:j]})
			i = j
		case isWordByte(c):
			j := i
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			toks = append(toks, awkTok{kind: 'w', text: src[i:j]})
			i = j
		case c == hole[0]:
			// A part built when the line runs, where an operand follows
			// an operator (`NR==$n`, `{print \$$col}`), is read as an
			// operand whose value is unknown; where a statement or a
			// pattern may start (`awk "$PROG"`), it is code.
			if regexMayStart(prev(), awkReading{gawk: true}) && !operandMayFollow(prev()) {
				codeHole = true
			}
			for i < len(src) && src[i] == hole[0] {
				i++
			}
			toks = append(toks, awkTok{kind: 'h', text: hole})
		default:
			op := string(c)
			for _, o := range awkOperators {
				if strings.HasPrefix(src[i:], o) {
					op = o
					break
				}
			}
			toks = append(toks, awkTok{kind: 'o', text: op})
			i += len(op)
		}
	}
	return toks, codeHole, ""
}

// awkNumberEnd is where the number starting at i ends: digits, a
// fraction, an exponent, or gawk's hex digits; never a letter more, so
// the name in `1system("…")` is read as awk reads it.
func awkNumberEnd(src string, i int) int {
	digits := func(j int, is func(byte) bool) int {
		for j < len(src) && is(src[j]) {
			j++
		}
		return j
	}
	isDigit := func(c byte) bool { return '0' <= c && c <= '9' }
	if strings.HasPrefix(src[i:], "0x") || strings.HasPrefix(src[i:], "0X") {
		return digits(i+2, isHex)
	}
	j := digits(i, isDigit)
	if j < len(src) && src[j] == '.' {
		j = digits(j+1, isDigit)
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && isDigit(src[k]) {
			j = digits(k, isDigit)
		}
	}
	return j
}

func isWordByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// regexMayStart says whether a / after this token starts a regex rather
// than dividing: it does where an operand may start (after $ too). After
// ++, -- and length, gawk's and BWK awk's grammars divide, and mawk,
// which decides by the token before, starts a regex (`x++ /"/` is x++
// and a regex to mawk). After case, gawk's keyword, a regex starts; to
// the others case is a variable.
func regexMayStart(t awkTok, how awkReading) bool {
	switch t.kind {
	case 's', 'r', 'n', 'h':
		return false
	case 'w':
		switch t.text {
		case "print", "printf", "return", "do", "else", "in", "delete", "exit":
			return true
		case "case":
			return how.gawk
		case "length":
			return how.mawk
		}
		return false
	case 'o':
		switch t.text {
		case ")", "]":
			return false
		case "++", "--":
			return how.mawk
		}
	}
	return true
}

// operandMayFollow says whether an operand, not a statement, follows
// this token: an operator that takes one, or print's items.
func operandMayFollow(t awkTok) bool {
	switch t.kind {
	case 'o':
		return t.text != "{" && t.text != "}" && t.text != ";"
	case 'w':
		return t.text == "print" || t.text == "printf" || t.text == "return" || t.text == "in"
	}
	return false
}

// awkString decodes a string literal's text up to its closing quote: the
// text, how many bytes it spans, and whether it is closed.
func awkString(s string) (string, int, bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return awkEscapes(s[:i]), i, true
		case '\n':
			return "", 0, false
		}
	}
	return "", 0, false
}

// awkEscapes decodes awk's escapes (as in a string, or -v's value).
func awkEscapes(s string) string {
	text, _, _ := decodeEscapes(s, func(s string, i int, b *strings.Builder) (int, bool, bool) {
		c := s[i]
		if ctl, ok := controlEscape(c); ok {
			b.WriteByte(ctl)
			return 0, true, false
		}
		switch {
		case c == '\n':
			// A line continuation.
		case c == 'x':
			v, n := digits(s, i+1, 2, 16)
			if n == 0 {
				b.WriteString(`\x`)
			} else {
				b.WriteByte(byte(v))
			}
			return n, true, false
		case '0' <= c && c <= '7':
			v, n := digits(s, i, 3, 8)
			b.WriteByte(byte(v))
			return n - 1, true, false
		default:
			b.WriteByte(c)
		}
		return 0, true, false
	})
	return text
}

// awkRegex is how many bytes a regex literal's text spans up to its
// closing /, which with brackets a bracket expression's / does not close.
func awkRegex(s string, brackets bool) (int, bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '/':
			return i, true
		case '\n':
			return 0, false
		case '[':
			if !brackets {
				continue
			}
			i++
			if i < len(s) && s[i] == '^' {
				i++
			}
			if i < len(s) && s[i] == ']' {
				i++
			}
			for i < len(s) && s[i] != ']' && s[i] != '\n' {
				if s[i] == '[' && i+1 < len(s) && strings.IndexByte(".:=", s[i+1]) >= 0 {
					if end := classEnd(s[i+2:], s[i+1]); end >= 0 {
						i += end + 4
						continue
					}
				}
				if s[i] == '\\' {
					i++
				}
				i++
			}
		}
	}
	return 0, false
}

// classEnd is where [:class:], [.coll.] or [=equiv=] ends in a bracket
// expression, -1 when it does not within the length of a class name
// (so a hostile run of "[:" costs a scan of its bytes).
func classEnd(s string, kind byte) int {
	end := strings.Index(s[:min(len(s), 64)], string(kind)+"]")
	return end
}

// maxAwkValues bounds the values a constant expression may have.
const maxAwkValues = 16

// awkValues are what an expression may be: nil when it is not a constant
// string expression the program alone decides.
type awkValues []string

// awkVars are the values of an awk program's variables.
type awkVars struct {
	// assigned are the expressions assigned to each variable with a
	// plain =, -v or an operand (a literal value, as a string token).
	assigned map[string][][]awkTok
	// unknown are the variables set otherwise (getline, sub, ++, +=, a
	// function's parameters, for-in), or to what only the running
	// program knows.
	unknown map[string]bool
	// all says every variable may hold anything (SYMTAB, a part of the
	// program nobody here reads, an operand built when the line runs).
	all  bool
	memo map[string]awkValues
	busy map[string]bool
	// work is what is left of the tokens reading the program may scan,
	// linear in its length, so a hostile program costs a bounded
	// multiple of its size; spent, the program is too much to read.
	work int
}

// charge takes n from the work left, and says whether there was enough.
func (v *awkVars) charge(n int) bool {
	v.work -= n + 1
	return v.work >= 0
}

// awkDefaults are the values awk gives the variables that decide what
// print writes.
var awkDefaults = map[string]string{"OFS": " ", "ORS": "\n", "SUBSEP": "\x1c"}

// awkSpecial are awk's variables set by awk itself.
var awkSpecial = map[string]bool{
	"NR": true, "NF": true, "FNR": true, "FS": true, "RS": true, "FILENAME": true, "RSTART": true, "RLENGTH": true,
	"CONVFMT": true, "OFMT": true, "ENVIRON": true, "ARGC": true, "ARGV": true, "RT": true, "FPAT": true,
	"FIELDWIDTHS": true, "IGNORECASE": true, "BINMODE": true, "LINT": true, "PROCINFO": true, "TEXTDOMAIN": true,
	"SYMTAB": true, "FUNCTAB": true, "ERRNO": true, "ARGIND": true,
}

func (v *awkVars) value(name string) awkValues {
	if v.all || v.unknown[name] || awkSpecial[name] {
		return nil
	}
	if got, ok := v.memo[name]; ok {
		return got
	}
	if v.busy[name] {
		return nil
	}
	v.busy[name] = true
	defer delete(v.busy, name)
	var out awkValues
	exprs := v.assigned[name]
	if len(exprs) == 0 {
		out = awkValues{awkDefaults[name]}
	}
	for _, e := range exprs {
		vals := v.eval(e)
		if vals == nil {
			out = nil
			break
		}
		out = union(out, vals)
		if len(out) > maxAwkValues {
			out = nil
			break
		}
	}
	v.memo[name] = out
	return out
}

func union(a, b awkValues) awkValues {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}

// eval is what a constant string expression may be: literal strings and
// numbers, variables, concatenation, parentheses, c ? a : b.
func (v *awkVars) eval(toks []awkTok) awkValues {
	if len(toks) == 0 || !v.charge(len(toks)) {
		return nil
	}
	if q := topLevel(toks, "?"); q >= 0 {
		if c := topLevel(toks[q+1:], ":"); c >= 0 {
			a, b := v.eval(toks[q+1:q+1+c]), v.eval(toks[q+2+c:])
			if a == nil || b == nil {
				return nil
			}
			return union(append(awkValues(nil), a...), b)
		}
		return nil
	}
	out := awkValues{""}
	for i := 0; i < len(toks); i++ {
		var part awkValues
		switch t := toks[i]; {
		case t.kind == 's':
			part = awkValues{t.text}
		case t.kind == 'n':
			part = awkNumber(t.text)
		case t.kind == 'w' && !awkKeywords[t.text] && (i+1 == len(toks) || !toks[i+1].is('o', "(") && !toks[i+1].is('o', "[")):
			part = v.value(t.text)
		case t.kind == 'w' && awkStringFuncs[t.text] && i+1 < len(toks) && toks[i+1].is('o', "("):
			end := matching(toks, i+1)
			if end < 0 {
				return nil
			}
			part = v.call(t.text, toks[i+2:end])
			i = end
		case t.is('o', "("):
			end := matching(toks, i)
			if end < 0 || topLevel(toks[i+1:end], ",") >= 0 {
				return nil
			}
			part = v.eval(toks[i+1 : end])
			i = end
		}
		if part == nil {
			return nil
		}
		var next awkValues
		for _, a := range out {
			for _, b := range part {
				next = append(next, a+b)
			}
		}
		if len(next) > maxAwkValues {
			return nil
		}
		out = next
	}
	return out
}

// awkStringFuncs are the built-in functions of strings alone eval
// computes.
var awkStringFuncs = map[string]bool{"sprintf": true, "tolower": true, "toupper": true}

// call is what sprintf, tolower or toupper return for these arguments,
// when each has one value.
func (v *awkVars) call(name string, args []awkTok) awkValues {
	var vals []string
	for _, a := range splitTop(args, ",") {
		x := v.eval(a)
		if len(x) != 1 {
			return nil
		}
		vals = append(vals, x[0])
	}
	switch {
	case len(vals) == 0:
		return nil
	case name == "tolower":
		return awkValues{strings.ToLower(vals[0])}
	case name == "toupper":
		return awkValues{strings.ToUpper(vals[0])}
	}
	if out, ok := awkPrintf(vals[0], vals[1:]); ok {
		return awkValues{out}
	}
	return nil
}

var awkKeywords = map[string]bool{
	"BEGIN": true, "END": true, "BEGINFILE": true, "ENDFILE": true, "function": true, "func": true,
	"if": true, "else": true, "while": true, "for": true, "do": true, "break": true, "continue": true,
	"next": true, "nextfile": true, "exit": true, "return": true, "delete": true, "in": true,
	"getline": true, "print": true, "printf": true, "switch": true, "case": true, "default": true,
}

// awkNumber is a numeric literal as a string, as awk converts it.
func awkNumber(s string) awkValues {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		n, err := strconv.ParseInt(s, 0, 64)
		if err != nil {
			return nil
		}
		f = float64(n)
	}
	if f == float64(int64(f)) {
		return awkValues{strconv.FormatInt(int64(f), 10)}
	}
	return awkValues{fmt.Sprintf("%.6g", f)}
}

// matching is the index of the ) or ] closing toks[open], -1 when none.
func matching(toks []awkTok, open int) int {
	depth := 0
	for i := open; i < len(toks); i++ {
		switch {
		case toks[i].is('o', "(") || toks[i].is('o', "["):
			depth++
		case toks[i].is('o', ")") || toks[i].is('o', "]"):
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// topLevel is the index of the first operator op outside parentheses and
// brackets, -1 when none.
func topLevel(toks []awkTok, op string) int {
	depth := 0
	for i, t := range toks {
		switch {
		case t.is('o', "(") || t.is('o', "["):
			depth++
		case t.is('o', ")") || t.is('o', "]"):
			depth--
		case depth == 0 && t.is('o', op):
			return i
		}
	}
	return -1
}

// awkPrintf is what awk's printf writes for a format and its arguments,
// when it only uses %s, %c, %d, %i and %%.
func awkPrintf(format string, args []string) (string, bool) {
	var b strings.Builder
	used := 0
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0123456789.", format[j]) >= 0 {
			j++
		}
		if j == len(format) {
			return "", false
		}
		spec, conv := format[i+1:j], format[j]
		if conv == '%' {
			b.WriteByte('%')
			i = j
			continue
		}
		arg := ""
		if used < len(args) {
			arg = args[used]
		}
		used++
		switch conv {
		case 's':
			b.WriteString(fmt.Sprintf("%"+spec+"s", arg))
		case 'c':
			if arg != "" {
				b.WriteString(arg[:1])
			}
		case 'd', 'i':
			n, err := strconv.ParseFloat(strings.TrimSpace(arg), 64)
			if err != nil {
				return "", false
			}
			b.WriteString(fmt.Sprintf("%"+spec+"d", int64(n)))
		default:
			return "", false
		}
		i = j
	}
	return b.String(), true
}
