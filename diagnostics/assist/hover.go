package assist

import (
	"fmt"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// Hover describes what is at offset in a file of the given kind: a key's
// meaning, allowed values and default; on an allowed value, its meaning;
// on a [[rules]] entry, what it matches, whether it is promoted to a global
// prefix, and its label. snap is the snapshot the file was linted in; with
// its permissions it adds how the rule ranks (which rule shadows which is
// the CW200 lint's to say). It may be nil. Everything said is what release
// rel does, and the hover names it.
func Hover(kind config.Kind, src []byte, offset int, snap *config.Snapshot, rel release.Release) (markdown string, span problem.Span, ok bool) {
	root := rootNode(kind, rel)
	if root == nil || offset < 0 || offset > len(src) {
		return "", problem.Span{}, false
	}
	var sp *spot
	var facts string
	switch kind {
	case config.KindConstitution:
		sp = jsonSpot(parseTolerantJSON(src), nil, offset)
	case config.KindPermissions:
		// One parse serves the spot, the rule and whether Codewhale
		// accepts the file.
		f, _ := execpolicy.ParseFile(src)
		sp = tomlSpot(f.Doc, src, offset)
		facts = ruleFactsAt(f, offset, snap, rel)
	default:
		doc, _ := tomldoc.Parse(src)
		sp = tomlSpot(doc, src, offset)
	}
	if sp == nil || len(sp.path) == 0 {
		return "", problem.Span{}, false
	}
	toml := kind != config.KindConstitution
	var parts []string
	if sp.onValue {
		parts = append(parts, valueHover(root, kind, sp, toml, rel))
	} else {
		parts = append(parts, keyHover(root, kind, sp.path, toml, rel))
	}
	if facts != "" {
		parts = append(parts, facts)
	}
	if note := fileNote(kind); note != "" {
		parts = append(parts, note)
	}
	parts = append(parts, "*As Codewhale "+rel.Name()+" does.*")
	return strings.Join(parts, "\n\n---\n\n"), sp.span, true
}

func keyHover(root *node, kind config.Kind, path []string, toml bool, rel release.Release) string {
	key := path[len(path)-1]
	parent := root.walk(path[:len(path)-1])
	if parent == nil {
		return "**" + code(key) + "**\n\nCodewhale does not read the table this key is in."
	}
	if n := parent.child(key); n != nil {
		return keyDoc(key, n, toml)
	}
	msg := "**" + code(key) + "**\n\n"
	if note := otherReleaseKey(kind, path, rel); note != "" {
		return msg + note
	}
	if parent.strict() {
		msg += "Not a key of this file's strict schema: Codewhale rejects the whole file."
	} else {
		msg += "Not a key Codewhale reads here: it is silently ignored."
	}
	if near := problem.Nearest(key, parent.offered()); near != "" {
		msg += " Did you mean " + code(near) + "?"
	}
	return msg
}

// otherReleaseKey says, for a key release rel does not read, which
// implemented release removed it or added it, or "" when none reads it.
func otherReleaseKey(kind config.Kind, path []string, rel release.Release) string {
	key := code(path[len(path)-1])
	lastWith, firstWith := -1, -1
	for i, r := range release.Implemented {
		if rootNode(kind, r).walk(path) == nil {
			continue
		}
		if !r.Before(rel.Name()) {
			if firstWith < 0 {
				firstWith = i
			}
			continue
		}
		lastWith = i
	}
	switch {
	case lastWith >= 0:
		return fmt.Sprintf("Codewhale %s: %s was removed in Codewhale %s; it is silently ignored.", rel.Name(), key, release.Implemented[lastWith+1].Version)
	case firstWith >= 0:
		return fmt.Sprintf("Codewhale %s does not read %s (Codewhale %s added it): it is silently ignored.", rel.Name(), key, release.Implemented[firstWith].Version)
	}
	return ""
}

// valueHover says what an allowed value means; on a value without a list
// of allowed values it describes the key.
func valueHover(root *node, kind config.Kind, sp *spot, toml bool, rel release.Release) string {
	key := sp.path[len(sp.path)-1]
	n := root.walk(sp.path)
	if n == nil {
		return keyHover(root, kind, sp.path, toml, rel)
	}
	values := n.enum()
	if len(values) == 0 {
		return keyDoc(key, n, toml)
	}
	written := code(literal(n, sp.value))
	for _, v := range values {
		if v.value == sp.value {
			return "**" + written + "** (" + code(key) + ")\n\n" + v.meaning
		}
	}
	allowed := make([]string, len(values))
	plain := make([]string, len(values))
	for i, v := range values {
		allowed[i], plain[i] = code(literal(n, v.value)), v.value
	}
	msg := written + " is not an allowed value of " + code(key) + "."
	if near := problem.Nearest(sp.value, plain); near != "" {
		msg += " Did you mean " + code(literal(n, near)) + "?"
	}
	return msg + "\n\nAllowed values: " + strings.Join(allowed, ", ") + "\n\n" + keyDoc(key, n, toml)
}

// fileNote is what a kind of config.toml changes about every key in it.
func fileNote(kind config.Kind) string {
	switch kind {
	case config.KindOverlay:
		return "*Project overlay*: Codewhale applies only `model`, `reasoning_effort`, `notes_path`, `max_subagents`, `allow_shell = false`, and `approval_policy` / `sandbox_mode` when they tighten the user's value; every other key is ignored here."
	case config.KindManaged:
		return "*Managed config*: merged over the user's config.toml; it may set anything, even loosen it."
	}
	return ""
}
