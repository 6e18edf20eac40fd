package hardening

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// bashReading is src as bash reads it where the parser here reads it
// otherwise, and what differs ("" when nothing does). Each difference was
// found running both on the same text (gate/hardening's differential
// test): what the parser would miss, bash runs.
func bashReading(src string) (string, string) {
	var differs []string
	// bash reads `\` CR LF as an escaped carriage return and ends the
	// command at the LF; the parser here joins the next line to it.
	if strings.Contains(src, "\\\r\n") {
		src = strings.ReplaceAll(src, "\\\r\n", "\r\n")
		differs = append(differs, "a backslash before a CR LF line ending")
	}
	// A comment ends at its line's end even after a backslash; the parser
	// here continues it, joining the next line's command to the one before.
	if strings.Contains(src, "#") && strings.Contains(src, "\\\n") {
		if fixed, ok := commentsEndAtNewline(src); ok {
			src = fixed
			differs = append(differs, "a comment ending in a backslash")
		}
	}
	return src, strings.Join(differs, " and ")
}

// commentsEndAtNewline is src with the backslash ending each comment
// taken away, and whether there was one.
func commentsEndAtNewline(src string) (string, bool) {
	var ends []int
	p := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))
	// Parse, not Stmts: a statement read one at a time keeps no comments.
	f, _ := p.Parse(strings.NewReader(src), "")
	if f == nil {
		return src, false
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.Comment); ok {
			if i := strings.Index(c.Text, "\\\n"); i >= 0 {
				// The comment's text starts after its #.
				ends = append(ends, int(c.Hash.Offset())+1+i)
			}
		}
		return true
	})
	if len(ends) == 0 {
		return src, false
	}
	b := []byte(src)
	for _, at := range ends {
		if at < len(b) && b[at] == '\\' {
			b[at] = ' '
		}
	}
	return string(b), true
}
