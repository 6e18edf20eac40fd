package execpolicy

import (
	"strings"

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
	// longest is the length of byPrefix's longest key: a subject's longer
	// prefixes are not looked up, since none can be a key (a megabyte of
	// words would otherwise hash each of its prefixes, quadratic).
	longest int
}

func (x *allowIndex) add(p shell.AllowPattern, id int) {
	x.byClass.add(p.Lowered, id)
	x.byPrefix.add(p.Collapsed, id)
	x.longest = max(x.longest, len(p.Collapsed))
}

// each calls fn for every matching id, possibly twice, in no set order.
func (x *allowIndex) each(s shell.AllowSubject, fn func(id int)) {
	if len(x.byClass) == 0 {
		return
	}
	if s.ClassMatches {
		for _, id := range x.byClass[s.Class] {
			fn(id)
		}
	}
	for key := range s.PrefixKeySeq {
		if len(key) > x.longest {
			return // the keys come shortest first
		}
		for _, id := range x.byPrefix[key] {
			fn(id)
		}
	}
}

// classWithheld reports a subject whose class some pattern equals but may
// not match by, since 0.10.1 wants it spelled at the front (N5).
func (x *allowIndex) classWithheld(s shell.AllowSubject) bool {
	return !s.ClassMatches && len(x.byClass[s.Class]) > 0
}

// toolIndex holds one tool's typed rules by how their command matches.
type toolIndex struct {
	anyCommand []int
	exact      keyIndex // shell.ExactKey of the command of command_exact rules
	prefix     allowIndex
	hasDeny    bool
	// hasRootedOnly: a rule's path starts with ~/, which only the oldest
	// release also matches relatively (0.10.0.md A.2.2).
	hasRootedOnly bool
	// denyPrefix holds the non-exact deny rules as deny prefixes, from
	// 0.10.1 (docs/codewhale/releases/0.10.1.md N3); denyIDs maps its
	// positions to typed rule ids.
	denyPrefix denyIndex
	denyIDs    []int
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

// denyIndex is the merged hard-deny prefixes, indexed by first token and,
// under it, by a later token (denyHead); a prefix opening with the
// wildcard, which may match any first word, is tried on every target.
type denyIndex struct {
	dialect  shell.Dialect
	patterns []string
	sources  []Source
	tokens   [][]string
	byHead   map[string]*denyHead
	anyHead  []int
}

// denyHead holds the prefixes opening with one token by their key
// (Dialect.DenyKey), a later token every target they match holds: a
// target meets only the prefixes whose key is among its tokens, and those
// without a key, so a file of many `cargo …` denies costs a `cargo`
// command a few lookups rather than one comparison per rule.
type denyHead struct {
	keyless []int
	byKey   keyIndex
}

func (d *denyIndex) add(p string, src Source) {
	toks := shell.DenyTokens(p)
	id := len(d.patterns)
	switch {
	case len(toks) == 0: // an empty rule never matches
	case d.dialect.Wildcard && toks[0] == shell.WildcardWord:
		d.anyHead = append(d.anyHead, id)
	default:
		if d.byHead == nil {
			d.byHead = map[string]*denyHead{}
		}
		h := d.byHead[toks[0]]
		if h == nil {
			h = &denyHead{}
			d.byHead[toks[0]] = h
		}
		if key, ok := d.dialect.DenyKey(toks); ok {
			h.byKey.add(key, id)
		} else {
			h.keyless = append(h.keyless, id)
		}
	}
	d.patterns = append(d.patterns, p)
	d.sources = append(d.sources, src)
	d.tokens = append(d.tokens, toks)
}

// candidates calls scan with every list of ids under head that may match
// a target of tokens: the keyless ones, and those keyed by one of its
// tokens (a repeated token gives its list again). Each list ascends.
func (d *denyIndex) candidates(head string, tokens []string, scan func(ids []int)) {
	h := d.byHead[head]
	if h == nil {
		return
	}
	scan(h.keyless)
	if len(h.byKey) == 0 {
		return
	}
	for _, tok := range tokens {
		if ids, ok := h.byKey[tok]; ok {
			scan(ids)
		}
	}
}

// first is the first listed prefix that matches any of the targets, and
// the target it matched: the least, over the targets, of the first prefix
// matching each. A prefix can only match a target whose deny heads
// (Dialect.AppendDenyHeads) hold its first token (or open with the
// wildcard) and whose tokens hold its key, and each list of candidates
// ascends, so a list's scan stops at its first match or at the best id
// found so far.
func (d *denyIndex) first(targets []string) (id, target int) {
	best, bestTarget := -1, -1
	if len(d.byHead) == 0 && len(d.anyHead) == 0 {
		return best, bestTarget
	}
	var tokenBuf, headBuf [16]string // a typical target fits; longer ones spill to the heap
	var startBuf [16]int
	full, starts, heads := tokenBuf[:0], startBuf[:0], headBuf[:0]
	var tokens []string
	fullText := ""
	for ti, t := range targets {
		// A target that ends the one tokenized last (the expander's lines
		// from each wrapper of a command are its tails) takes the tail of
		// its tokens; any other is tokenized, in the buffers a long target
		// grew before.
		suffix := false
		if len(t) < len(fullText) && strings.HasSuffix(fullText, t) {
			tokens, suffix = shell.SuffixTokens(fullText, full, starts, len(fullText)-len(t))
		}
		if !suffix {
			full, starts = shell.AppendDenyTokensAt(full[:0], starts[:0], t)
			tokens, fullText = full, t
		}
		scan := func(ids []int) {
			for _, id := range ids {
				if best >= 0 && id >= best {
					break
				}
				if d.dialect.DenyMatchTokens(d.tokens[id], tokens) {
					best, bestTarget = id, ti
					break
				}
			}
		}
		scan(d.anyHead)
		heads = d.dialect.AppendDenyHeads(heads[:0], tokens)
		for _, head := range heads {
			d.candidates(head, tokens, scan)
		}
	}
	return best, bestTarget
}

// each calls fn with the position of every prefix matching target,
// possibly more than once.
func (d *denyIndex) each(target string, fn func(id int)) {
	if len(d.byHead) == 0 && len(d.anyHead) == 0 {
		return
	}
	var tokenBuf, headBuf [16]string
	tokens := shell.AppendDenyTokens(tokenBuf[:0], target)
	try := func(ids []int) {
		for _, id := range ids {
			if d.dialect.DenyMatchTokens(d.tokens[id], tokens) {
				fn(id)
			}
		}
	}
	try(d.anyHead)
	for _, head := range d.dialect.AppendDenyHeads(headBuf[:0], tokens) {
		d.candidates(head, tokens, try)
	}
}
