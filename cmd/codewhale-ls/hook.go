package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/codewhale-ls/codewhale-ls/agents"
	"github.com/codewhale-ls/codewhale-ls/approvals/remote"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
)

// hook answers one pre-tool hook event of another agent on stdin with
// Codewhale's decision in that agent's form (agents.HookFlow,
// docs/agents.md). Without a known agent the answer's form is unknown, so
// it exits 2, the code every agent treats as a block.
func hook(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "codewhale-ls hook: name the agent: %s\n", strings.Join(agents.Names(), ", "))
		return 2
	}
	agent, ok := agents.Lookup(args[0])
	if !ok {
		fmt.Fprintf(stderr, "codewhale-ls hook: unknown agent %q (known: %s)\n", args[0], strings.Join(agents.Names(), ", "))
		return 2
	}
	if isTerminal(stdin) {
		// A person started it: the read deadline works on pipes, not on a
		// terminal, so it would wait for ever for an event nobody types.
		fmt.Fprint(stderr, hookOnTerminal(agent))
		return 2
	}
	flags, flagsErr := hookFlags(args[1:])
	flow := agents.HookFlow{
		Agent: agent, Flags: func() (agents.HookFlags, error) { return flags, flagsErr }, Started: time.Now(),
		Env: config.OSEnv{}, Getwd: os.Getwd, Decide: deciding(flags.Exact), AskEditor: remote.Ask,
	}
	out := flow.Answer(interruptible(stdin))
	_, _ = io.WriteString(stdout, out.Stdout)
	_, _ = io.WriteString(stderr, out.Stderr)
	return out.Exit
}

// hookFlags reads `hook AGENT`'s flags: --config, --codewhale-version (the
// release, chosen as for the other commands), --timeout, and --exact
// (Codewhale's decision alone, without the hardening layer).
func hookFlags(args []string) (flags agents.HookFlags, err error) {
	fs, err := parseFlags(args, []string{"config", "codewhale-version", "timeout"}, []string{"exact"})
	if err == nil && len(fs.args) > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.args[0])
	}
	if err != nil {
		return agents.HookFlags{}, err
	}
	flags = agents.HookFlags{Config: fs.values["config"], Release: fs.codewhale, Exact: fs.bools["exact"]}
	if timeout, given := fs.values["timeout"]; given {
		flags.Timeout = &timeout
	}
	return flags, nil
}

// hookOnTerminal is what the hook says, instead of waiting, when its
// standard input is a terminal: what it reads, from whom, and how to try
// it by hand.
func hookOnTerminal(agent *agents.Agent) string {
	return fmt.Sprintf(`codewhale-ls hook %[1]s: standard input is a terminal; nothing was read.
The hook reads one %[1]s pre-tool event (a JSON object) on standard input,
written by %[1]s when it is about to run a tool, prints Codewhale's decision
in %[1]s's answer form and ends. To try it by hand, pipe an event in:

  echo '%[2]s' | codewhale-ls hook %[1]s

`+"`codewhale-ls hook install %[1]s`"+` puts the hook in %[1]s's settings.
`, agent.Name, agent.Example)
}
