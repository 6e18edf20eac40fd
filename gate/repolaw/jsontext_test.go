package repolaw

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseJSONSyntax(t *testing.T) {
	tests := []struct {
		text   string
		offset int // -1: valid
	}{
		{`{}`, -1},
		{` {"a" : [1, -2.5e+3, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9"]} `, -1},
		{`0`, -1},
		{`"\ud83d\ude00"`, -1},
		{`"\ud800"`, -1}, // lone surrogates are a decode error, not a syntax error
		{``, 0},
		{`{`, 1},
		{`{"a"}`, 4},
		{`{"a":}`, 5},
		{`{"a":1 "b":2}`, 7},
		{`{a:1}`, 1},
		{`[1,]`, 2},
		{`{"a":1,}`, 6},
		{`[1 2]`, 3},
		{`01`, 1},
		{`-`, 1},
		{`1.`, 2},
		{`1e`, 2},
		{`.5`, 0},
		{`+1`, 0},
		{`tru`, 3},
		{`nul`, 3},
		{`"abc`, 4},
		{"\"a\tb\"", 2},
		{`"\x"`, 2},
		{`"\u12g4"`, 5},
		{`{} {}`, 3},
		{"\ufeff{}", 0},
		{"\"\xc3\"", 1},
		{`[` + strings.Repeat("[", maxJSONDepth-2) + strings.Repeat("]", maxJSONDepth-1), -1},
		{strings.Repeat("[", maxJSONDepth+1), maxJSONDepth},
	}
	for _, tt := range tests {
		_, err := parseJSON([]byte(tt.text))
		switch {
		case tt.offset < 0 && err != nil:
			t.Errorf("parseJSON(%q): %v", tt.text, err)
		case tt.offset >= 0 && err == nil:
			t.Errorf("parseJSON(%q) succeeded, want an error at %d", tt.text, tt.offset)
		case tt.offset >= 0 && err.offset != tt.offset:
			t.Errorf("parseJSON(%q) error at %d (%s), want %d", tt.text, err.offset, err.msg, tt.offset)
		}
	}
}

func TestParseJSONSpansAndValues(t *testing.T) {
	text := `{"k\u00e9y": ["a\nb", 12, {"x": null}], "s": "\ud800"}`
	v, err := parseJSON([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	m := v.members[0]
	if m.key.text != "kéy" || text[m.key.span.Start:m.key.span.End] != `"k\u00e9y"` {
		t.Errorf("key %q at %q", m.key.text, text[m.key.span.Start:m.key.span.End])
	}
	arr := m.value
	if text[arr.span.Start:arr.span.End] != `["a\nb", 12, {"x": null}]` || len(arr.elems) != 3 {
		t.Errorf("array span %q", text[arr.span.Start:arr.span.End])
	}
	if arr.elems[0].text != "a\nb" || arr.elems[1].text != "12" || arr.elems[2].members[0].value.kind != jsonNull {
		t.Errorf("elements %+v", arr.elems)
	}
	if s := v.members[1].value; !s.loneSurrogate || s.text != "\ufffd" {
		t.Errorf("lone surrogate string %+v", s)
	}
}

// checkSpans asserts every span lies inside its parent and inside the text.
func checkSpans(t *testing.T, v jsonValue, start, end int) {
	if v.span.Start < start || v.span.End > end || v.span.Start >= v.span.End {
		t.Fatalf("span %v outside [%d,%d)", v.span, start, end)
	}
	for _, e := range v.elems {
		checkSpans(t, e, v.span.Start+1, v.span.End-1)
	}
	for _, m := range v.members {
		checkSpans(t, m.key, v.span.Start+1, v.span.End-1)
		checkSpans(t, m.value, m.key.span.End, v.span.End-1)
	}
}

func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{lawJSON, `{ not json`, `[1,]`, `"\ud800\u0041"`, `{"a":-0.1e-2}`, "\ufeff{}", `[[[[]]]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := parseJSON(data)
		if err != nil {
			if err.offset < 0 || err.offset > len(data) {
				t.Fatalf("error offset %d outside the text", err.offset)
			}
		} else {
			checkSpans(t, v, 0, len(data))
		}
		// Within serde_json's depth limit and on valid UTF-8, the grammar is
		// the standard one that encoding/json implements.
		if utf8.Valid(data) && (err == nil || !strings.Contains(err.msg, "recursion")) && (err == nil) != json.Valid(data) {
			t.Fatalf("parseJSON error %v but json.Valid = %v", err, json.Valid(data))
		}
		Parse(data) // schema checks and compile never panic either
	})
}
