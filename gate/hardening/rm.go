package hardening

import (
	"strings"
)

// rmCanonical is rm's command with its recursive and force flags written
// `-rf` first, when they are spelled otherwise (`-fr`, `-r -f`, `-Rf`,
// `--recursive --force`).
func rmCanonical(args []string) (string, bool) {
	var recursive, force, respelled bool
	var rest []string
	flags := 0
	for i, a := range args {
		switch {
		case a == "--":
			rest = append(rest, args[i:]...)
		case a == "--recursive":
			recursive, respelled = true, true
		case a == "--force":
			force, respelled = true, true
		case strings.HasPrefix(a, "--"):
			rest = append(rest, a)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			flags++
			other := ""
			for _, c := range a[1:] {
				switch c {
				case 'r', 'R':
					recursive = true
				case 'f':
					force = true
				default:
					other += string(c)
				}
			}
			if a != "-rf" {
				respelled = true
			}
			if other != "" {
				rest = append(rest, "-"+other)
			}
		default:
			rest = append(rest, a)
		}
		if a == "--" {
			break
		}
	}
	if !recursive || !force || (!respelled && flags == 1) {
		return "", false
	}
	return join(append([]string{"rm", "-rf"}, rest...)), true
}
