package main

import (
	"fmt"
	"io"

	"github.com/codewhale-ls/codewhale-ls/internal/buildinfo"
	"github.com/codewhale-ls/codewhale-ls/internal/cli"
)

// init registers completion's and man's --help here, beside the commands.
func init() {
	commandHelp["completion"] = `usage: codewhale-ls completion bash|zsh|fish

Prints the completion script for bash, zsh or fish, generated from the
commands' own help: the commands, their subcommands, flags and the values
a flag takes. Install it where the shell looks:

  bash   codewhale-ls completion bash > ~/.local/share/bash-completion/completions/codewhale-ls
  zsh    codewhale-ls completion zsh > ~/.zfunc/_codewhale-ls
         (with fpath=(~/.zfunc $fpath) before compinit in ~/.zshrc)
  fish   codewhale-ls completion fish > ~/.config/fish/completions/codewhale-ls.fish

The .deb and .rpm packages and the release archives carry all three.

example: source <(codewhale-ls completion bash)
`
	commandHelp["man"] = `usage: codewhale-ls man

Prints the manual page (roff, section 1), generated from the commands' own
help. Read it with man -l, or install it where man looks:

  codewhale-ls man > ~/.local/share/man/man1/codewhale-ls.1

example: codewhale-ls man | man -l -
`
}

// commandLine is the model of the command line its help texts describe.
func commandLine() (*cli.Model, error) {
	return cli.Parse("codewhale-ls", commandHelp)
}

// completion prints a shell's completion script.
func completion(args []string, stdout, stderr io.Writer) int {
	m, err := commandLine()
	if err != nil {
		fmt.Fprintln(stderr, "codewhale-ls completion: the help texts cannot be read (a bug):", err)
		return 1
	}
	if len(args) != 1 {
		fmt.Fprintf(stderr, "codewhale-ls completion: name one shell\n%s", commandHelp["completion"])
		return 1
	}
	switch args[0] {
	case "bash":
		err = m.Bash(stdout)
	case "zsh":
		err = m.Zsh(stdout)
	case "fish":
		err = m.Fish(stdout)
	default:
		fmt.Fprintf(stderr, "codewhale-ls completion: no completion for %q; bash, zsh and fish have one\n%s", args[0], commandHelp["completion"])
		return 1
	}
	if err != nil {
		fmt.Fprintln(stderr, "codewhale-ls completion:", err)
		return 1
	}
	return 0
}

// manPage prints the manual page.
func manPage(args []string, stdout, stderr io.Writer) int {
	m, err := commandLine()
	if err != nil {
		fmt.Fprintln(stderr, "codewhale-ls man: the help texts cannot be read (a bug):", err)
		return 1
	}
	if len(args) != 0 {
		fmt.Fprintf(stderr, "codewhale-ls man: unexpected argument %q\n%s", args[0], commandHelp["man"])
		return 1
	}
	if err := m.Man(stdout, manual(buildinfo.Version())); err != nil {
		fmt.Fprintln(stderr, "codewhale-ls man:", err)
		return 1
	}
	return 0
}
