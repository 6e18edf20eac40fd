package tomldoc

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The unstable parser checks a scalar's shape but not its meaning; these
// mirror the checks BurntSushi applies to the lexeme, erring on the side of
// suspicion (a false alarm only costs running BurntSushi).

func integerAcceptable(raw string) bool {
	if !underscoresOK(raw) || leadingZero(raw) {
		return false
	}
	_, err := strconv.ParseInt(raw, 0, 64)
	return err == nil
}

func floatAcceptable(raw string) bool {
	switch raw {
	case "inf", "+inf", "-inf", "nan", "+nan", "-nan":
		return true
	}
	parts := strings.FieldsFunc(raw, func(r rune) bool { return r == '.' || r == 'e' || r == 'E' })
	for _, part := range parts {
		if !underscoresOK(part) {
			return false
		}
	}
	if len(parts) > 0 && leadingZero(parts[0]) {
		return false
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] == '.' && (i+1 == len(raw) || raw[i+1] < '0' || raw[i+1] > '9') {
			return false
		}
	}
	_, err := strconv.ParseFloat(strings.ReplaceAll(raw, "_", ""), 64)
	return err == nil
}

// leadingZero allows "0", a sign, and the 0b/0o/0x prefixes.
func leadingZero(s string) bool {
	if len(s) > 1 && s[0] == '0' && s[1] != 'b' && s[1] != 'o' && s[1] != 'x' {
		return true
	}
	return len(s) > 2 && (s[0] == '-' || s[0] == '+') && s[1] == '0'
}

// underscoresOK requires every underscore to sit between two hex digits
// and the text to end on one.
func underscoresOK(s string) bool {
	accept := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' && !accept {
			return false
		}
		accept = c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
	}
	return accept
}

var datetimeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02",
	"15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"15:04",
}

var datetimeNormal = strings.NewReplacer("z", "Z", "t", "T", " ", "T")

// datetimeAcceptable takes the first layout that parses, as BurntSushi
// does, and then insists on its zero padding.
func datetimeAcceptable(raw string) bool {
	s := datetimeNormal.Replace(raw)
	for _, layout := range datetimeLayouts {
		if _, err := time.Parse(layout, s); err == nil {
			return padded(s, layout)
		}
	}
	return false
}

// padded reports whether s has its separators where layout has them
// (time.Parse accepts unpadded numbers).
func padded(s, layout string) bool {
	for i := 0; i < len(layout); i++ {
		c := layout[i]
		if c == '.' || c == 'Z' {
			return true
		}
		if (c < '0' || c > '9') && (i >= len(s) || s[i] != c) {
			return false
		}
	}
	return true
}

// lexicallyPlain reports whether src is valid UTF-8 free of control
// characters other than tab, newline and a CR before a newline: the lexical
// corners where the two parsers could differ.
func lexicallyPlain(src []byte) bool {
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c >= 0x80:
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size == 1 {
				return false
			}
			i += size - 1
		case c == '\r':
			if i+1 == len(src) || src[i+1] != '\n' {
				return false
			}
		case c < 0x20 && c != '\t' && c != '\n', c == 0x7f:
			return false
		}
	}
	return true
}
