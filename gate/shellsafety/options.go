package shellsafety

import (
	"slices"
	"strings"
)

// Option tests. GNU getopt and git's parse-options accept any unambiguous
// prefix of a long option (`sort --out=f` is `--output=f`), and short
// options cluster (`-ro f` is `-r -o f`). Without each program's full option
// table we cannot tell ambiguous prefixes apart, so the tests treat every
// prefix and every letter of a cluster as present: they may over-match,
// never under-match.

// longName returns the name of a `--name` or `--name=value` argument.
func longName(arg string) (string, bool) {
	if !strings.HasPrefix(arg, "--") || len(arg) == 2 {
		return "", false
	}
	name, _, _ := strings.Cut(arg[2:], "=")
	return name, name != ""
}

// hasLong reports whether arg may spell one of the long options names.
func hasLong(arg string, names ...string) bool {
	n, ok := longName(arg)
	if !ok {
		return false
	}
	for _, full := range names {
		if strings.HasPrefix(full, n) {
			return true
		}
	}
	return false
}

// isShortCluster reports a `-abc` argument (not `-`, not `--x`).
func isShortCluster(arg string) bool {
	return len(arg) > 1 && arg[0] == '-' && arg[1] != '-'
}

// hasShort reports whether arg is a short-option cluster holding any of letters.
func hasShort(arg, letters string) bool {
	return isShortCluster(arg) && strings.ContainsAny(arg[1:], letters)
}

// positionals returns the non-option arguments. valueOptions are the
// options (exact spelling) whose value is the next argument; everything
// after `--` is positional.
func positionals(args []string, valueOptions ...string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i+1:]...)
		case len(a) > 1 && a[0] == '-':
			if slices.Contains(valueOptions, a) {
				i++
			}
		default:
			out = append(out, a)
		}
	}
	return out
}
