package approvals

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// Prompt is the ApprovalPrompt of docs/codewhale/contract.md §4: Codewhale's approval
// card as the editor shows it.
type Prompt struct {
	ID        string       `json:"id"`
	Tool      string       `json:"tool"`
	Summary   string       `json:"summary"`
	Detail    string       `json:"detail"`
	Reason    string       `json:"reason"`
	Layer     gate.Layer   `json:"layer"`
	Rule      *string      `json:"rule"`
	Workspace string       `json:"workspace"`
	Choices   []ChoiceItem `json:"choices"`
	Default   gate.Choice  `json:"default"`
	Deadline  string       `json:"deadline"`
	// Codewhale is the release whose rules decided the card (and what
	// "approve for session" covers), as hover and explain name it.
	Codewhale string `json:"codewhale,omitempty"`
	// Agent names the other agent whose call this is, when it came from
	// a pre-tool hook (codewhale-ls hook AGENT); "" for the editor's own.
	Agent string `json:"agent,omitempty"`
}

// ChoiceItem is one button of the card.
type ChoiceItem struct {
	ID    gate.Choice `json:"id"`
	Title string      `json:"title"`
	// Preview is the exact TOML "always" would append.
	Preview string `json:"preview,omitempty"`
}

var choiceTitles = map[gate.Choice]string{
	gate.ChoiceOnce:   "Approve once",
	gate.ChoiceAlways: "Always allow in this repo",
	gate.ChoiceDeny:   "Deny",
}

// sessionTitle says what "Approve for session" covers in the card's
// release, until the server stops: in 0.9.10 the tool by name, far more
// than the call on screen; since 0.10.0 the call's grouping key
// (docs/codewhale/releases/0.10.0.md B.8.3, 0.10.1.md Part D item 7).
func sessionTitle(toolName string, card *gate.Prompt) string {
	if slices.Contains(card.SessionGrants, toolName) {
		return fmt.Sprintf("Approve for session: every later %q call, whatever its input", problem.Excerpt(toolName))
	}
	key := card.GroupingKey
	switch {
	case key == card.ExactKey, strings.HasPrefix(key, "shell:exact:"), strings.HasPrefix(key, "patch:unresolved:"):
		return "Approve for session: this exact call again"
	case strings.HasPrefix(key, "shell:"):
		return fmt.Sprintf("Approve for session: every later %q command with any options", problem.Excerpt(strings.TrimPrefix(key, "shell:")))
	case strings.HasPrefix(key, "patch:"):
		return "Approve for session: every later patch of exactly these files"
	case strings.HasPrefix(key, "net:"):
		return fmt.Sprintf("Approve for session: every later fetch from %s", problem.Excerpt(strings.TrimPrefix(key, "net:")))
	}
	return "Approve for session: this exact call again"
}

// NewPrompt builds the card for an ask decision of layer 8, offering only
// the choices Codewhale would offer. The broker sets ID and Deadline.
func NewPrompt(req gate.Request, d gate.Decision) (*Prompt, error) {
	if d.Decision != gate.Ask || d.Prompt == nil {
		return nil, fmt.Errorf("decision %s at layer %d has no approval card", d.Decision, d.Layer)
	}
	p := &Prompt{
		Tool:      req.Tool,
		Summary:   summary(req.Tool, d.Input),
		Detail:    d.Prompt.Description,
		Reason:    d.Reason,
		Layer:     d.Layer,
		Rule:      d.Rule,
		Workspace: req.Workspace,
		Default:   gate.ChoiceDeny,
		Codewhale: d.Codewhale,
	}
	if d.Prompt.Forced {
		p.Detail += " (a forced hold: session grants and saved rules cannot pass it)"
	}
	if d.Prompt.AlwaysRefused != "" {
		p.Detail += " (\"" + choiceTitles[gate.ChoiceAlways] + "\" is not offered: " + d.Prompt.AlwaysRefused + ")"
	}
	for _, c := range d.Prompt.Choices {
		item := ChoiceItem{ID: gate.Choice(c), Title: choiceTitles[gate.Choice(c)]}
		if item.ID == gate.ChoiceSession {
			item.Title = sessionTitle(req.Tool, d.Prompt)
		}
		if item.Title == "" {
			return nil, fmt.Errorf("the gate offered an unknown choice %q", c)
		}
		if item.ID == gate.ChoiceAlways {
			item.Preview = d.Prompt.AlwaysTOML()
		}
		p.Choices = append(p.Choices, item)
	}
	return p, nil
}

// offers reports whether id is one of the card's choices.
func (p *Prompt) offers(id gate.Choice) bool {
	for _, c := range p.Choices {
		if c.ID == id {
			return true
		}
	}
	return false
}

// ChoiceTitled maps a button title back to its choice (window/
// showMessageRequest answers with the title).
func (p *Prompt) ChoiceTitled(title string) (gate.Choice, bool) {
	for _, c := range p.Choices {
		if c.Title == title {
			return c.ID, true
		}
	}
	return "", false
}

// Titles are the card's button titles in order.
func (p *Prompt) Titles() []string {
	out := make([]string, len(p.Choices))
	for i, c := range p.Choices {
		out[i] = c.Title
	}
	return out
}

// Message is the card as one paragraph, for clients that show only text.
func (p *Prompt) Message() string {
	msg := fmt.Sprintf("Codewhale: allow %s? %s", p.Summary, p.Detail)
	if p.Codewhale != "" {
		msg += " (Codewhale " + p.Codewhale + " rules)"
	}
	if p.Deadline != "" {
		msg += " (denied at " + p.Deadline + " without an answer)"
	}
	return msg
}

// summary is a one-line title for a call, as Codewhale's editor transport
// titles it: the tool and (an excerpt of) the argument that says what it
// does. The whole input is in the decision; a title need not repeat it.
func summary(toolName string, input map[string]any) string {
	for _, key := range []string{"command", "path", "file_path", "pattern", "url", "task_id"} {
		if v, ok := input[key].(string); ok && v != "" {
			return toolName + ": " + problem.Excerpt(v)
		}
	}
	return toolName
}
