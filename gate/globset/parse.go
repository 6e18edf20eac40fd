package globset

import (
	"errors"
	"fmt"
)

type tokenKind int

const (
	literal tokenKind = iota
	anyByte
	zeroOrMore
	recursivePrefix     // leading `**/`: regex (?:/?|.*/)
	recursiveSuffix     // trailing `/**`: regex /.*
	recursiveZeroOrMore // inner `/**/`: regex (?:/|/.*/)
	class
	alternates
)

type token struct {
	kind     tokenKind
	bytes    string    // literal: the UTF-8 bytes of the character
	set      byteSet   // class
	branches [][]token // alternates: only the branches that produce a non-empty regex
}

var (
	errUnclosedClass      = errors.New("unclosed character class; missing ']'")
	errUnclosedAlternates = errors.New("unclosed alternate group; missing '}'")
	errUnopenedAlternates = errors.New("unopened alternate group; missing '{'")
	errDanglingEscape     = errors.New("dangling '\\'")
)

const none rune = -1

// parser follows globset's tokenizer step by step, because its treatment of
// `**` depends on the previous character and on the current branch, and
// reproducing the odd cases (`a**` is two stars, `{**,x}` is not recursive)
// needs the same state.
type parser struct {
	chars      []rune
	next       int // index of the next unread char
	prev, cur  rune
	branches   [][]token // branches[0] is the top level; the rest are open alternation branches
	alternates []int     // for each open `{`, the index of its first branch
}

func parse(pattern string) ([]token, error) {
	p := &parser{chars: []rune(pattern), prev: none, cur: none, branches: [][]token{nil}}
	for c := p.bump(); c != none; c = p.bump() {
		var err error
		switch c {
		case '?':
			p.push(token{kind: anyByte})
		case '*':
			p.parseStar()
		case '[':
			err = p.parseClass()
		case '{':
			p.alternates = append(p.alternates, len(p.branches))
			p.branches = append(p.branches, nil)
		case '}':
			err = p.popAlternates()
		case ',':
			if len(p.alternates) == 0 {
				p.pushLiteral(',')
			} else {
				p.branches = append(p.branches, nil)
			}
		case '\\':
			if escaped := p.bump(); escaped != none {
				p.pushLiteral(escaped)
			} else {
				err = errDanglingEscape
			}
		default:
			p.pushLiteral(c)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(p.alternates) > 0 {
		return nil, errUnclosedAlternates
	}
	return p.branches[0], nil
}

func (p *parser) bump() rune {
	p.prev = p.cur
	p.cur = p.peek()
	if p.cur != none {
		p.next++
	}
	return p.cur
}

func (p *parser) peek() rune {
	if p.next < len(p.chars) {
		return p.chars[p.next]
	}
	return none
}

func (p *parser) push(t token) {
	last := len(p.branches) - 1
	p.branches[last] = append(p.branches[last], t)
}

func (p *parser) pushLiteral(c rune) { p.push(token{kind: literal, bytes: string(c)}) }

func (p *parser) pop() token {
	last := len(p.branches) - 1
	b := p.branches[last]
	t := b[len(b)-1]
	p.branches[last] = b[:len(b)-1]
	return t
}

func (p *parser) haveTokens() bool { return len(p.branches[len(p.branches)-1]) > 0 }

func (p *parser) inAlternates() bool { return len(p.alternates) > 0 }

func (p *parser) pushStars() {
	p.push(token{kind: zeroOrMore})
	p.push(token{kind: zeroOrMore})
}

// parseStar runs after a `*` was read. `**` is recursive only as a whole
// path component; elsewhere it is two ordinary stars.
func (p *parser) parseStar() {
	prev := p.prev
	if p.peek() != '*' {
		p.push(token{kind: zeroOrMore})
		return
	}
	p.bump()
	if !p.haveTokens() {
		if next := p.peek(); next != none && next != '/' {
			p.pushStars()
			return
		}
		p.push(token{kind: recursivePrefix})
		p.bump() // the separator, if any
		return
	}
	if prev != '/' && (!p.inAlternates() || (prev != ',' && prev != '{')) {
		p.pushStars()
		return
	}
	var suffix bool
	switch next := p.peek(); {
	case next == none:
		suffix = true
	case (next == ',' || next == '}') && p.inAlternates():
		suffix = true
	case next == '/':
		p.bump()
	default:
		p.pushStars()
		return
	}
	// The token replaced is the `/` before the stars: the recursive token
	// stands for it.
	switch previous := p.pop(); {
	case previous.kind == recursivePrefix || previous.kind == recursiveSuffix:
		p.push(previous)
	case suffix:
		p.push(token{kind: recursiveSuffix})
	default:
		p.push(token{kind: recursiveZeroOrMore})
	}
}

func (p *parser) popAlternates() error {
	if !p.inAlternates() {
		return errUnopenedAlternates
	}
	start := p.alternates[len(p.alternates)-1]
	p.alternates = p.alternates[:len(p.alternates)-1]
	var kept [][]token
	for _, b := range p.branches[start:] {
		// globset drops alternatives whose regex is empty (its
		// empty_alternates option is off), so `x{a,}` does not match `x`.
		// A branch is empty only when it has no tokens: a group whose
		// branches were all empty is never pushed.
		if len(b) > 0 {
			kept = append(kept, b)
		}
	}
	p.branches = p.branches[:start]
	if len(kept) > 0 {
		p.push(token{kind: alternates, branches: kept})
	}
	return nil
}

type runeRange struct{ lo, hi rune }

// parseClass runs after `[`. A `]` or `-` first in the class is literal, a
// trailing `-` is literal, and a `-` right after a completed range extends
// that range (`[a-c-e]` is a-e), all as globset does.
func (p *parser) parseClass() error {
	negated := false
	if next := p.peek(); next == '!' || next == '^' {
		p.bump()
		negated = true
	}
	var ranges []runeRange
	first, inRange := true, false
	for {
		c := p.bump()
		if c == none {
			return errUnclosedClass
		}
		switch {
		case c == ']' && !first:
			if inRange {
				ranges = append(ranges, runeRange{'-', '-'})
			}
			p.push(token{kind: class, set: classSet(ranges, negated)})
			return nil
		case c == '-' && first:
			ranges = append(ranges, runeRange{'-', '-'})
		case c == '-' && !inRange:
			inRange = true
		case inRange:
			last := &ranges[len(ranges)-1]
			last.hi = c
			if last.hi < last.lo {
				return fmt.Errorf("invalid range; '%c' > '%c'", last.lo, last.hi)
			}
			inRange = false
		default:
			ranges = append(ranges, runeRange{c, c})
		}
		first = false
	}
}
