package assist

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/codewhale-ls/codewhale-ls/diagnostics/schema"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// node is one subschema of an embedded JSON Schema. Its facets are the
// subschema itself, what its $ref points at, and its allOf/anyOf/oneOf
// alternatives, so a lookup sees everything an editor would merge.
type node struct {
	root map[string]any
	m    map[string]any
}

// maxFacetDepth bounds $ref chains and nested alternatives; the config
// schema is recursive (a profile is a whole config).
const maxFacetDepth = 8

// parsedSchemas are the schemas of every implemented release, by release
// version then name.
var parsedSchemas = sync.OnceValue(func() map[string]map[string]map[string]any {
	out := map[string]map[string]map[string]any{}
	for _, r := range release.Implemented {
		out[r.Version] = map[string]map[string]any{}
		for _, name := range schema.Names() {
			data, _ := schema.Get(name, r)
			var m map[string]any
			if json.Unmarshal(data, &m) == nil {
				out[r.Version][name] = m
			}
		}
	}
	return out
})

// schemaName is the schema that describes a kind of file; the managed
// config and the project overlay are config.toml files too.
func schemaName(kind config.Kind) string {
	switch kind {
	case config.KindUserConfig, config.KindManaged, config.KindOverlay:
		return "config"
	case config.KindPermissions:
		return "permissions"
	case config.KindProjectHooks:
		return "hooks"
	case config.KindConstitution:
		return "constitution"
	}
	return ""
}

// rootNode is the schema of kind as release rel reads it, or nil when
// codewhale-ls has none.
func rootNode(kind config.Kind, rel release.Release) *node {
	m := parsedSchemas()[rel.Name()][schemaName(kind)]
	if m == nil {
		return nil
	}
	return &node{root: m, m: m}
}

func (n *node) resolve(ref string) map[string]any {
	if !strings.HasPrefix(ref, "#") {
		return nil
	}
	var v any = n.root
	for _, part := range strings.Split(ref[1:], "/")[1:] {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = obj[part]
	}
	m, _ := v.(map[string]any)
	return m
}

func (n *node) facets() []map[string]any {
	var out []map[string]any
	var add func(m map[string]any, depth int)
	add = func(m map[string]any, depth int) {
		if m == nil || depth > maxFacetDepth {
			return
		}
		out = append(out, m)
		if ref, ok := m["$ref"].(string); ok {
			add(n.resolve(ref), depth+1)
		}
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			alts, _ := m[k].([]any)
			for _, alt := range alts {
				altMap, _ := alt.(map[string]any)
				add(altMap, depth+1)
			}
		}
	}
	add(n.m, 0)
	return out
}

// get is the first facet's value of a keyword.
func (n *node) get(keyword string) (any, bool) {
	for _, f := range n.facets() {
		if v, ok := f[keyword]; ok {
			return v, true
		}
	}
	return nil, false
}

func (n *node) str(keyword string) string {
	v, _ := n.get(keyword)
	s, _ := v.(string)
	return s
}

func (n *node) strings(keyword string) []string {
	v, _ := n.get(keyword)
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func (n *node) with(m map[string]any) *node { return &node{root: n.root, m: m} }

// types lists the JSON types a value may have, in facet order.
func (n *node) types() []string {
	var out []string
	for _, f := range n.facets() {
		if t, ok := f["type"].(string); ok && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func (n *node) is(typ string) bool { return slices.Contains(n.types(), typ) }

// tableLike reports a value written as a TOML table or array of tables.
func (n *node) tableLike() bool {
	if n.is("object") {
		return true
	}
	items := n.items()
	return items != nil && items.is("object")
}

func (n *node) items() *node {
	v, _ := n.get("items")
	if m, ok := v.(map[string]any); ok {
		return n.with(m)
	}
	return nil
}

// hasMembers reports whether the subschema describes object members.
func (n *node) hasMembers() bool {
	for _, f := range n.facets() {
		if _, ok := f["properties"]; ok {
			return true
		}
		if _, ok := f["additionalProperties"]; ok {
			return true
		}
	}
	return false
}

// members is the object's own properties, merged over the facets (the
// first facet naming a property wins).
func (n *node) members() map[string]*node {
	out := map[string]*node{}
	for _, f := range n.facets() {
		props, _ := f["properties"].(map[string]any)
		for k, v := range props {
			if m, ok := v.(map[string]any); ok && out[k] == nil {
				out[k] = n.with(m)
			}
		}
	}
	return out
}

// container is where keys of n live: n itself, or the items of an array,
// since a key path names no array index.
func (n *node) container() *node {
	if !n.hasMembers() {
		if items := n.items(); items != nil {
			return items
		}
	}
	return n
}

// child is the schema of key inside n, or nil when n does not know it.
func (n *node) child(key string) *node {
	c := n.container()
	if m := c.members()[key]; m != nil {
		return m
	}
	v, _ := c.get("additionalProperties")
	if m, ok := v.(map[string]any); ok {
		return c.with(m)
	}
	return nil
}

// strict reports whether n rejects keys it does not list.
func (n *node) strict() bool {
	v, ok := n.container().get("additionalProperties")
	return ok && v == false
}

// walk follows a key path; nil when some key is unknown.
func (n *node) walk(path []string) *node {
	for _, k := range path {
		if n == nil {
			return nil
		}
		n = n.child(k)
	}
	return n
}

// alias reports a property that only renames a sibling (`approvalPolicy`
// for `approval_policy`); completion offers the canonical spelling only.
func (n *node) alias() bool {
	ref, _ := n.m["$ref"].(string)
	return strings.Contains(ref, "/properties/")
}

func (n *node) deprecated() bool {
	v, _ := n.get("deprecated")
	return v == true
}

// enumValue is an allowed value and what Codewhale does with it.
type enumValue struct{ value, meaning string }

func (n *node) enum() []enumValue {
	values := n.strings("enum")
	meanings := n.strings("enumDescriptions")
	out := make([]enumValue, len(values))
	for i, v := range values {
		out[i].value = v
		if i < len(meanings) {
			out[i].meaning = meanings[i]
		}
	}
	return out
}

// suggestions are the values completion offers: the allowed values, else
// the schema's examples, else true/false for a boolean.
func (n *node) suggestions() []enumValue {
	if e := n.enum(); len(e) > 0 {
		return e
	}
	var out []enumValue
	for _, ex := range n.strings("examples") {
		out = append(out, enumValue{value: ex})
	}
	if len(out) == 0 && n.is("boolean") {
		out = []enumValue{{value: "true"}, {value: "false"}}
	}
	return out
}

// offered are the member names worth suggesting, sorted: no aliases, no
// retired keys.
func (n *node) offered() []string {
	var out []string
	for k, m := range n.container().members() {
		if !m.alias() && !m.deprecated() {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
