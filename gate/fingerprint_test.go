package gate

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCanonicalJSONIsEncodingJSON holds appendCanonicalJSON to encoding/json's
// rendering (encodeJSON), on which every approval key already given out
// rests: random inputs of the types a decoded call holds, every escape
// class of a string (controls, quotes, HTML characters, invalid UTF-8,
// U+2028), numbers of both float formats, and values it leaves to
// encoding/json.
func TestCanonicalJSONIsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 1))
	pieces := []string{"a", "Z", " ", "\"", "\\", "/", "<", ">", "&", "\b", "\f", "\n", "\r", "\t", "\x00", "\x1f", "\x7f",
		"é", "日本", "\u2028", "\u2029", "\xff", "\xe2\x80", "\xed\xa0\x80", "🐳", "cargo test", "$(rm -rf ~)"}
	str := func() string {
		var b strings.Builder
		for range r.IntN(6) {
			b.WriteString(pick(r, pieces))
		}
		return b.String()
	}
	numbers := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1e-7, 1e-6, 123456789, 1e20, 1e21, 1.5e300, -2.5e-300, math.MaxInt64, 3.14159}
	var value func(depth int) any
	value = func(depth int) any {
		switch k := r.IntN(9); {
		case k == 0:
			return nil
		case k == 1:
			return r.IntN(2) == 0
		case k == 2:
			return pick(r, numbers)
		case k == 3:
			return r.IntN(2000) - 1000
		case k == 4 && depth < 3:
			list := []any{}
			for range r.IntN(4) {
				list = append(list, value(depth+1))
			}
			return list
		case k == 5 && depth < 3:
			m := map[string]any{}
			for range r.IntN(5) {
				m[str()] = value(depth + 1)
			}
			return m
		case k == 6:
			return []string{str(), str()}
		}
		return str()
	}
	same := func(v any) {
		t.Helper()
		want := encodeJSON(v)
		if got, ok := appendCanonicalJSON(nil, v); ok && !bytes.Equal(got, want) {
			t.Fatalf("%#v: appendCanonicalJSON %s, encoding/json %s", v, got, want)
		}
	}
	for range 20000 {
		same(map[string]any{"command": str(), "cwd": str(), "x": value(0)})
	}
	for _, v := range []any{map[string]any(nil), []any(nil), []string(nil), map[string]any{}, []any{}, "", math.NaN(), math.Inf(1)} {
		same(v)
	}
	// What it leaves to encoding/json, and numbers encoding/json refuses.
	for _, v := range []any{int64(1), uint8(2), json.Number("3"), struct{ A int }{1}, map[string]string{"a": "b"}, math.NaN(), []any{math.Inf(-1)}} {
		if _, ok := appendCanonicalJSON(nil, v); ok {
			t.Errorf("%#v: rendered without encoding/json", v)
		}
	}
}
