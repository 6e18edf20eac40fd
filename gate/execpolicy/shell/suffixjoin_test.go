package shell

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Each tail's slice of the one join is the tail's own join.
func TestSuffixJoinIsJoinWords(t *testing.T) {
	pool := []string{"", "", "a", "xargs", "b c", " ", "sudo", "-n", "é"}
	rng := rand.New(rand.NewPCG(23, 1))
	for range 20000 {
		words := make([]string, rng.IntN(8))
		for i := range words {
			words[i] = pool[rng.IntN(len(pool))]
		}
		j := newSuffixJoin(words)
		for k := 0; k <= len(words); k++ {
			if got, want := j.from(k), joinWords(words[k:]); got != want {
				t.Fatalf("%q from %d: %q, joinWords %q", words, k, got, want)
			}
		}
	}
}

// The tail of a text's deny tokens is the deny tokens of its tail, from
// any offset SuffixTokens accepts; the heads' early end changes nothing.
func TestSuffixTokensAreTheTailsTokens(t *testing.T) {
	pool := []string{" ", "  ", "\t", "\n", "$(", "(", "{", ")", "}", ";", "RM", "rm", "-rf", "x", "é", "\u00a0", "\u2003", "a=b", "--", "-", "sudo"}
	rng := rand.New(rand.NewPCG(23, 2))
	for range 20000 {
		var text string
		for range rng.IntN(12) {
			text += pool[rng.IntN(len(pool))]
		}
		tokens, starts := AppendDenyTokensAt(nil, nil, text)
		if want := DenyTokens(text); !slices.Equal(tokens, want) {
			t.Fatalf("%q: tokens %q, DenyTokens %q", text, tokens, want)
		}
		for off := 0; off <= len(text); off++ {
			tail, ok := SuffixTokens(text, tokens, starts, off)
			if !ok {
				continue
			}
			if want := DenyTokens(text[off:]); !slices.Equal(tail, want) {
				t.Fatalf("%q from %d: tail %q, DenyTokens %q", text, off, tail, want)
			}
		}
		for _, d := range []Dialect{{}, {Wildcard: true, OptionsAnywhere: true}} {
			if got, want := d.AppendDenyHeads(nil, tokens), denyHeadsWithoutEarlyEnd(d, tokens); !slices.Equal(got, want) {
				t.Fatalf("%q: heads %q, without the early end %q", text, got, want)
			}
		}
	}
}

// denyHeadsWithoutEarlyEnd is AppendDenyHeads as written before issue 23,
// walking every token.
func denyHeadsWithoutEarlyEnd(d Dialect, target []string) []string {
	var dst []string
	reached, next, afterNext := true, false, false
	for i := commandStart(target); i < len(target); i++ {
		if tok := target[i]; reached {
			dst = append(dst, tok)
			if base := basename(tok); base != tok && base != "" {
				dst = append(dst, base)
			}
			if base := d.commandName(tok, ""); base != basename(tok) && base != "" {
				dst = append(dst, base)
			}
			if d.isFlag(tok) {
				next = true
				if !strings.Contains(tok, "=") {
					afterNext = true
				}
			}
		}
		reached, next, afterNext = next, afterNext, false
	}
	return dst
}

// markReplacementOperandsPerHead is markReplacementOperands as written
// before issue 23: each xargs reads every operand after it.
func markReplacementOperandsPerHead(words []string, heads []int, dynamic []bool) {
	forEachReplacement(words, heads, func(head int, replacements []string, values map[int]bool) {
		for at := head + 1; at < len(words); at++ {
			if values[at] || strings.HasPrefix(words[at], "-") {
				continue
			}
			for _, r := range replacements {
				if r != "" && strings.Contains(words[at], r) {
					dynamic[at] = true
				}
			}
		}
	})
}

// The operands marked once per distinct replacement string are those
// each xargs marked for itself, on the heads the walk finds.
func TestReplacementMarksAgreeWithEachXargs(t *testing.T) {
	pool := []string{"xargs", "xargs", "-I", "-I{}", "{}", "-i", "-iR", "R", "--replace", "--replace=Q", "Q", "-J", "%", "a{}b", "xR", "-n", "1", "-E", "--", "sh", "-c", "env", "sudo", "-u", ""}
	rng := rand.New(rand.NewPCG(23, 3))
	marked := 0
	for range 200000 {
		words := make([]string, 1+rng.IntN(10))
		for i := range words {
			words[i] = pool[rng.IntN(len(pool))]
		}
		words[0] = "xargs" // a line the walk finds an xargs in
		heads := commandHeads(words).heads
		got, want := make([]bool, len(words)), make([]bool, len(words))
		markReplacementOperands(words, heads, got)
		markReplacementOperandsPerHead(words, heads, want)
		if !slices.Equal(got, want) {
			t.Fatalf("%q (heads %v): marked %v, each xargs %v", words, heads, got, want)
		}
		if slices.Contains(want, true) {
			marked++
		}
	}
	if marked < 1000 {
		t.Fatalf("only %d of the lines had a marked operand: the test tests little", marked)
	}
}
