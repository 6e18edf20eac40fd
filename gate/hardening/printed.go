package hardening

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// output is what a statement prints on its standard output, when the
// line alone says: echo, printf and cat of what the line gives them, and
// groups of those. Anything else is a program's output, only known when
// it runs.
func (in *inspector) output(src string, stmt *syntax.Stmt) feed {
	unknown := feed{from: "a program's output", form: Pattern{Glob: "*"}}
	if !in.spend(1) {
		return unknown
	}
	switch cmd := stmt.Cmd.(type) {
	case *syntax.CallExpr:
		if len(cmd.Args) == 0 {
			return feed{known: true}
		}
		var words []string
		for _, w := range cmd.Args {
			if !in.spend(1) {
				return unknown
			}
			fields, open, _ := in.fields(src, w)
			if open != nil {
				from := "the output of `" + shorten(source(src, cmd)) + "`"
				if len(words) > 0 && path.Base(words[0]) == "find" {
					// Whatever it starts from, find prints no word
					// beginning with a dash.
					return feed{from: from, form: Pattern{Glob: "*", Form: NotOption}}
				}
				return feed{from: from, form: Pattern{Glob: "*"}}
			}
			words = append(words, fields...)
		}
		if len(words) == 0 {
			return feed{known: true}
		}
		if text, ok := printedBy(words, in.stdin(src, stmt), in.files); ok {
			return feed{text: text, known: true}
		}
		return feed{from: "the output of `" + shorten(path.Base(words[0])) + "`", form: producedForm(words)}
	case *syntax.Block:
		return in.outputs(src, cmd.Stmts)
	case *syntax.Subshell:
		return in.outputs(src, cmd.Stmts)
	case *syntax.BinaryCmd:
		switch cmd.Op {
		case syntax.AndStmt:
			return in.outputs(src, []*syntax.Stmt{cmd.X, cmd.Y})
		case syntax.Pipe, syntax.PipeAll:
			y, ok := cmd.Y.Cmd.(*syntax.CallExpr)
			if !ok {
				break
			}
			var words []string
			for _, w := range y.Args {
				words = append(words, lit(src, w))
			}
			x := in.output(src, cmd.X)
			switch {
			case len(words) == 1 && words[0] == "cat":
				return x
			case keepsForm(words):
				// A filter prints some of what it reads, as it was.
				return feed{from: x.from + " filtered by `" + path.Base(words[0]) + "`", form: x.form}
			}
		}
	}
	return unknown
}

func (in *inspector) outputs(src string, stmts []*syntax.Stmt) feed {
	var b strings.Builder
	for _, s := range stmts {
		f := in.output(src, s)
		if !f.known {
			return f
		}
		b.WriteString(f.text)
	}
	return feed{text: b.String(), known: true}
}

// outputOf is what a command whose words are known prints, for a file
// it writes.
func (in *inspector) outputOf(c *command) value {
	if !c.complete() {
		return value{}
	}
	text, ok := printedBy(c.words, c.stdin, in.files)
	return value{text: text, known: ok}
}

// printedBy is what a command of these words prints when the line alone
// says: echo, printf, cat of its input or of files the line wrote, true.
func printedBy(words []string, stdin feed, files map[string]value) (string, bool) {
	switch path.Base(words[0]) {
	case "echo":
		return echoed(words[1:]), true
	case "printf":
		args := words[1:]
		if len(args) > 0 && args[0] == "--" {
			args = args[1:]
		}
		if len(args) == 0 || strings.HasPrefix(args[0], "-") {
			return "", false // printf -v writes a variable, not the output
		}
		return printfOut(args[0], args[1:])
	case "cat":
		if len(words) == 1 || len(words) == 2 && words[1] == "-" {
			return stdin.text, stdin.known
		}
		var b strings.Builder
		for _, f := range words[1:] {
			v, ok := files[f]
			if !ok || !v.known {
				return "", false
			}
			b.WriteString(v.text)
		}
		return b.String(), true
	case "true", ":":
		return "", true
	}
	return "", false
}

// echoed is what bash's echo prints for its arguments.
func echoed(args []string) string {
	newline, escapes := true, false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && strings.Trim(args[0][1:], "neE") == "" {
		for _, c := range args[0][1:] {
			switch c {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
		args = args[1:]
	}
	text := strings.Join(args, " ")
	if escapes {
		var stop bool
		text, stop = backslashes(text)
		if stop {
			return text
		}
	}
	if newline {
		text += "\n"
	}
	return text
}

// backslashes decodes echo -e's and printf %b's escapes; stop says \c
// ended the output. Octal needs its leading zero (\0NNN): \151 is
// itself.
func backslashes(s string) (string, bool) {
	text, _, stop := decodeEscapes(s, func(s string, i int, b *strings.Builder) (int, bool, bool) {
		switch c := s[i]; {
		case c == 'c':
			return 0, true, true
		case c == '0':
			v, n := digits(s, i+1, 3, 8)
			b.WriteByte(byte(v))
			return n, true, false
		case '1' <= c && c <= '7':
			b.WriteByte('\\')
			b.WriteByte(c)
			return 0, true, false
		}
		return ansiCEscape(s, i, b)
	})
	return text, stop
}

// printfOut is what bash's printf prints: the format used again while
// arguments remain.
func printfOut(format string, args []string) (string, bool) {
	var b strings.Builder
	for round := 0; ; round++ {
		used := 0
		for i := 0; i < len(format); i++ {
			c := format[i]
			switch {
			case c == '\\' && i+1 < len(format):
				more, _, _ := ansiCEscape(format, i+1, &b)
				i += 1 + more
			case c == '%' && i+1 < len(format) && format[i+1] == '%':
				b.WriteByte('%')
				i++
			case c == '%':
				j := i + 1
				for j < len(format) && strings.IndexByte("-+ #0123456789.", format[j]) >= 0 {
					j++
				}
				if j == len(format) {
					return "", false
				}
				spec, conv := format[i+1:j], format[j]
				arg := ""
				if used < len(args) {
					arg = args[used]
				}
				used++
				s, ok := convert(spec, conv, arg)
				if !ok {
					return "", false
				}
				if s.stop {
					b.WriteString(s.text)
					return b.String(), true
				}
				b.WriteString(s.text)
				i = j
			default:
				b.WriteByte(c)
			}
			if b.Len() > 1<<20 {
				return "", false
			}
		}
		args = args[min(used, len(args)):]
		if used == 0 || len(args) == 0 {
			return b.String(), true
		}
		if round > 1<<12 {
			return "", false
		}
	}
}

type converted struct {
	text string
	stop bool // %b met \c
}

// convert is one printf conversion of arg.
func convert(spec string, conv byte, arg string) (converted, bool) {
	if strings.Contains(spec, "*") {
		return converted{}, false
	}
	switch conv {
	case 's':
		return converted{text: fmt.Sprintf("%"+spec+"s", arg)}, true
	case 'b':
		text, stop := backslashes(arg)
		return converted{text: fmt.Sprintf("%"+spec+"s", text), stop: stop}, true
	case 'q':
		return converted{text: fmt.Sprintf("%"+spec+"s", bashQuote(arg))}, true
	case 'c':
		if arg == "" {
			return converted{}, true
		}
		return converted{text: arg[:1]}, true
	case 'd', 'i', 'o', 'x', 'X', 'u':
		n, err := strconv.ParseInt(strings.TrimSpace(arg), 0, 64)
		if err != nil && arg != "" {
			return converted{}, false
		}
		verb := string(conv)
		if conv == 'i' || conv == 'u' {
			verb = "d"
		}
		return converted{text: fmt.Sprintf("%"+spec+verb, n)}, true
	}
	return converted{}, false
}

// bashQuote is printf %q's quoting: a backslash before each character
// the shell reads specially, $'…' for text with control characters.
func bashQuote(s string) string {
	if s == "" {
		return "''"
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return "$'" + strings.NewReplacer("\\", "\\\\", "'", "\\'", "\n", "\\n", "\t", "\\t", "\r", "\\r").Replace(s) + "'"
		}
	}
	var b strings.Builder
	for i, r := range s {
		if strings.ContainsRune(" \t\n!\"#$&'()*,;<=>?[\\]^`{|}", r) || r == '~' && i == 0 {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// producedForm is what every word a program prints is like, for the few
// programs whose output words people feed xargs and substitutions:
// find prints paths under its starting point, ls and seq names without a
// slash, git's file listings relative paths.
func producedForm(words []string) Pattern {
	anyText := Pattern{Glob: "*"}
	var operands []string
	for _, w := range words[1:] {
		if !strings.HasPrefix(w, "-") {
			operands = append(operands, w)
		}
	}
	switch path.Base(words[0]) {
	case "find":
		var starts []string
		for _, a := range words[1:] {
			if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
				break
			}
			starts = append(starts, a)
		}
		start := "."
		switch {
		case len(starts) == 1 && starts[0] != "":
			start = starts[0]
		case len(starts) > 1:
			return Pattern{Glob: "*", Form: NotOption}
		}
		return Pattern{Glob: globEscape(start) + "*" + findNameSuffix(words[1+len(starts):]), Form: NotOption}
	case "ls":
		for _, o := range operands {
			if strings.Contains(o, "/") {
				return anyText
			}
		}
		if !slices.Contains(words, "-d") {
			return Pattern{Glob: "*", Form: NameOnly}
		}
	case "seq":
		return Pattern{Glob: "*", Form: NameOnly}
	case "git":
		if len(operands) > 0 && (operands[0] == "ls-files" || slices.Contains(words, "--name-only") && (operands[0] == "diff" || operands[0] == "ls-tree" || operands[0] == "show" || operands[0] == "log")) {
			return Pattern{Glob: "*", Form: RelativePath}
		}
	}
	return anyText
}

// keepsForm says whether a command in a pipeline prints only lines it
// reads, unchanged: grep without options that print other text, sort,
// uniq, head, tail, tac, shuf.
func keepsForm(words []string) bool {
	if len(words) == 0 || words[0] == "" {
		return false
	}
	switch path.Base(words[0]) {
	case "sort", "uniq", "head", "tail", "tac", "shuf":
		return true
	case "awk", "gawk", "mawk", "nawk":
		// A program of a pattern alone prints the lines it matches:
		// awk 'NR>5', awk '/x/'.
		return len(words) == 2 && !strings.ContainsAny(words[1], "{}") && !strings.HasPrefix(words[1], "-")
	case "grep", "egrep", "fgrep":
		for _, w := range words[1:] {
			if strings.HasPrefix(w, "-") && strings.ContainsAny(strings.TrimLeft(w, "-"), "obcnHZzAB") && !strings.HasPrefix(w, "--") {
				return false
			}
		}
		return true
	}
	return false
}

// findNameSuffix is the glob every path a find expression prints ends
// with, when the expression is one -name test and nothing that joins or
// negates tests: `-name '*.html'` prints paths ending in .html. "" when
// nothing is known of the end.
func findNameSuffix(expression []string) string {
	suffix := ""
	for i, a := range expression {
		switch a {
		case "-o", "-or", "!", "-not", ",", "(", ")":
			return ""
		case "-name":
			if suffix != "" || i+1 >= len(expression) {
				return ""
			}
			name := expression[i+1]
			if !strings.HasPrefix(name, "*") || strings.ContainsAny(name, "?[\\") || name == "*" {
				return ""
			}
			// The name's own stars stay stars; the rest is literal.
			pieces := strings.Split(name[1:], "*")
			for j := range pieces {
				pieces[j] = globEscape(pieces[j])
			}
			suffix = strings.Join(pieces, "*")
		}
	}
	return suffix
}
