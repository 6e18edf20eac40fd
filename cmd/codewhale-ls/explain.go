package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

func explain(args []string, stdout, stderr io.Writer) int {
	fs, err := parseFlags(args, append(commonFlags, "command", "path", "input"), []string{"json", "exact"})
	if err != nil {
		fmt.Fprintln(stderr, "codewhale-ls explain:", err)
		return 1
	}
	if len(fs.args) != 1 {
		fmt.Fprint(stderr, "codewhale-ls explain: name exactly one TOOL\n"+usage+"\n"+toolNamesHelp())
		return 1
	}
	if !gate.Registered(fs.args[0]) {
		// Codewhale would refuse it at layer 2 as no tool at all: a
		// mistyped name is the user's, not a decision to explain.
		fmt.Fprintf(stderr, "codewhale-ls explain: %q is no Codewhale tool\n%s", fs.args[0], toolNamesHelp())
		return 1
	}
	input, err := explainInput(fs)
	if err != nil {
		fmt.Fprintln(stderr, "codewhale-ls explain:", err)
		return 1
	}
	against, err := fs.codewhale(context.Background())
	if err != nil {
		fmt.Fprintln(stderr, "codewhale-ls explain:", err)
		return 1
	}
	opts, err := fs.loadOptions(against)
	if err != nil {
		fmt.Fprintln(stderr, "codewhale-ls explain:", err)
		return 1
	}
	req, err := fs.requestDefaults(opts.Workspace)
	if err != nil {
		fmt.Fprintln(stderr, "codewhale-ls explain:", err)
		return 1
	}
	req.Tool, req.Input = fs.args[0], input
	exact := fs.bools["exact"]
	d := deciding(exact)(context.Background(), opts, req)
	if fs.bools["json"] {
		writeJSON(stdout, d)
		return 0
	}
	fmt.Fprintf(stdout, "as %s\n", against.Describe())
	printExplanation(stdout, req, d)
	switch {
	case exact:
		fmt.Fprintln(stdout, "hardening: off (--exact): Codewhale's decision alone")
	case hardened(d):
		fmt.Fprintln(stdout, "hardening: on, and it made this decision stricter than Codewhale's (--exact for Codewhale's decision alone, docs/hardening.md)")
	}
	return 0
}

// hardened reports whether the hardening layer acted on d: it traces
// only when it does, and its reasons start "hardening:".
func hardened(d gate.Decision) bool {
	if strings.HasPrefix(d.Reason, "hardening:") {
		return true
	}
	return slices.ContainsFunc(d.Trace, func(e gate.TraceEntry) bool { return strings.HasPrefix(e.Detail, "hardening:") })
}

// toolNamesHelp lists the valid TOOL names, from the gate's own table
// (gate.BuiltinNames), wrapped.
func toolNamesHelp() string {
	var b strings.Builder
	b.WriteString("TOOL is an MCP tool (mcp_<server>_<tool>), a terminal's (terminal/<name>)\nor one of Codewhale's own tools:\n")
	line := " "
	for _, n := range gate.BuiltinNames() {
		if len(line)+1+len(n) > 76 {
			b.WriteString(line + "\n")
			line = " "
		}
		line += " " + n
	}
	b.WriteString(line + "\n")
	return b.String()
}

func explainInput(fs *flagSet) (map[string]any, error) {
	input := map[string]any{}
	if raw, ok := fs.values["input"]; ok {
		if err := json.Unmarshal([]byte(raw), &input); err != nil || input == nil {
			return nil, fmt.Errorf("--input must be a JSON object")
		}
	}
	if cmd, ok := fs.values["command"]; ok {
		input["command"] = cmd
	}
	if path, ok := fs.values["path"]; ok {
		input["path"] = path
	}
	if len(input) == 0 {
		return nil, fmt.Errorf("give the call's input with --command, --path or --input")
	}
	return input, nil
}

// printExplanation writes one line per layer, marks the deciding one, and
// says which later layers could still tighten the outcome.
func printExplanation(w io.Writer, req gate.Request, d gate.Decision) {
	in, _ := json.Marshal(req.Input)
	fmt.Fprintf(w, "%s %s in %s\n", req.Tool, in, req.Workspace)
	ran := map[gate.Layer]gate.TraceEntry{}
	for _, e := range d.Trace {
		ran[e.Layer] = e
	}
	for l := gate.LayerPosture; l <= gate.LayerSandbox; l++ {
		e, ok := ran[l]
		mark := "  "
		if l == d.Layer {
			mark = "=>"
		}
		if !ok {
			fmt.Fprintf(w, "%s %d %-12s %-7s not reached\n", mark, l, l, "-")
			continue
		}
		fmt.Fprintf(w, "%s %d %-12s %-7s %s\n", mark, l, l, e.Effect, e.Detail)
	}
	rule := ""
	if d.Rule != nil {
		rule = fmt.Sprintf(" [rule: %s]", *d.Rule)
	}
	fmt.Fprintf(w, "decision: %s by layer %d (%s)%s: %s\n", d.Decision, d.Layer, d.LayerName, rule, d.Reason)
	if d.Location != nil {
		fmt.Fprintf(w, "where: %s\n", d.Location.Describe())
	}
	// What made this release decide otherwise than the oldest one: the
	// user comparing releases sees which release changed the outcome.
	// A sandbox's network confines only shell commands that run: for other
	// tools, and for a call denied before it runs, the change of its
	// default changed nothing about this call.
	for _, c := range d.Changes {
		if c == release.SandboxNetworkOff.String() && (!tool.IsShell(req.Tool) || d.Decision == gate.Deny) {
			continue
		}
		fmt.Fprintf(w, "release: %s\n", c)
	}
	if d.Decision == gate.Ask && d.Prompt != nil {
		choices := make([]string, len(d.Prompt.Choices))
		for i, c := range d.Prompt.Choices {
			choices[i] = string(c)
		}
		fmt.Fprintf(w, "approval card choices: %s\n", strings.Join(choices, ", "))
		if rules := d.Prompt.AlwaysTOML(); rules != "" {
			fmt.Fprintf(w, "\"always\" would append to permissions.toml:\n%s", rules)
		}
	}
	// Only the layers after the deciding one that did not run can still
	// tighten the outcome: one that ran has already said what it does.
	if d.Decision != gate.Deny {
		var later []string
		for l := d.Layer + 1; l <= gate.LayerSandbox; l++ {
			if _, judged := ran[l]; !judged {
				later = append(later, fmt.Sprintf("%d %s", l, l))
			}
		}
		if len(later) > 0 {
			fmt.Fprintf(w, "later layers that could still tighten: %s\n", strings.Join(later, ", "))
		}
	}
}
