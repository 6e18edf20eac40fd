package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/agents"
	"github.com/codewhale-ls/codewhale-ls/agents/install"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
)

// hookInstall runs `hook install|uninstall AGENT [--user|--project
// [--workspace DIR]] [--yes]`: the change is shown as a diff first and
// made only when confirmed on a terminal or by --yes. Without --project
// the user's settings are edited (docs/agents.md "Installing the hook in
// each agent").
func hookInstall(verb string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runHookInstall(verb, args, isTerminal(stdin), stdin, stdout, stderr)
}

func runHookInstall(verb string, args []string, terminal bool, stdin io.Reader, stdout, stderr io.Writer) int {
	fail := func(msg string) int {
		fmt.Fprintf(stderr, "codewhale-ls hook %s: %s\n", verb, msg)
		fmt.Fprintf(stderr, "usage: codewhale-ls hook %s %s [--user|--project [--workspace DIR]] [--yes]\n", verb, strings.Join(agents.Names(), "|"))
		return 1
	}
	fs, err := parseFlags(args, []string{"workspace"}, []string{"project", "user", "yes"})
	if err != nil {
		return fail(err.Error())
	}
	if len(fs.args) != 1 {
		return fail("name one agent")
	}
	agent, err := install.Lookup(fs.args[0])
	if err != nil {
		return fail(err.Error())
	}
	if fs.bools["project"] && fs.bools["user"] {
		return fail("--project and --user exclude each other")
	}
	// The user level is the default: the agents read a project's entry
	// only in some sessions (Agent.Note), the user's in all of them.
	scope := install.User
	if fs.bools["project"] {
		scope = install.Project
	} else if _, given := fs.values["workspace"]; given {
		// Fail closed: whoever names a workspace means its file, and
		// writing the home's instead would go unnoticed.
		return fail("--workspace names the project's file: add --project (without it the hook goes in the user's settings)")
	}
	var workspace string
	if scope == install.Project {
		if workspace, err = fs.workspace(); err != nil {
			return fail(err.Error())
		}
	}
	path, err := agent.SettingsPath(scope, workspace, config.OSEnv{})
	if err != nil {
		return fail(err.Error())
	}
	binary, err := hookBinary(verb, scope)
	if err != nil {
		fmt.Fprintf(stderr, "codewhale-ls hook %s: %v (nothing was changed)\n", verb, err)
		return 1
	}
	change, err := install.Plan(path, func(old []byte, exists bool) ([]byte, error) {
		if verb == "install" {
			return agent.Install(old, exists, binary)
		}
		if !exists {
			return nil, nil
		}
		return agent.Uninstall(old, binary)
	})
	if err != nil {
		fmt.Fprintf(stderr, "codewhale-ls hook %s: %v (nothing was changed)\n", verb, err)
		return 1
	}
	if note := agent.Note(scope); note != "" && verb == "install" {
		fmt.Fprintf(stderr, "note: %s\n", note)
		if scope == install.Project {
			fmt.Fprintf(stderr, "note: `codewhale-ls hook install %s` (user level, no --project) holds every session of %s on this machine.\n", agent.Name, agent.Name)
		}
	}
	if verb == "install" {
		noPolicyNote(stderr, agent, workspace)
	}
	if change.Empty() {
		if verb == "install" {
			fmt.Fprintf(stderr, "the %s hook is already installed in %s\n", agent.Name, path)
		} else {
			fmt.Fprintf(stderr, "no %s hook of codewhale-ls in %s\n", agent.Name, path)
			if scope == install.User {
				// Before the user level became the default, install
				// wrote the project's file.
				fmt.Fprintln(stderr, "for an entry in a project's file, add --project")
			}
		}
		return 0
	}
	fmt.Fprint(stdout, change.Diff())
	question := fmt.Sprintf("%s %s?", map[string]string{"install": "Write this to", "uninstall": "Remove it from"}[verb], path)
	if !confirmed(fs.bools["yes"], terminal, stdin, stderr, question, "written") {
		return 1
	}
	if err := change.Apply(); err != nil {
		fmt.Fprintf(stderr, "codewhale-ls hook %s: %v\n", verb, err)
		return 1
	}
	fmt.Fprintf(stderr, "%s: %s\n", map[string]string{"install": "installed in", "uninstall": "removed from"}[verb], filepath.Clean(path))
	return 0
}

// executable and lookPath are os.Executable and exec.LookPath; tests
// stand in a lasting binary for the test binary, which `go test` builds in
// a temporary directory.
var (
	executable = os.Executable
	lookPath   = exec.LookPath
)

// hookBinary is the program the hook entry names. At user level it is
// this binary's absolute path, refused when it lies where it will not
// last (a temporary or build-cache directory: `go run`, `go test`), since
// an entry naming a deleted program fails every later call. A project's
// file, which the team commits, names codewhale-ls on PATH
// (install.ProjectCommand). Uninstall takes out our entry whatever binary
// it names, so it needs neither check.
func hookBinary(verb string, scope install.Scope) (string, error) {
	if scope == install.Project {
		if verb != "install" {
			return "codewhale-ls", nil // what install writes there
		}
		return install.ProjectCommand(lookPath)
	}
	binary, err := executable()
	if err != nil {
		return "", fmt.Errorf("cannot find this program's path for the hook command: %w", err)
	}
	if verb != "install" {
		return binary, nil
	}
	if why := install.Transient(binary, install.TransientDirs(config.OSEnv{})); why != "" {
		return "", fmt.Errorf("the hook entry would name a program that will not be there later: %s, and once it is gone every call of the agent fails (not found, exit 2); build or install codewhale-ls first (go install ./cmd/codewhale-ls, or go build -o ~/bin/codewhale-ls ./cmd/codewhale-ls) and run `hook install` with that binary", why)
	}
	return binary, nil
}

// noPolicyNote says, when no Codewhale policy exists (neither the user's
// config.toml nor its permissions.toml), what the agent's calls will then
// get, and points to init.
func noPolicyNote(stderr io.Writer, agent install.Agent, workspace string) {
	paths, err := config.ResolvePaths(config.Options{Workspace: workspace, Env: config.OSEnv{}})
	if err != nil {
		return
	}
	for _, p := range []string{paths.Config, paths.Permissions} {
		if _, err := os.Lstat(p); err == nil {
			return
		}
	}
	fmt.Fprintf(stderr, "note: no Codewhale policy exists (neither %s nor %s): Codewhale's defaults hold, under which only commands it knows to be read-only (git status, ls, cat) run unasked, and every other call (npm test, cargo build, git commit, a file write) needs a person's approval.\n", paths.Config, paths.Permissions)
	if agent.NoAsk != "" {
		fmt.Fprintf(stderr, "note: %s cannot put that question to you (%s), so every such call of %s is denied unless your editor (with codewhale-ls) has the repository open or `codewhale-ls approvals` runs in a terminal to ask you.\n", agent.Name, agent.NoAsk, agent.Name)
	} else {
		fmt.Fprintf(stderr, "note: every such call of %s is put to you by your editor (with codewhale-ls) when it has the repository open, else by `codewhale-ls approvals` when it runs in a terminal, else by %s's own prompt; where none of them can ask you (a headless run, a mode that approves by itself) it is denied.\n", agent.Name, agent.Name)
	}
	fmt.Fprintln(stderr, "note: `codewhale-ls init` in your repository writes a starter policy: its build and test commands allowed there, force pushes and publishing denied everywhere.")
}
