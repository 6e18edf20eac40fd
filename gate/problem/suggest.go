package problem

import (
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
)

// Nearest returns the candidate a misspelt word most likely meant, or ""
// when nothing is close enough to be a plausible typo. Comparison ignores
// ASCII case; a long shared prefix counts as close.
func Nearest(word string, candidates []string) string {
	w := ascii.Lower(word)
	best, bestDist := "", -1
	for _, c := range candidates {
		lc := ascii.Lower(c)
		d := editDistance(w, lc)
		if len(w) >= 3 && (strings.HasPrefix(lc, w) || strings.HasPrefix(w, lc)) {
			d = min(d, 2)
		}
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	if bestDist < 0 || bestDist > max(2, len(w)/3) {
		return ""
	}
	return best
}

// DidYouMean is the suffix of a message naming the nearest candidate.
func DidYouMean(word string, candidates []string) string {
	if s := Nearest(word, candidates); s != "" && s != word {
		return "; did you mean `" + s + "`?"
	}
	return ""
}

// editDistance is the Levenshtein distance over bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
