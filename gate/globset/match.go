package globset

import "slices"

// byteSet is a set of bytes. globset compiles its regex without Unicode
// mode, so classes and `?` match single bytes, not characters.
type byteSet [4]uint64

func (s *byteSet) add(b byte)      { s[b>>6] |= 1 << (b & 63) }
func (s *byteSet) has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }
func (s *byteSet) addRange(lo, hi int) {
	for b := lo; b <= hi; b++ {
		s.add(byte(b))
	}
}

// classSet builds the byte class globset's regex text describes. globset
// writes a range lo-hi as the escaped UTF-8 bytes of lo, `-`, the escaped
// bytes of hi; the regex engine then reads only the last byte of lo and the
// first byte of hi as the range and every other byte as a single member.
// So `[é]` matches either byte of é. The byte range is never reversed when
// the characters are ordered: a multi-byte lo ends in a continuation byte
// (<= 0xBF) and a larger multi-byte hi starts with a lead byte (>= 0xC2).
func classSet(ranges []runeRange, negated bool) byteSet {
	var set byteSet
	for _, r := range ranges {
		lo, hi := []byte(string(r.lo)), []byte(string(r.hi))
		if r.lo == r.hi {
			for _, b := range lo {
				set.add(b)
			}
			continue
		}
		for _, b := range lo[:len(lo)-1] {
			set.add(b)
		}
		set.addRange(int(lo[len(lo)-1]), int(hi[0]))
		for _, b := range hi[1:] {
			set.add(b)
		}
	}
	if negated {
		for i := range set {
			set[i] = ^set[i]
		}
	}
	return set
}

// advance maps the set of positions in path where tokens may start to the
// set of positions where they may end. Working on position sets keeps
// matching polynomial however many stars a pattern has.
func advance(tokens []token, path string, from []bool) []bool {
	cur := from
	for _, t := range tokens {
		next := make([]bool, len(path)+1)
		switch t.kind {
		case zeroOrMore:
			// Everything from the first start on: linear, not quadratic.
			if first := slices.Index(cur, true); first >= 0 {
				for i := first; i < len(next); i++ {
					next[i] = true
				}
			}
		case alternates:
			// Alternation distributes over the start set, so each branch
			// runs once for all starts and nesting stays linear.
			for _, b := range t.branches {
				for i, ok := range advance(b, path, cur) {
					next[i] = next[i] || ok
				}
			}
		default:
			for p, ok := range cur {
				if ok {
					step(t, path, p, next)
				}
			}
		}
		cur = next
	}
	return cur
}

// step marks in next every end position of t started at p, for the tokens
// advance does not handle as a whole.
func step(t token, path string, p int, next []bool) {
	slashAt := func(i int) bool { return i < len(path) && path[i] == '/' }
	markFrom := func(i int) {
		for ; i <= len(path); i++ {
			next[i] = true
		}
	}
	// markAfterSlashes marks q+1 for every `/` at q >= i: the `.*/` part
	// of the recursive regexes.
	markAfterSlashes := func(i int) {
		for q := i; q < len(path); q++ {
			if path[q] == '/' {
				next[q+1] = true
			}
		}
	}
	switch t.kind {
	case literal:
		if len(path)-p >= len(t.bytes) && path[p:p+len(t.bytes)] == t.bytes {
			next[p+len(t.bytes)] = true
		}
	case anyByte:
		if p < len(path) {
			next[p+1] = true
		}
	case class:
		if p < len(path) && t.set.has(path[p]) {
			next[p+1] = true
		}
	case recursivePrefix: // (?:/?|.*/)
		next[p] = true
		markAfterSlashes(p)
	case recursiveSuffix: // /.*
		if slashAt(p) {
			markFrom(p + 1)
		}
	case recursiveZeroOrMore: // (?:/|/.*/)
		if slashAt(p) {
			markAfterSlashes(p)
		}
	}
}
