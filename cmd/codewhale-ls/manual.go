package main

import (
	"strings"

	"github.com/codewhale-ls/codewhale-ls/agents"
	"github.com/codewhale-ls/codewhale-ls/internal/cli"
)

// manual is what `codewhale-ls man` says besides each command's --help:
// what the program is, the files and environment variables it reads
// (manual_test.go checks every variable the program reads is here), its
// exit statuses and where to read more.
func manual(version string) cli.Page {
	return cli.Page{
		Version: version,
		Title:   "Codewhale's policy sidecar: language server, linter and authorization engine",
		Description: []string{
			"codewhale-ls reproduces Codewhale's nine-layer authorization exactly, and builds on it a language server for Codewhale's policy files (diagnostics, fixes, hover, completion), a linter for them and for CI, the pre-tool hook of other coding agents (Claude Code, Codex, Gemini CLI, Copilot CLI, Cursor) and an approval console, so that one policy decides for every agent and a person approves in the editor or the terminal.",
			"Without a command it runs the language server on standard input and output, as editors start it. Every command's --help is its section below.",
		},
		Files: []cli.Entry{
			{Term: "~/.codewhale/config.toml", Text: "Codewhale's user config (else $CODEWHALE_HOME/config.toml, ~/.deepseek/config.toml; --config and CODEWHALE_CONFIG_PATH name another)."},
			{Term: "~/.codewhale/permissions.toml", Text: "the user's rules, beside the active config.toml; codewhale-ls init appends a starter policy to it."},
			{Term: "~/.codewhale/hooks_approvals.toml", Text: "the digests of the workspaces' hooks.toml files approved with codewhale-ls hooks approve."},
			{Term: "~/.codewhale/codewhale-ls/settings.toml", Text: "codewhale-ls's own settings: the decision log, exporting decisions (OpenTelemetry), the hardening layer."},
			{Term: "~/.codewhale/codewhale-ls/decisions.jsonl", Text: "the decision log (receipts) that codewhale-ls log reads, rotated to decisions.jsonl.1 and on."},
			{Term: "WORKSPACE/.codewhale/", Text: "a repository's own policy: config.toml (the project overlay), hooks.toml and constitution.json."},
			{Term: "/etc/deepseek/managed_config.toml, /etc/deepseek/requirements.toml", Text: "an administrator's managed config and requirements, which the user's cannot loosen."},
			{Term: "$XDG_RUNTIME_DIR/codewhale-ls/", Text: "the sockets through which agents' hooks ask the editor or the approval console (else codewhale-ls-UID in the temporary directory)."},
			{Term: "~/.cache/codewhale-ls/", Text: "the Codewhale versions read from codewhale --version, per binary (in the user's cache directory, $XDG_CACHE_HOME on Linux)."},
		},
		Environment: []cli.Entry{
			{Term: "CODEWHALE_HOME", Text: "Codewhale's home directory instead of ~/.codewhale."},
			{Term: "CODEWHALE_CONFIG_PATH, DEEPSEEK_CONFIG_PATH", Text: "an absolute path to the user config.toml, as Codewhale reads them."},
			{Term: "CODEWHALE_APPROVAL_POLICY, CODEWHALE_SANDBOX_MODE, CODEWHALE_ALLOW_SHELL, CODEWHALE_YOLO", Text: "override the user config's approval_policy, sandbox_mode, allow_shell and yolo, as Codewhale reads them; the DEEPSEEK_ names of each too (DEEPSEEK_APPROVAL_POLICY, DEEPSEEK_SANDBOX_MODE, DEEPSEEK_ALLOW_SHELL, DEEPSEEK_YOLO), when the CODEWHALE_ one is unset."},
			{Term: "HOME, USERPROFILE, HOMEDRIVE, HOMEPATH", Text: "the user's home directory."},
			{Term: "PATH", Text: "where the codewhale whose release to reproduce is found (unless --codewhale-version names one)."},
			{Term: "CI, GITHUB_ACTIONS, GITLAB_CI", Text: "true: check runs as in CI (as --ci)."},
			{Term: strings.Join(agentEnv(), ", "), Text: "the agents' project directories and settings directories, read by hook and hook install as each agent sets them."},
			{Term: "CODEWHALE_LS_ENABLE_TELEMETRY", Text: "1 or true: export every decision as an OpenTelemetry log record."},
			{Term: "OTEL_LOGS_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_LOGS_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_EXPORTER_OTLP_LOGS_PROTOCOL, OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_LOGS_HEADERS, OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME", Text: "the OpenTelemetry exporter's standard settings."},
			{Term: "XDG_RUNTIME_DIR, TMPDIR", Text: "where the approval sockets are made."},
			{Term: "TMPDIR, GOTMPDIR, GOCACHE", Text: "the directories whose programs do not last (a go run build), which hook install treats so when it writes the hook's command into an agent's settings."},
			{Term: "NO_COLOR, TERM", Text: "log prints without colour when NO_COLOR is set or TERM is dumb; the approval console draws plainly on a dumb terminal."},
			{Term: "DISPLAY, WAYLAND_DISPLAY", Text: "approvals --alert desktop uses notify-send when a display is there."},
		},
		ExitStatus: []cli.Entry{
			{Term: "0", Text: "success (for authorize and hook: a decision was given, whatever it is)."},
			{Term: "1", Text: "bad usage or a failure; the message says which."},
			{Term: "2, 3", Text: "check: warnings, errors at or above --fail-level; log: bad usage."},
		},
		SeeAlso: []string{"codewhale(1)", "The README and docs/ of https://github.com/codewhale-ls/codewhale-ls"},
	}
}

// agentEnv are the environment variables the agents' hooks are given or
// keep their settings under.
func agentEnv() []string {
	var names []string
	for _, n := range agents.Names() {
		a, _ := agents.Lookup(n)
		for _, v := range []string{a.ProjectEnv, a.Settings.DirVar} {
			if v != "" {
				names = append(names, v)
			}
		}
	}
	return names
}
