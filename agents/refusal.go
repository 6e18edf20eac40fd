package agents

import (
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

// layerWords name each of Codewhale's layers, and the file it reads where
// it reads one, for a refusal that no rule's line explains.
var layerWords = map[gate.Layer]string{
	gate.LayerPosture:     "Codewhale's posture and configuration, layer 1",
	gate.LayerAdmission:   "Codewhale's mode and tool admission, layer 2",
	gate.LayerHooks:       "Codewhale's tool_call_before hooks, layer 3",
	gate.LayerBaseline:    "Codewhale's built-in tool baseline, layer 4",
	gate.LayerPermissions: "Codewhale's typed permission rules, layer 5",
	gate.LayerAutoReview:  "Codewhale's auto-review and safety floor, layer 6",
	gate.LayerRepoLaw:     "the repository law of .codewhale/constitution.json, layer 7",
	gate.LayerApproval:    "Codewhale's approval step, layer 8",
	gate.LayerSandbox:     "Codewhale's sandbox, layer 9",
}

// replyTo is the reply for a decision: its verdict and Codewhale's reason,
// with what the refusal names besides (the layer, the rule's line).
func replyTo(d gate.Decision) Reply {
	return Reply{Verdict: d.Decision, Reason: d.Reason, Layer: d.Layer, Location: d.Location}
}

// named is the text a refusal shows the agent's model and the person
// reading its transcript (issue 24, point 8): it says codewhale-ls refused,
// then Codewhale's reason, then where to look (gate.Location.Describe),
// else the layer in words.
func named(r Reply) string {
	text := r.Reason
	if !strings.HasPrefix(text, "codewhale-ls") {
		text = "codewhale-ls: " + text
	}
	where := layerWords[r.Layer]
	if r.Location != nil {
		where = r.Location.Describe()
	}
	if where != "" {
		text += " (" + where + ")"
	}
	return text
}
