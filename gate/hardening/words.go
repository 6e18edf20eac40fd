package hardening

import (
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// fields is a word's fields after brace expansion, the variables and
// printed output the line gives it, word splitting and quote removal; or,
// when part of it is only known when the line runs, the pattern of what
// it may be. how names a spelling that hides the word's value.
func (in *inspector) fields(src string, w *syntax.Word) (fields []string, open *Pattern, how string) {
	// On a copy: splitting rewrites the word's parts in place, and the
	// walk goes on through the word after (syntax.Walk knows no BraceExp).
	copied := *w
	copied.Parts = slices.Clone(w.Parts)
	w = &copied
	braces := syntax.SplitBraces(w)
	if braces {
		how = "brace expansion"
		if n := braceFields(w); n > maxBraceFields || !in.spend(2*n) {
			// So many words no reader can check them: the command is
			// built by the expansion. Counted before expanding, which
			// costs the words times their length.
			return nil, &Pattern{Glob: "*", Many: true, Source: "a brace expansion of more than " + strconv.Itoa(maxBraceFields) + " words"}, how
		}
	}
	if !braces {
		// One word: no need to copy its parts through the expansion.
		x := in.expandWord(src, w, true)
		if x.open != nil {
			return nil, x.open, how
		}
		if hasANSIC(w) {
			how = "ANSI-C quoting"
		}
		if x.substituted != "" {
			how = strings.TrimPrefix(how+", "+x.substituted, ", ")
		}
		return x.fields, nil, how
	}
	n := 0
	for e, err := range expand.BracesSeq(nil, w) {
		if n++; err != nil || n > maxBraceFields {
			// So many words no reader can check them: the command is
			// built by the expansion.
			return nil, &Pattern{Glob: "*", Many: true, Source: "a brace expansion of more than " + strconv.Itoa(maxBraceFields) + " words"}, how
		}
		x := in.expandWord(src, e, true)
		if x.open != nil {
			if braces {
				x.open.Many = true
			}
			return nil, x.open, how
		}
		if hasANSIC(e) {
			how = strings.TrimPrefix(how+", ANSI-C quoting", ", ")
		}
		if x.substituted != "" && !strings.Contains(how, x.substituted) {
			how = strings.TrimPrefix(how+", "+x.substituted, ", ")
		}
		if len(x.fields) == 1 && x.fields[0] == "" && braces && !quoted(e) {
			continue // an empty alternative of a brace expansion makes no word
		}
		fields = append(fields, x.fields...)
	}
	return fields, nil, how
}

// braceFields is how many words a word's brace expansions make, at most
// maxBraceFields+1.
func braceFields(w *syntax.Word) int {
	n := 1
	for _, p := range w.Parts {
		b, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		alternatives := 0
		if b.Sequence {
			alternatives = sequenceLength(b)
		} else {
			for _, e := range b.Elems {
				alternatives += braceFields(e)
			}
		}
		n *= max(alternatives, 1)
		if n > maxBraceFields {
			return maxBraceFields + 1
		}
	}
	return n
}

// sequenceLength is how many words {a..b[..step]} makes.
func sequenceLength(b *syntax.BraceExp) int {
	if len(b.Elems) < 2 {
		return 1
	}
	from, to := b.Elems[0].Lit(), b.Elems[1].Lit()
	step := 1
	if len(b.Elems) > 2 {
		if s, err := strconv.Atoi(b.Elems[2].Lit()); err == nil && s != 0 {
			step = max(s, -s)
		}
	}
	x, errX := strconv.Atoi(from)
	y, errY := strconv.Atoi(to)
	if errX != nil || errY != nil {
		if len(from) == 1 && len(to) == 1 {
			x, y = int(from[0]), int(to[0])
		} else {
			return maxBraceFields + 1
		}
	}
	span := y - x
	if span < 0 {
		span = -span
	}
	if span/step > maxBraceFields {
		return maxBraceFields + 1
	}
	return span/step + 1
}

// expansion is one word expanded: its fields, or the pattern of what it
// may be when part of it is only known when the line runs.
type expansion struct {
	fields []string
	open   *Pattern
	// substituted names what the line gave the word, when a variable or
	// a command substitution it sets or prints did ("the variable p").
	substituted string
}

// expandWord expands one word (after brace expansion).
func (in *inspector) expandWord(src string, w *syntax.Word, split bool) expansion {
	var x expansion
	var cur strings.Builder // the field being built
	var glob strings.Builder
	started := false // cur holds a field, possibly empty ("")
	dynamic, many, constrained := false, false, false
	form := AnyText
	unknown := func(quoted bool) {
		dynamic = true
		glob.WriteString("*")
		if !quoted {
			many = true
		}
	}
	addText := func(s string, unquoted bool) {
		if unquoted && split && in.ifs {
			// The line changes IFS: its words split where nobody reading
			// it expects.
			unknown(false)
			return
		}
		glob.WriteString(globEscape(s))
		if !unquoted || !split {
			cur.WriteString(s)
			started = true
			return
		}
		// Unquoted, the value splits on blanks into fields.
		parts := strings.FieldsFunc(s, isBlank)
		if len(parts) == 0 {
			return
		}
		if strings.IndexFunc(s[:1], isBlank) == 0 && started {
			x.fields = append(x.fields, cur.String())
			cur.Reset()
			started = false
		}
		for i, p := range parts {
			if i > 0 {
				x.fields = append(x.fields, cur.String())
				cur.Reset()
			}
			cur.WriteString(p)
			started = true
		}
		if strings.LastIndexFunc(s, isBlank) == len(s)-1 {
			x.fields = append(x.fields, cur.String())
			cur.Reset()
			started = false
		}
	}
	var part func(p syntax.WordPart, quoted bool)
	part = func(p syntax.WordPart, quoted bool) {
		switch p := p.(type) {
		case *syntax.Lit:
			if quoted {
				addText(unescapeDouble(p.Value), false)
			} else {
				addText(unescape(p.Value), false)
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				addText(ansiC(p.Value), false)
			} else {
				addText(p.Value, false)
			}
			started = true
		case *syntax.DblQuoted:
			started = true
			for _, q := range p.Parts {
				part(q, true)
			}
		case *syntax.ParamExp:
			if pt, ok := in.patterns[paramName(p)]; ok {
				// Words a program gives, each of a known form.
				dynamic = true
				if soleParam(w) == p {
					many, constrained, form = pt.Many && !quoted, true, pt.Form
					glob.WriteString(pt.Glob)
				} else {
					many = many || pt.Many && !quoted
					glob.WriteString("*")
				}
				return
			}
			v, name := in.paramValue(p)
			if !v.known {
				unknown(quoted)
				return
			}
			x.substituted = "the variable " + name + " the line sets"
			addText(v.text, !quoted)
		case *syntax.CmdSubst:
			out := in.output(src, &syntax.Stmt{Cmd: &syntax.Block{Stmts: p.Stmts}})
			if !out.known {
				if soleSubst(w) == p && out.form.Glob != "" && (out.form.Glob != "*" || out.form.Form != AnyText) {
					// All the word is what a program prints, of a known form.
					dynamic, many, constrained, form = true, !quoted, true, out.form.Form
					glob.WriteString(out.form.Glob)
					return
				}
				unknown(quoted)
				return
			}
			x.substituted = "what a command substitution prints"
			addText(strings.TrimRight(out.text, "\n"), !quoted)
		case *syntax.ProcSubst:
			// The word is a path (/dev/fd/63) to what the commands print.
			text := source(src, p)
			if p.Op == syntax.CmdIn {
				out := in.output(src, &syntax.Stmt{Cmd: &syntax.Block{Stmts: p.Stmts}})
				in.procSubsts[text] = value{text: out.text, known: out.known}
			}
			addText(text, false)
		default:
			// Arithmetic, extended globs and the rest: built at run time.
			unknown(quoted)
		}
	}
	for _, p := range w.Parts {
		part(p, false)
	}
	if dynamic {
		g := glob.String()
		if many && !constrained {
			// Split into words, any of which may hold any part.
			g = "*"
		}
		return expansion{open: &Pattern{Glob: g, Many: many, Source: source(src, w), Form: form}}
	}
	if started || cur.Len() > 0 || len(x.fields) == 0 && quoted(w) {
		x.fields = append(x.fields, cur.String())
	}
	return x
}

func isBlank(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }

func quoted(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		}
	}
	return false
}

func hasANSIC(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if q, ok := p.(*syntax.SglQuoted); ok && q.Dollar {
			return true
		}
	}
	return false
}

// literal is a word's value after quote removal, or the source of its
// first dynamic part.
func literal(src string, w *syntax.Word) (string, string) {
	first := ""
	value, ok := wordValue(w, func(n syntax.Node) (string, bool) {
		first = source(src, n)
		return "", false
	})
	if !ok {
		return "", first
	}
	return value, ""
}

// wordValue is a word's value after quote removal; at each part only
// known when the line runs, dynamic gives the text to write in its place
// and whether to go on.
func wordValue(w *syntax.Word, dynamic func(syntax.Node) (string, bool)) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value))
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(ansiC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if lit, ok := q.(*syntax.Lit); ok {
					b.WriteString(unescapeDouble(lit.Value))
					continue
				}
				text, more := dynamic(q)
				if !more {
					return "", false
				}
				b.WriteString(text)
			}
		default:
			text, more := dynamic(p)
			if !more {
				return "", false
			}
			b.WriteString(text)
		}
	}
	return b.String(), true
}

func source(src string, n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(src) || start > end {
		return "an expansion"
	}
	return src[start:end]
}

// unescape removes the backslashes of an unquoted word.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble removes the backslashes a double-quoted string drops.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// join writes words as a shell line: each quoted when it holds anything
// but plain characters. A first word spelled as an assignment stays one
// (`env FOO=1 git push` unwrapped is `FOO=1 git push`); ArgvLine is the
// line for an argv, where it cannot be.
func join(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = Quote(w)
	}
	return strings.Join(out, " ")
}

// paramName is the name a parameter expansion reads.
func paramName(p *syntax.ParamExp) string {
	if p.Param == nil {
		return ""
	}
	return p.Param.Value
}

// soleSubst is the command substitution a word is made of alone ($(…) or
// "$(…)"), nil for any other word.
func soleSubst(w *syntax.Word) *syntax.CmdSubst {
	if len(w.Parts) != 1 {
		return nil
	}
	part := w.Parts[0]
	if dq, ok := part.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		part = dq.Parts[0]
	}
	cs, _ := part.(*syntax.CmdSubst)
	return cs
}

// soleParam is the parameter expansion a word is made of alone ($x or
// "$x"), nil for any other word.
func soleParam(w *syntax.Word) *syntax.ParamExp {
	if len(w.Parts) != 1 {
		return nil
	}
	part := w.Parts[0]
	if dq, ok := part.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		part = dq.Parts[0]
	}
	pe, _ := part.(*syntax.ParamExp)
	return pe
}
