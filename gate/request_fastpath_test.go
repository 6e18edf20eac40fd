package gate

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// BenchmarkParseRequest is the parse of a typical codewhale/authorize
// call: a share of every authorize request's cost (docs/performance.md).
func BenchmarkParseRequest(b *testing.B) {
	data := []byte(`{"tool":"bash","input":{"command":"cargo test --workspace","description":"run the tests"},"workspace":"/home/me/shop","callId":"toolu_01A2B3","mode":"agent"}`)
	b.ReportAllocs()
	for range b.N {
		if _, err := ParseRequest(data, Request{}); err != nil {
			b.Fatal(err)
		}
	}
}

// The one-pass reading of a request and of its strings agrees with the
// decoder's, errors included, on any input.
func FuzzRequestFastPathsAgree(f *testing.F) {
	for _, seed := range []string{
		`{"tool":"bash","input":{"command":"ls"}}`, `{"tool":"b\u0061sh"}`, `{"a":1} {"b":2}`, `{"a":1}}`,
		`{"tool":"` + "\xff" + `"}`, `null`, `[]`, `{"tool":"x","tool":"y"}`, `{"t":"a\tb"}`, ` {"k":"v"} `,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, fastErr := requestMembers(data)
		slow, slowErr := decodeMembers(data)
		if fmt.Sprint(fastErr) != fmt.Sprint(slowErr) || !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q: one pass %v %v, decoder %v %v", data, fast, fastErr, slow, slowErr)
		}
		for _, v := range fast {
			if s, ok := plainString(v); ok {
				var want string
				if err := json.Unmarshal(v, &want); err != nil || s != want {
					t.Fatalf("%s: plain %q, decoded %q (%v)", v, s, want, err)
				}
			}
		}
	})
}
