// Package cli reads the command line's own help texts (each command's
// --help, cmd/codewhale-ls/help.go) into a small model of its commands,
// their subcommand words, operands and flags, and renders that model as
// shell completions (bash, zsh, fish) and a man page. Generated from the
// help, they cannot drift from it: a flag a help text shows is a flag the
// completions offer (issue 27, point 4).
//
// What the help texts say, and how it is read:
//   - usage lines: "usage: PROGRAM COMMAND ..." and the lines below it
//     until a blank line. Lower-case words right after COMMAND
//     (install|uninstall, show) are subcommand words; an upper-case
//     placeholder (AGENT, FILE..., [REPO...]) not after a flag is the
//     operand; "--flag VALUE" and "[--flag]" are flags; "(also --x, -y)"
//     names aliases of the command; "< file" is standard input.
//   - flag lines: "  --flag [VALUE]   what it does", continued on lines
//     indented further.
//   - "PLACEHOLDER is one of a, b, c." lists an operand's values; "... one
//     of X:" takes the words of the indented lines that follow.
//   - A VALUE or placeholder "a|b|c" of lower-case words is a closed set;
//     PATH and FILE name a file, DIR and REPO a directory; COMMAND names
//     one of the commands.
package cli

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Kind is what a flag's value or an operand completes to, from the
// least said to the most.
type Kind int

const (
	// Nothing: free text (a version, a duration, an ID).
	Nothing Kind = iota
	// File: a path to a file.
	File
	// Dir: a path to a directory.
	Dir
	// Choices: one of Values.
	Choices
)

// Flag is one --flag of a command.
type Flag struct {
	Name    string   // without the dashes
	Value   string   // the placeholder, "" for a flag without a value
	Kind    Kind     // what Value completes to
	Values  []string // with Kind Choices
	Summary string   // the first sentence of its description, "" when none
}

// Operand is what a command takes besides flags and subcommand words.
type Operand struct {
	Name   string // the placeholder: AGENT, FILE
	Kind   Kind
	Values []string // with Kind Choices
	Many   bool     // FILE...: any number
}

// Command is one command of the program.
type Command struct {
	Name    string
	Aliases []string // --version, -v
	Usage   []string // the usage lines, without "usage: "
	Summary string   // the first sentence of its description
	Help    string   // the whole help text
	Words   []string // subcommand words (install, uninstall), in order
	Operand *Operand // nil when it takes none
	Flags   []Flag   // sorted by name
}

// Model is the program's command line.
type Model struct {
	Program  string
	Commands []Command // sorted by name
}

// Command is the command named name, nil when there is none.
func (m *Model) Command(name string) *Command {
	for i := range m.Commands {
		if m.Commands[i].Name == name {
			return &m.Commands[i]
		}
	}
	return nil
}

// Valued is every flag name that takes a value in some command; a name
// takes one in all its commands or in none (Parse checks), so completing
// can skip a flag's value without knowing the command.
func (m *Model) Valued() []string {
	var names []string
	for _, c := range m.Commands {
		for _, f := range c.Flags {
			if f.Value != "" && !slices.Contains(names, f.Name) {
				names = append(names, f.Name)
			}
		}
	}
	slices.Sort(names)
	return names
}

// Flag is the command's flag named name, nil when there is none.
func (c *Command) Flag(name string) *Flag {
	for i := range c.Flags {
		if c.Flags[i].Name == name {
			return &c.Flags[i]
		}
	}
	return nil
}

var (
	flagLine      = regexp.MustCompile(`^ {2,}--([a-z][a-z0-9-]*)(?: ([^ ]+))?(?: {2,}(.*))?$`)
	continuation  = regexp.MustCompile(`^ {20,}(\S.*)$`)
	oneOf         = regexp.MustCompile(`(?s)\b([A-Z]{2,})\s+is\s+([^.:]*?)one\s+of\s+([^.:]*)([.:])`)
	alsoAliases   = regexp.MustCompile(`\(also ([^)]*)\)`)
	placeholder   = regexp.MustCompile(`^[A-Z][A-Z_]*(\.\.\.)?$`)
	lowerWords    = regexp.MustCompile(`^[a-z][a-z0-9-]*(\|[a-z][a-z0-9-]*)*$`)
	sentenceBreak = regexp.MustCompile(`[^.][.;:](\s|$)`) // not FILE...
	parenthetical = regexp.MustCompile(`\s*\([^()]*\)`)
)

// Parse reads the help texts, keyed by command name, of program.
func Parse(program string, help map[string]string) (*Model, error) {
	m := &Model{Program: program}
	valued := map[string]string{} // flag → "value" or "bool", and which command said so
	for _, name := range sortedKeys(help) {
		c, err := parseCommand(program, name, help[name])
		if err != nil {
			return nil, fmt.Errorf("%s %s --help: %w", program, name, err)
		}
		for _, f := range c.Flags {
			takes := f.Value != ""
			if other, ok := valued[f.Name]; ok && (other[0] == 'v') != takes {
				return nil, fmt.Errorf("--%s takes a value in one command and none in another (%s, %s)", f.Name, other[1:], name)
			}
			valued[f.Name] = map[bool]string{true: "v", false: "b"}[takes] + name
		}
		m.Commands = append(m.Commands, c)
	}
	for i, c := range m.Commands {
		if c.Operand != nil && c.Operand.Name == "COMMAND" {
			for _, other := range m.Commands {
				m.Commands[i].Operand.Values = append(m.Commands[i].Operand.Values, other.Name)
			}
		}
	}
	return m, nil
}

func parseCommand(program, name, text string) (Command, error) {
	c := Command{Name: name, Help: text}
	lines := strings.Split(text, "\n")
	prefix := program + " " + name
	i := 0
	for ; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
		line := strings.TrimSpace(strings.TrimPrefix(lines[i], "usage:"))
		switch {
		case line == prefix || strings.HasPrefix(line, prefix+" "):
			c.Usage = append(c.Usage, line)
		case len(c.Usage) > 0 && strings.HasPrefix(line, "["):
			// A usage line wrapped: its flags continue here.
			c.Usage[len(c.Usage)-1] += " " + line
		default:
			return c, fmt.Errorf("line %d is no usage line of %q: %q", i+1, prefix, lines[i])
		}
	}
	if len(c.Usage) == 0 {
		return c, fmt.Errorf("no usage line")
	}
	var paragraph []string
	for i++; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
		paragraph = append(paragraph, lines[i])
	}
	c.Summary = summary(strings.Join(paragraph, " "))
	for _, u := range c.Usage {
		if err := c.readUsage(strings.TrimPrefix(u, prefix)); err != nil {
			return c, err
		}
	}
	c.readFlagLines(lines)
	if c.Operand != nil && c.Operand.Kind == Nothing {
		c.Operand.Values, c.Operand.Kind = operandValues(text, c.Operand.Name)
	}
	slices.SortFunc(c.Flags, func(a, b Flag) int { return strings.Compare(a.Name, b.Name) })
	return c, nil
}

// readUsage reads one usage line after "PROGRAM COMMAND".
func (c *Command) readUsage(rest string) error {
	if m := alsoAliases.FindStringSubmatch(rest); m != nil {
		for a := range strings.SplitSeq(m[1], ",") {
			c.Aliases = append(c.Aliases, strings.TrimSpace(a))
		}
		rest = strings.Replace(rest, m[0], "", 1)
	}
	tokens := strings.Fields(rest)
	leading := true // still right after the command: words are subcommands
	for i := 0; i < len(tokens); i++ {
		raw := tokens[i]
		tok := strings.Trim(raw, "[]()")
		switch {
		case raw == "<":
			return nil // standard input; nothing after it is typed
		case tok == "" || tok == "|" || tok == "flags":
			continue
		case strings.HasPrefix(tok, "--"):
			leading = false
			value := ""
			if !strings.HasSuffix(raw, "]") && !strings.HasSuffix(raw, ")") && i+1 < len(tokens) && !strings.ContainsAny(tokens[i+1][:1], "-[(<|") {
				i++
				value = strings.Trim(tokens[i], "[]()")
			}
			for name := range strings.SplitSeq(tok, "|") {
				c.addFlag(Flag{Name: strings.TrimPrefix(name, "--"), Value: value})
			}
		case leading && lowerWords.MatchString(tok):
			for w := range strings.SplitSeq(tok, "|") {
				if !slices.Contains(c.Words, w) {
					c.Words = append(c.Words, w)
				}
			}
		case placeholder.MatchString(tok):
			leading = false
			if c.Operand == nil {
				name, many := strings.CutSuffix(tok, "...")
				c.Operand = &Operand{Name: name, Many: many, Kind: pathKind(name)}
			}
		default:
			return fmt.Errorf("cannot read %q in usage %q", raw, rest)
		}
	}
	return nil
}

// readFlagLines reads the "  --flag VALUE   description" lines.
func (c *Command) readFlagLines(lines []string) {
	for i := 0; i < len(lines); i++ {
		m := flagLine.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		description := m[3]
		for ; i+1 < len(lines); i++ {
			more := continuation.FindStringSubmatch(lines[i+1])
			if more == nil || flagLine.MatchString(lines[i+1]) {
				break
			}
			description += " " + more[1]
		}
		c.addFlag(Flag{Name: m[1], Value: m[2], Summary: summary(description)})
	}
}

// addFlag adds f, or completes the flag already read: a flag line's value
// and description say more than a usage line's.
func (c *Command) addFlag(f Flag) {
	f.Kind, f.Values = valueKind(f.Value)
	if old := c.Flag(f.Name); old != nil {
		if f.Summary != "" {
			old.Summary = f.Summary
		}
		// The value that says most: a set of choices, then a path, and a
		// flag line's over a usage line's.
		if f.Value != "" && (old.Value == "" || f.Kind > old.Kind || f.Kind == old.Kind && f.Summary != "") {
			old.Value, old.Kind, old.Values = f.Value, f.Kind, f.Values
		}
		return
	}
	c.Flags = append(c.Flags, f)
}

// valueKind is what a flag's VALUE completes to.
func valueKind(value string) (Kind, []string) {
	if value != "" && lowerWords.MatchString(value) {
		return Choices, strings.Split(value, "|")
	}
	return pathKind(value), nil
}

func pathKind(name string) Kind {
	switch name {
	case "PATH", "FILE":
		return File
	case "DIR", "REPO":
		return Dir
	}
	return Nothing
}

// operandValues reads "NAME is one of a, b, c." from a help text.
func operandValues(text, name string) ([]string, Kind) {
	for _, m := range oneOf.FindAllStringSubmatchIndex(text, -1) {
		if text[m[2]:m[3]] != name {
			continue
		}
		var values []string
		if text[m[8]:m[9]] == "." {
			for v := range strings.SplitSeq(text[m[6]:m[7]], ",") {
				values = append(values, strings.TrimSpace(v))
			}
			return values, Choices
		}
		// "one of Codewhale's own tools:" and the indented lines below.
		for line := range strings.SplitSeq(text[m[1]:], "\n") {
			if line != "" && !strings.HasPrefix(line, " ") {
				break
			}
			values = append(values, strings.Fields(line)...)
		}
		return values, Choices
	}
	if name == "COMMAND" {
		return nil, Choices // Parse fills in the commands
	}
	return nil, Nothing
}

// summary is the first sentence of a description, without its
// parentheticals, on one line.
func summary(description string) string {
	s := strings.Join(strings.Fields(description), " ")
	if loc := sentenceBreak.FindStringIndex(s); loc != nil {
		s = s[:loc[0]+1]
	}
	return strings.TrimSpace(parenthetical.ReplaceAllString(s, ""))
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
