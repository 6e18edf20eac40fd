package hardening

import (
	"slices"
	"strconv"
	"strings"
)

// xargsOptions is how xargs is told to read its input and build its
// commands (GNU xargs's options).
type xargsOptions struct {
	command []string
	// replace, when not "", is -I's string: each input line is one
	// argument, put in its place in the command's words.
	replace string
	// replaceAll, when not "", is BSD -J's string: the argument equal to
	// it is replaced by every word read.
	replaceAll string
	// delimiter splits the input: 0 for blanks and newlines with xargs's
	// quoting, '\n' for -I and -L, or -0's NUL and -d's character.
	delimiter byte
	quoting   bool
	// batch is how many words (-n) or lines (-L) one command takes; 0 all.
	batch int
	lines bool
	// file is -a's file, read instead of standard input.
	file string
}

// parseXargs reads xargs's options; ok is false for an option neither
// GNU nor BSD xargs knows, or one missing its value: xargs then refuses
// to run.
func parseXargs(args []string) (o xargsOptions, ok bool) {
	o.quoting = true
	valued := func(long, short string, a string, i *int) (string, bool) {
		switch {
		case a == short || a == long:
			if *i+1 >= len(args) {
				return "", false
			}
			*i++
			return args[*i], true
		case strings.HasPrefix(a, long+"="):
			return a[len(long)+1:], true
		}
		return "", false
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			o.command = args[i+1:]
			return o, true
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			o.command = args[i:]
			return o, true
		}
		if strings.HasPrefix(a, "--") {
			switch {
			case a == "--null":
				o.delimiter, o.quoting = '\x00', false
			case a == "--replace" || strings.HasPrefix(a, "--replace="):
				o.replace = "{}"
				if v, has := strings.CutPrefix(a, "--replace="); has {
					o.replace = v
				}
			default:
				if v, has := valued("--arg-file", "", a, &i); has {
					o.file = v
				} else if v, has := valued("--delimiter", "", a, &i); has {
					o.delimiter, o.quoting = delimiterOf(v), false
				} else if v, has := valued("--max-args", "", a, &i); has {
					o.batch, o.lines = atoi(v), false
				} else if v, has := valued("--max-lines", "", a, &i); has {
					o.batch, o.lines = atoi(v), true
				} else if _, has := valued("--max-procs", "", a, &i); has {
				} else if _, has := valued("--max-chars", "", a, &i); has {
				} else if _, has := valued("--eof", "", a, &i); has {
				} else if _, has := valued("--process-slot-var", "", a, &i); has {
				} else if !xargsFlags[a] {
					return o, false
				}
			}
			continue
		}
		// A cluster of short options; one that takes a value takes the
		// rest of the word, or the next word.
		for j := 1; j < len(a); j++ {
			rest := a[j+1:]
			value := func() (string, bool) {
				if rest != "" {
					return rest, true
				}
				if i+1 < len(args) {
					i++
					return args[i], true
				}
				return "", false
			}
			switch c := a[j]; c {
			case '0':
				o.delimiter, o.quoting = '\x00', false
			case 'p', 'r', 't', 'x', 'o':
			case 'I':
				v, has := value()
				if !has {
					return o, false
				}
				o.replace = v
				j = len(a)
			case 'i':
				// -i takes its value only attached.
				o.replace = "{}"
				if rest != "" {
					o.replace = rest
				}
				j = len(a)
			case 'e', 'l':
				// Optional values, attached only.
				if c == 'l' {
					o.batch, o.lines = max(atoi(rest), 1), true
				}
				j = len(a)
			case 'J':
				// BSD xargs: the first argument equal to it is replaced
				// by all the words read.
				v, has := value()
				if !has {
					return o, false
				}
				o.replaceAll = v
				j = len(a)
			case 'R', 'S':
				// BSD: how many replacements, their size.
				if _, has := value(); !has {
					return o, false
				}
				j = len(a)
			case 'a', 'd', 'E', 'n', 'L', 'P', 's':
				v, has := value()
				if !has {
					return o, false
				}
				switch c {
				case 'a':
					o.file = v
				case 'd':
					o.delimiter, o.quoting = delimiterOf(v), false
				case 'n':
					o.batch, o.lines = atoi(v), false
				case 'L':
					o.batch, o.lines = atoi(v), true
				}
				j = len(a)
			default:
				return o, false
			}
		}
	}
	return o, true
}

// xargsFlags are xargs's long options without a value.
var xargsFlags = map[string]bool{"--no-run-if-empty": true, "--verbose": true, "--exit": true, "--interactive": true, "--open-tty": true, "--show-limits": true, "--max-lines": true, "--eof": true}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// delimiterOf is -d's character: a letter, or an escape (\n, \t, \0, \x41).
func delimiterOf(v string) byte {
	if strings.HasPrefix(v, `\`) {
		d := ansiC(v)
		if v == `\0` {
			return 0
		}
		if d != "" {
			return d[0]
		}
	}
	if v == "" {
		return '\n'
	}
	return v[0]
}

// items splits xargs's input as it does.
func (o xargsOptions) items(input string) []string {
	switch {
	case o.replace != "" || o.lines && o.delimiter == 0 && o.quoting:
		var out []string
		for _, l := range strings.Split(input, "\n") {
			if l = strings.TrimLeft(l, " \t"); l != "" {
				out = append(out, l)
			}
		}
		return out
	case !o.quoting:
		var out []string
		for _, f := range strings.Split(input, string(o.delimiter)) {
			if f != "" {
				out = append(out, f)
			}
		}
		return out
	}
	return xargsWords(input)
}

// xargsWords splits input on blanks as xargs does by default, with its
// single and double quotes and backslashes.
func xargsWords(input string) []string {
	var out []string
	var b strings.Builder
	started := false
	var quote byte
	for i := 0; i < len(input); i++ {
		c := input[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				b.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, started = c, true
		case c == '\\' && i+1 < len(input):
			i++
			b.WriteByte(input[i])
			started = true
		case c == ' ' || c == '\t' || c == '\n':
			if started {
				out = append(out, b.String())
				b.Reset()
				started = false
			}
		default:
			b.WriteByte(c)
			started = true
		}
	}
	if started {
		out = append(out, b.String())
	}
	return out
}

// maxXargsCommands bounds the commands xargs's known input makes that are
// judged one by one; past it the rest are held.
const maxXargsCommands = 256

// xargs inspects the commands xargs runs: its command completed, or with
// -I filled in, by the items it reads.
func (in *inspector) xargs(c *command) {
	o, ok := parseXargs(c.args())
	if !ok {
		// Neither GNU nor BSD xargs knows the option: it refuses it and
		// runs nothing.
		return
	}
	command := o.command
	if len(command) == 0 {
		if !c.complete() {
			in.unseeable("xargs runs a command named when the line runs")
			return
		}
		command = []string{"echo"}
	}
	input := c.stdin
	if o.file != "" {
		v, known := in.files[o.file]
		input = feed{text: v.text, known: known && v.known, from: "the file `" + shorten(o.file) + "`", form: Pattern{Glob: "*"}}
	}
	via := "xargs reading " + describeFeed(input)
	if !input.known {
		if !input.given() && o.file == "" {
			// Nothing the line gives: xargs reads what the agent's shell
			// gives it, which is no input.
			input.form = Pattern{Glob: "*"}
		}
		in.xargsUnknown(c, o, command, input, via)
		return
	}
	items := o.items(input.text)
	for n, cmd := range o.commands(command, items) {
		if n == maxXargsCommands {
			in.unseeable("xargs runs more commands than codewhale-ls judges one by one")
			return
		}
		in.line(join(cmd)+openTail(c), c.depth+1, via)
	}
}

// commands are the commands xargs makes of its items.
func (o xargsOptions) commands(command, items []string) [][]string {
	var out [][]string
	if o.replace != "" {
		for _, item := range items {
			cmd := make([]string, len(command))
			for i, w := range command {
				cmd[i] = strings.ReplaceAll(w, o.replace, item)
			}
			out = append(out, cmd)
		}
		return out
	}
	if o.replaceAll != "" {
		if i := slices.Index(command, o.replaceAll); i >= 0 {
			cmd := append(append(append([]string(nil), command[:i]...), items...), command[i+1:]...)
			return [][]string{cmd}
		}
	}
	batch := o.batch
	if batch <= 0 || batch > len(items) {
		batch = max(len(items), 1)
	}
	for start := 0; start < len(items) || start == 0; start += batch {
		end := min(start+batch, len(items))
		out = append(out, append(append([]string(nil), command...), items[start:end]...))
		if end >= len(items) {
			break
		}
	}
	return out
}

// xargsUnknown inspects xargs reading input only known when it runs: the
// command followed by any number of words, or with -I an argument in each
// place of its string, each of the form its producer prints.
func (in *inspector) xargsUnknown(c *command, o xargsOptions, command []string, input feed, via string) {
	form := input.form
	if form.Glob == "" {
		form.Glob = "*"
	}
	if o.replaceAll != "" {
		if i := slices.Index(command, o.replaceAll); i >= 0 {
			form.Many = true
			in.patterns["XARGS_INPUT"] = form
			in.line(join(command[:i])+" $XARGS_INPUT "+join(command[i+1:])+openTail(c), c.depth+1, via)
			return
		}
	}
	if o.replace == "" {
		form.Many = true
		in.patterns["XARGS_INPUT"] = form
		in.line(join(command)+" $XARGS_INPUT"+openTail(c), c.depth+1, via)
		return
	}
	form.Many = false
	in.patterns["XARGS_ITEM"] = form
	words := make([]string, len(command))
	for i, w := range command {
		if !strings.Contains(w, o.replace) {
			words[i] = Quote(w)
			continue
		}
		parts := strings.Split(w, o.replace)
		for j := range parts {
			parts[j] = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`").Replace(parts[j])
		}
		words[i] = `"` + strings.Join(parts, "${XARGS_ITEM}") + `"`
	}
	in.line(strings.Join(words, " ")+openTail(c), c.depth+1, via)
}
