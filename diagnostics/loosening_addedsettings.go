package diagnostics

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// addedSettings reports the CW500 cases of the settings
// release.AddedConfigKeys brought in Codewhale 0.10.0
// (docs/codewhale/releases/0.10.0.md Part C, B.1, B.8.1, B.9): a release
// that does not read them loosens nothing by their change.
func (d *looseness) addedSettings() {
	if !d.now.Release.Has(release.AddedConfigKeys) {
		return
	}
	name := d.now.Release.Name()
	d.boolTurned("sandbox_network_access", false, true,
		"sandbox_network_access was %s, now %s: in Codewhale "+name+" sandboxed shell commands now reach the network")
	d.boolTurned("sandbox_read_denylist_defaults", true, false,
		"sandbox_read_denylist_defaults was %s, now %s: in Codewhale "+name+" the built-in credential read deny-list is off, so tools may read ~/.ssh, ~/.aws, .env files and the like")
	if path, span, ok := d.changedKey([]string{"sandbox_read_denylist_exempt"}); ok {
		before := stringItems(lookup(d.baseFile(path).Doc, []string{"sandbox_read_denylist_exempt"}))
		var added []string
		for _, p := range stringItems(lookup(d.out[path].Doc, []string{"sandbox_read_denylist_exempt"})) {
			if !slices.Contains(before, p) {
				added = append(added, fmt.Sprintf("%q", p))
			}
		}
		if len(added) > 0 {
			d.report(path, span, "new sandbox_read_denylist_exempt entries %s: in Codewhale %s tools may read what the built-in deny-list refused there", strings.Join(added, ", "), name)
		}
	}
	key := []string{"approval", "timeout_seconds"}
	if path, span, ok := d.changedKey(key); ok {
		before, now := intAt(d.baseFile(path).Doc, key), intAt(d.out[path].Doc, key)
		if before > 0 && now == 0 {
			d.report(path, span, "[approval] timeout_seconds was %d, now %s: in Codewhale %s an unanswered approval card now waits forever instead of being denied after %d s", before, describeInt(lookup(d.out[path].Doc, key)), name, before)
		}
	}
}

// boolTurned reports key turning from !loose (its default def when
// absent) to loose; format takes the two values.
func (d *looseness) boolTurned(key string, def, loose bool, format string) {
	path, span, ok := d.changedKey([]string{key})
	if !ok {
		return
	}
	value := func(doc *tomldoc.Doc) (bool, string) {
		e := lookup(doc, []string{key})
		if e == nil || e.Value.Kind != tomldoc.Bool {
			return def, fmt.Sprintf("unset (%v)", def)
		}
		return e.Value.Bool, e.Value.Raw
	}
	before, beforeText := value(d.baseFile(path).Doc)
	now, nowText := value(d.out[path].Doc)
	if before != loose && now == loose {
		d.report(path, span, format, beforeText, nowText)
	}
}

func stringItems(e *tomldoc.Entry) []string {
	if e == nil || e.Value.Kind != tomldoc.Array {
		return nil
	}
	var out []string
	for _, it := range e.Value.Items {
		if it.Kind == tomldoc.String {
			out = append(out, it.Str)
		}
	}
	return out
}

// intAt is key's integer value, 0 when absent or not an integer.
func intAt(doc *tomldoc.Doc, key []string) int64 {
	if e := lookup(doc, key); e != nil && e.Value.Kind == tomldoc.Integer {
		return e.Value.Int
	}
	return 0
}

func describeInt(e *tomldoc.Entry) string {
	if e == nil {
		return "unset"
	}
	return e.Value.Raw
}
