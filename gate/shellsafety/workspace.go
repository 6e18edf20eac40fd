package shellsafety

import (
	"slices"
	"strings"
)

// workspaceSafe is the analyzer's WorkspaceSafe test: one simple command (no
// operator of any kind, no expansion, no glob, no open quote) running a
// known build, test, lint or format tool on the workspace, none of whose
// arguments names a path outside it (absolute, `~`, or with a `..`
// component, also as an option's value).
//
// Left out on purpose: package installs (npm install/ci, go install, mvn
// install), which fetch and run code from the network or write outside the
// workspace; `go generate` and `make` variable overrides, which run
// arbitrary commands; and any option that names a program to run instead
// of the tool's own (`cargo --config`, `go -exec`, `make --eval`).
func workspaceSafe(p *parsed) bool {
	if !p.complete || !p.noOperators || len(p.argv) == 0 || p.expands || p.globs {
		return false
	}
	if strings.ContainsAny(p.text, shellSyntax) {
		// Quoted or escaped (`go test \$`), these run nothing, yet the
		// line reads as shell syntax: it is left to review, failing closed.
		return false
	}
	for _, a := range p.argv {
		if !insideWorkspace(a) {
			return false
		}
	}
	check, ok := workspaceTools[p.argv[0]]
	return ok && check(p.argv[1:])
}

// shellSyntax are the characters that make a line read as more than one
// simple command.
const shellSyntax = ";&|><`$\n"

// insideWorkspace reports an argument that names no path outside the
// working directory, looking also at `--opt=value`, `-Dkey=value` and
// attached short values (`-o/usr/bin/x`).
func insideWorkspace(arg string) bool {
	if isShortCluster(arg) && escapesWorkspace(arg[2:]) {
		return false
	}
	for rest, more := arg, true; more; {
		var part string
		part, rest, more = strings.Cut(rest, "=")
		if escapesWorkspace(part) {
			return false
		}
	}
	return true
}

func escapesWorkspace(path string) bool {
	return strings.HasPrefix(path, "/") || strings.HasPrefix(path, "~") || hasDotDot(path)
}

// hasDotDot reports a `..` component of a slash-separated path.
func hasDotDot(path string) bool {
	for rest, more := path, true; more; {
		var component string
		component, rest, more = strings.Cut(rest, "/")
		if component == ".." {
			return true
		}
	}
	return false
}

// workspaceTools vets the arguments of each WorkspaceSafe program.
var workspaceTools = map[string]func([]string) bool{
	"cargo": subcommandIn([]string{"build", "check", "test", "clippy", "fmt", "doc", "bench", "run"},
		rejectBeforeDashDash(func(a string) bool { return hasLong(a, "config") || strings.HasPrefix(a, "-Z") })),
	"go": subcommandIn([]string{"build", "test", "vet", "fmt", "run"},
		rejectBeforeDashDash(goRunsProgram)),
	"npm":           subcommandIn([]string{"test", "run", "run-script"}, rejectBeforeDashDash(scriptShell)),
	"pnpm":          subcommandIn([]string{"test", "run"}, rejectBeforeDashDash(scriptShell)),
	"yarn":          subcommandIn([]string{"test", "run"}, rejectBeforeDashDash(scriptShell)),
	"make":          makeArgs,
	"ruff":          subcommandIn([]string{"check", "format"}, anyWorkspaceArgs),
	"golangci-lint": subcommandIn([]string{"run"}, anyWorkspaceArgs),
	"pytest":        anyWorkspaceArgs,
	"tox":           anyWorkspaceArgs,
	"black":         anyWorkspaceArgs,
	"mypy":          anyWorkspaceArgs,
	"flake8":        anyWorkspaceArgs,
	"eslint":        anyWorkspaceArgs,
	"prettier":      anyWorkspaceArgs,
	"tsc":           anyWorkspaceArgs,
	"jest":          anyWorkspaceArgs,
	"vitest":        anyWorkspaceArgs,
	"rustfmt":       anyWorkspaceArgs,
	"gofmt":         anyWorkspaceArgs,
	"mvn":           goalsIn("test", "verify", "compile", "test-compile", "package", "validate", "clean"),
	"./mvnw":        goalsIn("test", "verify", "compile", "test-compile", "package", "validate", "clean"),
	"gradle":        goalsIn("test", "build", "check", "assemble", "clean"),
	"./gradlew":     goalsIn("test", "build", "check", "assemble", "clean"),
}

func anyWorkspaceArgs([]string) bool { return true }

// subcommandIn requires the first argument to be one of subcommands and the
// rest to pass rest.
func subcommandIn(subcommands []string, rest func([]string) bool) func([]string) bool {
	return func(args []string) bool {
		return len(args) > 0 && slices.Contains(subcommands, args[0]) && rest(args[1:])
	}
}

// rejectBeforeDashDash refuses the tool's own options that bad reports; what
// follows `--` goes to the program under test.
func rejectBeforeDashDash(bad func(string) bool) func([]string) bool {
	return func(args []string) bool {
		for _, a := range args {
			if a == "--" {
				return true
			}
			if bad(a) {
				return false
			}
		}
		return true
	}
}

// goRunsProgram: go's flags take one or two dashes and never abbreviate.
func goRunsProgram(a string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
	return strings.HasPrefix(a, "-") && slices.Contains([]string{"exec", "toolexec", "vettool"}, name)
}

func scriptShell(a string) bool { return hasLong(a, "script-shell") }

// makeArgs: targets that install or ship, variable overrides (SHELL=…) and
// --eval run more than the workspace's build.
func makeArgs(args []string) bool {
	for _, a := range args {
		switch {
		case strings.Contains(a, "="), hasLong(a, "eval"), strings.HasPrefix(a, "-E"):
			return false
		case slices.Contains([]string{"install", "uninstall", "deploy", "publish", "release", "push"}, a):
			return false
		}
	}
	return true
}

// goalsIn: every non-option argument is one of goals.
func goalsIn(goals ...string) func([]string) bool {
	return func(args []string) bool {
		for _, a := range args {
			if !strings.HasPrefix(a, "-") && !slices.Contains(goals, a) {
				return false
			}
		}
		return true
	}
}
