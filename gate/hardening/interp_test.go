package hardening

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// interpLines reads testdata/interp/NAME: one shell line per line, `\n`
// standing for a line break, # lines comments; a line "=> X" is what the
// line before it must give.
func interpLines(t *testing.T, name string) (lines []string, want map[string][]string) {
	t.Helper()
	f, err := os.Open("testdata/interp/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want = map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		text := sc.Text()
		switch {
		case text == "" || strings.HasPrefix(text, "#"):
		case strings.HasPrefix(text, "=> ") && len(lines) > 0:
			last := lines[len(lines)-1]
			want[last] = append(want[last], strings.TrimPrefix(text, "=> "))
		default:
			lines = append(lines, strings.ReplaceAll(text, `\n`, "\n"))
		}
	}
	return lines, want
}

// Every hostile spelling is held: the command the code starts is found,
// or the code is unseeable (issue 23, point 5).
func TestInterpreterCodeIsHeld(t *testing.T) {
	lines, want := interpLines(t, "held.txt")
	if len(lines) < 80 {
		t.Fatalf("%d hostile lines, want at least 80", len(lines))
	}
	for _, line := range lines {
		if len(want[line]) == 0 {
			t.Errorf("%q: no expectation", line)
		}
		found, unseeable := commands(line)
		for _, w := range want[line] {
			switch {
			case w == "unseeable" && !unseeable:
				t.Errorf("%q: found %q, want it unseeable", line, found)
			case w != "unseeable" && !slices.Contains(found, w):
				t.Errorf("%q: found %q (unseeable %v), want %q among them", line, found, unseeable, w)
			}
		}
	}
}

// The one-liners people type every day start nothing and give no
// finding at all.
func TestInterpreterOrdinaryCode(t *testing.T) {
	lines, _ := interpLines(t, "ordinary.txt")
	if len(lines) < 60 {
		t.Fatalf("%d ordinary lines, want at least 60", len(lines))
	}
	for _, line := range lines {
		if found, unseeable := commands(line); len(found) > 0 || unseeable {
			t.Errorf("%q: found %q, %v", line, found, Inspect(line))
		}
	}
}

// A harmless call never excuses the next: each is judged on its own.
func TestInterpreterJudgesEveryCall(t *testing.T) {
	for line, want := range map[string][]string{
		`python3 -c 'import os; os.system("ls"); os.system("git push"); os.system("cargo publish")'`:                            {"ls", "git push", "cargo publish"},
		`perl -e 'system("ls"); system("git", "push"); print qx(cargo publish)'`:                                                {"ls", "git push", "cargo publish"},
		"ruby -e 'system(\"ls\"); `git push`; %x(cargo publish)'":                                                               {"ls", "git push", "cargo publish"},
		`node -e 'const c = require("child_process"); c.execSync("ls"); c.spawnSync("git", ["push"]); c.exec("cargo publish")'`: {"ls", "git push", "cargo publish"},
		`php -r 'system("ls"); exec("git push"); echo ` + "`cargo publish`" + `;'`:                                              {"ls", "git push", "cargo publish"},
		`lua -e 'os.execute("ls"); os.execute("git push"); io.popen("cargo publish")'`:                                          {"ls", "git push", "cargo publish"},
	} {
		found, unseeable := commands(line)
		if unseeable {
			t.Errorf("%q: unseeable", line)
		}
		for _, w := range want {
			if !slices.Contains(found, w) {
				t.Errorf("%q: found %q, want %q among them", line, found, w)
			}
		}
	}
}

// Code in strings, comments and patterns starts nothing.
func TestInterpreterReadsStringsAndComments(t *testing.T) {
	for _, line := range []string{
		`python3 -c 'print("os.system(\"git push\")")  # os.system("git push")'`,
		`python3 -c 'print("""os.system("git push")""")'`,
		`python3 -c 'print(r"\"); os.system(\"git push\")")'`,
		`perl -e 'print q{system("git push")}; # system("git push")'`,
		`perl -ne 'print if /system\("git push"\)/' f`,
		`ruby -e 'puts %q(system("git push")) # system("git push")'`,
		`node -e 'console.log("require(\"child_process\").execSync(\"git push\")") /* execSync("git push") */'`,
		`php -r 'echo "system(\"git push\")"; // system("git push")'`,
		`lua -e 'print([[os.execute("git push")]]) -- os.execute("git push")'`,
	} {
		if found, unseeable := commands(line); len(found) > 0 || unseeable {
			t.Errorf("%q: found %q, unseeable %v", line, found, unseeable)
		}
	}
}

func TestIsInterpreter(t *testing.T) {
	for name, want := range map[string]bool{
		"python": true, "python3": true, "python3.11": true, "python3.12m": true, "python3.13t": true, "pypy3": true, "pypy3.10": true, "py": true, "python.exe": true,
		"perl": true, "perl5.36": true, "perl5.36.0": true, "ruby": true, "ruby3.1": true, "node": true, "node18": true, "nodejs": true,
		"php": true, "php8.2": true, "lua": true, "lua5.4": true, "luajit": true, "luajit-2.1": true, "deno": true, "bun": true,
		"python3-config": false, "perldoc": false, "nodemon": false, "node-gyp": false, "rubocop": false, "phpunit": false, "luarocks": false, "bunx": false, "bundle": false, "pytest": false, "pip3": false,
	} {
		if got := isInterpreter(name); got != want {
			t.Errorf("isInterpreter(%q) = %v, want %v", name, got, want)
		}
	}
}

// The code of every language is bounded by the line's budget and never
// crashes the inspector.
func FuzzInterpreterCode(f *testing.F) {
	for _, s := range []string{`import os; os.system("x")`, "system(`x`)", `require("child_process").exec("x")`, `<?php system("x");`, `os.execute[[x]]`, `s/x/y/e`, `"#{x}"`, "<<~E\nx\nE\n", `f"{x}"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		// A slow input crashes the fuzzing process, which saves it.
		timer := time.AfterFunc(5*time.Second, func() { panic(fmt.Sprintf("slow: %q", code)) })
		defer timer.Stop()
		for _, family := range []string{"python", "perl", "ruby", "node", "php", "lua"} {
			lang := languageOf(family)
			in := newInspector(len(code))
			func() {
				defer func() { _ = recover() }() // the shell parser's own panics, which Inspect recovers
				in.scanCode(lang, "`x -e`", code, 0)
			}()
			for _, fd := range in.found {
				if (fd.Command == "") == (fd.Unseeable == "") {
					t.Fatalf("%q: a finding is neither a command nor unseeable, or both: %+v", code, fd)
				}
			}
		}
	})
}
