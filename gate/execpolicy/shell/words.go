package shell

import "strings"

// maxWords bounds Words: a command longer than this is not a listing of
// paths anyone reads by hand.
const maxWords = 4096

// Words lists the words of every command command could run, as the
// expander discovers them (substitutions, `eval` and the payload of a
// shell's `-c`), with quotes removed and nothing evaluated; at most
// maxWords. Callers look among them for the paths a command names.
func Words(command string) []string {
	var out []string
	walkCommands(command, 0, false, func() bool { return len(out) >= maxWords }, func(words, _ []string, _ int) {
		for _, w := range words {
			if w != "" && len(out) < maxWords {
				out = append(out, w)
			}
		}
	})
	return out
}

// A pattern is a word as the shell will expand it rather than as it reads:
// a byte that was quoted or backslash-escaped and means something to
// expansion (PatternSpecial) is preceded by a backslash; every other byte
// is as the shell sees it unquoted, so `*`, `?`, `[`, `{`, a leading `~`
// and `$NAME` or `${…}` keep their meaning. Text only known when the
// command runs (a command substitution) is PatternUnknown. A word made of
// nothing but a command substitution is no word (its body is walked), as
// in Words.
const PatternUnknown = "${(}"

// PatternSpecial reports the bytes a pattern escapes when they were quoted.
func PatternSpecial(c byte) bool { return strings.IndexByte(`\*?[]{}~$`, c) >= 0 }

// Command is one command a line could run (as Words finds them).
type Command struct {
	// Words are its words with quotes removed, as Words gives them.
	Words []string
	// Patterns are the same words as patterns.
	Patterns []string
	// Head is the index of the word naming the program run, past leading
	// assignments and passthrough wrappers (sudo, env, timeout 5, …);
	// len(Words) when there is none.
	Head int
	// Depth is 0 for the line's own commands, more for those in a
	// substitution, an eval or a shell's -c payload, which run in a
	// shell of their own: a cd there does not move the line.
	Depth int
}

// Commands lists every command command could run, as Words walks them
// (the line's own commands in order, then the nested ones), with their
// words also as patterns; at most maxWords words in all.
func Commands(command string) []Command {
	var out []Command
	n := 0
	walkCommands(command, 0, true, func() bool { return n >= maxWords }, func(words, patterns []string, depth int) {
		if n >= maxWords {
			return
		}
		if room := maxWords - n; len(words) > room {
			words, patterns = words[:room], patterns[:room]
		}
		n += len(words)
		out = append(out, Command{Words: words, Patterns: patterns, Head: len(words) - len(stripWrappers(words)), Depth: depth})
	})
	return out
}
