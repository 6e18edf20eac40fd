package config

import (
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
	"github.com/codewhale-ls/codewhale-ls/gate/shellpath"
)

// The sandbox's read deny-list (docs/codewhale/releases/0.10.0.md B.9.2):
// credential stores and .env files no tool may read, in any posture. The
// exact built-in set is only partly named upstream; what is chosen here is
// in docs/codewhale/releases/choices.md (B.9.2).

// builtinReadDenyHome are the built-in rules under the home directory.
var builtinReadDenyHome = []string{
	".ssh", ".gnupg", ".aws", ".config/gcloud", ".azure", ".kube", ".docker/config.json",
	".netrc", ".npmrc", ".pypirc", ".git-credentials", ".config/gh/hosts.yml",
	"Library/Keychains",
	"Library/Application Support/Google/Chrome", "Library/Application Support/Firefox",
	".mozilla/firefox", ".config/google-chrome", ".config/chromium",
	".codewhale/auth.json", ".codewhale/secrets", ".deepseek/auth.json", ".deepseek/secrets",
}

// envFileRule is the built-in rule spelled by file name: `.env` and
// `.env.<anything>` except the templates meant to be committed.
const envFileRule = ".env"

var envTemplates = []string{".env.example", ".env.sample", ".env.template"}

// ReadDenyRule is one path the sandbox refuses to read.
type ReadDenyRule struct {
	// Spelled is the rule as written (`~/.ssh`, `.env`, a configured path).
	Spelled string
	// Path is the absolute, clean path ("" for the .env file-name rule);
	// Resolved is Path with its symlinks resolved, when that differs.
	Path, Resolved string
	// Builtin rules can be exempted; configured ones cannot.
	Builtin bool
}

// ReadDenyList is the effective read deny-list of one snapshot.
type ReadDenyList struct {
	Rules []ReadDenyRule
	// spelled is the rules as written, comma-separated: built once, since
	// every decision's sandbox line quotes it.
	spelled string
}

// buildReadDenyList is the deny-list the settings ask for: the built-in
// rules unless sandbox_read_denylist_defaults = false, minus the rules at
// or below an exempt path, plus every sandbox_denied_read_paths entry.
// Relative configured paths are taken relative to the workspace, where a
// tool's relative path points too.
func buildReadDenyList(s AddedSettings, home, workspace string) ReadDenyList {
	var l ReadDenyList
	if s.SandboxReadDenylistDefaults.Value {
		exempt := func(r ReadDenyRule) bool {
			return slices.ContainsFunc(s.SandboxReadDenylistExempt.Value, func(e string) bool {
				if r.Path == "" {
					return strings.TrimSpace(e) == envFileRule
				}
				p := absolute(e, home, workspace)
				return p != "" && within(r.Path, p)
			})
		}
		for _, rel := range builtinReadDenyHome {
			r := newReadDenyRule("~/"+rel, home, workspace)
			r.Builtin = true
			if !exempt(r) {
				l.Rules = append(l.Rules, r)
			}
		}
		if env := (ReadDenyRule{Spelled: envFileRule, Builtin: true}); !exempt(env) {
			l.Rules = append(l.Rules, env)
		}
	}
	for _, p := range s.SandboxDeniedReadPaths.Value {
		if r := newReadDenyRule(p, home, workspace); r.Path != "" {
			l.Rules = append(l.Rules, r)
		}
	}
	spelled := make([]string, len(l.Rules))
	for i, r := range l.Rules {
		spelled[i] = r.Spelled
	}
	l.spelled = strings.Join(spelled, ", ")
	return l
}

func newReadDenyRule(spelled, home, workspace string) ReadDenyRule {
	r := ReadDenyRule{Spelled: spelled, Path: absolute(spelled, home, workspace)}
	if r.Path != "" {
		if real, err := filepath.EvalSymlinks(r.Path); err == nil && real != r.Path {
			r.Resolved = real
		}
	}
	return r
}

// absolute is p with `~` expanded, made absolute against the workspace
// and cleaned; "" when it cannot be (blank, or relative with no workspace).
func absolute(p, home, workspace string) string {
	u := unclean(p, home, workspace)
	if u == "" || (!filepath.IsAbs(u) && workspace == "") {
		return ""
	}
	return filepath.Clean(u)
}

// unclean is absolute's path before cleaning: `..` must be walked after
// the links before it are resolved, which a lexical clean does not do.
func unclean(p, home, workspace string) string {
	p = expandTilde(strings.TrimSpace(p), home)
	if p == "" || filepath.IsAbs(p) || workspace == "" {
		return p
	}
	return workspace + string(filepath.Separator) + p
}

// caseFolds: the usual macOS and Windows file systems ignore case, so
// there ~/.SSH/id_rsa is the file ~/.ssh/id_rsa.
var caseFolds = runtime.GOOS == "darwin" || runtime.GOOS == "windows"

// within reports whether path is dir or below it; both are clean and
// absolute, so a prefix test ending at a separator is exact.
func within(path, dir string) bool {
	if caseFolds {
		path, dir = strings.ToLower(path), strings.ToLower(dir)
	}
	if !strings.HasPrefix(path, dir) {
		return false
	}
	rest := path[len(dir):]
	return rest == "" || rest[0] == filepath.Separator || strings.HasSuffix(dir, string(filepath.Separator))
}

// Denies returns the first rule that refuses reading path (as a tool
// names it: `~` expands, a relative path is taken in workspace); ok is
// false when none does. A rule matches the path as spelled and as
// resolved through symlinks, so a link to ~/.ssh/id_rsa is refused too.
func (l ReadDenyList) Denies(path, home, workspace string) (ReadDenyRule, bool) {
	if len(l.Rules) == 0 {
		return ReadDenyRule{}, false
	}
	if strings.TrimSpace(path) == "" {
		return ReadDenyRule{}, false
	}
	spelled := absolute(path, home, workspace)
	if spelled == "" {
		// Relative with no workspace to place it: only the file-name
		// rules can judge it, and they still do.
		spelled = filepath.Clean(strings.TrimSpace(path))
	}
	candidates := []string{spelled}
	if filepath.IsAbs(spelled) {
		// Resolved as the kernel walks it: links first, then `..` (the
		// text as spelled, not cleaned, so `up/..` with `up` a link to
		// the parent climbs from where the link points).
		if real, err := filepath.EvalSymlinks(unclean(path, home, workspace)); err == nil && real != spelled {
			candidates = append(candidates, real)
		}
	}
	for _, r := range l.Rules {
		for _, c := range candidates {
			if r.matches(c) {
				return r, true
			}
		}
	}
	return ReadDenyRule{}, false
}

func (r ReadDenyRule) matches(path string) bool {
	if r.Path == "" {
		name := ascii.Lower(filepath.Base(path))
		return (name == envFileRule || strings.HasPrefix(name, envFileRule+".")) && !slices.Contains(envTemplates, name)
	}
	return within(path, r.Path) || (r.Resolved != "" && within(path, r.Resolved))
}

// Spelled is the rules as written, comma-separated, for the sandbox's
// description.
func (l ReadDenyList) Spelled() string { return l.spelled }

// CouldDeny returns the first rule that refuses a path the shell pattern
// p could name (package shellpath: globs, braces, variables), and the
// path it could reach; ok is false when none can. A pattern naming one
// path is judged as Denies judges it, symlinks resolved.
func (l ReadDenyList) CouldDeny(p shellpath.Pattern) (rule ReadDenyRule, reach string, ok bool) {
	if path, plain := p.Path(); plain {
		rule, ok = l.Denies(path, "", "")
		return rule, path, ok
	}
	for _, r := range l.Rules {
		switch {
		case r.Path == "":
			// .env or .env.<anything>; a variable may not supply the `v`.
			if p.NameCould(envFileRule, false, len(envFileRule), caseFolds) || p.NameCould(envFileRule+".", true, len(envFileRule), caseFolds) {
				// The name, in the directory the pattern names.
				return r, filepath.Join(filepath.Dir(p.String()), envFileRule), true
			}
		case p.Within(r.Path, caseFolds):
			return r, r.Path, true
		case r.Resolved != "" && p.Within(r.Resolved, caseFolds):
			return r, r.Resolved, true
		}
	}
	return ReadDenyRule{}, "", false
}

// CouldHold returns the first path rule a recursive read of p (a
// directory it could name, or a path below) could reach lexically: p
// could name the rule's path or a directory above it.
func (l ReadDenyList) CouldHold(p shellpath.Pattern) (ReadDenyRule, bool) {
	for _, r := range l.Rules {
		if r.Path != "" && (p.Holds(r.Path, caseFolds) || (r.Resolved != "" && p.Holds(r.Resolved, caseFolds))) {
			return r, true
		}
	}
	return ReadDenyRule{}, false
}

// HasNameRule reports a rule by file name (.env), which only a look at
// the disk can find below a directory.
func (l ReadDenyList) HasNameRule() bool {
	return slices.ContainsFunc(l.Rules, func(r ReadDenyRule) bool { return r.Path == "" })
}

// DeniesName returns the rule by file name that refuses a file called
// name wherever it is: a walk's cheap test for each entry it meets.
func (l ReadDenyList) DeniesName(name string) (ReadDenyRule, bool) {
	for _, r := range l.Rules {
		if r.Path == "" && r.matches(name) {
			return r, true
		}
	}
	return ReadDenyRule{}, false
}
