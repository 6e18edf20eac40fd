// Package patchfiles lists the paths a write-capable call names, the way
// Codewhale's repository law collects them (docs/codewhale/pipeline.md §7.2). Several
// layers share it (repo law, the Ask write carve-out, auto-review's bounded
// writes) so they agree on what a call touches.
package patchfiles

// pathFields are the input keys that name a file directly.
var pathFields = []string{"path", "target", "destination", "file_path"}

// entryLists are apply_patch's structured replacement lists (`changes` is
// the legacy name); each object's `path` is a target.
var entryLists = []string{"replace", "changes"}

// patchFields hold patch text. `patch` is apply_patch's field; `input` is
// the freeform apply_patch spelling and never holds file contents. `content`
// is deliberately absent: for write_file it is the new file body, and a
// file that merely contains a diff must not be read as one.
var patchFields = []string{"patch", "input"}

// Targets returns, in order and without duplicates, the raw path strings of
// input: the direct path fields, then replacement entries, then the file
// headers of the patch text. Values of the wrong type are skipped, and so is
// the empty string, which names no file; nothing is normalised.
func Targets(input map[string]any) []string {
	var c collector
	for _, key := range pathFields {
		if s, ok := input[key].(string); ok {
			c.add(s)
		}
	}
	for _, key := range entryLists {
		entries, _ := input[key].([]any)
		for _, e := range entries {
			if obj, ok := e.(map[string]any); ok {
				if s, ok := obj["path"].(string); ok {
					c.add(s)
				}
			}
		}
	}
	for _, key := range patchFields {
		if text, ok := input[key].(string); ok {
			for _, s := range patchHeaders(text) {
				c.add(s)
			}
		}
	}
	return c.paths
}

type collector struct {
	paths []string
	seen  map[string]bool
}

func (c *collector) add(path string) {
	if path == "" || c.seen[path] {
		return
	}
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	c.seen[path] = true
	c.paths = append(c.paths, path)
}
