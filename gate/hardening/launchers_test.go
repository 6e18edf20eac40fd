package hardening

import (
	"slices"
	"testing"
)

// Launchers start the program an option names, or a shell with the words
// after their `--` (issue 23, point 6; forms from the hostile corpus).
func TestInspectFindsWhatLaunchersRun(t *testing.T) {
	for line, want := range map[string]string{
		"ssh-agent git push":                                    "git push",
		"ssh-agent -s -t 60 git push":                           "git push",
		"capsh -- -c 'git push'":                                "git push",
		"capsh --caps= -- -c 'cargo publish'":                   "cargo publish",
		"start-stop-daemon --start --exec /usr/bin/git -- push": "/usr/bin/git push",
		"start-stop-daemon -S -x git -- push":                   "git push",
		"start-stop-daemon -S --exec=git -- push":               "git push",
		"gdb -batch -ex run --args /usr/bin/git push":           "/usr/bin/git push",
		"lldb -o run -- git push":                               "git push",
	} {
		if found, _ := commands(line); !slices.Contains(found, want) {
			t.Errorf("%q: found %q, want %q among them", line, found, want)
		}
	}
	if _, unseeable := commands(`start-stop-daemon --start --exec "$(type -P git)" -- push`); !unseeable {
		t.Error("a program named when the line runs is not unseeable")
	}
	for _, line := range []string{"ssh-agent -s", "gdb ./a.out", "capsh --print", "lldb ./a.out"} {
		found, unseeable := commands(line)
		if len(found) > 0 || unseeable {
			t.Errorf("%q: found %q (unseeable %v)", line, found, unseeable)
		}
	}
}
