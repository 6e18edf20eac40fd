package hardening

import (
	"reflect"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Data that bash evaluates as code (docs/hardening.md, "Data bash runs
// as code"): an array subscript in a variable's name is evaluated as
// arithmetic, and arithmetic expands what the subscript holds, command
// substitutions too, so `printf -v 'a[$(git push)]' x` runs git push
// though printf is read-only; a variable's value used in arithmetic is
// itself evaluated, subscripts and all; a prompt string (${x@P}, PS4 with
// set -x) expands command substitutions; trap, PROMPT_COMMAND and
// mapfile's callback are code. This file finds each such place, reads
// what the line puts there, and inspects the commands it runs; where the
// line puts there what only the running shell knows, it is unseeable.

// assignedValue is the value an assignment gives, when the line says.
func (in *inspector) assignedValue(src string, a *syntax.Assign) value {
	if a.Array != nil || a.Append || a.Index != nil {
		return value{}
	}
	if a.Value == nil {
		return value{known: true}
	}
	return in.unsplit(src, a.Value)
}

// unsplit is a word's value where bash does not split it into fields
// (an assignment's value).
func (in *inspector) unsplit(src string, w *syntax.Word) value {
	x := in.expandWord(src, w, false)
	if x.open != nil {
		return value{}
	}
	return value{text: strings.Join(x.fields, " "), known: true}
}

// setVar records a variable the line sets. A variable set to two values
// is not known: which one a command sees depends on how the line runs.
func (in *inspector) setVar(name string, v value, depth int) {
	if prev, ok := in.vars[name]; ok && prev != v {
		v = value{}
	}
	in.vars[name] = v
	if name == "IFS" {
		in.ifs = true
	}
	if in.integers[name] && v.known {
		in.arithText(v.text, depth, "assigning to the integer variable "+name)
	}
	in.special(name, v, depth)
}

// special inspects what bash runs from the variables it runs code from.
func (in *inspector) special(name string, v value, depth int) {
	// A value only known when the line runs is a program's output, read
	// as data (docs/hardening.md, "Cannot see").
	switch {
	case !v.known:
	case name == "PS0" || name == "PS1" || name == "PS2" || name == "PS4":
		in.document(v.text, depth, "the prompt "+name)
	case name == "PROMPT_COMMAND":
		in.line(v.text, depth+1, "PROMPT_COMMAND")
	}
}

// paramValue is the value of a plain parameter expansion ($x, ${x}) the
// line gives, and its name; unknown for anything else.
func (in *inspector) paramValue(pe *syntax.ParamExp) (value, string) {
	if pe.Param == nil || pe.Excl || pe.Length || pe.Width || pe.Index != nil || pe.Slice != nil || pe.Repl != nil || pe.Names != 0 || pe.Exp != nil {
		return value{}, ""
	}
	name := pe.Param.Value
	return in.vars[name], name
}

// paramExp inspects a parameter expansion that evaluates data as code.
func (in *inspector) paramExp(src string, pe *syntax.ParamExp, depth int) {
	if pe.Param == nil {
		return
	}
	name := pe.Param.Value
	if pe.Index != nil {
		in.arith(src, pe.Index, depth)
	}
	if pe.Slice != nil {
		for _, e := range []syntax.ArithmExpr{pe.Slice.Offset, pe.Slice.Length} {
			if e != nil {
				in.arith(src, e, depth)
			}
		}
	}
	switch {
	case pe.Exp != nil && pe.Exp.Op == syntax.OtherParamOps && pe.Exp.Word != nil && lit(src, pe.Exp.Word) == "P":
		// A value the line does not give is data from outside it, read as
		// a program's output is (docs/hardening.md, data-as-code).
		if v := in.vars[name]; v.known {
			in.document(v.text, depth, "${"+name+"@P}")
		}
	case pe.Excl && pe.Names == 0 && pe.Index == nil:
		// ${!x}: the variable x names, subscript and all.
		if v := in.vars[name]; v.known {
			in.nameSubscript(v.text, depth, "${!"+name+"}")
		}
	}
}

// arith follows the variables an arithmetic expression reads: bash
// evaluates each one's value as arithmetic in turn.
func (in *inspector) arith(src string, expr syntax.ArithmExpr, depth int) {
	if expr == nil || reflect.ValueOf(expr).IsNil() {
		return
	}
	syntax.Walk(expr, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false // its commands are walked as commands
		case *syntax.Word:
			if name := arithName(n); name != "" {
				if v := in.vars[name]; v.known && v.text != "" {
					in.arithText(v.text, depth+1, "arithmetic on the variable "+name)
				}
			}
			if text, ok := quotedText(src, n); ok {
				// let 'a[…]' and (( "…" )): the quoted text is the expression.
				in.arithText(text, depth+1, "arithmetic on `"+shorten(text)+"`")
			}
		}
		return true
	})
}

// arithName is the variable an arithmetic operand reads: `x` or `$x`.
func arithName(w *syntax.Word) string {
	if len(w.Parts) != 1 {
		return ""
	}
	switch p := w.Parts[0].(type) {
	case *syntax.Lit:
		if syntax.ValidName(p.Value) {
			return p.Value
		}
	case *syntax.ParamExp:
		if p.Param != nil && p.Exp == nil && p.Index == nil && !p.Excl && !p.Length {
			return p.Param.Value
		}
	}
	return ""
}

// quotedText is a word's text when it is quoted without expansions.
func quotedText(src string, w *syntax.Word) (string, bool) {
	if !quoted(w) {
		return "", false
	}
	s, open := literal(src, w)
	return s, open == ""
}

// letExpr inspects one expression of let.
func (in *inspector) letExpr(src string, e syntax.ArithmExpr, depth int) {
	in.arith(src, e, depth)
}

// arithText inspects text bash evaluates as arithmetic: the commands its
// subscripts' substitutions run, and the variables it reads.
func (in *inspector) arithText(text string, depth int, via string) {
	if depth > maxDepth {
		in.unseeable(via + " evaluates arithmetic nested deeper than codewhale-ls follows")
		return
	}
	if !strings.ContainsAny(text, "$`[") && !hasName(text) || !in.spendBytes(len(text)) {
		return
	}
	p := in.parser()
	expr, err := p.Arithmetic(strings.NewReader(text))
	in.release(p)
	if err != nil {
		if strings.ContainsAny(text, "$`") {
			in.unseeable(via + " evaluates `" + shorten(text) + "` as arithmetic, which bash may read otherwise than codewhale-ls can")
		}
		return
	}
	in.walk(text, expr, depth+1, via, true)
	in.arith(text, expr, depth+1)
}

// hasName says whether text holds a letter: a name arithmetic reads.
func hasName(text string) bool {
	return strings.IndexFunc(text, func(r rune) bool { return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }) >= 0
}

// document inspects text bash expands as a prompt or a double-quoted
// string: the command substitutions in it run.
func (in *inspector) document(text string, depth int, via string) {
	if !strings.ContainsAny(text, "$`") || !in.spendBytes(len(text)) {
		return
	}
	p := in.parser()
	w, err := p.Document(strings.NewReader(text))
	in.release(p)
	if err != nil {
		in.unseeable(via + " expands `" + shorten(text) + "`, which bash may read otherwise than codewhale-ls can")
		return
	}
	in.walk(text, w, depth+1, via, true)
}

// nameSubscript inspects a variable name a builtin is given: bash
// evaluates its subscript, `a[$(git push)]`, running what it holds.
func (in *inspector) nameSubscript(name string, depth int, via string) {
	i := strings.IndexByte(name, '[')
	if i <= 0 || !strings.HasSuffix(name, "]") {
		return
	}
	in.arithText(name[i+1:len(name)-1], depth, via+" evaluates the subscript of `"+shorten(name)+"`")
}

// nameOperand inspects a word that names a variable ([[ -v NAME ]]).
func (in *inspector) nameOperand(src string, w *syntax.Word, depth int, via string) {
	if v := in.unsplit(src, w); v.known {
		in.nameSubscript(v.text, depth, via)
	}
}

// binaryTest inspects [[ X -eq Y ]] and the other arithmetic comparisons,
// whose operands bash evaluates as arithmetic.
func (in *inspector) binaryTest(src string, t *syntax.BinaryTest, depth int) {
	switch t.Op {
	case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
	default:
		return
	}
	for _, operand := range []syntax.TestExpr{t.X, t.Y} {
		w, ok := operand.(*syntax.Word)
		if !ok {
			continue
		}
		if v := in.unsplit(src, w); v.known {
			in.arithText(v.text, depth, "[[ "+t.Op.String()+" ]]")
		}
	}
}

// declare inspects declare, typeset, local, export, readonly and nameref:
// the subscripts of the names they are given, the values of integer and
// name-reference variables, and the variables they set.
func (in *inspector) declare(src string, dc *syntax.DeclClause, depth int) {
	var words []string
	for _, a := range dc.Args {
		switch {
		case a.Naked && a.Name != nil:
			words = append(words, a.Name.Value)
		case a.Naked && a.Value != nil:
			if v := in.unsplit(src, a.Value); v.known {
				words = append(words, v.text)
			} else {
				words = append(words, "")
			}
		case a.Name != nil:
			v := in.assignedValue(src, a)
			if !v.known {
				words = append(words, a.Name.Value+"=\x00")
				continue
			}
			words = append(words, a.Name.Value+"="+v.text)
		}
	}
	in.declareWords(dc.Variant.Value, words, depth)
}

// declareWords inspects declare's words (a "" word, or a value of "\x00",
// is one only known when the line runs).
func (in *inspector) declareWords(variant string, words []string, depth int) {
	integer, nameref := false, false
	for _, w := range words {
		if len(w) > 1 && (w[0] == '-' || w[0] == '+') && !strings.Contains(w, "=") {
			integer = integer || w[0] == '-' && strings.Contains(w, "i")
			nameref = nameref || w[0] == '-' && strings.Contains(w, "n")
			continue
		}
		name, val, assigns := strings.Cut(w, "=")
		in.nameSubscript(name, depth, variant)
		base, _, _ := strings.Cut(name, "[")
		if integer {
			in.integers[base] = true
		}
		if !assigns {
			continue
		}
		v := value{text: val, known: val != "\x00"}
		if nameref && v.known {
			in.nameSubscript(v.text, depth, variant+" -n")
			// A name reference reads the variable it names.
			v = in.vars[v.text]
		}
		if base == name {
			in.setVar(base, v, depth)
		} else if v.known && in.integers[base] {
			in.arithText(v.text, depth, "assigning to the integer array "+base)
		}
	}
}

// builtin inspects the builtins that evaluate data as code, and the
// variables they set.
func (in *inspector) builtin(c *command) {
	args := c.args()
	depth := c.depth
	switch c.name() {
	case "printf":
		if len(args) >= 3 && args[0] == "-v" {
			in.nameSubscript(args[1], depth, "printf -v")
			out, ok := printfOut(args[2], args[3:])
			in.setVar(args[1], value{text: out, known: ok && c.complete()}, depth)
		}
	case "read":
		in.read(c)
	case "test", "[":
		for i, a := range args {
			if a == "-v" && i+1 < len(args) {
				in.nameSubscript(args[i+1], depth, c.name()+" -v")
			}
		}
	case "unset":
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				in.nameSubscript(a, depth, "unset")
			}
		}
	case "mapfile", "readarray":
		in.mapfile(c)
	case "wait":
		if i := slices.Index(args, "-p"); i >= 0 && i+1 < len(args) {
			in.nameSubscript(args[i+1], depth, "wait -p")
		}
	case "getopts":
		if len(args) >= 2 {
			in.nameSubscript(args[1], depth, "getopts")
		}
	case "trap":
		in.trap(c)
	case "hash":
		for i := 0; i+2 < len(args); i++ {
			if args[i] == "-p" {
				// `hash -p /usr/bin/git ls` makes `ls` run git.
				in.aliases[args[i+2]] = args[i+1]
				i += 2
			}
		}
	case "complete", "compgen":
		if i := slices.Index(args, "-C"); i >= 0 && i+1 < len(args) {
			in.line(args[i+1], depth+1, c.name()+" -C")
		}
	case "enable":
		if slices.Contains(args, "-f") {
			in.unseeable("enable -f loads a builtin from a shared object")
		}
	case "declare", "typeset", "local", "export", "readonly":
		words := append([]string(nil), args...)
		if !c.complete() {
			words = append(words, "")
		}
		in.declareWords(c.name(), words, depth)
	}
}

// read inspects read's variable names and records what it reads into
// them from input the line gives.
func (in *inspector) read(c *command) {
	args := c.args()
	var names []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-a" && i+1 < len(args):
			i++
			in.nameSubscript(args[i], c.depth, "read -a")
		case len(a) == 2 && a[0] == '-' && strings.IndexByte("dinNptu", a[1]) >= 0:
			i++
		case strings.HasPrefix(a, "-"):
		default:
			names = append(names, a)
		}
	}
	if len(names) == 0 {
		names = []string{"REPLY"}
	}
	line, _, _ := strings.Cut(c.stdin.text, "\n")
	words := strings.Fields(line)
	for i, name := range names {
		in.nameSubscript(name, c.depth, "read")
		v := value{}
		if c.stdin.known && c.complete() {
			switch {
			case i == len(names)-1 && i < len(words):
				v = value{text: strings.Join(words[i:], " "), known: true}
			case i < len(words):
				v = value{text: words[i], known: true}
			default:
				v = value{known: true}
			}
		}
		if !strings.Contains(name, "[") {
			in.setVar(name, v, c.depth)
		}
	}
}

// mapfile inspects mapfile's callback (-C), which bash runs as code, its
// origin (-O), which it evaluates as arithmetic, and its array's name.
func (in *inspector) mapfile(c *command) {
	args := c.args()
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" && i+1 < len(c.words)-1:
			i++
			in.line(c.code(i+1)+" 0 ''", c.depth+1, "mapfile -C")
		case a == "-O" && i+1 < len(args):
			i++
			in.arithText(args[i], c.depth, "mapfile -O")
		case len(a) == 2 && a[0] == '-' && strings.IndexByte("dnsuc", a[1]) >= 0:
			i++
		case strings.HasPrefix(a, "-"):
		default:
			in.nameSubscript(a, c.depth, c.name())
		}
	}
}

// trap inspects the code trap runs on a signal.
func (in *inspector) trap(c *command) {
	i := 1
	if i < len(c.words) && c.words[i] == "--" && i < c.open {
		i++
	}
	switch {
	case i >= len(c.words):
	case i < c.open && strings.HasPrefix(c.words[i], "-") && len(c.words[i]) > 1:
		// trap -p, -l: nothing runs.
	case i == len(c.words)-1 && c.complete():
		// `trap SIGNAL` resets it; one word is code only with signals after.
	default:
		if code := c.code(i); code != "-" && code != "" {
			in.line(code, c.depth+1, "trap")
		}
	}
}
