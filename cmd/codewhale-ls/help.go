package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/agents"
)

// commonFlagsHelp describes commonFlags, which check, authorize and
// explain take.
const commonFlagsHelp = `  --config PATH              the user config.toml (default: Codewhale's own search)
  --workspace DIR            the workspace (default: the git root of the current directory)
  --mode plan|agent|operate|yolo
  --posture ask|auto-review|full-access|never
  --origin interactive|background|headless
  --codewhale-version V      decide as Codewhale V (default: the codewhale on PATH, else the newest)
`

// commandHelp is each subcommand's --help: what it does, its flags and an
// example (docs/codewhale/contract.md §2 is the contract behind them).
var commandHelp = map[string]string{
	"serve": `usage: codewhale-ls serve [--stdio] [--codewhale-version V]

Runs the language server on standard input and output (LSP, JSON-RPC);
editors start it. Logs go to standard error.

  --stdio                    accepted because editors pass it (the only transport)
  --codewhale-version V      decide and lint as Codewhale V

example: codewhale-ls serve --stdio
`,
	"check": `usage: codewhale-ls check [flags] [FILE...]

Lints Codewhale's policy files (config.toml, permissions.toml, the project
overlay, hooks.toml, constitution.json) as the chosen Codewhale reads them,
only FILE... when given. Text ends with a line counting the files checked
and the findings. Exit 0 nothing at or above --fail-level, 2 warnings at
or above it, 3 errors, 1 bad usage or an internal failure.

  --format text|json|sarif|github   how findings are printed (default text)
  --fail-level error|warning|none   which findings fail the run (default error)
  --fix                             first write every safe fix (the editor's
                                    "Fix all") to the files, then report and
                                    exit on what remains; says per file what
                                    it fixed and what it left, and why
  --unsafe-fixes                    with --fix, also write the fixes that are
                                    not safe (guesses; read them first)
  --baseline REV|none               report what loosens the policy (CW500)
                                    against git revision REV, e.g. a pull
                                    request's base (default HEAD, as the
                                    editor; none: off)
  --ci                              a CI run (also when CI, GITHUB_ACTIONS or
                                    GITLAB_CI is true): only the repository's
                                    files, nothing about this machine (CW700
                                    for an agent it has not hooked, CW303)
  --ignore CODE,...                 leave out these codes
` + commonFlagsHelp + `
example: codewhale-ls check --format sarif > codewhale.sarif
`,
	"authorize": `usage: codewhale-ls authorize [flags] < request.json

Decides one AuthorizeRequest (JSON on standard input) through Codewhale's
nine layers and prints the Decision (JSON). It never prompts: a call a
human must decide is printed as ask. Exit 0 when a Decision was printed,
whatever it says; 1 with {"error": "..."} on standard error for a request
it cannot read.

  --exact                    Codewhale's decision alone: the hardening layer,
                             which only ever tightens, off (docs/hardening.md)
` + commonFlagsHelp + `
example: echo '{"tool":"exec_shell","input":{"command":"cargo test"}}' | codewhale-ls authorize
         echo '{"tool":"exec_shell","input":{"command":"rm -fr /"}}' | codewhale-ls authorize --exact
`,
	"explain": `usage: codewhale-ls explain [flags] TOOL (--command CMD | --path P | --input JSON) [--json]

Shows how every layer judges a call, which layer decides, what later
layers could tighten, and the exact rule "Always allow" would save.
A TOOL that is no tool of Codewhale's is a usage error (exit 1).

  --command CMD              a shell command's text
  --path P                   a file tool's path
  --input JSON               the whole input object
  --json                     print the Decision as JSON
  --exact                    Codewhale's decision alone: the hardening layer,
                             which only ever tightens, off (docs/hardening.md)
` + commonFlagsHelp + `
example: codewhale-ls explain exec_shell --command 'git push --force'

` + toolNamesHelp(),
	"hooks": `usage: codewhale-ls hooks approve [FILE] [--config PATH] [--workspace DIR] [--yes]

Shows a trusted workspace's .codewhale/hooks.toml (FILE, default the
workspace's), every invisible character escaped, its lints and its
sha256, and once confirmed (on a terminal, or --yes) records that digest
in <codewhale home>/hooks_approvals.toml, so codewhale-ls runs its hooks.
An approval made in Codewhale (/hooks approve) already counts.

example: codewhale-ls hooks approve .codewhale/hooks.toml
`,
	"schema": `usage: codewhale-ls schema NAME [--codewhale-version V]

Prints the JSON Schema of a policy file as Codewhale V reads it (default:
the newest implemented release). NAME is one of config, permissions,
hooks, constitution.

example: codewhale-ls schema permissions --codewhale-version 0.10.1
`,
	"hook": `usage: codewhale-ls hook AGENT [--config PATH] [--codewhale-version V] [--timeout SECONDS] [--exact] < event.json
       codewhale-ls hook install|uninstall AGENT [--user|--project [--workspace DIR]] [--yes]

As AGENT's pre-tool hook, reads the agent's event, decides the call as
authorize does and answers in the agent's own form, asking the editor's
codewhale-ls where a human must decide (docs/agents.md). AGENT is one of
` + strings.Join(agents.Names(), ", ") + `. Every error is a deny;
flags it does not know (--help too) are denied in the agent's form.

  --timeout SECONDS          the agent's hook timeout, when not its default
  --exact                    Codewhale's decision alone: the hardening layer,
                             which only ever tightens, off (docs/hardening.md)
  install|uninstall          add or remove the hook in the agent's settings
                             (user level by default; the diff first, then --yes
                             or a confirmation on a terminal)

example: codewhale-ls hook install claude-code
`,
	"approvals": `usage: codewhale-ls approvals [REPO...] [--alert desktop|notify|bell|none] [--config PATH] [--codewhale-version V] [--exact]

The terminal approval console: run it in a terminal or a tmux pane (over
SSH too), and an agent's hook whose repository no editor serves asks here
(docs/agents.md). It serves REPO... (a workspace equal to or inside one),
default every repository of this user that no editor serves, and shows one
card at a time, the others counted: the whole input with invisible and
direction characters escaped, the asking agent, the rule and layer, the
time left. Nothing answers a card until it has been on the screen
untouched for 1 s; then type the code shown beside a choice to approve
(once, for the session, always, as the card offers), d or Esc to deny. Any
other key does nothing but restart that second. Ctrl-C stops it; the
cards waiting are denied, and so is a hook whose console is killed.

  --alert MODE               when a card arrives while the terminal is not
                             focused: desktop (notify-send, else the
                             terminal's notification escape and the bell;
                             the default), notify (the escape and the bell),
                             bell, none
  --codewhale-version V      decide as Codewhale V (default: the codewhale on
                             PATH, else the newest)
  --exact                    Codewhale's decision alone, without the
                             hardening layer (docs/hardening.md)

example: codewhale-ls approvals ~/src/app
`,
	"log": logUsageLine + `
Shows the decision log: every decision an agent's hook, an editor or the
approval console made, with who decided (the rule's file and line, a
person's answer and where, a session grant, the posture, a forced hold,
the hardening layer). It reads the log and its rotated files oldest
first and prints the newest last, as a table (TIME in local time, AGENT,
REPO, DECISION, WHAT: the tool and its input's first field, DECIDED BY,
ID), every text with invisible and direction characters made visible and
secrets masked. Lines written before receipts are shown too. Exit 0 (also
when nothing matched, saying so), 2 bad usage (naming the flag), 1 a log
that cannot be read (a FIFO, a symlink, no permission) or no such receipt.

  --since 2h|30m|7d|2026-12-05|2026-12-05T14:00:00Z
                             only decisions since then (a duration back from
                             now, a local date, or an RFC 3339 time)
  --agent NAME               only this agent's (claude-code, codex, ...;
                             codewhale for Codewhale's own calls in the editor)
  --decision allow|ask|deny  only these decisions
  --repo DIR                 only calls in DIR or a directory inside it
  --tool NAME                only calls of this tool (exec_shell, read_file, ...)
  --limit N                  the last N that match (default 50; 0 all)
  --json                     one receipt per line, the schema of
                             docs/codewhale/contract.md §4 "Receipts", for tools
  --follow                   then print new decisions as they are made, across
                             rotations, until Ctrl-C (as tail -f)
  --file PATH                read this log (default
                             <codewhale home>/codewhale-ls/decisions.jsonl)

log show ID re-explains one decision from its receipt, layer by layer as
explain does, with its input, agent, session, repository, time, release,
the hardening layer and everything said of who decided. ID is the table's
last column, or its start (at least 4 characters, as git takes commits).

example: codewhale-ls log --since 1d --decision deny
         codewhale-ls log show k3f9
`,
	"version": `usage: codewhale-ls version [--json] (also --version, -v)

Prints codewhale-ls's version, the commit and time it was built from, the
Go that built it, and the Codewhale releases it reproduces. The version is
the one a release build stamped, else the tag go install built, else the
source's.

  --json                     the same as one JSON object: version, commit,
                             date, go, modified, os, arch, codewhale (the
                             releases reproduced, each version and commit)

example: codewhale-ls version --json
`,
	"help": `usage: codewhale-ls help [COMMAND] (also --help, -h)

Prints the commands, or COMMAND's help (as COMMAND --help does).

example: codewhale-ls help explain
`,
}

// wantsHelp reports whether args (a subcommand's) ask for its help before
// any "--".
func wantsHelp(args []string) bool {
	end := slices.Index(args, "--")
	if end < 0 {
		end = len(args)
	}
	return slices.ContainsFunc(args[:end], func(a string) bool { return a == "-h" || a == "--help" })
}

// help prints the usage, or with one COMMAND that command's help; an
// unknown command is a usage error.
func help(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		fmt.Fprint(stdout, usage)
		return 0
	case len(args) == 1:
		if text, ok := commandHelp[args[0]]; ok {
			fmt.Fprint(stdout, text)
			return 0
		}
		fmt.Fprintf(stderr, "codewhale-ls help: no command %q\n%s", args[0], usage)
		return 1
	}
	fmt.Fprintf(stderr, "codewhale-ls help: name at most one COMMAND\n%s", usage)
	return 1
}
