// Package starter decides the starter policy `codewhale-ls init` writes
// (docs/agents.md, "A starter policy"): allows for the build and test
// commands a repository shows, scoped to that repository, and denies for
// destructive commands on the whole machine, appended to the user's
// permissions.toml below a marked comment, never replacing a rule, and
// only those rules that lint clean at every implemented Codewhale release.
package starter

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/codewhale-ls/codewhale-ls/gate/policyfile"
)

// Found is one command the repository shows how to build or test with.
type Found struct {
	Command string
	// Exact allows only the command as written (command_exact): a make
	// target, where a prefix would also allow `make test deploy`.
	Exact bool
	// Source is the file it was read from, relative to the repository.
	Source string
}

// Detect lists the build and test commands the repository at dir shows
// (go.mod, Cargo.toml, package.json scripts, a Makefile's targets,
// pyproject.toml), in a fixed order, each once. A file that cannot be read
// or parsed shows nothing.
func Detect(dir string) []Found {
	var out []Found
	add := func(source string, exact bool, commands ...string) {
		for _, c := range commands {
			if !slices.ContainsFunc(out, func(f Found) bool { return f.Command == c }) {
				out = append(out, Found{Command: c, Exact: exact, Source: source})
			}
		}
	}
	if exists(dir, "go.mod") {
		add("go.mod", false, "go build", "go test", "go vet")
	}
	if exists(dir, "Cargo.toml") {
		add("Cargo.toml", false, "cargo build", "cargo test", "cargo check", "cargo clippy")
	}
	if src, ok := read(dir, "package.json"); ok {
		add("package.json", false, npmScripts(dir, src)...)
	}
	for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
		if src, ok := read(dir, name); ok {
			add(name, true, makeTargets(src)...)
			break // make reads the first of these it finds
		}
	}
	if src, ok := read(dir, "pyproject.toml"); ok {
		add("pyproject.toml", false, python(dir, src)...)
	}
	if exists(dir, ".git") {
		add(".git", false, "git add", "git commit")
	}
	return out
}

func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

// read reads a regular file without blocking (a FIFO at the path is no
// manifest), bounded as policyfile reads are.
func read(dir, name string) ([]byte, bool) {
	src, err := policyfile.Read(filepath.Join(dir, name))
	return src, err == nil
}

// scriptNames are the package.json scripts that build or test; a script
// named `test:unit` or `build:web` counts as its group.
var scriptNames = []string{"build", "test", "check", "lint", "typecheck", "compile"}

// npmScripts are the commands that run the build and test scripts, with
// the package manager the lock file names.
func npmScripts(dir string, src []byte) []string {
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(src, &pkg) != nil {
		return nil
	}
	pm := "npm"
	switch {
	case exists(dir, "pnpm-lock.yaml"):
		pm = "pnpm"
	case exists(dir, "yarn.lock"):
		pm = "yarn"
	case exists(dir, "bun.lockb"), exists(dir, "bun.lock"):
		pm = "bun"
	}
	var names []string
	for name := range pkg.Scripts {
		group, _, _ := strings.Cut(name, ":")
		if slices.Contains(scriptNames, group) && safeWord(name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var out []string
	for _, name := range names {
		if name == "test" && pm != "bun" {
			// `bun test` is bun's own runner, not the script.
			out = append(out, pm+" test")
		}
		out = append(out, pm+" run "+name)
	}
	return out
}

// makeTargets are the targets that build or test, as `make TARGET`, and
// `make` itself when the default goal (the first target) is one of them.
var makeTargetNames = []string{"all", "build", "test", "check", "lint", "vet"}

var targetLine = regexp.MustCompile(`^([A-Za-z0-9_.-]+)\s*::?(\s|$)`)

func makeTargets(src []byte) []string {
	var out []string
	first := true
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		m := targetLine.FindStringSubmatch(sc.Text())
		if m == nil || strings.HasPrefix(m[1], ".") {
			continue
		}
		if slices.Contains(makeTargetNames, m[1]) {
			if first {
				out = append(out, "make")
			}
			out = append(out, "make "+m[1])
		}
		first = false
	}
	return out
}

// python are the test and lint commands a pyproject.toml configures.
func python(dir string, src []byte) []string {
	var doc struct {
		Tool map[string]any `toml:"tool"`
	}
	if _, err := toml.Decode(string(src), &doc); err != nil {
		return nil
	}
	var out []string
	if _, ok := doc.Tool["pytest"]; ok || bytes.Contains(src, []byte("pytest")) || exists(dir, "pytest.ini") {
		out = append(out, "pytest", "python -m pytest", "python3 -m pytest")
		if exists(dir, "uv.lock") {
			out = append(out, "uv run pytest")
		}
	}
	if _, ok := doc.Tool["ruff"]; ok {
		out = append(out, "ruff check")
	}
	if _, ok := doc.Tool["mypy"]; ok {
		out = append(out, "mypy")
	}
	return out
}

// safeWord keeps a script name that is one plain shell word: a rule's
// command is matched word by word, and a name with quotes or spaces would
// never match the command typed.
func safeWord(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:", r))
	}) < 0
}
