package shell

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// splitVector is a conformance vector of kind "split": what Codewhale's own
// splitters made of one command.
type splitVector struct {
	ID       string
	Kind     string
	Input    struct{ Command string }
	Expected map[string]json.RawMessage
}

// TestSplitVectorsPerRelease runs every split vector of the conformance
// files (committed for the engine under ../testdata/conformance, plus
// $CODEWHALE_CONFORMANCE_DIR as the engine's conformance test reads it)
// against the expander of the release the file names ("codewhale"; absent
// means 0.9.10), comparing every field the vector states.
func TestSplitVectorsPerRelease(t *testing.T) {
	dirs := []string{filepath.Join("..", "testdata", "conformance")}
	if extra := os.Getenv("CODEWHALE_CONFORMANCE_DIR"); extra != "" {
		dirs = append(dirs, extra)
	}
	var files []string
	for _, dir := range dirs {
		found, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, found...)
	}
	ran := map[string]int{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Codewhale string
			Vectors   []splitVector
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		r := release.Oldest()
		if doc.Codewhale != "" {
			var ok bool
			if r, ok = release.Of(doc.Codewhale); !ok {
				t.Fatalf("%s: release %q is not implemented", file, doc.Codewhale)
			}
		}
		for _, v := range doc.Vectors {
			if v.Kind != "split" {
				continue
			}
			ran[r.Name()]++
			t.Run(r.Name()+"/"+v.ID, func(t *testing.T) { checkSplitVector(t, r, v) })
		}
	}
	for _, r := range release.Implemented {
		t.Logf("Codewhale %s: %d split vectors", r.Version, ran[r.Version])
	}
	if ran["0.10.1"] == 0 {
		t.Skip("no 0.10.1 split vectors under ../testdata/conformance yet (the engine's conformance files carry them)")
	}
}

func checkSplitVector(t *testing.T, r release.Release, v splitVector) {
	command := v.Input.Command
	e := ExpandAs(r, command)
	got := map[string]any{
		"naive_segments":        Segments(command),
		"chained":               e.Control,
		"expander_output":       e.Commands,
		"deny_targets":          e.DenyTargets(r, command),
		"dynamic":               e.Dynamic,
		"nested":                e.Nested,
		"arguments_dynamic":     e.ArgumentsDynamic,
		"redirects":             e.Redirects,
		"prefix_grant_eligible": e.PrefixGrantEligible,
	}
	for field, raw := range v.Expected {
		actual, known := got[field]
		if !known {
			t.Errorf("%s: unknown expected field %q", v.ID, field)
			continue
		}
		want := reflect.New(reflect.TypeOf(actual))
		if err := json.Unmarshal(raw, want.Interface()); err != nil {
			t.Fatalf("%s: %s: %v", v.ID, field, err)
		}
		if w := want.Elem().Interface(); !reflect.DeepEqual(w, actual) && !(isEmptyList(w) && isEmptyList(actual)) {
			t.Errorf("%s %q: %s = %#v, want %#v", v.ID, command, field, actual, w)
		}
	}
}

func isEmptyList(v any) bool {
	s, ok := v.([]string)
	return ok && len(s) == 0
}
