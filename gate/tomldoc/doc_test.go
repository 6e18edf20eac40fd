package tomldoc

import (
	"strings"
	"testing"
)

func TestSpans(t *testing.T) {
	src := []byte("model = \"gpt\"\n[[rules]]\ntool = \"exec_shell\"\nlist = [1, 2,\n  3]\nopts = { a = 1, b = \"x\" }\n[[rules]]\ntool = 5\n[a.b]\nc.d = true\n")
	d, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	text := func(e *Entry) (string, string) {
		return string(src[e.KeySpan.Start:e.KeySpan.End]), string(src[e.Value.Span.Start:e.Value.Span.End])
	}
	k, v := text(d.Root.Get("model"))
	if k != "model" || v != `"gpt"` {
		t.Errorf("model: %q %q", k, v)
	}
	rules := d.Root.Get("rules").Value
	if rules.Kind != Array || len(rules.Items) != 2 {
		t.Fatalf("rules: %+v", rules)
	}
	r0 := rules.Items[0].Table
	if k, v := text(r0.Get("tool")); k != "tool" || v != `"exec_shell"` {
		t.Errorf("tool: %q %q", k, v)
	}
	if _, v := text(r0.Get("list")); v != "[1, 2,\n  3]" {
		t.Errorf("list: %q", v)
	}
	if _, v := text(r0.Get("opts")); v != `{ a = 1, b = "x" }` {
		t.Errorf("opts: %q", v)
	}
	if b := r0.Get("opts").Value.Table.Get("b"); string(src[b.Value.Span.Start:b.Value.Span.End]) != `"x"` {
		t.Errorf("opts.b wrong")
	}
	r1 := rules.Items[1].Table
	if e := r1.Get("tool"); e.Value.Kind != Integer || e.Value.Int != 5 {
		t.Errorf("second tool: %+v", e.Value)
	}
	if h := rules.Items[1].Span; string(src[h.Start:h.End]) != "rules" {
		t.Errorf("header span %q", src[h.Start:h.End])
	}
	ab, _ := d.Root.Sub("a")
	b, _ := ab.Sub("b")
	c, _ := b.Sub("c")
	if v, _, ok := c.BoolAt("d"); !ok || !v {
		t.Errorf("a.b.c.d")
	}
}

func TestSyntaxErrors(t *testing.T) {
	cases := []struct {
		src, dup string
		at       int
	}{
		{"[[rules]]\ntool = \"a\"\ntool = \"b\"\n", "tool", 21},
		{"a = \n", "", -1},
		{"[x\n", "", -1},
		{"a = \"unterminated\n", "", -1},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.src))
		if err == nil {
			t.Errorf("%q: no error", c.src)
			continue
		}
		if err.DuplicateKey != c.dup {
			t.Errorf("%q: dup %q want %q", c.src, err.DuplicateKey, c.dup)
		}
		if c.at >= 0 && err.Span.Start != c.at {
			t.Errorf("%q: at %d want %d", c.src, err.Span.Start, c.at)
		}
		if err.Span.Start < 0 || err.Span.End > len(c.src) || err.Span.Start > err.Span.End {
			t.Errorf("%q: bad span %+v", c.src, err.Span)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"a = 1", "[[rules]]\ntool = \"x\"\n", "a = [[1], {b = 2}]", "\x010", "a = 1\n\x01", "x = '''\nq'''"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		d, err := Parse(src)
		if err != nil {
			if err.Span.Start < 0 || err.Span.End > len(src) || err.Span.Start > err.Span.End {
				t.Fatalf("bad span %+v", err.Span)
			}
			return
		}
		var walk func(v *Value)
		walk = func(v *Value) {
			if v.Span.Start < 0 || v.Span.End > len(src) || v.Span.Start > v.Span.End {
				t.Fatalf("bad value span %+v", v.Span)
			}
			for _, it := range v.Items {
				walk(it)
			}
			if v.Table != nil {
				for _, e := range v.Table.Entries {
					walk(e.Value)
				}
			}
		}
		for _, e := range d.Root.Entries {
			walk(e.Value)
		}
	})
}

// Every element of a nested array has its own span, empty containers and
// containers that start with a container included.
func TestNestedArraySpans(t *testing.T) {
	src := "rules = [ \"a\" , [], [ [\"b\"], [] ], # [x\n { x = [1] }, '[', [{}], [ # ]\n 2] ]\n"
	d, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var walk func(v *Value)
	walk = func(v *Value) {
		for _, item := range v.Items {
			got = append(got, src[item.Span.Start:item.Span.End])
			walk(item)
		}
	}
	walk(d.Root.Get("rules").Value)
	want := []string{`"a"`, `[]`, `[ ["b"], [] ]`, `["b"]`, `"b"`, `[]`, `{ x = [1] }`, `'['`, `[{}]`, `{}`, "[ # ]\n 2]", `2`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("spans\n got %q\nwant %q", got, want)
	}
}

// Codewhale's parser skips a UTF-8 BOM at the start of a file; before, the
// file was rejected ("U+00EF") and, for permissions.toml, every call denied.
func TestParseSkipsBOM(t *testing.T) {
	src := []byte("\uFEFF[rules]\nkey = \"v\"\n")
	doc, err := Parse(src)
	if err != nil {
		t.Fatalf("rejected: %s", err.Message)
	}
	rules, _ := doc.Root.Sub("rules")
	if rules == nil {
		t.Fatal("no [rules] table")
	}
	e := rules.Get("key")
	if e == nil || e.Value.Str != "v" {
		t.Fatalf("entry %+v", e)
	}
	if got := string(src[e.KeySpan.Start:e.KeySpan.End]); got != "key" {
		t.Errorf("the key's span covers %q", got)
	}
	if _, err := Parse([]byte("\uFEFF\uFEFFa = 1\n")); err == nil {
		t.Error("a second BOM is not a BOM but a character TOML rejects there")
	}
}
