package install

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/agents"
	"github.com/codewhale-ls/codewhale-ls/gate/policyfile"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// CodeUnhooked is the check warning for an agent configured in the
// workspace that codewhale-ls's hook does not govern.
const CodeUnhooked = "CW700"

// Finding is one CW700 problem with the file it is in.
type Finding struct {
	Path    string
	Src     []byte
	Problem problem.Problem
}

// Unhooked warns, for every agent whose hooks a workspace setting turns
// off (Claude's disableAllHooks, Gemini's hooksConfig.enabled: false),
// that no hook of the agent, ours at user level included, runs there;
// and, for every other agent whose hooks file exists in workspace,
// when neither that file (nor any other of the agent's project hook
// files) nor the agent's file under home holds our hook: that agent's
// tool calls are not held to the Codewhale policy. A file that cannot be
// read or parsed is warned about too: nobody can tell it is hooked.
func Unhooked(workspace, home string) []Finding {
	var out []Finding
	for _, name := range agents.Names() {
		a := Agents[name]
		if off := a.hooksOff(workspace); len(off) > 0 {
			// Installing our hook would not help: the agent runs none.
			out = append(out, off...)
			continue
		}
		files := a.projectFiles(workspace)
		if len(files) == 0 || a.hookedIn(files) {
			continue
		}
		if user, err := a.SettingsPath(User, workspace, home); err == nil && home != "" && a.hookedIn([]string{user}) {
			continue
		}
		file := files[0]
		src, err := policyfile.Read(file)
		msg := fmt.Sprintf("%s reads this file but codewhale-ls's hook is not installed for it, so its tool calls are not held to the Codewhale policy; run `codewhale-ls hook install %s`", a.Name, a.Name)
		span := problem.Span{}
		if err != nil {
			msg = fmt.Sprintf("cannot tell whether codewhale-ls's hook governs %s: %v", a.Name, err)
		} else if root, perr := parseJSONC(src); perr != nil {
			msg = fmt.Sprintf("cannot tell whether codewhale-ls's hook governs %s: %v", a.Name, perr)
		} else if m, ok := root.member("hooks"); ok {
			span = problem.Span{Start: m.start, End: m.value.start}
		}
		out = append(out, Finding{Path: file, Src: src, Problem: problem.Problem{
			File: file, Code: CodeUnhooked, Severity: problem.Warning, Span: span, Message: msg,
		}})
	}
	return out
}

// Watched are the files whose change can change Unhooked's answer for
// workspace: every agent's project and user hooks files and the files of
// its hooks-off switches, present or not. For an agent that reads every
// file of a glob (Copilot), the ones present now and the one install
// writes.
func Watched(workspace, home string) []string {
	var out []string
	for _, name := range agents.Names() {
		a := Agents[name]
		out = append(out, filepath.Join(workspace, filepath.FromSlash(a.project)))
		out = append(out, a.projectFiles(workspace)...)
		if user, err := a.SettingsPath(User, workspace, home); err == nil && home != "" {
			out = append(out, user)
		}
		for _, sw := range a.switches {
			out = append(out, filepath.Join(workspace, filepath.FromSlash(sw.file)))
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// projectFiles are the agent's hook files present in workspace, sorted.
func (a Agent) projectFiles(workspace string) []string {
	pattern := a.project
	if a.configured != "" {
		pattern = a.configured
	}
	// The pattern is matched against names in its directory, never as a
	// glob over the workspace path, whose own characters are literal.
	dir := filepath.Join(workspace, filepath.FromSlash(path.Dir(pattern)))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var files []string
	for _, e := range entries {
		if ok, _ := path.Match(path.Base(pattern), e.Name()); ok {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(files)
	return files
}

// hookedIn reports whether one of files holds our hook.
func (a Agent) hookedIn(files []string) bool {
	for _, f := range files {
		src, err := policyfile.Read(f)
		if err != nil {
			continue
		}
		if ok, err := a.Installed(src); err == nil && ok {
			return true
		}
	}
	return false
}

// hooksOff warns at each of the agent's switches in workspace that turns
// its hooks off. A file that cannot be read or parsed is left to the
// agent's own hooks check, or to the agent, which refuses it too.
func (a Agent) hooksOff(workspace string) []Finding {
	var out []Finding
	for _, sw := range a.switches {
		file := filepath.Join(workspace, filepath.FromSlash(sw.file))
		src, err := policyfile.Read(file)
		if err != nil {
			continue
		}
		root, err := parseJSONC(src)
		if err != nil {
			continue
		}
		m, ok := memberAt(root, sw.key)
		if !ok || m.value.kind != 'v' || string(src[m.value.start:m.value.end]) != fmt.Sprint(sw.off) {
			continue
		}
		msg := fmt.Sprintf("%s = %v turns off every %s hook, codewhale-ls's included (user-level too), so %s's tool calls in this workspace are not held to the Codewhale policy; remove the setting to have them checked",
			strings.Join(sw.key, "."), sw.off, a.Name, a.Name)
		out = append(out, Finding{Path: file, Src: src, Problem: problem.Problem{
			File: file, Code: CodeUnhooked, Severity: problem.Warning,
			Span: problem.Span{Start: m.start, End: m.value.end}, Message: msg,
		}})
	}
	return out
}

// memberAt is the member at the end of keys from root, through objects.
func memberAt(root *node, keys []string) (member, bool) {
	parent := lookup(root, keys[:len(keys)-1])
	if parent == nil || parent.kind != '{' {
		return member{}, false
	}
	return parent.member(keys[len(keys)-1])
}
