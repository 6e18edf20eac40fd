package shell

import (
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
)

// Prefix-grant eligibility (docs/codewhale/releases/0.10.1.md A.2.5, N5):
// a trusted or allow prefix grants one simple command's ordinary
// arguments. Shell syntax is the expander's business; what remains is the
// table of arguments that turn a reading program into one that writes or
// runs something.

// prefixGrantEligible reports whether a prefix grant may cover command,
// given its 0.10.1 expansion.
func prefixGrantEligible(command string, e Expansion) bool {
	if e.Dynamic || e.ArgumentsDynamic || e.Nested || e.Control || e.Redirects {
		return false
	}
	words, ok := shlexSplit(command)
	if !ok || len(words) == 0 {
		return false
	}
	words[0] = programName(words[0])
	// Both the program as written (notably `env CMD`) and the program
	// behind ordinary wrappers must keep their arguments read-only.
	if !grantArgumentsSafe(words) {
		return false
	}
	effective, ok := unwrapEffective(words)
	if !ok {
		return false
	}
	start, ok := primaryWord(effective)
	return ok && grantArgumentsSafe(effective[start:])
}

// programName folds `/usr/bin/rm`, `"rm"` and `C:\…\rm.exe` to `rm`.
func programName(word string) string {
	name := strings.ReplaceAll(strings.Trim(word, `"'`), `\`, "/")
	name = name[strings.LastIndexByte(name, '/')+1:]
	name, _ = strings.CutSuffix(name, ".exe")
	return ascii.Lower(name)
}

// maxUnwrap is how many wrappers the effective-command walk peels before
// it gives up (the command is then not eligible).
const maxUnwrap = 8

// argvWrappers pass their remaining arguments to another command.
var argvWrappers = map[string]bool{
	"sudo": true, "doas": true, "command": true, "nice": true, "ionice": true, "nohup": true,
	"stdbuf": true, "setsid": true, "time": true, "timeout": true, "xargs": true,
}

// unwrapShells are the shells whose `-c` payload the walk follows.
var unwrapShells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "ash": true, "fish": true}

// unwrapEffective peels passthrough wrappers and shell `-c` payloads down
// to the command that runs; ok is false past maxUnwrap levels.
func unwrapEffective(words []string) ([]string, bool) {
	current := words
	for range maxUnwrap {
		start, ok := primaryWord(current)
		if !ok {
			return current, true
		}
		name := programName(current[start])
		switch {
		case unwrapShells[name]:
			payload, ok := shellCommandPayload(current[start+1:])
			if !ok {
				return current, true
			}
			if current, ok = shlexSplit(payload); !ok {
				return nil, false
			}
		case argvWrappers[name]:
			rest := skipPassthroughOptions(name, current[start+1:])
			if len(rest) == 0 {
				return current, true
			}
			current = rest
		case current[start] == name: // already the program's name, as it usually is
			return current, true
		default:
			normalized := slices.Clone(current)
			normalized[start] = name
			return normalized, true
		}
	}
	return nil, false
}

// shellCommandPayload is the command string of a shell invocation: the
// first operand after the options once a `-c` (possibly clustered) was seen.
func shellCommandPayload(args []string) (string, bool) {
	commandMode, optionsDone := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !optionsDone && (a == "--" || a == "-"):
			optionsDone = true
		case !optionsDone && len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			short := !strings.HasPrefix(a, "--")
			commandMode = commandMode || a[0] == '-' && short && strings.ContainsRune(a[1:], 'c')
			if short && strings.ContainsAny(a[1:], "oO") {
				i++
			}
		case commandMode:
			return a, true
		}
	}
	return "", false
}

// skipPassthroughOptions drops a wrapper's leading options, and the
// numeric operand of timeout, nice and ionice.
func skipPassthroughOptions(wrapper string, args []string) []string {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		i++
	}
	if (wrapper == "timeout" || wrapper == "nice" || wrapper == "ionice") && i < len(args) {
		number := strings.TrimRightFunc(args[i], func(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' })
		if number != "" && strings.Trim(number, "0123456789.") == "" {
			i++
		}
	}
	return args[i:]
}

// primaryWord is the index of the command word after `env` (with its
// options and assignments) and leading assignments.
func primaryWord(words []string) (int, bool) {
	for i := 0; i < len(words); {
		switch w := words[i]; {
		case w == "env":
			for i++; i < len(words) && (strings.HasPrefix(words[i], "-") || isVariableAssignment(words[i])); i++ {
			}
		case isVariableAssignment(w):
			i++
		default:
			return i, true
		}
	}
	return 0, false
}

// isVariableAssignment is `NAME=value` with a name that is a shell
// variable name (a letter or `_` first).
func isVariableAssignment(word string) bool {
	name, _, ok := strings.Cut(word, "=")
	return ok && name != "" && !('0' <= name[0] && name[0] <= '9') && isAssignment(word)
}

// grantArgumentsSafe checks a command (words[0] its program) against the
// table of read-to-write and read-to-execute arguments.
func grantArgumentsSafe(words []string) bool {
	// Global git options may precede the subcommand; --output still writes.
	if words[0] == "git" && anyHasPrefix(words[1:], "--output") {
		return false
	}
	for _, entry := range grantArgumentChecksByProgram[strings.ToLower(words[0])] {
		if n := len(entry.words); len(words) >= n && leadingWordsAre(words, entry.words) && !entry.safe(words, words[n:]) {
			return false
		}
	}
	return true
}

// grantArgumentChecksByProgram holds the rows of grantArgumentChecks by
// their first word, in table order: a row applies only to a command whose
// program, lower-cased, is that word, so a command is held to its own rows
// instead of being compared with each.
var grantArgumentChecksByProgram = func() map[string][]grantArgumentCheck {
	m := map[string][]grantArgumentCheck{}
	for _, entry := range grantArgumentChecks {
		m[entry.words[0]] = append(m[entry.words[0]], entry)
	}
	return m
}()

// leadingWordsAre reports words opening with want, compared lower-cased.
func leadingWordsAre(words, want []string) bool {
	for k, w := range want {
		if strings.ToLower(words[k]) != w {
			return false
		}
	}
	return true
}

func anyHasPrefix(args []string, prefix string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, prefix) })
}

// onlyOptions accepts args whose options are all in allowed and, when
// operandsOK, any operands.
func onlyOptions(args []string, operandsOK bool, allowed ...string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			if !slices.Contains(allowed, a) {
				return false
			}
		} else if !operandsOK {
			return false
		}
	}
	return true
}

// grantArgumentCheck is one row of the argument table: the command's
// leading words and whether its arguments (words is the whole command,
// args what follows the entry's words) keep it from writing or running.
type grantArgumentCheck struct {
	words []string
	safe  func(words, args []string) bool
}

func listMode(args []string) bool {
	return slices.Contains(args, "-l") || slices.Contains(args, "--list")
}

var grantArgumentChecks = []grantArgumentCheck{
	// `env CMD` runs CMD; only the bare listing reads.
	{fields("env"), func(_, args []string) bool { return onlyOptions(args, false, "-0", "--null") }},
	{fields("find"), func(words, _ []string) bool {
		return !slices.ContainsFunc(words[1:], func(w string) bool {
			return slices.Contains(fields("-delete -exec -execdir -ok -okdir -fprintf -fls -fprint -fprint0 -truncate"), w)
		})
	}},
	{fields("sed"), func(words, _ []string) bool { return sedPrintsLines(words) }},
	{fields("sort"), func(words, _ []string) bool {
		return textFilterOptions(words, fields("-b -d -f -g -h -i -M -n -r -s -u -V --dictionary-order --general-numeric-sort "+
			"--human-numeric-sort --ignore-case --ignore-leading-blanks --ignore-nonprinting --month-sort --numeric-sort --reverse "+
			"--stable --unique --version-sort"), fields("-k --key -t --field-separator"), -1)
	}},
	// A second operand is uniq's output file.
	{fields("uniq"), func(words, _ []string) bool {
		return textFilterOptions(words, fields("-c -d -D -i -u -z --count --ignore-case --repeated --unique --zero-terminated"),
			fields("-f --skip-fields -s --skip-chars -w --check-chars"), 1)
	}},
	// `hostname NAME` sets the host name.
	{fields("hostname"), func(_, args []string) bool { return onlyOptions(args, false, args...) }},
	// `--pre CMD` runs a preprocessor on every file searched.
	{fields("rg"), func(_, args []string) bool { return !anyHasPrefix(args, "--pre") }},
	// `-x`, `-X` and `--exec…` run a command per match.
	{fields("fd"), func(_, args []string) bool {
		return !slices.ContainsFunc(args, func(a string) bool {
			return strings.HasPrefix(a, "--exec") || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "xX")
		})
	}},
	// `+CMD` runs a pager command at startup.
	{fields("less"), func(_, args []string) bool { return !anyHasPrefix(args, "+") }},
	{fields("more"), func(_, args []string) bool { return !anyHasPrefix(args, "+") }},
	// Other options choose the pager, browser or configuration man runs.
	{fields("man"), func(_, args []string) bool {
		return onlyOptions(args, true, fields("-k -f -a -w -W --apropos --whatis --all --where --path")...)
	}},
	{fields("git diff"), func(_, args []string) bool { return !anyHasPrefix(args, "--output") }},
	{fields("git log"), func(_, args []string) bool { return !anyHasPrefix(args, "--output") }},
	{fields("git show"), func(_, args []string) bool { return !anyHasPrefix(args, "--output") }},
	// Listing forms only: the others delete, rename or create refs.
	{fields("git branch"), func(_, args []string) bool {
		return onlyOptions(args, listMode(args), fields("-a --all -r --remotes -v -vv --verbose --show-current --color --no-color -l --list")...)
	}},
	{fields("git tag"), func(_, args []string) bool { return onlyOptions(args, listMode(args), "-l", "--list", "-n") }},
	{fields("git remote"), func(_, args []string) bool {
		switch {
		case len(args) == 0:
			return true
		case args[0] == "-v" || args[0] == "--verbose":
			return len(args) == 1
		case args[0] == "get-url":
			return onlyOptions(args[1:], true, "--push", "--all")
		}
		return false
	}},
}

// sedPrintsLines admits only `sed -n <N|N,M|>p FILE…` with no later option
// (a later -e/-f runs another script, -i writes).
func sedPrintsLines(words []string) bool {
	if len(words) < 3 || words[1] != "-n" {
		return false
	}
	operandsOnly := false
	for _, w := range words[3:] {
		switch {
		case !operandsOnly && w == "--":
			operandsOnly = true
		case !operandsOnly && strings.HasPrefix(w, "-") && w != "-":
			return false
		}
	}
	head, ok := strings.CutSuffix(words[2], "p")
	if !ok {
		if head, ok = strings.CutSuffix(words[2], "P"); !ok {
			return false
		}
	}
	numeric := func(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
	from, to, isRange := strings.Cut(head, ",")
	return head == "" || numeric(head) || isRange && numeric(from) && numeric(to)
}

// textFilterOptions admits exact switches, value options with a value that
// is no option, and at most maxOperands operands (no limit when negative).
func textFilterOptions(words, switches, valueOptions []string, maxOperands int) bool {
	options, operands := true, 0
	for i := 1; i < len(words); i++ {
		w := words[i]
		switch {
		case options && w == "--":
			options = false
		case options && strings.HasPrefix(w, "-") && w != "-":
			switch {
			case slices.Contains(switches, w):
			case slices.Contains(valueOptions, w):
				if i++; i >= len(words) || strings.HasPrefix(words[i], "-") {
					return false
				}
			default:
				return false
			}
		default:
			if operands++; maxOperands >= 0 && operands > maxOperands {
				return false
			}
		}
	}
	return true
}

// shlexSplit splits text into words as a POSIX shell lexer without
// expansions does (the shlex crate Codewhale uses): blanks are space, tab
// and newline; `#` at a word's start comments to the end of the line; an
// unterminated quote or a trailing backslash is an error (ok false).
//
// It runs on every 0.10.1 check (prefixGrantEligible), so a word without
// quotes or escapes, the usual one, is a substring of text; only a word in
// which one appears is built, from there on. The list has room at once
// for as many words as text has spaces, plus one.
func shlexSplit(text string) (words []string, ok bool) {
	words = make([]string, 0, strings.Count(text, " ")+1)
	var word strings.Builder
	inWord := false
	built := false // the current word is in word rather than text[start:]
	start := 0
	end := func(at int) {
		switch {
		case !inWord:
			return
		case built:
			words = append(words, word.String())
			word.Reset()
		default:
			words = append(words, text[start:at])
		}
		inWord, built = false, false
	}
	// build makes the word at i one that is built, with what it has so far.
	build := func(i int) {
		if inWord && !built {
			word.WriteString(text[start:i])
		}
		inWord, built = true, true
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			end(i)
		case c == '#' && !inWord:
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == '\\':
			build(i)
			if i++; i >= len(text) {
				return nil, false
			}
			if text[i] != '\n' {
				word.WriteByte(text[i])
			}
		case c == '\'':
			build(i)
			closing := strings.IndexByte(text[i+1:], '\'')
			if closing < 0 {
				return nil, false
			}
			word.WriteString(text[i+1 : i+1+closing])
			i += closing + 1
		case c == '"':
			build(i)
			for i++; ; i++ {
				if i >= len(text) {
					return nil, false
				}
				if text[i] == '"' {
					break
				}
				if text[i] == '\\' {
					if i++; i >= len(text) {
						return nil, false
					}
					switch text[i] {
					case '$', '`', '"', '\\':
						word.WriteByte(text[i])
					case '\n':
					default:
						word.WriteByte('\\')
						word.WriteByte(text[i])
					}
					continue
				}
				word.WriteByte(text[i])
			}
		case !inWord:
			inWord, start = true, i
		case built:
			word.WriteByte(c)
		}
	}
	end(len(text))
	return words, true
}
