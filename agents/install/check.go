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
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/policyfile"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// Finding is one CW700 problem (its File the path) with the bytes of that
// file, which placing it in the file needs.
type Finding struct {
	Src     []byte
	Problem problem.Problem
	// AboutThisMachine: the finding turns on this machine's user-level
	// settings (no hook installed there), not on the workspace alone, so a
	// CI run, which has no home to hook, leaves it out.
	AboutThisMachine bool
}

// Unhooked warns, for every agent whose hooks a setting turns off
// (Claude's disableAllHooks, Gemini's hooksConfig.enabled: false,
// Copilot's disableAllHooks; in the workspace, or in the user's settings
// where the workspace does not set the same key and the agent is
// configured in the workspace or hooked for the user), that no hook of the
// agent, ours at user level included, runs there; and, for every other
// agent whose hooks file exists in workspace, when the agent's user-level
// files do not hold our hook: that its tool calls are not held to the
// Codewhale policy (warning) when no project hook file holds it either,
// or, where it holds it, when the agent does not read that file (info:
// the agent's Settings.ProjectNote, for sessions started in a subdirectory or an
// untrusted folder). A file that cannot be read or parsed is warned
// about too: nobody can tell it is hooked. env gives the home directory
// and the agents' directory variables (nil: the process's).
func Unhooked(workspace string, env config.Env) []Finding {
	var out []Finding
	for _, a := range all() {
		files := a.projectFiles(workspace)
		userHooked := a.hookedIn(a.userFiles(env)) != ""
		// A user-level switch is the workspace's business only where the
		// agent is used: configured in the workspace, or hooked for the
		// user; else every check anywhere would report the home's file.
		if off := a.hooksOff(workspace, env, len(files) > 0 || userHooked); len(off) > 0 {
			// Installing our hook would not help: the agent runs none.
			out = append(out, off...)
			continue
		}
		if len(files) == 0 || userHooked {
			continue
		}
		if hooked := a.hookedIn(files); hooked != "" {
			if note := a.Note(Project); note != "" {
				out = append(out, a.finding(hooked, problem.Info, fmt.Sprintf("codewhale-ls's hook for %s is installed only in this project file. %s Run `codewhale-ls hook install %s` to install it at user level, where it holds every session.", a.Name, note, a.Name)))
			}
			continue
		}
		unhooked := a.finding(files[0], problem.Warning, fmt.Sprintf("%s reads this file but codewhale-ls's hook is not installed for it, so its tool calls are not held to the Codewhale policy; run `codewhale-ls hook install %s`", a.Name, a.Name))
		unhooked.AboutThisMachine = true
		out = append(out, unhooked)
	}
	return out
}

// finding is msg at file's `hooks` key (the start of the file where it
// has none); a file that cannot be read or parsed gets a warning that
// nobody can tell whether the agent is hooked instead.
func (a Agent) finding(file string, severity problem.Severity, msg string) Finding {
	src, err := policyfile.Read(file)
	span := problem.Span{}
	if err != nil {
		severity, msg = problem.Warning, fmt.Sprintf("cannot tell whether codewhale-ls's hook governs %s: %v", a.Name, err)
	} else if root, perr := parseJSONC(src); perr != nil {
		severity, msg = problem.Warning, fmt.Sprintf("cannot tell whether codewhale-ls's hook governs %s: %v", a.Name, perr)
	} else if m, ok := root.member("hooks"); ok {
		span = problem.Span{Start: m.start, End: m.value.start}
	}
	return Finding{Src: src, Problem: problem.Problem{
		File: file, Code: problem.AgentUnhooked, Severity: severity, Span: span, Message: msg,
	}}
}

// Watched are the files whose change can change Unhooked's answer for
// workspace: every agent's project and user hooks files and the files of
// its hooks-off switches, present or not. For an agent that reads every
// file of a glob (Copilot), the ones present now and the one install
// writes.
func Watched(workspace string, env config.Env) []string {
	var out []string
	for _, a := range all() {
		out = append(out, filepath.Join(workspace, filepath.FromSlash(a.Settings.Project)))
		out = append(out, a.projectFiles(workspace)...)
		if user, err := a.SettingsPath(User, workspace, env); err == nil {
			out = append(out, user)
		}
		out = append(out, a.userFiles(env)...)
		for _, sw := range a.Settings.Switches {
			if file, ok := a.switchFile(sw, workspace, env); ok {
				out = append(out, file)
			}
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// projectFiles are the agent's hook files present in workspace, sorted.
func (a Agent) projectFiles(workspace string) []string {
	return filesMatching(workspace, a.Settings.Project, a.Settings.Configured)
}

// userFiles are the agent's user-level hook files present, sorted; none
// where its user directory cannot be told.
func (a Agent) userFiles(env config.Env) []string {
	dir, err := a.UserDir(env)
	if err != nil {
		return nil
	}
	return filesMatching(dir, a.Settings.User, a.Settings.UserConfigured)
}

// filesMatching are the files under dir that the patterns (relative,
// slash-separated globs; file alone where there are none) match, sorted.
func filesMatching(dir, file string, patterns []string) []string {
	if len(patterns) == 0 {
		patterns = []string{file}
	}
	var files []string
	for _, pattern := range patterns {
		// The pattern is matched against names in its directory, never
		// as a glob over dir, whose own characters are literal.
		parent := filepath.Join(dir, filepath.FromSlash(path.Dir(pattern)))
		entries, err := os.ReadDir(parent)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if ok, _ := path.Match(path.Base(pattern), e.Name()); ok {
				files = append(files, filepath.Join(parent, e.Name()))
			}
		}
	}
	sort.Strings(files)
	return slices.Compact(files)
}

// hookedIn is the first of files that holds our hook ("" if none does).
func (a Agent) hookedIn(files []string) string {
	for _, f := range files {
		src, err := policyfile.Read(f)
		if err != nil {
			continue
		}
		if ok, err := a.Installed(src); err == nil && ok {
			return f
		}
	}
	return ""
}

// hooksOff warns at each of the agent's switches that turns its hooks
// off: in workspace, and, with userSwitches, in the user's settings unless a workspace file
// sets the same key, which overrides it (the agents merge project
// settings over the user's). A file that cannot be read or parsed is
// left to the agent's own hooks check, or to the agent, which refuses it
// too.
func (a Agent) hooksOff(workspace string, env config.Env, userSwitches bool) []Finding {
	var out []Finding
	overridden := map[string]bool{}
	for _, sw := range a.Settings.Switches {
		if sw.User && !userSwitches {
			continue
		}
		file, ok := a.switchFile(sw, workspace, env)
		if !ok {
			continue
		}
		src, err := policyfile.Read(file)
		if err != nil {
			continue
		}
		root, err := parseJSONC(src)
		if err != nil {
			continue
		}
		key := strings.Join(sw.Key, ".")
		m, ok := memberAt(root, sw.Key)
		if !ok || (sw.User && overridden[key]) {
			continue
		}
		if !sw.User {
			overridden[key] = true
		}
		if m.value.kind != 'v' || string(src[m.value.start:m.value.end]) != fmt.Sprint(sw.Off) {
			continue
		}
		where := "in this workspace"
		if sw.User {
			where = "in every workspace that does not set it otherwise"
		}
		msg := fmt.Sprintf("%s = %v turns off every %s hook, codewhale-ls's included (user-level too), so %s's tool calls %s are not held to the Codewhale policy; remove the setting to have them checked",
			key, sw.Off, a.Name, a.Name, where)
		out = append(out, Finding{Src: src, Problem: problem.Problem{
			File: file, Code: problem.AgentUnhooked, Severity: problem.Warning,
			Span: problem.Span{Start: m.start, End: m.value.end}, Message: msg,
		}})
	}
	return out
}

// switchFile is where sw is: under workspace, or under the agent's user
// directory (false where that cannot be told).
func (a Agent) switchFile(sw agents.HooksSwitch, workspace string, env config.Env) (string, bool) {
	base := workspace
	if sw.User {
		dir, err := a.UserDir(env)
		if err != nil {
			return "", false
		}
		base = dir
	}
	return filepath.Join(base, filepath.FromSlash(sw.File)), true
}

// memberAt is the member at the end of keys from root, through objects.
func memberAt(root *node, keys []string) (member, bool) {
	parent := lookup(root, keys[:len(keys)-1])
	if parent == nil || parent.kind != '{' {
		return member{}, false
	}
	return parent.member(keys[len(keys)-1])
}
