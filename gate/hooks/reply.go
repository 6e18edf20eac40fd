package hooks

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// decision is a hook's JSON `decision`, compared case-sensitively.
type decision int

const (
	noDecision decision = iota // absent or not one of allow|deny|ask
	decideAllow
	decideDeny
	decideAsk
)

// reply is what a hook's stdout says (docs/codewhale/pipeline.md §3.5, stdout parsing).
type reply struct {
	decision     decision
	reason       string         // sanitised; "" when absent
	updatedInput map[string]any // nil when absent or ignored
	context      string         // sanitised additionalContext
}

const (
	maxUpdatedInputBytes = 32_768
	maxTextChars         = 2_000
	textTruncated        = "…[truncated]"
)

// parseReply reads trimmed stdout; empty, non-JSON and non-object output
// says nothing (passthrough). Fields of the wrong type are ignored one by
// one, never the whole reply.
func parseReply(stdout string) reply {
	var fields map[string]json.RawMessage
	text := []byte(strings.TrimSpace(stdout))
	if nestedDeeperThan(text, maxJSONDepth) || json.Unmarshal(text, &fields) != nil || fields == nil {
		return reply{}
	}
	var r reply
	var s string
	if json.Unmarshal(fields["decision"], &s) == nil {
		r.decision = map[string]decision{"allow": decideAllow, "deny": decideDeny, "ask": decideAsk}[s]
	}
	if s = ""; json.Unmarshal(fields["reason"], &s) == nil {
		r.reason = sanitize(s)
	}
	if s = ""; json.Unmarshal(fields["additionalContext"], &s) == nil {
		r.context = sanitize(s)
	}
	var input map[string]any
	if json.Unmarshal(fields["updatedInput"], &input) == nil && input != nil && serialisedSize(input) <= maxUpdatedInputBytes {
		r.updatedInput = input
	}
	return r
}

// serialisedSize is the length of v as serde_json writes it (compact, no
// HTML escaping).
func serialisedSize(v any) int {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return maxUpdatedInputBytes + 1
	}
	return buf.Len() - 1 // Encode's trailing newline
}

// sanitize strips control characters (newlines included), trims, and caps
// the text at 2 000 characters plus a truncation marker.
func sanitize(s string) string {
	s = strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s))
	return problem.CapRunes(s, maxTextChars, textTruncated)
}

// nestedDeeperThan reports whether the JSON text opens more than limit
// arrays and objects inside one another (strings skipped). Malformed text
// is left to the parser.
func nestedDeeperThan(text []byte, limit int) bool {
	depth, inString, escaped := 0, false, false
	for _, b := range text {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '[' || b == '{':
			if depth++; depth > limit {
				return true
			}
		case b == ']' || b == '}':
			depth--
		}
	}
	return false
}
