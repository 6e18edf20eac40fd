// Package explanation writes a decision layer by layer, as
// `codewhale-ls explain` prints a hypothetical call's and `codewhale-ls
// log show` a recorded one's (its receipt's trace).
package explanation

import (
	"fmt"
	"io"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

// Write writes one line per layer of d, the decision of a call of
// toolName, marking the deciding one; then the decision, where its rule
// is, the releases that changed it, the card a person is shown, and the
// later layers that could still tighten it. show renders every text the
// decision quotes (nil: as it is, for explain's own call; the log's
// receipts make theirs visible).
func Write(w io.Writer, toolName string, d gate.Decision, show func(string) string) {
	if show == nil {
		show = func(s string) string { return s }
	}
	ran := map[gate.Layer]gate.TraceEntry{}
	for _, e := range d.Trace {
		ran[e.Layer] = e
	}
	if len(d.Trace) == 0 {
		fmt.Fprintln(w, "   (no layer's judgement was recorded)")
	} else {
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
			fmt.Fprintf(w, "%s %d %-12s %-7s %s\n", mark, l, l, show(string(e.Effect)), show(e.Detail))
		}
	}
	rule := ""
	if d.Rule != nil {
		rule = fmt.Sprintf(" [rule: %s]", show(*d.Rule))
	}
	fmt.Fprintf(w, "decision: %s by layer %d (%s)%s: %s\n", show(string(d.Decision)), d.Layer, show(d.LayerName), rule, show(d.Reason))
	if d.Location != nil {
		fmt.Fprintf(w, "where: %s\n", show(d.Location.Describe()))
	}
	// What made this release decide otherwise than the oldest one: the
	// user comparing releases sees which release changed the outcome.
	// A sandbox's network confines only shell commands that run: for other
	// tools, and for a call denied before it runs, the change of its
	// default changed nothing about this call.
	for _, c := range d.Changes {
		if c == release.SandboxNetworkOff.String() && (!tool.IsShell(toolName) || d.Decision == gate.Deny) {
			continue
		}
		fmt.Fprintf(w, "release: %s\n", show(c))
	}
	if d.Decision == gate.Ask && d.Prompt != nil {
		choices := make([]string, len(d.Prompt.Choices))
		for i, c := range d.Prompt.Choices {
			choices[i] = string(c)
		}
		fmt.Fprintf(w, "approval card choices: %s\n", strings.Join(choices, ", "))
		if rules := d.Prompt.AlwaysTOML(); rules != "" {
			fmt.Fprintf(w, "\"always\" would append to permissions.toml:\n%s", show(rules))
		}
	}
	// Only the layers after the deciding one that did not run can still
	// tighten the outcome: one that ran has already said what it does.
	if d.Decision != gate.Deny && len(d.Trace) > 0 {
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
