package gate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
)

// fingerprint is the first 8 bytes of SHA-256, in hex, of a canonical JSON
// rendering with sorted keys (encoding/json sorts map keys). Like
// Codewhale's serde_json rendering, it does not HTML-escape `<`, `>`, `&`.
// Layer 8 fingerprints every call it holds, so the values a decoded JSON
// input holds are rendered by appendCanonicalJSON, without reflection;
// anything else goes through encoding/json itself.
func fingerprint(v any) string {
	var stack [512]byte // a typical input fits; a longer one spills to the heap
	b, ok := appendCanonicalJSON(stack[:0], v)
	if !ok {
		b = encodeJSON(v)
	}
	sum := sha256.Sum256(b)
	var digits [16]byte
	hex.Encode(digits[:], sum[:8])
	return string(digits[:])
}

// encodeJSON is encoding/json's rendering of v without HTML escaping, or
// fmt's when v has no JSON rendering (a NaN, a channel).
func encodeJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte(fmt.Sprint(v))
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// appendCanonicalJSON appends v exactly as encodeJSON renders it, for the
// types encoding/json decodes into (and the []string of patch targets, and
// ints): ok is false for any other value anywhere in v, and for a number
// encoding/json refuses, so that the caller renders all of v with
// encodeJSON instead. TestCanonicalJSONIsEncodingJSON holds the two equal.
func appendCanonicalJSON(dst []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case string:
		return appendJSONString(dst, v), true
	case bool:
		return strconv.AppendBool(dst, v), true
	case int:
		return strconv.AppendInt(dst, int64(v), 10), true
	case float64:
		// encoding/json's float format, used as is: it has a rule of its
		// own for exponents, and refuses NaN and the infinities.
		b, err := json.Marshal(v)
		return append(dst, b...), err == nil
	case []string:
		return appendJSONArray(dst, v, func(dst []byte, s string) ([]byte, bool) { return appendJSONString(dst, s), true })
	case []any:
		return appendJSONArray(dst, v, appendCanonicalJSON)
	case map[string]any:
		if v == nil {
			return append(dst, "null"...), true
		}
		var keyBuf [8]string
		keys := keyBuf[:0]
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys) // encoding/json orders keys by their bytes too
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(appendJSONString(dst, k), ':')
			var ok bool
			if dst, ok = appendCanonicalJSON(dst, v[k]); !ok {
				return dst, false
			}
		}
		return append(dst, '}'), true
	}
	return dst, false
}

// appendJSONArray appends list as a JSON array (null when nil), each
// element by appendElement; ok is false as soon as an element's is.
func appendJSONArray[T any](dst []byte, list []T, appendElement func([]byte, T) ([]byte, bool)) ([]byte, bool) {
	if list == nil {
		return append(dst, "null"...), true
	}
	dst = append(dst, '[')
	for i, e := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		var ok bool
		if dst, ok = appendElement(dst, e); !ok {
			return dst, false
		}
	}
	return append(dst, ']'), true
}

// appendJSONString quotes s as encoding/json does without HTML escaping:
// `"` and `\` escaped, control characters as \b \f \n \r \t or \u00XX,
// invalid UTF-8 as \ufffd, and U+2028 and U+2029 escaped.
func appendJSONString(dst []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= ' ' && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
