package execpolicy

import (
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy/shell"
)

// The indexes below find exactly the rules a linear scan would match, so
// a check costs a few map lookups instead of one comparison per rule. Ids
// are positions in iteration order, which is what tie-breaks need.

// keyIndex maps a key to ids in ascending order.
type keyIndex map[string][]int

func (x *keyIndex) add(key string, id int) {
	if *x == nil {
		*x = keyIndex{}
	}
	(*x)[key] = append((*x)[key], id)
}

// allowIndex finds the patterns shell.AllowPattern.Matches accepts: by
// classification, or by one of the subject's whole-word prefixes.
type allowIndex struct {
	byClass, byPrefix keyIndex
}

func (x *allowIndex) add(p shell.AllowPattern, id int) {
	x.byClass.add(p.Lowered, id)
	x.byPrefix.add(p.Collapsed, id)
}

// each calls fn for every matching id, possibly twice, in no set order.
func (x *allowIndex) each(s shell.AllowSubject, fn func(id int)) {
	if len(x.byClass) == 0 {
		return
	}
	for _, id := range x.byClass[s.Class] {
		fn(id)
	}
	for key := range s.PrefixKeySeq {
		for _, id := range x.byPrefix[key] {
			fn(id)
		}
	}
}

// toolIndex holds one tool's typed rules by how their command matches.
type toolIndex struct {
	anyCommand []int
	exact      keyIndex // trimmed command of command_exact rules
	prefix     allowIndex
	hasDeny    bool
}

// prefixList is the merged trusted prefixes; the first listed match wins.
type prefixList struct {
	patterns []string
	sources  []Source
	index    allowIndex
}

func (l *prefixList) add(p string, src Source) {
	l.index.add(shell.NewAllowPattern(p), len(l.patterns))
	l.patterns = append(l.patterns, p)
	l.sources = append(l.sources, src)
}

func (l *prefixList) first(s shell.AllowSubject) (int, bool) {
	best := -1
	l.index.each(s, func(id int) {
		if best < 0 || id < best {
			best = id
		}
	})
	return best, best >= 0
}

// denyIndex is the merged hard-deny prefixes, indexed by first token.
type denyIndex struct {
	patterns []string
	sources  []Source
	tokens   [][]string
	byHead   keyIndex
}

func (d *denyIndex) add(p string, src Source) {
	toks := shell.DenyTokens(p)
	if len(toks) > 0 { // an empty rule never matches
		d.byHead.add(toks[0], len(d.patterns))
	}
	d.patterns = append(d.patterns, p)
	d.sources = append(d.sources, src)
	d.tokens = append(d.tokens, toks)
}

// first is the first listed prefix that matches any of the targets: the
// least, over the targets, of the first prefix matching each. A prefix can
// only match a target whose DenyHeads hold its first token, and each head's
// ids ascend, so a head's scan stops at its first match or at the best id
// found so far.
func (d *denyIndex) first(targets []string) (int, bool) {
	if len(d.byHead) == 0 {
		return -1, false
	}
	best := -1
	var tokenBuf, headBuf [16]string // a typical target fits; longer ones spill to the heap
	for _, t := range targets {
		tokens := shell.AppendDenyTokens(tokenBuf[:0], t)
		for _, head := range shell.AppendDenyHeads(headBuf[:0], tokens) {
			for _, id := range d.byHead[head] {
				if best >= 0 && id >= best {
					break
				}
				if shell.DenyMatchTokens(d.tokens[id], tokens) {
					best = id
					break
				}
			}
		}
	}
	return best, best >= 0
}
