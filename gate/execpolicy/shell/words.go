package shell

// maxWords bounds Words: a command longer than this is not a listing of
// paths anyone reads by hand.
const maxWords = 4096

// Words lists the words of every command command could run, as the
// expander discovers them (substitutions, `eval` and the payload of a
// shell's `-c`), with quotes removed and nothing evaluated; at most
// maxWords. Callers look among them for the paths a command names.
func Words(command string) []string {
	var out []string
	walkCommands(command, 0, func() bool { return len(out) >= maxWords }, func(words []string) {
		for _, w := range words {
			if w != "" && len(out) < maxWords {
				out = append(out, w)
			}
		}
	})
	return out
}
