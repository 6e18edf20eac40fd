package console

import (
	"crypto/rand"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// codeLetters are the letters of approval codes, as the Neovim card's
// (prompt.lua): none of the card's other keys (d to deny, j k g G to
// scroll, q) and no vowel, so a code is no English word.
const codeLetters = "bcfhmnprstvwxz"

// Card is one prompt waiting in the console: what it shows, the codes
// that approve it, and how it ends.
type Card struct {
	Prompt *approvals.Prompt
	// Choices are the prompt's, Deny first (always there: denying is
	// always possible).
	Choices []approvals.ChoiceItem
	// Codes are the codes of every choice but Deny, each starting with
	// its own letter, so what was typed so far matches one choice at most.
	Codes   map[gate.Choice]string
	Arrived time.Time
	// Due is the prompt's deadline; zero when it cannot be read (the
	// server still enforces it).
	Due time.Time

	answer chan gate.Choice // one answer, buffered
}

// newCard makes the card of p, drawing its codes from random.
func newCard(p *approvals.Prompt, now time.Time, random io.Reader) (*Card, error) {
	c := &Card{Prompt: p, Codes: map[gate.Choice]string{}, Arrived: now, answer: make(chan gate.Choice, 1)}
	if due, err := time.Parse(time.RFC3339, p.Deadline); err == nil {
		c.Due = due
	}
	deny := approvals.ChoiceItem{ID: gate.ChoiceDeny, Title: "Deny"}
	var rest []approvals.ChoiceItem
	for _, ch := range p.Choices {
		if ch.ID == gate.ChoiceDeny {
			deny = ch
			continue
		}
		rest = append(rest, ch)
	}
	c.Choices = append([]approvals.ChoiceItem{deny}, rest...)
	used := map[byte]bool{}
	for _, ch := range rest {
		code, err := drawCode(random, used)
		if err != nil {
			return nil, fmt.Errorf("drawing the card's codes: %w", err)
		}
		used[code[0]] = true
		c.Codes[ch.ID] = code
	}
	return c, nil
}

// drawCode is three code letters, uniformly drawn, the first not in used.
func drawCode(random io.Reader, used map[byte]bool) (string, error) {
	if len(used) >= len(codeLetters) {
		return "", fmt.Errorf("more choices than code letters")
	}
	var code []byte
	var b [1]byte
	for len(code) < 3 {
		if _, err := io.ReadFull(random, b[:]); err != nil {
			return "", err
		}
		// Below 252 (18 × 14) keeps the 14 letters equally likely.
		if b[0] >= 252 {
			continue
		}
		letter := codeLetters[int(b[0])%len(codeLetters)]
		if len(code) == 0 && used[letter] {
			continue
		}
		code = append(code, letter)
	}
	return string(code), nil
}

// defaultRandom is the system's random source.
var defaultRandom io.Reader = rand.Reader

// Title is a choice's title, visible.
func Title(ch approvals.ChoiceItem) string {
	if ch.Title == "" {
		return string(ch.ID)
	}
	return shown(ch.Title)
}

// LayerInWords says which layer and rule asked: "layer 8 (approval),
// rule X", as the VS Code card says it (editors/vscode/src/approvalHtml.ts).
func LayerInWords(p *approvals.Prompt) string {
	s := "layer " + strconv.Itoa(int(p.Layer))
	if name := p.Layer.String(); name != "unknown" {
		s += " (" + name + ")"
	}
	if p.Rule != nil && *p.Rule != "" {
		s += ", rule " + shown(*p.Rule)
	}
	return s
}

// BodyLines are the card's text, each a line to wrap: who asks, every
// input field whole, why, which layer and rule, the workspace, the
// release, and what "always" would append. The choices, the state and the
// time are the footer's (Render).
func (c *Card) BodyLines() []string {
	p := c.Prompt
	head := "Codewhale approval: " + shown(p.Tool)
	if p.Agent != "" {
		head += " (asked by " + shown(p.Agent) + ")"
	}
	out := []string{head}
	for _, in := range p.Inputs {
		out = append(out, inputLines(in)...)
	}
	if len(p.Inputs) == 0 {
		out = append(out, indent(p.Summary)...)
	}
	out = append(out, "Reason: "+shown(p.Reason))
	// The detail is the reason again, often, with the card's own notes
	// (a forced hold, why "always" is not offered): those are shown.
	if extra := strings.TrimSpace(strings.TrimPrefix(p.Detail, p.Reason)); extra != "" {
		label := "Detail: "
		if len(extra) < len(strings.TrimSpace(p.Detail)) {
			label = "Note: "
		}
		out = append(out, label+shown(extra))
	}
	out = append(out, "Decided by "+LayerInWords(p))
	if p.Workspace != "" {
		out = append(out, "Workspace: "+shown(p.Workspace))
	}
	if p.Codewhale != "" {
		out = append(out, "Rules of Codewhale "+shown(p.Codewhale))
	}
	for _, ch := range c.Choices {
		if ch.ID == gate.ChoiceAlways && ch.Preview != "" {
			out = append(out, `"`+Title(ch)+`" appends to permissions.toml:`)
			for _, l := range indent(ch.Preview) {
				out = append(out, "  "+l)
			}
		}
	}
	return out
}

// inputLines are one input field: a heading counting its lines, its
// escapes and what the server left out, then every line of it.
func inputLines(in approvals.Input) []string {
	lines := indent(in.Text)
	facts := []string{plural(len(lines), "line")}
	if in.Escaped > 0 {
		facts = append(facts, plural(in.Escaped, "invisible or non-ASCII character")+" shown as "+problem.EscapeOpen+"…"+problem.EscapeClose)
	}
	if in.Hidden > 0 {
		facts = append(facts, strconv.Itoa(in.Hidden)+" bytes hidden in the middle")
	}
	field := shown(in.Field)
	if field == "" {
		field = "input"
	}
	return append([]string{field + " (" + strings.Join(facts, ", ") + "):"}, lines...)
}

// indent is text's lines, each indented by two spaces, visible.
func indent(text string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(shownMultiline(text), "\n"), "\n") {
		out = append(out, "  "+l)
	}
	return out
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// shown is a text of the card on one line, as the terminal may draw it:
// the server made it visible already (problem.Visible); this is the
// second line of defence, so that no bug upstream can send the terminal a
// control sequence or a character that hides or reorders what is drawn.
// Newlines become ⏎.
func shown(s string) string {
	return strings.ReplaceAll(shownMultiline(s), "\n", problem.NewlineMark)
}

// shownMultiline is shown with its line breaks kept.
func shownMultiline(s string) string {
	if drawable(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '\n' || drawableRune(r) {
			b.WriteRune(r)
		} else {
			// An invalid byte is named by its value.
			text, _ := problem.Visible{}.Show(s[i : i+size])
			b.WriteString(text)
		}
		i += size
	}
	return b.String()
}

func drawable(s string) bool {
	for _, r := range s {
		if r != '\n' && !drawableRune(r) {
			return false
		}
	}
	return true
}

// drawableRune: a character the terminal draws as itself, taking room,
// and that moves nothing around it: printable ASCII, or a graphic
// character that is neither a space, a mark, a format control nor an
// invalid byte (utf8.RuneError, which Visible names by its byte).
func drawableRune(r rune) bool {
	if r >= 0x20 && r < 0x7f {
		return true
	}
	return r > 0x9f && r != unicode.ReplacementChar && unicode.IsGraphic(r) && !unicode.In(r, unicode.Zs, unicode.Mn, unicode.Me, unicode.Cf)
}
