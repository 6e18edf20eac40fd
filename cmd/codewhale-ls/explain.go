package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/explanation"
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

// printExplanation writes the call, then one line per layer, the
// deciding one marked, and which later layers could still tighten the
// outcome (gate/explanation, which `log show` writes too).
func printExplanation(w io.Writer, req gate.Request, d gate.Decision) {
	in, _ := json.Marshal(req.Input)
	fmt.Fprintf(w, "%s %s in %s\n", req.Tool, in, req.Workspace)
	explanation.Write(w, req.Tool, d, nil)
}
