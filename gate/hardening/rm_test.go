package hardening

import (
	"slices"
	"testing"
)

// Issue 23 point 9: rm's options as GNU getopt_long reads them, and
// operands naming the same target as a rule.
func TestRmCanonical(t *testing.T) {
	hostile(t, map[string]string{
		"rm -fr /":                        "rm -rf /",
		"rm -Rf /":                        "rm -rf /",
		"rm -r -f /":                      "rm -rf /",
		"rm --recursive --force /":        "rm -rf /",
		"rm --r --f /":                    "rm -rf /",
		"rm --recur --forc /":             "rm -rf /",
		"rm --rec -f /":                   "rm -rf /",
		"rm -rfv /":                       "rm -rf -v /",
		"rm -rf --verb /":                 "rm -rf -v /",
		"rm --no-pres --rec --for /":      "rm -rf --no-preserve-root /",
		"rm -rf --one-file /":             "rm -rf --one-file-system /",
		"rm -rf --inter=never /":          "rm -rf --interactive=never /",
		"rm -rf //":                       "rm -rf /",
		"rm -rf /.":                       "rm -rf /",
		"rm -rf /./":                      "rm -rf /",
		"rm -rf ///":                      "rm -rf /",
		"rm -rf /..":                      "rm -rf /",
		"rm -rf /../..":                   "rm -rf /",
		"rm -rf /*":                       "rm -rf /",
		"rm -rf /**":                      "rm -rf /",
		"rm -rf /*/*":                     "rm -rf /",
		"rm -rf //*":                      "rm -rf '/*'",
		"rm -rf /usr/..":                  "rm -rf /",
		"rm -rf /usr/../":                 "rm -rf /",
		"rm -rf /tmp/x /":                 "rm -rf /",
		"rm -rf /tmp/x //":                "rm -rf /",
		"rm -rf -- /tmp/x /":              "rm -rf /",
		"rm -rf \"$d\" /":                 "rm -rf /",
		"rm -rf $(ls) //":                 "rm -rf /",
		"rm / -rf":                        "rm -rf /",
		"rm / -r -f":                      "rm -rf /",
		"rm -r / --force":                 "rm -rf /",
		"rm -rf /usr/":                    "rm -rf /usr",
		"rm -rf /usr//lib":                "rm -rf /usr/lib",
		"rm -rf ~/":                       "rm -rf '~'",
		"rm -rf ~/.":                      "rm -rf '~'",
		"rm -rf ~/*":                      "rm -rf '~'",
		"rm -rf ~//":                      "rm -rf '$HOME'",
		"rm -rf \"$HOME\"":                "rm -rf '~'",
		"rm -rf ${HOME}/":                 "rm -rf '$HOME'",
		"rm -rf \"$HOME\"/*":              "rm -rf '~'",
		"rm -rf $HOME/.ssh/":              "rm -rf '~/.ssh'",
		"rm -rf $HOME/.ssh":               "rm -rf '$HOME/.ssh'",
		"rm -rf a/../.git":                "rm -rf .git",
		"rm -rf x .git":                   "rm -rf .git",
		"taskset -c 0 rm -fr /":           "rm -rf /",
		"sudo rm --recursive --force /":   "rm -rf /",
		"POSIXLY_CORRECT=1 rm -rf x / -f": "rm -rf /",
	})
	// POSIXLY_CORRECT: options after an operand are operands.
	if found, _ := commands("POSIXLY_CORRECT=1 rm / -rf"); slices.Contains(found, "rm -rf /") {
		t.Errorf("POSIXLY_CORRECT rm / -rf: found %q; -rf is a file there", found)
	}
}

func TestRmLeavesOrdinaryCommandsAlone(t *testing.T) {
	for _, line := range []string{
		"rm -rf build", "rm -rf build/", "rm -f *.o", "rm -r ./dist", "rm -rf ./dist/", "rm -f out.txt", "rm build.log",
		"rm -rf -- /", "rm -rf /", "rm -rf node_modules", "rm -i x", "rm -rf /tmp/x", "rm -v -- -x", "rm --v x",
	} {
		if found, unseeable := commands(line); len(found) > 0 || unseeable {
			t.Errorf("%q: found %q (unseeable %v)", line, found, unseeable)
		}
	}
	ordinary(t, []string{
		"rm -rf build/ node_modules", "rm -rf dist coverage .cache", "rm -f a.o b.o", "rm -rf /tmp/build-*",
		"rm -rf ~/.cache/go-build", "rm -rf \"$TMPDIR/x\"", "rm -rf target/debug/ target/release/",
	})
}

func TestRmOption(t *testing.T) {
	for name, want := range map[string]string{
		"r": "recursive", "rec": "recursive", "recursive": "recursive", "f": "force", "i": "interactive",
		"v": "", "ver": "", "verb": "verbose", "vers": "version", "p": "preserve-root", "n": "no-preserve-root",
		"d": "dir", "o": "one-file-system", "x": "", "": "",
	} {
		if got := rmOption(name); got != want {
			t.Errorf("rmOption(%q) = %q, want %q", name, got, want)
		}
	}
}
