package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/agents/install"
	"github.com/codewhale-ls/codewhale-ls/agents/starter"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// initCommand runs `init [--config PATH] [--workspace DIR] [--yes]`: the
// starter policy (package starter) for this machine and this repository,
// appended to the user's permissions.toml, shown as a diff first and
// written only when confirmed on a terminal or by --yes (docs/agents.md,
// "A starter policy: codewhale-ls init").
func initCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runInit(args, isTerminal(stdin), stdin, stdout, stderr)
}

func runInit(args []string, terminal bool, stdin io.Reader, stdout, stderr io.Writer) int {
	fail := func(msg string) int {
		fmt.Fprintf(stderr, "codewhale-ls init: %s\n", msg)
		fmt.Fprintln(stderr, "usage: codewhale-ls init [--config PATH] [--workspace DIR] [--yes]")
		return 1
	}
	fs, err := parseFlags(args, []string{"config", "workspace"}, []string{"yes"})
	if err != nil {
		return fail(err.Error())
	}
	if len(fs.args) != 0 {
		return fail("init takes no arguments: it reads the repository of --workspace, else of the current directory")
	}
	spelled, err := fs.workspace()
	if err != nil {
		return fail(err.Error())
	}
	workspaces := []string{filepath.Clean(spelled)}
	if real, err := filepath.EvalSymlinks(spelled); err == nil && real != workspaces[0] {
		workspaces = []string{real, workspaces[0]}
	}
	opts := config.Options{ConfigFlag: fs.values["config"], Workspace: workspaces[0], Env: config.OSEnv{}}
	paths, err := config.ResolvePaths(opts)
	if err != nil {
		return fail(err.Error())
	}
	found := starter.Detect(workspaces[0])
	var res starter.Result
	change, err := install.Plan(paths.Permissions, func(old []byte, _ bool) ([]byte, error) {
		var appendErr error
		res, appendErr = starter.Append(old, workspaces[0], starter.Rules(workspaces, found), starter.Linter(opts, paths.Permissions))
		return res.Content, appendErr
	})
	if err != nil {
		fmt.Fprintf(stderr, "codewhale-ls init: %v (nothing was changed)\n", err)
		return 1
	}
	change.Private = true
	describeFound(stderr, workspaces[0], found)
	for _, d := range res.Dropped {
		fmt.Fprintf(stderr, "not added: %s: it would not check clean against your rules (%s)\n", d.Rule.Label(), d.Reason)
	}
	if change.Empty() {
		fmt.Fprintf(stderr, "nothing to add: %s already holds these rules (%d)\n", paths.Permissions, res.Present)
		return 0
	}
	fmt.Fprint(stdout, change.Diff())
	if !confirmed(fs.bools["yes"], terminal, stdin, stderr, fmt.Sprintf("Append these %d rules to %s?", len(res.Added), paths.Permissions), "written") {
		return 1
	}
	if err := change.Apply(); err != nil {
		fmt.Fprintf(stderr, "codewhale-ls init: %v\n", err)
		return 1
	}
	allows, denies := count(res.Added)
	fmt.Fprintf(stderr, "added to %s: %d allows for %s, %d denies for every repository; `codewhale-ls check` finds no warning in them at Codewhale %s\n",
		paths.Permissions, allows, workspaces[0], denies, strings.Join(versions(), ", "))
	return 0
}

// describeFound says what init read in the repository.
func describeFound(stderr io.Writer, workspace string, found []starter.Found) {
	if len(found) == 0 {
		fmt.Fprintf(stderr, "%s shows no build or test command init knows (go.mod, Cargo.toml, package.json scripts, a Makefile's targets, pyproject.toml): only the denies are proposed\n", workspace)
		return
	}
	var parts []string
	for i := 0; i < len(found); {
		j := i
		var cmds []string
		for ; j < len(found) && found[j].Source == found[i].Source; j++ {
			cmds = append(cmds, found[j].Command)
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", strings.Join(cmds, ", "), found[i].Source))
		i = j
	}
	fmt.Fprintf(stderr, "%s shows: %s\n", workspace, strings.Join(parts, "; "))
}

func count(rules []execpolicy.Rule) (allows, denies int) {
	for _, r := range rules {
		if r.Action == execpolicy.Allow {
			allows++
		} else {
			denies++
		}
	}
	return allows, denies
}

func versions() []string {
	var out []string
	for _, r := range release.Implemented {
		out = append(out, r.Version)
	}
	return out
}

// init registers init's --help here, beside the command, not in help.go.
func init() {
	commandHelp["init"] = `usage: codewhale-ls init [--config PATH] [--workspace DIR] [--yes]

Writes a starter policy for this machine and this repository to the
user's permissions.toml (the sibling of the active config.toml): allows
for the build and test commands the repository shows (go.mod, Cargo.toml,
package.json scripts, a Makefile's targets, pyproject.toml), for that
repository only, and denies for force pushes, publishing and rm -rf / in
every repository. The rules are appended below a marked comment, never
replacing one of yours; running it twice adds nothing. The change is
shown as a diff first, then written on --yes or a confirmation on a
terminal (docs/agents.md, "A starter policy").

  --config PATH              the user config.toml (default: Codewhale's own search)
  --workspace DIR            the repository (default: the git root of the current directory)
  --yes                      write without asking

example: codewhale-ls init
`
}
