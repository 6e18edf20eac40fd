package gate

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy/shell"
	"github.com/codewhale-ls/codewhale-ls/gate/patchfiles"
	"github.com/codewhale-ls/codewhale-ls/gate/shellpath"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

// Another agent's call that changes what holds that agent (its hooks and
// settings, the editor settings that choose codewhale-ls's binary or the
// Codewhale release, codewhale-ls itself) is one approval away from
// switching the policy off: Claude's `{"disableAllHooks": true}` in the
// git-ignored .claude/settings.local.json, or `codewhale.server.path` in
// .vscode/settings.json. Codewhale guards its own .codewhale/ this way; for
// other agents codewhale-ls guards theirs: such a call is a forced hold,
// which no rule, session grant or posture passes, so a human decides it
// (docs/agents.md, "The agent's own controls").

// agentControlDirs are directories any file of which can carry an agent's
// hooks or settings, wherever they are (a repository's or the home's).
var agentControlDirs = []string{".claude", ".gemini", ".cursor", ".codex", ".copilot", ".codewhale", ".deepseek", ".vscode"}

// agentControlFiles are single files of the same weight: an MCP server
// list (a server's name chooses its tools' names) and Neovim's project
// configuration.
var agentControlFiles = []string{".mcp.json", ".nvim.lua", ".nvimrc", ".exrc"}

// agentControlBinaries, in a bin directory, answer hooks (codewhale-ls)
// and name the release (codewhale --version). Elsewhere the names are
// ordinary words (a checkout called codewhale).
var agentControlBinaries = []string{"codewhale-ls", "codewhale-ls.exe", "codewhale", "codewhale.exe"}

// agentControlNested are directories guarded only inside a parent of this
// name: Copilot's hooks and settings, VS Code's and Neovim's user
// configuration. The parent alone is guarded too (a move or removal of
// .github takes its hooks with it).
var agentControlNested = map[string][]string{
	".github": {"hooks", "copilot"},
	".config": {"Code", "Code - Insiders", "VSCodium", "code-server", "nvim"},
}

// agentControlSuffix: a VS Code workspace file holds settings too.
const agentControlSuffix = ".code-workspace"

// agentControlPath reports whether p names, or could name once its globs
// and brace lists expand, a guarded location, and which. p is cleaned
// first (`.github/./hooks` is .github/hooks); a brace list too large to
// expand counts as naming one.
func agentControlPath(p string) (string, bool) {
	words, ok := shellpath.Braces(filepath.ToSlash(p), maxGuardBraces)
	if !ok {
		return p, true
	}
	for _, w := range words {
		if guarded, ok := agentControlWord(path.Clean(w)); ok {
			return guarded, true
		}
	}
	return "", false
}

// maxGuardBraces bounds the words one brace-listed path expands to.
const maxGuardBraces = 256

func agentControlWord(p string) (string, bool) {
	root := ""
	if strings.HasPrefix(p, "/") {
		root = "/"
	}
	parts := strings.FieldsFunc(p, func(r rune) bool { return r == '/' })
	for i, part := range parts {
		last := i == len(parts)-1
		if matchesAny(part, agentControlDirs) || (last && (matchesAny(part, agentControlFiles) || strings.HasSuffix(strings.ToLower(part), agentControlSuffix))) ||
			(last && i > 0 && nameMatches(parts[i-1], "bin") && matchesAny(part, agentControlBinaries)) {
			return root + strings.Join(parts[:i+1], "/"), true
		}
		for parent, children := range agentControlNested {
			if nameMatches(part, parent) && (last || matchesAny(parts[i+1], children)) {
				return root + strings.Join(parts[:min(i+2, len(parts))], "/"), true
			}
		}
	}
	return "", false
}

func matchesAny(part string, names []string) bool {
	return slices.ContainsFunc(names, func(n string) bool { return nameMatches(part, n) })
}

// nameMatches: the component is the name, or a shell pattern that could
// expand to it (`.cl*`, `.[c]laude`, `.gemin?`). Case is folded, as on the
// file systems of macOS and Windows.
func nameMatches(part, name string) bool {
	part, name = strings.ToLower(part), strings.ToLower(name)
	if part == name {
		return true
	}
	if !strings.ContainsAny(part, "*?[") {
		return false
	}
	ok, err := path.Match(part, name)
	return ok || err != nil // a pattern the matcher cannot read could match it
}

// agentFiles is why another agent's call that codewhale-ls cannot see
// through (Request.NeedsHuman), or that writes, moves or, for a shell
// command, names an agent's control file, is held for a human (part
// of layer 7, beside the repository law: a forced hold); "" for any other
// call. Codewhale's own calls are not touched.
func (p *plan) agentFiles() string {
	if !p.req.OutsideSandbox {
		return ""
	}
	if p.req.NeedsHuman != "" {
		return p.req.NeedsHuman
	}
	dir := p.req.Workspace
	if cwd, _ := p.input["cwd"].(string); filepath.IsAbs(cwd) {
		dir = cwd
	}
	var candidates []string
	switch {
	case tool.IsShell(p.req.Tool) && p.require == ReqAuto:
		// A command Codewhale knows to be read-only (`cat`, `ls`, `git
		// log`, no redirection) changes nothing it names.
		return ""
	case tool.IsShell(p.req.Tool):
		command, _ := p.input["command"].(string)
		candidates = append(candidates, dir)
		for _, word := range shell.Words(command) {
			// The parts whole as well: literalPathsIn cuts a glob at its
			// first metacharacter, and `.cl*` is what could reach .claude.
			candidates = append(append(candidates, pathParts(word)...), literalPathsIn(word, p.snap.Paths.Home)...)
		}
	case tool.IsFileWrite(p.semantic) || p.semantic == "apply_patch":
		candidates = append(patchfiles.Targets(p.input), moveDestinations(p.input)...)
	default:
		return ""
	}
	// A path met again is answered as it was the first time, and a
	// directory is resolved once: a line of half a million words named
	// the same few paths, and resolved each of them on the disk again.
	checked := map[string]bool{}
	resolved := map[string]linkResolution{}
	for _, c := range candidates {
		if !filepath.IsAbs(c) && !strings.HasPrefix(c, "~") {
			c = filepath.Join(dir, c)
		}
		if checked[c] {
			continue
		}
		checked[c] = true
		// As spelled, and through the links it passes: a repository's
		// `cfg -> .claude` makes cfg/settings.json Claude's settings.
		if guarded, ok := agentControlPath(c); ok {
			return agentFilesReason(guarded)
		}
		if guarded, ok := agentControlPath(throughLinks(c, p.snap.Paths.Home, resolved)); ok {
			return agentFilesReason(guarded + " (through a symbolic link: " + c + ")")
		}
	}
	return ""
}

// agentFilesReason is the hold's reason for a call touching guarded.
func agentFilesReason(guarded string) string {
	return fmt.Sprintf("This call touches %s, where an agent's hooks or settings, or what chooses codewhale-ls and the Codewhale release, live: a change there could switch this policy off, so a human decides it (codewhale-ls guards these for other agents as Codewhale guards .codewhale/).", guarded)
}

// linkResolution is filepath.EvalSymlinks's answer for one path.
type linkResolution struct {
	real string
	err  error
}

// throughLinks is p with the symbolic links of its longest existing
// prefix resolved (`~` read as home), the rest as written; p when nothing
// resolves. resolved (when not nil) remembers each path resolved, for the
// next path of the same decision.
func throughLinks(p, home string, resolved map[string]linkResolution) string {
	if rest, ok := strings.CutPrefix(p, "~"); ok && home != "" && (rest == "" || rest[0] == '/') {
		p = home + rest
	}
	p = filepath.Clean(p)
	evalSymlinks := func(path string) (string, error) {
		if r, ok := resolved[path]; ok {
			return r.real, r.err
		}
		real, err := filepath.EvalSymlinks(path)
		if resolved != nil {
			resolved[path] = linkResolution{real, err}
		}
		return real, err
	}
	for prefix := p; ; prefix = filepath.Dir(prefix) {
		if real, err := evalSymlinks(prefix); err == nil {
			rel, _ := filepath.Rel(prefix, p)
			return filepath.Join(real, rel)
		}
		if filepath.Dir(prefix) == prefix {
			return p
		}
	}
}

// moveDestinations are a patch's `*** Move to:` files, which the agent
// writes although Codewhale's targets leave them out.
func moveDestinations(input map[string]any) []string {
	var out []string
	for _, field := range []string{"patch", "input"} {
		text, _ := input[field].(string)
		for line := range strings.Lines(text) {
			if rest, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "*** Move to: "); ok && strings.TrimSpace(rest) != "" {
				out = append(out, strings.TrimSpace(rest))
			}
		}
	}
	return out
}
