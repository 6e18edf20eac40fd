package shellsafety

// Command is a shell command read once, for callers that ask several of
// this package's questions of the same command (the gate asks ReadOnly,
// Analyze and all of Auto-Review's per decision). Each method answers
// exactly what the function of the same name answers for Text(); none of
// them lexes the command again, and the verdicts several questions share
// are computed once. A Command is safe for concurrent use.
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

// ReadOnly is ReadOnly(c.Text()).
func (c *Command) ReadOnly() bool {
	return c.readOnly.get(func() bool { return readOnly(&c.whole) })
}

// Analyze is Analyze(c.Text()).
func (c *Command) Analyze() Level {
	return c.level.get(func() Level { return rate(&c.whole, c.isDangerous, c.ReadOnly) })
}

// isDangerous is the analyzer's Dangerous test.
func (c *Command) isDangerous() bool {
	return c.dangerous.get(func() bool { return dangerous(&c.whole, 0) })
}

// Segments are the commands of Segments(c.Text()), each parsed; do not
// modify the slice.
func (c *Command) Segments() []*Command { return c.segments }

// PublishLike is PublishLike(c.Text()): the whole text read as one segment.
func (c *Command) PublishLike() bool { return PublishLike(c.whole.text) }

// DestructiveLike is DestructiveLike(c.Text()): the whole text read as one
// segment.
func (c *Command) DestructiveLike() bool {
	return c.isDangerous() || destroysData(&c.whole, 0)
}

// RoutineAutoReview is RoutineAutoReview(c.Text()).
func (c *Command) RoutineAutoReview() bool { return routineAutoReview(c) }
