package hardening

import (
	"path"
	"slices"
	"strings"
)

// rm's options as GNU rm's getopt_long reads them: any unambiguous
// prefix of a long option, short options in clusters, options after
// operands too unless POSIXLY_CORRECT is set, `--` ending them.
var (
	rmLong = []string{"recursive", "force", "interactive", "one-file-system", "no-preserve-root", "preserve-root", "dir", "verbose", "help", "version"}
	// rmLongShort are the long options with a short spelling.
	rmLongShort = map[string]string{"recursive": "r", "force": "f", "dir": "d", "verbose": "v"}
)

// rmSpelling is one rm command read: its flags and its operands.
type rmSpelling struct {
	recursive, force bool
	// others are its other options, canonically spelled.
	others []string
	// operands are the files it removes, "" for one built at run time
	// that is neither plain text nor the home directory.
	operands []string
	// respelled says the options are written otherwise than canonically
	// (`-fr`, `--rec`, options after an operand).
	respelled bool
}

// flags is the canonical flag word: -rf, -r, -f or none.
func (s rmSpelling) flags() []string {
	switch {
	case s.recursive && s.force:
		return []string{"-rf"}
	case s.recursive:
		return []string{"-r"}
	case s.force:
		return []string{"-f"}
	}
	return nil
}

// command is the canonical command removing the operands given.
func (s rmSpelling) command(operands ...string) string {
	words := append([]string{"rm"}, s.flags()...)
	words = append(words, s.others...)
	if slices.ContainsFunc(operands, func(o string) bool { return strings.HasPrefix(o, "-") }) {
		words = append(words, "--")
	}
	return join(append(words, operands...))
}

// readRm reads rm's words (after its name); known is the index of the
// first word built at run time.
func readRm(words []string, known int, posix bool) rmSpelling {
	var s rmSpelling
	var written []string // the options as written, to compare
	ended, operandSeen := false, false
	for i, a := range words {
		switch {
		case i >= known:
			// Built at run time: an operand here if it is a home
			// directory or plain text; otherwise nobody knows.
			if _, home := homeForm(a); home || plainWord(a) {
				s.operands = append(s.operands, a)
			} else {
				s.operands = append(s.operands, "")
			}
			operandSeen = true
		case ended || a == "-" || !strings.HasPrefix(a, "-") || posix && operandSeen:
			s.operands = append(s.operands, a)
			operandSeen = true
		case a == "--":
			ended = true
		case strings.HasPrefix(a, "--"):
			if operandSeen {
				s.respelled = true
			}
			written = append(written, a)
			name, val, hasVal := strings.Cut(a[2:], "=")
			full := rmOption(name)
			switch full {
			case "recursive":
				s.recursive = true
			case "force":
				s.force = true
			case "":
				s.others = append(s.others, a) // rm rejects it; kept as written
			default:
				canonical := "--" + full
				if short, ok := rmLongShort[full]; ok {
					canonical = "-" + short
				}
				if hasVal {
					canonical = "--" + full + "=" + val
				}
				if !slices.Contains(s.others, canonical) {
					s.others = append(s.others, canonical)
				}
			}
		default:
			if operandSeen {
				s.respelled = true
			}
			written = append(written, a)
			for _, r := range a[1:] {
				switch r {
				case 'r', 'R':
					s.recursive = true
				case 'f':
					s.force = true
				default:
					if o := "-" + string(r); !slices.Contains(s.others, o) {
						s.others = append(s.others, o)
					}
				}
			}
		}
	}
	if !slices.Equal(written, append(s.flags(), s.others...)) {
		s.respelled = true
	}
	return s
}

// rmOption is the long option a name given to rm is, "" when it names
// none or more than one.
func rmOption(name string) string {
	if slices.Contains(rmLong, name) {
		return name
	}
	found := ""
	for _, l := range rmLong {
		if name != "" && strings.HasPrefix(l, name) {
			if found != "" {
				return ""
			}
			found = l
		}
	}
	return found
}

// rm inspects rm's flags in any spelling and operands that name the same
// target in another spelling: each operand is judged as the canonical
// `rm -rf TARGET` (or -r, -f), one command per operand, so a rule for
// one target holds however many others the line names with it.
func (in *inspector) rm(c *command) {
	_, posix := in.envValue(c, "POSIXLY_CORRECT")
	s := readRm(c.words[1:], c.open-1, posix)
	written := "`" + shorten(join(c.words)) + "`"
	if len(s.operands) == 0 {
		if s.respelled {
			canonical := s.command()
			in.add(Finding{Command: canonical, Why: written + " is `" + shorten(canonical) + "` with its flags in another spelling"})
		}
		return
	}
	for i, op := range s.operands {
		if op == "" {
			continue // what it may be, the command's open words say
		}
		targets, how := rmTargets(op)
		if i == 0 && !s.respelled && how == "" {
			continue // what the engine reads as written
		}
		for _, t := range targets {
			canonical := s.command(t)
			var why []string
			if s.respelled {
				why = append(why, "its flags in another spelling")
			}
			if how != "" {
				why = append(why, how)
			}
			if len(s.operands) > 1 {
				why = append(why, "one of "+itoa(len(s.operands))+" operands")
			}
			in.add(Finding{Command: canonical, Why: written + " is `" + shorten(canonical) + "` with " + strings.Join(why, ", ")})
		}
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// rmTargets are the spellings a rule may give the target an operand
// names, and how the operand names it otherwise ("" when it is written
// canonically): `//`, `/.`, `/usr/..` and `/*` are `/` (also written
// `/*` by rules); `~/`, `$HOME` are `~` (also `~/`, `$HOME`); `/usr/` is
// `/usr`. A relative path is taken as written but for `..` and `.`
// inside it: a trailing slash and a leading `./` are how everyone
// writes a directory.
func rmTargets(op string) ([]string, string) {
	written := op
	if home, ok := homeForm(op); ok {
		op = home
	}
	targets, how := rmTarget(op)
	if how == "" && written != op {
		how = "`" + written + "` naming `" + op + "`"
	}
	if len(targets) == 1 && strings.HasPrefix(targets[0], "~/") {
		// A rule may name it either way.
		targets = append(targets, "$HOME"+strings.TrimPrefix(targets[0], "~"))
	}
	return targets, how
}

// rmTarget is rmTargets for an operand with $HOME written as ~.
func rmTarget(op string) ([]string, string) {
	switch {
	case op == "~" || strings.HasPrefix(op, "~/"):
		rest := path.Clean("/" + strings.TrimPrefix(op, "~"))
		if everything(rest) {
			how := ""
			if op != "~" {
				how = "`" + op + "` naming the home directory"
			}
			return []string{"~", "~/", "$HOME"}, how
		}
		clean := "~" + rest
		if clean != op {
			return []string{clean}, "`" + op + "` naming `" + clean + "`"
		}
		return []string{op}, ""
	case strings.HasPrefix(op, "/"):
		clean := path.Clean(op)
		if everything(clean) {
			how := ""
			if op != "/" {
				how = "`" + op + "` naming `/`"
			}
			return []string{"/", "/*"}, how
		}
		if clean != op {
			return []string{clean}, "`" + op + "` naming `" + clean + "`"
		}
		return []string{op}, ""
	}
	plain := strings.TrimPrefix(strings.TrimRight(op, "/"), "./")
	if clean := path.Clean(op); plain != "" && clean != plain {
		return []string{clean}, "`" + op + "` naming `" + clean + "`"
	}
	return []string{op}, ""
}

// everything says whether a clean absolute path names / or every entry
// under it: each component a pattern that matches any name (`*`, `**`,
// `?*`).
func everything(clean string) bool {
	if clean == "/" {
		return true
	}
	for _, part := range strings.Split(strings.TrimPrefix(clean, "/"), "/") {
		if strings.Trim(part, "*") != "" && part != "?*" && part != "*?" {
			return false
		}
	}
	return true
}

// homeForm is `~` for a word naming the home directory through $HOME
// ($HOME, "${HOME}/", "$HOME"/.), `~/REST` for one under it, as written
// in the line.
func homeForm(w string) (string, bool) {
	unq := strings.ReplaceAll(w, `"`, "")
	for _, h := range []string{"${HOME}", "$HOME"} {
		if rest, ok := strings.CutPrefix(unq, h); ok && (rest == "" || strings.HasPrefix(rest, "/")) && !strings.ContainsAny(rest, "$`'\\") {
			return "~" + rest, true
		}
	}
	return "", false
}

// plainWord says whether a word's source is its value: nothing in it is
// expanded or quoted.
func plainWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= 0x80 || !plainByte[c] {
			return false
		}
	}
	return w != ""
}
