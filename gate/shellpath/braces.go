package shellpath

import "strings"

// Braces expands word's brace lists (`{a,b}`, nested, in pattern syntax:
// an escaped brace is a literal one) into at most limit words; ok is false
// when there would be more, and the caller fails closed. A sequence
// (`{1..9}`, `{a..z}`) becomes `*`: its items are letters or numbers, all
// of which `*` matches, so no reachable path is lost.
func Braces(word string, limit int) (words []string, ok bool) {
	var expand func(w string) bool
	expand = func(w string) bool {
		open, end, parts, found := firstBraceList(w)
		if !found {
			if len(words) >= limit {
				return false
			}
			words = append(words, w)
			return true
		}
		for _, part := range parts {
			if !expand(w[:open] + part + w[end+1:]) {
				return false
			}
		}
		return true
	}
	return words, expand(word)
}

// firstBraceList finds the first brace list in w: the indexes of its
// braces and its items. `${…}` is a parameter, not a list.
func firstBraceList(w string) (open, end int, parts []string, found bool) {
	for i := 0; i < len(w); i++ {
		switch w[i] {
		case '\\':
			i++
		case '{':
			close, commas := matchBrace(w, i)
			if close < 0 {
				return 0, 0, nil, false
			}
			if i > 0 && w[i-1] == '$' {
				i = close
				continue
			}
			if len(commas) > 0 {
				prev := i + 1
				for _, c := range commas {
					parts = append(parts, w[prev:c])
					prev = c + 1
				}
				return i, close, append(parts, w[prev:close]), true
			}
			if body := w[i+1 : close]; strings.Contains(body, "..") && !strings.ContainsAny(body, `\/*?[{$`) {
				return i, close, []string{"*"}, true
			}
		}
	}
	return 0, 0, nil, false
}

// matchBrace is the index of the brace closing the one at open (-1 when
// none) and the top-level commas between them.
func matchBrace(w string, open int) (int, []int) {
	depth := 0
	var commas []int
	for i := open; i < len(w); i++ {
		switch w[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return i, commas
			}
		case ',':
			if depth == 1 {
				commas = append(commas, i)
			}
		}
	}
	return -1, nil
}
