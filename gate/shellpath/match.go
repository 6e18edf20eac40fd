package shellpath

import "strings"

// matcher decides whether tokens can produce a string related to s; it is
// a table of reachable (token, byte) states, so a pattern of many stars
// costs len(tokens)·len(s), never a backtracking blow-up.
type matcher struct {
	tokens  []token
	s       string
	fold    bool // the file system ignores case
	dotGlob bool
	// critical is the index in s of a byte no variable may produce (the
	// last byte of the denied path); -1 for none.
	critical int
}

// run reports whether the tokens, started at byte from of s, consume all
// of s (whole) or reach its end with tokens left over (!whole: s is a
// prefix of a string they produce; what is left can always produce
// something).
func (m matcher) run(from int, whole bool) bool {
	n := len(m.s)
	width := n + 1
	seen := make([]bool, (len(m.tokens)+1)*width)
	type state struct{ t, i int }
	stack := []state{{0, from}}
	push := func(t, i int) {
		if !seen[t*width+i] {
			seen[t*width+i] = true
			stack = append(stack, state{t, i})
		}
	}
	seen[from] = true
	for len(stack) > 0 {
		st := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if st.i == n && (!whole || st.t == len(m.tokens)) {
			return true
		}
		if st.t == len(m.tokens) {
			continue
		}
		tok := m.tokens[st.t]
		if tok.kind == star || tok.kind == any || tok.kind == deep {
			push(st.t+1, st.i) // empty
		}
		if st.i == n {
			continue
		}
		c := m.s[st.i]
		switch tok.kind {
		case lit:
			if c == tok.b || (m.fold && lower(c) == lower(tok.b)) {
				push(st.t+1, st.i+1)
			}
		case one, set:
			if m.wildcardTakes(st.i) && (tok.kind == one || tok.inClass(c, m.fold)) {
				push(st.t+1, st.i+1)
			}
		case star:
			if m.wildcardTakes(st.i) {
				push(st.t, st.i+1)
			}
		case any:
			if st.i != m.critical {
				push(st.t, st.i+1)
			}
		case deep:
			push(st.t, st.i+1)
		}
	}
	return false
}

// wildcardTakes: `?`, `*` and `[…]` never take a slash, nor a name's
// leading dot without dotglob.
func (m matcher) wildcardTakes(i int) bool {
	c := m.s[i]
	if c == '/' {
		return false
	}
	return !(c == '.' && !m.dotGlob && (i == 0 || m.s[i-1] == '/'))
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func (t token) inClass(c byte, fold bool) bool {
	has := func(c byte) bool {
		for i := 0; i < len(t.class); i++ {
			lo, hi := t.class[i], t.class[i]
			if i+2 < len(t.class) && t.class[i+1] == '-' {
				hi = t.class[i+2]
				i += 2
			}
			if lo <= c && c <= hi {
				return true
			}
		}
		return false
	}
	in := has(c) || (fold && (has(lower(c)) || has(upper(c))))
	return in != t.negate
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// Within reports whether p could name root or a path below it, with no
// variable supplying root's last byte. root is absolute and clean.
func (p Pattern) Within(root string, fold bool) bool {
	if lead := p.literalLead(); !strings.HasPrefix(foldCase(root, fold), foldCase(lead, fold)) && !strings.HasPrefix(foldCase(lead, fold), foldCase(root, fold)) {
		return false // the common case, a path elsewhere: no table to fill
	}
	m := matcher{tokens: p.tokens, s: root, fold: fold, dotGlob: p.dotGlob, critical: len(root) - 1}
	if m.run(0, true) {
		return true
	}
	m.s = strings.TrimSuffix(root, "/") + "/"
	return m.run(0, false)
}

// Holds reports whether p could name a directory holding root, root
// itself included: what a recursive read of p reads. Any variable counts
// here: a recursive read of a directory no one knows could read anything.
func (p Pattern) Holds(root string, fold bool) bool {
	if !strings.HasPrefix(foldCase(root, fold), foldCase(p.literalLead(), fold)) {
		return false
	}
	m := matcher{tokens: p.tokens, fold: fold, dotGlob: p.dotGlob, critical: -1}
	for i := 1; i <= len(root); i++ {
		if i < len(root) && root[i] != '/' && i != 1 {
			continue
		}
		m.s = root[:i]
		if m.run(0, true) {
			return true
		}
	}
	return false
}

// NameCould reports whether the last name in p could be name (or, with
// prefix, start with name), no variable supplying any of name's first
// fixed bytes: a variable is not itself a denied name (package comment),
// so it may end a `.env` no later than before its `v`.
func (p Pattern) NameCould(name string, prefix bool, fixed int, fold bool) bool {
	last := len(p.tokens) - 1
	for last >= 0 && !(p.tokens[last].kind == lit && p.tokens[last].b == '/') {
		last--
	}
	base := p.tokens[last+1:]
	m := matcher{tokens: base, fold: fold, dotGlob: p.dotGlob, s: name, critical: -1}
	v := -1
	for i, t := range base {
		if t.kind == any || t.kind == deep {
			v = i
		}
	}
	if v < 0 {
		return m.run(0, !prefix)
	}
	// The name may start inside the variable: what follows it must make
	// the rest of name from a byte before the fixed ones end. `**` is no
	// variable and may make all of it.
	if base[v].kind == deep {
		fixed = len(name) + 1
	}
	m.tokens = base[v+1:]
	for k := 0; k < fixed && k <= len(name); k++ {
		if m.run(k, !prefix) {
			return true
		}
	}
	return false
}

// literalLead is the literal text every path p names starts with.
func (p Pattern) literalLead() string {
	b := make([]byte, 0, len(p.tokens))
	for _, t := range p.tokens {
		if t.kind != lit {
			break
		}
		b = append(b, t.b)
	}
	return string(b)
}

func foldCase(s string, fold bool) string {
	if !fold {
		return s
	}
	return strings.ToLower(s)
}
