package execpolicy

import (
	"encoding/json"
	"testing"
)

// TestFidelityEdges runs testdata/fidelity-edges.json, vectors in the
// conformance format that we derived (from docs/codewhale/execpolicy.md and serde's
// documented behaviour) for the edges the engine's vectors touch least:
// empty tool names, rules written as arrays, toml 0.5 wording. They were
// not produced by Codewhale's engine, so they live apart from its vectors.
func TestFidelityEdges(t *testing.T) {
	for _, v := range readVectors(t, "testdata/fidelity-edges.json") {
		t.Run(v.ID, func(t *testing.T) { runVector(t, v) })
	}
}

// Only the error classes serde words itself must match word for word.
func TestSerdeWorded(t *testing.T) {
	cases := map[string]bool{
		"null": true,
		`"unknown field ` + "`x`" + `, expected ` + "`rules`" + `"`:             true,
		`"missing field ` + "`tool`" + `"`:                                      true,
		`"invalid type: integer ` + "`1`" + `, expected a string"`:              true,
		`"invalid length 0, expected struct ToolAskRule with 6 elements"`:       true,
		`"unknown variant ` + "`Deny`" + `, expected one of ` + "`allow`" + `"`: true,
		`"expected a value, found a newline at line 2 column 7"`:                false,
		`"duplicate field ` + "`tool`" + `"`:                                    true,
		`"expected string or inline table, found integer"`:                      false,
	}
	for raw, want := range cases {
		if got := serdeWorded(t, json.RawMessage(raw)); got != want {
			t.Errorf("serdeWorded(%s) = %v", raw, got)
		}
	}
}
