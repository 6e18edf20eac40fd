package gate

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// contractExample is the AuthorizeRequest of docs/codewhale/contract.md §3.
const contractExample = `{
  "tool": "bash",
  "input": {"action": "run", "command": "git push origin main"},
  "workspace": "/abs/repo",
  "mode": "agent",
  "posture": "ask",
  "origin": "interactive",
  "callId": "call_17",
  "allowedTools": ["bash", "read"],
  "disallowedTools": ["web_search"]
}`

// TestEncodeRequestWritesTheContractsForm: the contract's example, read
// and written again, is the same JSON object, field for field.
func TestEncodeRequestWritesTheContractsForm(t *testing.T) {
	req, err := ParseRequest([]byte(contractExample), Request{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	var got, want map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(contractExample), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("encoded %s\nwant the contract's %s", data, contractExample)
	}
}

// TestEncodeRequestRoundTrip: every field the AuthorizeRequest carries
// survives EncodeRequest then ParseRequest, over varied requests: each
// mode, posture (or none) and origin, a call id or none (empty too), no
// allow list, an empty one or a list, no deny list or one (empty too),
// inputs of every JSON kind. What no request carries is not written.
func TestEncodeRequestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 6))
	for i := range 2000 {
		req := randomWireRequest(rng)
		data, err := EncodeRequest(req)
		if err != nil {
			t.Fatalf("request %d %+v: %v", i, req, err)
		}
		got, err := ParseRequest(data, Request{})
		if err != nil {
			t.Fatalf("request %d: %s does not parse: %v", i, data, err)
		}
		want := req
		want.OutsideSandbox, want.NeedsHuman, want.AskedForHuman = false, "", false
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("request %d: %s\nparsed as %+v\nwant     %+v", i, data, got, want)
		}
	}
}

// FuzzParseEncodeRoundTrip: whatever ParseRequest accepts, EncodeRequest
// writes back as a request ParseRequest reads as the same.
func FuzzParseEncodeRoundTrip(f *testing.F) {
	f.Add([]byte(contractExample))
	f.Add([]byte(`{"tool":"read","input":{},"allowedTools":[]}`))
	f.Add([]byte(`{"tool":"x","input":{"n":1e300,"s":"\u00e9\ud83d\ude00<&>","l":[null,true,{}]},"callId":"","disallowedTools":[]}`))
	defaults := Request{Workspace: "/default", Mode: session.Operate, Origin: session.Background}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := ParseRequest(data, defaults)
		if err != nil {
			return
		}
		encoded, err := EncodeRequest(req)
		if err != nil {
			t.Fatalf("%+v: %v", req, err)
		}
		again, err := ParseRequest(encoded, Request{})
		if err != nil {
			t.Fatalf("%s does not parse: %v", encoded, err)
		}
		if !reflect.DeepEqual(again, req) {
			t.Fatalf("%s\nparsed as %+v\nwant     %+v", encoded, again, req)
		}
	})
}

// randomWireRequest is property_test.go's randomRequest as ParseRequest
// could return it, varied where the wire form has choices to make: no
// workspace, an empty allow or deny list, a call id (empty too), strings
// JSON must escape, nested input values; and with the fields no request
// carries set at random.
func randomWireRequest(rng *rand.Rand) Request {
	req := randomRequest(rng, pick(rng, []string{"", "/abs/repo", "/home/ü ser/ws", `/a/"quoted"\dir`}))
	req.Input["nested"] = randomValue(rng, 3)
	req.OutsideSandbox = rng.IntN(2) == 0
	req.NeedsHuman = pick(rng, []string{"", "a fetch names no URL"})
	req.AskedForHuman = rng.IntN(2) == 0
	if rng.IntN(2) == 0 {
		id := pick(rng, []string{"", "toolu_1", "call 17 ✓"})
		req.CallID = &id
	}
	if rng.IntN(4) == 0 {
		req = req.WithAllowList([]string{})
	}
	if rng.IntN(4) == 0 {
		req.DisallowedTools = []string{}
	}
	return req
}

// randomValue is a JSON value as json.Unmarshal decodes one, nested at
// most depth deep.
func randomValue(rng *rand.Rand, depth int) any {
	kinds := 4
	if depth > 0 {
		kinds = 6
	}
	switch rng.IntN(kinds) {
	case 0:
		return nil
	case 1:
		return rng.IntN(2) == 0
	case 2:
		return pick(rng, []float64{0, -1.5, 1e300, 17, 0.1})
	case 3:
		return pick(rng, []string{"", "git push --force", "line\nbreak \t\"quote\" \\ <html> &amp; \u2028", "日本語 🐳"})
	case 4:
		list := []any{}
		for range rng.IntN(3) {
			list = append(list, randomValue(rng, depth-1))
		}
		return list
	}
	obj := map[string]any{}
	for i := range rng.IntN(4) {
		obj[fmt.Sprintf("%s%d", pick(rng, []string{"command", "path", "", "ü<&>"}), i)] = randomValue(rng, depth-1)
	}
	return obj
}
