// Package install adds codewhale-ls's pre-tool hook to another coding
// agent's settings file and takes it out again, editing the file's text
// by byte ranges so that every other byte (comments, formatting, line
// ends, key order) stays as the user wrote it.
package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/codewhale-ls/codewhale-ls/agents"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/hardening"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// Scope is which settings file of an agent is edited.
type Scope int

const (
	Project Scope = iota // the workspace's file, shared with the repository
	User                 // the user's own file under the home directory
)

// Agent is one agent of package agents' table as install sees it: its
// Settings say where it reads its pre-tool hooks and what our entry there
// looks like.
type Agent struct {
	*agents.Agent
}

// Lookup returns the agent called name, or an error listing the known ones.
func Lookup(name string) (Agent, error) {
	a, ok := agents.Lookup(name)
	if !ok {
		return Agent{}, fmt.Errorf("unknown agent %q (known: %s)", name, strings.Join(agents.Names(), ", "))
	}
	return Agent{a}, nil
}

// all are the agents, by name.
func all() []Agent {
	var out []Agent
	for _, name := range agents.Names() {
		a, _ := Lookup(name)
		out = append(out, a)
	}
	return out
}

// UserDir is the directory the agent reads its user-level settings from:
// the one its variable names (an absolute path: a relative one would be
// resolved against whichever directory the agent starts in), else its
// directory under the home directory env gives (nil: the process's).
func (a Agent) UserDir(env config.Env) (string, error) {
	if env == nil {
		env = config.OSEnv{}
	}
	var home string
	if v := a.dirVarValue(env); v != "" {
		if !filepath.IsAbs(v) {
			return "", fmt.Errorf("%s=%s is not an absolute path, so where %s reads it depends on the directory it starts in", a.Settings.DirVar, v, a.Name)
		}
		if !a.Settings.DirVarIsHome {
			return filepath.Clean(v), nil
		}
		home = v
	} else if home = config.HomeDir(env); home == "" {
		return "", fmt.Errorf("cannot find the home directory for %s's user settings", a.Name)
	}
	return filepath.Join(home, a.Settings.UserDir), nil
}

// dirVarValue is the agent's directory variable in env ("" when unset,
// as the agents take an empty value).
func (a Agent) dirVarValue(env config.Env) string {
	if a.Settings.DirVar == "" {
		return ""
	}
	return env.Getenv(a.Settings.DirVar)
}

// SettingsPath is the file install edits for scope: under workspace for
// Project, under UserDir for User.
func (a Agent) SettingsPath(scope Scope, workspace string, env config.Env) (string, error) {
	if scope == User {
		dir, err := a.UserDir(env)
		if err != nil {
			return "", err
		}
		return filepath.Join(dir, filepath.FromSlash(a.Settings.User)), nil
	}
	return filepath.Join(workspace, filepath.FromSlash(a.Settings.Project)), nil
}

// Note says when the agent does not run the entry install writes for
// scope ("" when it always does, as far as was measured).
func (a Agent) Note(scope Scope) string {
	if scope == User {
		return a.Settings.UserNote
	}
	return a.Settings.ProjectNote
}

// command is the hook command for the agent, in sh: binary (the caller
// passes the running binary's absolute path, so the agent finds it
// whatever its PATH), `hook NAME --timeout N` with a hook timeout of
// seconds, then `|| exit 2` where exit 2 is the agent's block.
func (a Agent) command(binary string, seconds int) string {
	return hardening.Quote(binary) + a.commandTail(seconds)
}

// powerShellCommand is Command for PowerShell: a quoted path is a string
// there, so `&` calls it.
func (a Agent) powerShellCommand(binary string, seconds int) string {
	return "& '" + strings.ReplaceAll(binary, "'", "''") + "'" + a.commandTail(seconds)
}

// commandTail is what follows the binary in our command.
func (a Agent) commandTail(seconds int) string {
	tail := fmt.Sprintf(" hook %s --timeout %d", a.Name, seconds)
	if a.Settings.Exit2Blocks {
		tail += failClosed
	}
	return tail
}

// seconds is the agent's hook timeout, the one `hook` assumes without
// --timeout, in whole seconds.
func (a Agent) seconds() int {
	return int(a.HookTimeout / time.Second)
}

// entry is our element of each of the agent's hook arrays, for binary
// with a hook timeout of seconds.
func (a Agent) entry(binary string, seconds int) any {
	return a.Settings.Entry(agents.HookCommand{Sh: a.command(binary, seconds), PowerShell: a.powerShellCommand(binary, seconds), Seconds: seconds})
}

// failClosed turns a hook that cannot run into a block.
const failClosed = " || exit 2"

// ourBinary returns the binary of s when s is a command Command made for
// a codewhale-ls binary: one whose name starts so (codewhale-ls.exe, a
// codewhale-ls-dev build), or the very file this program runs from (a
// binary renamed /usr/local/bin/cwls), found by stat alone. The same
// shape naming another program (`auditor hook NAME ...`) is not ours.
func (a Agent) ourBinary(s string) (binary string, seconds int, ok bool) {
	rest := s
	if a.Settings.Exit2Blocks {
		if rest, ok = strings.CutSuffix(rest, failClosed); !ok {
			return "", 0, false
		}
	}
	// The timeout the user may have changed, in the agent's field and in
	// --timeout alike (docs/agents.md): any whole number of seconds.
	digits := len(rest)
	for digits > 0 && rest[digits-1] >= '0' && rest[digits-1] <= '9' {
		digits--
	}
	seconds, err := strconv.Atoi(rest[digits:])
	if err != nil || seconds < 1 || strconv.Itoa(seconds) != rest[digits:] {
		return "", 0, false
	}
	quoted, ok := strings.CutSuffix(rest[:digits], fmt.Sprintf(" hook %s --timeout ", a.Name))
	if !ok {
		return "", 0, false
	}
	binary = quoted
	if len(quoted) >= 2 && strings.HasPrefix(quoted, "'") && strings.HasSuffix(quoted, "'") {
		binary = strings.ReplaceAll(quoted[1:len(quoted)-1], `'\''`, "'")
	}
	if hardening.Quote(binary) != quoted {
		return "", 0, false
	}
	if strings.HasPrefix(path.Base(strings.ReplaceAll(binary, `\`, "/")), "codewhale-ls") || isRunningBinary(binary) {
		return binary, seconds, true
	}
	return "", 0, false
}

// isRunningBinary reports whether binary names the file this program runs
// from. Stat only: nothing is opened, so no file can block it.
func isRunningBinary(binary string) bool {
	self, err := os.Executable()
	if err != nil || !filepath.IsAbs(binary) {
		return false
	}
	a, err := os.Stat(self)
	if err != nil {
		return false
	}
	b, err := os.Stat(binary)
	return err == nil && os.SameFile(a, b)
}

// Install returns src with our entry for binary added to each event array
// that lacks it (src unchanged when all have it). A missing file (exists
// false) starts from the agent's skeleton. A file that is not JSON (with
// comments and trailing commas) is refused with the line and byte.
func (a Agent) Install(src []byte, exists bool, binary string) ([]byte, error) {
	if !exists {
		src = []byte(a.Settings.Skeleton)
	}
	for _, path := range a.Settings.Events {
		root, err := parseJSONC(src)
		if err != nil {
			return nil, err
		}
		if arr := lookup(root, path); arr != nil && arr.kind == '[' && a.ours(src, arr) >= 0 {
			continue
		}
		if src, err = insertEntry(src, root, path, a.entry(binary, a.seconds())); err != nil {
			return nil, err
		}
	}
	return src, nil
}

// Uninstall returns src without our entry for binary, in the reverse of
// Install's order, so that install then uninstall gives back the very
// bytes that were there. Only an entry equal to ours (whatever its
// formatting) is removed; a container Install created is removed with it
// when its text is still exactly what Install wrote.
func (a Agent) Uninstall(src []byte, binary string) ([]byte, error) {
	for i := len(a.Settings.Events) - 1; i >= 0; i-- {
		var err error
		if src, err = a.removeEntry(src, a.Settings.Events[i], a.entry(binary, a.seconds())); err != nil {
			return nil, err
		}
	}
	return src, nil
}

// Installed reports whether every event array of src holds our entry for
// some codewhale-ls binary (ourBinary).
func (a Agent) Installed(src []byte) (bool, error) {
	root, err := parseJSONC(src)
	if err != nil {
		return false, err
	}
	for _, path := range a.Settings.Events {
		arr := lookup(root, path)
		if arr == nil || arr.kind != '[' {
			return false, nil
		}
		if a.ours(src, arr) < 0 {
			return false, nil
		}
	}
	return true, nil
}

// ours is the index of the first element of arr that is our entry (however
// formatted) for a codewhale-ls binary (ourBinary); -1 if none is.
func (a Agent) ours(src []byte, arr *node) int {
	for i, e := range arr.elems {
		v := e.plain(src)
		for _, s := range stringsIn(v) {
			if binary, seconds, ok := a.ourBinary(s); ok && reflect.DeepEqual(normalise(a.entry(binary, seconds)), v) {
				return i
			}
		}
	}
	return -1
}

// stringsIn lists every string inside a decoded JSON value.
func stringsIn(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case map[string]any:
		var out []string
		for _, e := range v {
			out = append(out, stringsIn(e)...)
		}
		return out
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, stringsIn(e)...)
		}
		return out
	}
	return nil
}

// lookup follows keys from root; nil where one is missing or not an object.
func lookup(root *node, keys []string) *node {
	n := root
	for _, k := range keys {
		if n.kind != '{' {
			return nil
		}
		m, ok := n.member(k)
		if !ok {
			return nil
		}
		n = m.value
	}
	return n
}

// insertEntry adds entry to the array at path. Missing objects and the
// array are created at the deepest existing level, as one fragment:
// removeEntry recognises that fragment.
func insertEntry(src []byte, root *node, path []string, entry any) ([]byte, error) {
	if root.kind != '{' {
		return nil, &SyntaxError{Line: 1, Column: 1, Byte: root.start, Msg: "the settings file must hold one JSON object"}
	}
	parent, depth := root, 0
	for ; depth < len(path); depth++ {
		m, ok := parent.member(path[depth])
		if !ok {
			break
		}
		want := byte('{')
		if depth == len(path)-1 {
			want = '['
		}
		if m.value.kind != want {
			return nil, fmt.Errorf("%s %q is not the %s the agent expects", positionOf(src, m.value.start), strings.Join(path[:depth+1], "."), map[byte]string{'{': "object", '[': "array"}[want])
		}
		parent = m.value
	}
	return insertItem(src, parent, fragment(path[depth:], entry)), nil
}

// fragment is the text Install puts in the deepest existing container:
// the entry itself, or the members that lead to it.
func fragment(keys []string, entry any) string {
	// Not json.Marshal: it writes PowerShell's `&` as \u0026, which
	// the agent reads the same but a person reading the file does not.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(entry)
	text := strings.TrimSuffix(buf.String(), "\n")
	if len(keys) == 0 {
		return text
	}
	text = "[" + text + "]"
	for i := len(keys) - 1; i >= 0; i-- {
		k, _ := json.Marshal(keys[i])
		text = string(k) + ": " + text
		if i > 0 {
			text = "{" + text + "}"
		}
	}
	return text
}

// insertItem inserts text as the last item of container c: after the last
// item (comma, then the line break and indentation of that item's line),
// or, in an empty container, after the opening bracket and one space. The
// space tells an entry put into an array the user had from an array
// created for it (`"k": [ {...}]` against `"k": [{...}]`), so that
// uninstall removes exactly what install added.
func insertItem(src []byte, c *node, text string) []byte {
	items := c.items()
	at, insert := c.start+1, " "+text
	if len(items) > 0 {
		last := items[len(items)-1]
		at = last.end
		if bytes.ContainsAny(src[c.start:items[0].start], "\n") {
			insert = "," + lineEnding(src) + problem.NewLines(src).Indent(last.start) + text
		} else {
			insert = ", " + text
		}
	}
	out := make([]byte, 0, len(src)+len(insert))
	out = append(out, src[:at]...)
	out = append(out, insert...)
	return append(out, src[at:]...)
}

// removeEntry undoes insertEntry: from the root down, the first container
// holding, as an item, exactly the fragment insertEntry would have put
// there loses it; failing that, the first element of the array that is
// ours (however formatted, for any binary) is removed. Nothing of ours:
// src unchanged.
func (a Agent) removeEntry(src []byte, path []string, entry any) ([]byte, error) {
	root, err := parseJSONC(src)
	if err != nil {
		return nil, err
	}
	n := root
	for depth := 0; n != nil && depth <= len(path); depth++ {
		frag := fragment(path[depth:], entry)
		for i, it := range n.items() {
			if string(src[it.start:it.end]) == frag {
				return removeItem(src, n, i), nil
			}
		}
		if depth < len(path) {
			n = lookup(n, path[depth:depth+1])
		}
	}
	arr := lookup(root, path)
	if arr == nil || arr.kind != '[' {
		return src, nil
	}
	if i := a.ours(src, arr); i >= 0 {
		return removeItem(src, arr, i), nil
	}
	return src, nil
}

// removeItem cuts item i of c: from the end of the item before it; for
// the first item, up to the next item, or, for the only one, with the
// space insertItem put before it.
func removeItem(src []byte, c *node, i int) []byte {
	items := c.items()
	from, to := items[i].start, items[i].end
	switch {
	case i > 0:
		from = items[i-1].end
	case len(items) > 1:
		to = items[1].start
	case src[from-1] == ' ':
		from--
	}
	out := make([]byte, 0, len(src))
	out = append(out, src[:from]...)
	return append(out, src[to:]...)
}

// normalise makes a value comparable with a decoded one.
func normalise(v any) any {
	data, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(data, &out)
	return out
}

// lineEnding is the file's own: CRLF where it uses one.
func lineEnding(src []byte) string {
	if bytes.Contains(src, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// positionOf names the line and byte of offset.
func positionOf(src []byte, offset int) string {
	line := problem.NewLines(src).LineOf(offset) + 1
	return fmt.Sprintf("line %d (byte %d):", line, offset)
}
