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
	flags, exact, flagsErr := hookFlags(args[1:])
	flow := agents.HookFlow{
		Agent: agent, Flags: func() (agents.HookFlags, error) { return flags, flagsErr }, Started: time.Now(),
		Env: config.OSEnv{}, Getwd: os.Getwd, Decide: deciding(exact), AskEditor: remote.Ask,
	}
	out := flow.Answer(interruptible(stdin))
	_, _ = io.WriteString(stdout, out.Stdout)
	_, _ = io.WriteString(stderr, out.Stderr)
	return out.Exit
}

// hookFlags reads `hook AGENT`'s flags: --config, --codewhale-version (the
// release, chosen as for the other commands), --timeout, and --exact
// (Codewhale's decision alone, without the hardening layer).
func hookFlags(args []string) (flags agents.HookFlags, exact bool, err error) {
	fs, err := parseFlags(args, []string{"config", "codewhale-version", "timeout"}, []string{"exact"})
	if err == nil && len(fs.args) > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.args[0])
	}
	if err != nil {
		return agents.HookFlags{}, false, err
	}
	flags = agents.HookFlags{Config: fs.values["config"], Release: fs.codewhale}
	if timeout, given := fs.values["timeout"]; given {
		flags.Timeout = &timeout
	}
	return flags, fs.bools["exact"], nil
}
