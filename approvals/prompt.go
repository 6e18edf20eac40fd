package approvals

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
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
	// Inputs is the whole input of the call, field by field, as visible
	// text: what will run, with nothing cut but what ShowCapped says.
	Inputs []Input `json:"inputs"`
}

// Input is one field of the call's input as the card shows it
// (docs/codewhale/contract.md §4, ApprovalPrompt).
type Input struct {
	Field string `json:"field"`
	// Text is the value as problem.Visible shows it, line breaks kept; a
	// value that is not a string is its compact JSON.
	Text string `json:"text"`
	// Bytes is the length of the value itself.
	Bytes int `json:"bytes"`
	// Escaped counts the characters Text shows as escapes.
	Escaped int `json:"escaped"`
	// Hidden is how many bytes of a value past problem.VisibleCapBytes the
	// card leaves out between its start and its end.
	Hidden int `json:"hidden"`
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
	detail := d.Prompt.Description
	if d.Prompt.Forced {
		detail += " (a forced hold: session grants and saved rules cannot pass it, so only this call can be approved)"
	}
	if d.Prompt.AlwaysRefused != "" && !d.Prompt.Forced {
		detail += " (\"" + choiceTitles[gate.ChoiceAlways] + "\" is not offered: " + d.Prompt.AlwaysRefused + ")"
	}
	p := &Prompt{
		Tool:      cardText(req.Tool),
		Summary:   summary(req.Tool, d.Input),
		Detail:    cardText(detail),
		Reason:    cardText(d.Reason),
		Layer:     d.Layer,
		Workspace: cardText(req.Workspace),
		Default:   gate.ChoiceDeny,
		Codewhale: d.Codewhale,
		Inputs:    inputs(d.Input),
	}
	if d.Rule != nil {
		rule := cardText(*d.Rule)
		p.Rule = &rule
	}
	for _, c := range d.Prompt.Choices {
		if d.Prompt.Forced && !worksWhenForced(c) {
			// Codewhale's card offers them, but neither would pass the
			// next such call: offering them would promise what is not so.
			continue
		}
		item := ChoiceItem{ID: c, Title: choiceTitles[c]}
		if item.ID == gate.ChoiceSession {
			item.Title = cardText(sessionTitle(req.Tool, d.Prompt))
		}
		if item.Title == "" {
			return nil, fmt.Errorf("the gate offered an unknown choice %q", c)
		}
		if item.ID == gate.ChoiceAlways {
			item.Preview = cardText(d.Prompt.AlwaysTOML())
		}
		p.Choices = append(p.Choices, item)
	}
	return p, nil
}

// worksWhenForced reports whether choice c does what it says on a
// forced hold, where session grants and saved rules are not consulted
// (docs/codewhale/pipeline.md §8.2): approving once and denying do.
func worksWhenForced(c gate.Choice) bool {
	return c == gate.ChoiceOnce || c == gate.ChoiceDeny
}

// cardText is the card's own text (a reason, a rule, a title), which may
// quote the agent's: visible as problem.Visible shows it, with the
// punctuation of the server's own messages left as it is.
func cardText(s string) string {
	text, _ := problem.Visible{Multiline: true, Allow: "—…→“”‘’"}.Show(s)
	return text
}

// summaryKeys are the input fields a card's title names, in the order
// tried: the one that says what the call does.
var summaryKeys = []string{"command", "path", "file_path", "pattern", "url", "task_id"}

// inputs is every field of input as the card shows it, the title's field
// first and the rest by name, each whole unless it passes
// problem.VisibleCapBytes.
func inputs(input map[string]any) []Input {
	names := inputOrder(input)
	out := make([]Input, 0, len(names))
	for _, name := range names {
		value := fieldValue(input[name])
		text, escaped, hidden := problem.Visible{Multiline: true}.ShowCapped(value, problem.VisibleCapBytes)
		field, _ := problem.Visible{}.Show(name)
		out = append(out, Input{Field: field, Text: text, Bytes: len(value), Escaped: escaped, Hidden: hidden})
	}
	return out
}

// inputOrder is the names of input's fields in the card's order: the
// title's field first, the rest by name.
func inputOrder(input map[string]any) []string {
	names := make([]string, 0, len(input))
	for name := range input {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		ra, rb := slices.Index(summaryKeys, a), slices.Index(summaryKeys, b)
		switch {
		case ra >= 0 && rb >= 0:
			return ra - rb
		case ra >= 0:
			return -1
		case rb >= 0:
			return 1
		}
		return strings.Compare(a, b)
	})
	return names
}

// fieldValue is a field's value as the card shows it: a string itself,
// anything else its compact JSON.
func fieldValue(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(raw)
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

// Titles are the card's button titles, Deny first: a client that lists
// them and takes the first on a bare Enter or a "1" denies.
func (p *Prompt) Titles() []string {
	out := make([]string, 0, len(p.Choices))
	for _, c := range p.Choices {
		if c.ID == gate.ChoiceDeny {
			out = append([]string{c.Title}, out...)
		} else {
			out = append(out, c.Title)
		}
	}
	return out
}

// messageInputBytes bounds the input a text-only message quotes.
const messageInputBytes = 2 << 10

// Message is the card as text, for clients that show only text: who asks,
// the call, why, and the whole of its first input when the title had to
// cut it.
func (p *Prompt) Message() string {
	who := "Codewhale asks"
	if p.Agent != "" {
		who = p.Agent + " asks (through Codewhale's rules)"
	}
	msg := fmt.Sprintf("%s: allow %s? %s", who, p.Summary, p.Detail)
	if p.Codewhale != "" {
		msg += " (Codewhale " + p.Codewhale + " rules)"
	}
	if p.Deadline != "" {
		msg += " (denied at " + p.Deadline + " without an answer)"
	}
	if len(p.Inputs) > 0 && !strings.HasSuffix(p.Summary, ": "+p.Inputs[0].Text) {
		// The start and the end, where a danger hides, in a size a
		// message box can show.
		msg += "\n" + p.Inputs[0].Field + ":\n" + problem.Visible{Multiline: true}.CapShown(p.Inputs[0].Text, messageInputBytes)
	}
	return msg
}

// summary is a one-line title for a call, as Codewhale's editor transport
// titles it: the tool and (an excerpt of) the argument that says what it
// does. The whole input is in the decision; a title need not repeat it.
func summary(toolName string, input map[string]any) string {
	title, _ := problem.Visible{}.Show(toolName)
	for _, key := range summaryKeys {
		if v, ok := input[key].(string); ok && v != "" {
			shown := problem.CapRunes(v, problem.ExcerptRunes, "")
			text, _ := problem.Visible{}.Show(shown)
			if len(shown) < len(v) {
				text += "… (" + strconv.Itoa(len(v)) + " bytes in all; the card's inputs show it whole)"
			}
			return title + ": " + text
		}
	}
	return title
}
