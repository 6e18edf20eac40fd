package install

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"

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

// Unhooked warns, for every agent whose hooks file exists in workspace,
// when neither that file (nor any other of the agent's project hook
// files) nor the agent's file under home holds our hook: that agent's
// tool calls are not held to the Codewhale policy. A file that cannot be
// read or parsed is warned about too: nobody can tell it is hooked.
func Unhooked(workspace, home string) []Finding {
	var out []Finding
	for _, name := range Names() {
		a := Agents[name]
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
