package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
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
	binary, err := os.Executable()
	if err != nil {
		return fail("cannot find this program's path for the hook command: " + err.Error())
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
	if !fs.bools["yes"] {
		if !terminal {
			fmt.Fprintln(stderr, "nothing was changed: confirm on a terminal, or run again with --yes")
			return 1
		}
		fmt.Fprintf(stderr, "%s %s? [y/N] ", map[string]string{"install": "Write this to", "uninstall": "Remove it from"}[verb], path)
		answer, _ := bufio.NewReader(io.LimitReader(stdin, 256)).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			fmt.Fprintln(stderr, "nothing was changed")
			return 1
		}
	}
	if err := change.Apply(); err != nil {
		fmt.Fprintf(stderr, "codewhale-ls hook %s: %v\n", verb, err)
		return 1
	}
	fmt.Fprintf(stderr, "%s: %s\n", map[string]string{"install": "installed in", "uninstall": "removed from"}[verb], filepath.Clean(path))
	return 0
}

// isTerminal reports whether r is a character device (a terminal), where
// a human can be asked to confirm.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
