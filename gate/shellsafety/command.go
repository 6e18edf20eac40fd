package shellsafety

// Command is a shell command read once, for callers that ask several of
// this package's questions of the same command (the gate asks ReadOnly,
// Analyze and all of Auto-Review's per decision). None of its methods
// lexes the command again, and the verdicts several questions share are
// computed once. A Command is safe for concurrent use.
type Command struct {
	whole    parsed
	segments []*Command
	// self backs segments when the command is its own only segment, so
	// that common case costs no second parse and no allocation.
	self [1]*Command

	readOnly, dangerous memo[bool]
	level               memo[Level]
}

// Parse reads command for the methods of Command.
func Parse(command string) *Command {
	var space [4]string
	texts := appendSegments(space[:0], command)
	c := new(Command)
	c.whole.read(command)
	if len(texts) == 1 && texts[0] == command {
		c.ownSegment()
		return c
	}
	c.segments = make([]*Command, len(texts))
	parts := make([]Command, len(texts))
	for i, t := range texts {
		parts[i].whole.read(t)
		parts[i].ownSegment()
		c.segments[i] = &parts[i]
	}
	return c
}

// ownSegment makes c its own only segment, which a segment always is: it
// holds no `&&`, `||` or `;` and is trimmed.
func (c *Command) ownSegment() {
	c.self[0] = c
	c.segments = c.self[:]
}

// Text is the command as given to Parse.
func (c *Command) Text() string { return c.whole.text }

// ReadOnly is Codewhale's strict parallel read-only classifier (docs/codewhale/pipeline.md
// §4.2 bash row, §6.2 Shell risk). The spec leaves its rules open; this one
// is deliberately narrow: one command or a pipeline of commands, each a
// known read-only program with arguments that cannot make it write, run
// another program or reach outside its input.
//
// Refused outright: ; && || & newline CR NUL, any redirection, subshells,
// `$` or backticks outside single quotes (a variable could carry a flag such
// as `-delete`), an open quote, and wrappers of any kind (sudo, env VAR=…).
// Unquoted glob or brace characters are allowed only for programs none of
// whose options is unsafe, because a file name like `-delete` could be
// expanded into an option.
func (c *Command) ReadOnly() bool {
	return c.readOnly.get(func() bool { return readOnly(&c.whole) })
}

// Analyze rates a command: Dangerous first (so `echo "rm -rf /"` is
// Dangerous, as in Codewhale), then Safe, WorkspaceSafe, NeedsReview.
func (c *Command) Analyze() Level {
	return c.level.get(func() Level { return rate(&c.whole, c.isDangerous, c.ReadOnly) })
}

// isDangerous is the analyzer's Dangerous test.
func (c *Command) isDangerous() bool {
	return c.dangerous.get(func() bool { return dangerous(&c.whole, 0) })
}

// Segments splits a command on `&&`, `||` and `;` exactly as Codewhale's
// auto-review does (docs/codewhale/pipeline.md §6.3): on the raw text, quotes or not,
// trimmed, empty pieces dropped. Pipes and `&` stay inside a segment.
// Each segment is parsed; do not modify the slice.
func (c *Command) Segments() []*Command { return c.segments }

// PublishLike is PublishLike(c.Text()): the whole text read as one segment.
func (c *Command) PublishLike() bool { return PublishLike(c.whole.text) }

// DestructiveLike is docs/codewhale/pipeline.md §6.3's destructive-like test of one
// segment: the analyzer rates it Dangerous, or some command of it (after
// VAR=value, wrappers and their options are peeled and quotes removed)
// formats, wipes or overwrites a disk, or force-removes an absolute path
// recursively. `sh -c` payloads are followed too.
// The whole text is read as one segment.
func (c *Command) DestructiveLike() bool {
	return c.isDangerous() || destroysData(&c.whole, 0)
}

// RoutineAutoReview is Auto-Review's "routine shell" test (docs/codewhale/pipeline.md
// §6.3): with `&&` and `||` deleted the command holds no | & > < backtick
// or `$(`, and every segment is analyzer Safe or WorkspaceSafe, or exactly
// `git rev-parse --show-toplevel` / `git rev-parse HEAD`. A command with no
// segment at all is not routine: there is nothing to vouch for.
func (c *Command) RoutineAutoReview() bool { return routineAutoReview(c) }
