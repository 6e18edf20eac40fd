package schema

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// The embedded schemas describe every implemented release at once: a
// subschema that exists only in some releases, an enum value added later
// or a text that changed is annotated with the release.Change (by ID) that
// brought the difference, and For keeps, for one release, what it has.
// Each difference is written once, keyed to its change, as the gate's are.
const (
	// sinceKey: the subschema exists from the change on (a key a release
	// added).
	sinceKey = "x-codewhale-since"
	// untilKey: the subschema exists only before the change (a key a
	// release removed).
	untilKey = "x-codewhale-until"
	// enumSinceKey maps enum values to the change that added them; a value
	// leaves with its enumDescriptions entry.
	enumSinceKey = "x-codewhale-enum-since"
	// releaseKey maps a change to keywords that replace the subschema's
	// own from that change on (a description that says what the release
	// does); later entries win.
	releaseKey = "x-codewhale-release"
)

// changeByID is the change a schema annotation names.
func changeByID(id string) (release.Change, error) {
	i := slices.IndexFunc(release.Changes(), func(c release.Change) bool { return c.ID == id })
	if i < 0 {
		return release.Change{}, fmt.Errorf("schema annotation names no release change %q", id)
	}
	return release.Changes()[i], nil
}

// forRelease renders an annotated schema as release r reads it, without
// annotations. An annotation naming no change is an error: tests run
// every schema through every release.
func forRelease(data []byte, r release.Release) ([]byte, error) {
	root, err := parseOrdered(data)
	if err != nil {
		return nil, err
	}
	if _, err := filterValue(root, r); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	root.encode(&buf, "")
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// has reports whether r has the change an annotation names.
func has(r release.Release, id *value) (bool, error) {
	c, err := changeByID(id.str())
	if err != nil {
		return false, err
	}
	return r.Has(c), nil
}

// filterValue applies the annotations under v; keep is false when v itself
// does not exist in r.
func filterValue(v *value, r release.Release) (keep bool, err error) {
	switch v.kind {
	case '[':
		for _, it := range v.items {
			if _, err := filterValue(it, r); err != nil {
				return false, err
			}
		}
		return true, nil
	case '{':
	default:
		return true, nil
	}
	if id := v.get(sinceKey); id != nil {
		if ok, err := has(r, id); err != nil || !ok {
			return false, err
		}
	}
	if id := v.get(untilKey); id != nil {
		if ok, err := has(r, id); err != nil || ok {
			return false, err
		}
	}
	if overrides := v.get(releaseKey); overrides != nil {
		for _, o := range overrides.members {
			ok, err := has(r, &value{scalar: o.key})
			if err != nil {
				return false, err
			}
			for _, kw := range o.val.members {
				if ok {
					v.set(kw.key, kw.val)
				}
			}
		}
	}
	if since := v.get(enumSinceKey); since != nil {
		if err := filterEnum(v, since, r); err != nil {
			return false, err
		}
	}
	kept := v.members[:0]
	for _, m := range v.members {
		if m.key == sinceKey || m.key == untilKey || m.key == enumSinceKey || m.key == releaseKey {
			continue
		}
		had := len(m.val.members)
		ok, err := filterValue(m.val, r)
		if err != nil {
			return false, err
		}
		// A `properties` whose every member belongs to other releases
		// goes with them, as the file reads without them.
		if ok && !(m.key == "properties" && had > 0 && len(m.val.members) == 0) {
			kept = append(kept, m)
		}
	}
	v.members = kept
	return true, nil
}

// filterEnum drops the enum values (and their descriptions) that r does
// not have yet.
func filterEnum(v, since *value, r release.Release) error {
	enum, descs := v.get("enum"), v.get("enumDescriptions")
	if enum == nil {
		return fmt.Errorf("%s without enum", enumSinceKey)
	}
	var values, meanings []*value
	for i, e := range enum.items {
		if id := since.get(e.str()); id != nil {
			ok, err := has(r, id)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
		}
		values = append(values, e)
		if descs != nil && i < len(descs.items) {
			meanings = append(meanings, descs.items[i])
		}
	}
	enum.items = values
	if descs != nil {
		descs.items = meanings
	}
	return nil
}
