// Command codewhale-ls is the Codewhale policy sidecar: a language server for
// Codewhale's policy files, a linter, and an authorization engine that
// reproduces Codewhale's nine layers.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage: codewhale-ls [serve [--stdio]]
       codewhale-ls check [flags] [FILE...]
       codewhale-ls authorize [flags] < request.json
       codewhale-ls explain [flags] TOOL (--command CMD | --path P | --input JSON) [--json]
       codewhale-ls hook claude-code|codex|gemini-cli|copilot-cli|cursor [--timeout SECONDS] < event.json
       codewhale-ls schema config|permissions|hooks|constitution [--codewhale-version V]
       codewhale-ls hook install|uninstall AGENT [--project|--user] [--yes] [--workspace DIR]
       codewhale-ls init [--config PATH] [--workspace DIR] [--yes]
       codewhale-ls hooks approve [FILE] [--yes]
       codewhale-ls approvals [REPO...] [--alert desktop|notify|bell|none]
       codewhale-ls log [--since 2h|DATE] [--agent A] [--decision D] [--repo DIR] [--tool T] [--limit N] [--json] [--follow]
       codewhale-ls log show ID [--json]
       codewhale-ls version [--json]
       codewhale-ls completion bash|zsh|fish
       codewhale-ls man
       codewhale-ls help [COMMAND]    (or COMMAND --help)

common flags: --config PATH  --workspace DIR  --mode plan|agent|operate|yolo
              --posture ask|auto-review|full-access|never
`

// helpAsked reports whether a subcommand's args ask for its help. An
// agent's hook (hook AGENT ...) never does: whatever its arguments, it
// answers the agent, so a --help there is an unknown flag and a deny.
func helpAsked(cmd string, rest []string) bool {
	if cmd == "hook" && len(rest) > 0 && rest[0] != "install" && rest[0] != "uninstall" && !wantsHelp(rest[:1]) {
		return false
	}
	return wantsHelp(rest)
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return serve(nil, stdin, stdout, stderr)
	}
	cmd, rest := args[0], args[1:]
	if help, ok := commandHelp[cmd]; ok && helpAsked(cmd, rest) {
		fmt.Fprint(stdout, help)
		return 0
	}
	switch cmd {
	case "serve":
		return serve(rest, stdin, stdout, stderr)
	case "check":
		return check(rest, stdout, stderr)
	case "authorize":
		return authorize(rest, stdin, stdout, stderr)
	case "explain":
		return explain(rest, stdout, stderr)
	case "schema":
		return schema(rest, stdout, stderr)
	case "hook":
		if len(rest) > 0 && (rest[0] == "install" || rest[0] == "uninstall") {
			return hookInstall(rest[0], rest[1:], stdin, stdout, stderr)
		}
		// An agent's pre-tool hook: always answers as that agent honours.
		return hook(rest, stdin, stdout, stderr)
	case "init":
		return initCommand(rest, stdin, stdout, stderr)
	case "hooks":
		return hooksCommand(rest, stdin, stdout, stderr)
	case "approvals":
		return approvalsCommand(rest, stdin, stdout, stderr)
	case "log":
		return logCommand(rest, stdout, stderr)
	case "completion":
		return completion(rest, stdout, stderr)
	case "man":
		return manPage(rest, stdout, stderr)
	case "version", "--version", "-v":
		return version(rest, stdout, stderr)
	case "help", "--help", "-h":
		return help(rest, stdout, stderr)
	}
	fmt.Fprintf(stderr, "codewhale-ls: unknown command %q\n%s", cmd, usage)
	return 1
}
