package console

import (
	"fmt"
	"strings"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"golang.org/x/text/width"
)

// Screen is what Render draws: rows of text, each at most the screen's
// width in cells, and the card's scroll as drawn (kept within its text).
type Screen struct {
	Rows   []string
	Scroll int
}

// noticeRows is how many notices stay above a card.
const noticeRows = 3

// Render lays v out on a screen of cols × rows cells at now: the header
// (the console's own lines: what it serves, how to stop it), the latest
// notices, then the card: its text, wrapped and scrolled, and under it
// the footer that never scrolls away: the choices with their keys, the
// state of the guard, the time left and the cards waiting, and when the
// text does not fit, where it is scrolled and how it ends.
func Render(v View, header []string, cols, rows int, now time.Time) Screen {
	cols, rows = max(cols, 20), max(rows, 8)
	var out []string
	for _, h := range header {
		out = append(out, fit(shown(h), cols))
	}
	out = append(out, strings.Repeat("─", cols))
	if v.Card == nil {
		out = append(out, fit("No approval waiting. Cards appear here when an agent's hook asks.", cols))
		room := rows - len(out)
		notices := v.Notices[max(0, len(v.Notices)-room):]
		for _, n := range notices {
			out = append(out, fit(n, cols))
		}
		return Screen{Rows: out}
	}
	for _, n := range v.Notices[max(0, len(v.Notices)-noticeRows):] {
		out = append(out, fit(n, cols))
	}
	if len(v.Notices) > 0 {
		out = append(out, strings.Repeat("─", cols))
	}
	body := wrapAll(v.Card.BodyLines(), cols)
	foot := footer(v, cols, now)
	room := max(1, rows-len(out)-len(foot)-2) // two rows for the scroll hint and the end
	fits := len(body) <= room
	scroll := 0
	if !fits {
		scroll = min(v.Scroll, len(body)-room)
		body = body[scroll : scroll+room]
	}
	out = append(out, body...)
	out = append(out, foot...)
	if !fits {
		out = append(out, fit(fmt.Sprintf("more than fits (rows %d-%d of %d): scroll with j k ↑ ↓ PgUp PgDn (space, g, G)", scroll+1, scroll+room, len(wrapAll(v.Card.BodyLines(), cols))), cols))
		if last := lastInputLine(v.Card); last != "" {
			out = append(out, fitEnd("ends: ", last, cols))
		}
	}
	if len(out) > rows {
		out = out[:rows]
	}
	return Screen{Rows: out, Scroll: scroll}
}

// footer is the choices, the guard's state, and the time.
func footer(v View, cols int, now time.Time) []string {
	var out []string
	for _, ch := range v.Card.Choices {
		how := "d"
		if ch.ID != gate.ChoiceDeny {
			code := v.Card.Codes[ch.ID]
			how = "type " + code
			if v.Typed != "" && strings.HasPrefix(code, v.Typed) {
				how = "type " + strings.ToUpper(v.Typed) + code[len(v.Typed):]
			}
		}
		out = append(out, fit(fmt.Sprintf("  %-10s %s", how, Title(ch)), cols))
	}
	out = append(out, fit("  Esc        Deny (dismiss)", cols))
	var state string
	switch {
	case v.Focus == FocusOut:
		state = "not reading keys: the terminal is not focused"
	case !v.Armed:
		state = fmt.Sprintf("keys ignored until you type nothing for %g s", Guard.Seconds())
	default:
		state = "ready: type a code to approve, d or Esc to deny"
	}
	out = append(out, fit(state, cols))
	left := TimeLeft(v.Card.Due, now)
	if v.Waiting > 0 {
		left += fmt.Sprintf(", %d more waiting", v.Waiting)
	}
	out = append(out, fit(left, cols))
	return out
}

// TimeLeft says how long a card still waits and until when.
func TimeLeft(due, now time.Time) string {
	if due.IsZero() {
		return "deadline unknown"
	}
	left := max(0, due.Sub(now).Truncate(time.Second))
	return fmt.Sprintf("%d:%02d left (denied at %s)", int(left.Minutes()), int(left.Seconds())%60, due.Local().Format("15:04:05"))
}

// lastInputLine is the last line of the first input field: the end of
// the command, kept in view when the text does not fit.
func lastInputLine(card *Card) string {
	if len(card.Prompt.Inputs) == 0 {
		return ""
	}
	lines := indent(card.Prompt.Inputs[0].Text)
	return strings.TrimSpace(lines[len(lines)-1])
}

// wrapAll wraps each line to cols cells; a line's later rows keep its
// indent, so the text's structure stays readable.
func wrapAll(lines []string, cols int) []string {
	var out []string
	for _, l := range lines {
		out = append(out, wrap(l, cols)...)
	}
	return out
}

// wrap cuts line into rows of at most cols cells. An escape (⟪…⟫) is not
// cut where it can move whole to the next row; a line of the card's own
// prose (not indented) breaks after a space, while an input's text,
// indented, breaks exactly at the edge, so every character of it stays
// where it is, spaces included.
func wrap(line string, cols int) []string {
	pad := len(line) - len(strings.TrimLeft(line, " "))
	if pad > cols/2 {
		pad = 0
	}
	prose := pad == 0
	var rows []string
	var row []rune
	used, brk := 0, -1 // brk: where a new row may start, -1 none
	for _, r := range line {
		w := cells(r)
		if used+w > cols && len(row) > pad {
			if brk > pad && Width(string(row[brk:])) <= cols/3 {
				rest := row[brk:]
				rows = append(rows, string(row[:brk]))
				row = append([]rune(strings.Repeat(" ", pad)), rest...)
			} else {
				rows = append(rows, string(row))
				row = []rune(strings.Repeat(" ", pad))
			}
			used, brk = Width(string(row)), -1
		}
		if r == []rune(problem.EscapeOpen)[0] {
			brk = len(row)
		}
		row = append(row, r)
		used += w
		if prose && r == ' ' {
			brk = len(row)
		}
	}
	return append(rows, string(row))
}

// cells is how many terminal cells r takes.
func cells(r rune) int {
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// Width is how many cells s takes.
func Width(s string) int {
	n := 0
	for _, r := range s {
		n += cells(r)
	}
	return n
}

// fit cuts s to cols cells, marking the cut with …; a row never wraps.
func fit(s string, cols int) string {
	if Width(s) <= cols {
		return s
	}
	var b strings.Builder
	used := 0
	for _, r := range s {
		if used+cells(r) > cols-1 {
			break
		}
		b.WriteRune(r)
		used += cells(r)
	}
	return b.String() + "…"
}

// fitEnd is prefix and the end of s, cut at its start to fit cols.
func fitEnd(prefix, s string, cols int) string {
	room := cols - Width(prefix)
	if Width(s) <= room {
		return prefix + s
	}
	rs := []rune(s)
	used, i := 1, len(rs)
	for i > 0 && used+cells(rs[i-1]) <= room {
		i--
		used += cells(rs[i])
	}
	return prefix + "…" + string(rs[i:])
}
