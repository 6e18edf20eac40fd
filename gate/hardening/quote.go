package hardening

import "strings"

// Quote is w as one shell word: as it is when it holds only plain
// characters (letters, digits, `-_./:=,+@%`), else in POSIX single quotes,
// where a `'` inside ends the quotes, is escaped and reopens them. Single
// quotes keep every other byte as it is (a newline, `$`, a backslash,
// UTF-8), so the shell reads w back exactly.
func Quote(w string) string {
	if w == "" {
		return "''"
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= 0x80 || !plainByte[c] || c == ' ' {
			return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return w
}

// ArgvLine is the shell line that runs exactly argv: each word quoted
// where needed (Quote), and the first also where a shell would read it
// as something other than the program's name, an assignment (`FOO=1`)
// or a reserved word (`if`, `time`), so `["FOO=1", "git", "push"]` is
// `'FOO=1' git push`, which runs the program `FOO=1` as the argv does.
// ["bash", "-lc", "git push"] is `bash -lc 'git push'`. argv must not be
// empty, nor hold a NUL byte, which no argument of a program can.
func ArgvLine(argv []string) string {
	line := make([]string, len(argv))
	for i, w := range argv {
		line[i] = Quote(w)
		if i == 0 && line[0] == w && (strings.Contains(w, "=") || reservedWords[w]) {
			line[0] = "'" + w + "'"
		}
	}
	return strings.Join(line, " ")
}

// reservedWords are the words bash reads as its syntax in a command's
// first place, when they are unquoted ("{", "}", "!", "[[" and "]]" are
// not plain, so Quote quotes them already).
var reservedWords = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "case": true, "esac": true,
	"for": true, "select": true, "while": true, "until": true, "do": true, "done": true,
	"in": true, "function": true, "time": true, "coproc": true,
}
