package diagnostics

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/agents/install"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// Input is what to lint: the files of one user and one workspace, with
// open editor buffers standing in for their contents (Options.Buffers).
type Input struct {
	Options config.Options
	// Baseline returns the version of a file an edit is compared with for
	// CW500 (the git HEAD version, else the disk version when the file was
	// opened); ok is false when there is none.
	Baseline func(path string) (src []byte, ok bool)
	// Codewhale is the user's Codewhale release as chosen (CW900).
	Codewhale release.Choice
	// CI is a run in continuous integration (InCI), which checks the
	// repository and has no home to hook: files outside the repository
	// (RepositoryOf the workspace) and findings about this machine rather
	// than the repository (CW700 for an agent with no user-level hook,
	// machineCodes) are left out.
	CI bool
	// Ignore are codes left out everywhere (`check --ignore`).
	Ignore []problem.Code
	// Only, when not empty, are the absolute paths of the files to lint
	// (`check FILE...`): the only files reported, and with their context
	// (readsFor) the only files read. Empty: every file.
	Only []string
}

// machineCodes are the codes whose every finding is about this machine's
// user files rather than the repository: CW303 says the user config does
// not trust the workspace, or this machine has not approved the bytes of
// its hooks.toml. A CI run leaves them out.
var machineCodes = []problem.Code{problem.ProjectHooksNotLoaded}

// postureFiles decide the effective approval policy, sandbox, shell and
// workspace trust that every TOML policy file's findings are judged
// against (CW100 compares the overlay with the user's value, CW202 needs
// the effective approval_policy, CW303 the trust): they are read as
// context for any TOML file named, and reported only when named.
var postureFiles = []config.Kind{config.KindUserConfig, config.KindManaged, config.KindRequirements, config.KindSettings, config.KindOverlay}

// readsFor is what linting only the named files reads: each named
// Codewhale file, the posture files when one of them is TOML (a
// constitution.json stands alone), and whether another agent's settings
// are named (otherAgents then reads the agents' files that say whether
// each agent is hooked). permissions.toml, hooks.toml and
// constitution.json are never read for another file's sake. A path the
// files cannot be resolved for reads nothing: the load then reports why.
func readsFor(opts config.Options, named []string) (kinds map[config.Kind]bool, agents bool) {
	kinds = map[config.Kind]bool{}
	paths, err := config.ResolvePaths(opts)
	if err != nil {
		return kinds, false
	}
	for _, path := range named {
		kind, ok := KindOf(paths, path)
		if !ok {
			agents = true
			continue
		}
		kinds[kind] = true
		if kind != config.KindConstitution {
			for _, k := range postureFiles {
				kinds[k] = true
			}
		}
	}
	return kinds, agents
}

// FileResult is every finding in one file.
type FileResult struct {
	Path     string
	Kind     config.Kind
	State    config.FileState
	Src      []byte
	Problems []problem.Problem
	// Doc is the loader's TOML tree of Src (config.File.Doc).
	Doc *tomldoc.Doc
}

// Result is one lint of a user's and a workspace's policy files.
type Result struct {
	Snapshot *config.Snapshot
	Files    []*FileResult
}

// File returns the result for path, or nil.
func (r *Result) File(path string) *FileResult {
	for _, f := range r.Files {
		if f.Path == path {
			return f
		}
	}
	return nil
}

// linters add the findings that need more than one file's loader: the
// semantic lints of permissions.toml, the startup checks of config.toml,
// and quick fixes for the loaders' own problems.
var linters = []func(snap *config.Snapshot, out map[string]*FileResult){
	lintPermissions,
	lintConfig,
	addLoaderFixes,
}

// otherAgents are the other agents' hooks files that get CW700 in the
// workspace (docs/agents.md): an agent whose tool calls codewhale-ls's
// hook does not govern. They are not Codewhale's files (no Kind), but the
// user fixes them as they fix a policy file, so the CLI and the editor
// report them with the rest.
func otherAgents(opts config.Options, ci bool) []*FileResult {
	if opts.Workspace == "" {
		return nil
	}
	byPath := map[string]*FileResult{}
	var out []*FileResult
	for _, f := range install.Unhooked(opts.Workspace, opts.Env) {
		if ci && f.AboutThisMachine {
			continue
		}
		path := f.Problem.File
		fr := byPath[path]
		if fr == nil {
			fr = &FileResult{Path: path, Src: f.Src}
			byPath[path] = fr
			out = append(out, fr)
		}
		fr.Problems = append(fr.Problems, f.Problem)
	}
	return out
}

// Check loads the files as Codewhale would, adds the semantic lints, the
// loosening check against the baseline and the other agents' unhooked
// settings (CW700), and drops what `# codewhale-ls: ignore CODE` comments
// silence, what in.Ignore names, and in a CI run what is not the
// repository's.
func Check(in Input) *Result {
	// The release chosen decides how the files load and what the lints say.
	in.Options.Release = in.Codewhale.Implementation()
	agents := true
	if len(in.Only) > 0 {
		in.Options.Kinds, agents = readsFor(in.Options, in.Only)
	}
	snap := config.Load(in.Options)
	res := &Result{Snapshot: snap}
	byPath := map[string]*FileResult{}
	for _, f := range snap.Files {
		if f.State == config.Missing {
			if _, open := in.Options.Buffers[f.Path]; !open {
				continue
			}
		}
		fr := &FileResult{Path: f.Path, Kind: f.Kind, State: f.State, Src: f.Src, Doc: f.Doc, Problems: append([]problem.Problem(nil), f.Problems...)}
		byPath[f.Path] = fr
		res.Files = append(res.Files, fr)
	}
	for _, lint := range linters {
		lint(snap, byPath)
	}
	if in.Baseline != nil {
		res.Files = append(res.Files, lintLoosening(in, snap, byPath)...)
	}
	lintRelease(in.Codewhale, res.Files)
	if agents {
		res.Files = append(res.Files, otherAgents(in.Options, in.CI)...)
	}
	if len(in.Only) > 0 {
		res.Files = slices.DeleteFunc(res.Files, func(f *FileResult) bool { return !slices.Contains(in.Only, f.Path) })
	}
	if in.CI {
		repo := RepositoryOf(in.Options.Workspace)
		res.Files = slices.DeleteFunc(res.Files, func(f *FileResult) bool { _, inRepo := relativeTo(repo, f.Path); return !inRepo })
	}
	for _, fr := range res.Files {
		placeWholeFile(fr)
		fr.Problems = dropIgnored(fr.Src, fr.Problems)
		fr.Problems = slices.DeleteFunc(fr.Problems, func(p problem.Problem) bool {
			return slices.Contains(in.Ignore, p.Code) || in.CI && slices.Contains(machineCodes, p.Code)
		})
		for i := range fr.Problems {
			fr.Problems[i].File = fr.Path
		}
		sort.SliceStable(fr.Problems, func(i, j int) bool { return fr.Problems[i].Span.Start < fr.Problems[j].Span.Start })
	}
	sort.Slice(res.Files, func(i, j int) bool { return res.Files[i].Path < res.Files[j].Path })
	return res
}

// InCI says whether the process runs in continuous integration, by the
// variables the services set: CI (GitHub Actions, GitLab CI and most
// others set it to true), GITHUB_ACTIONS, GITLAB_CI.
func InCI(getenv func(string) string) bool {
	for _, name := range []string{"CI", "GITHUB_ACTIONS", "GITLAB_CI"} {
		if v := strings.ToLower(getenv(name)); v == "true" || v == "1" {
			return true
		}
	}
	return false
}

// ParseCodes reads a comma-separated list of codes (`--ignore CW700,CW205`);
// a word that is no code of the table problem.Codes is an error naming it.
func ParseCodes(list string) ([]problem.Code, error) {
	var codes []problem.Code
	for _, word := range strings.Split(list, ",") {
		code := problem.Code(strings.ToUpper(strings.TrimSpace(word)))
		if _, ok := code.Info(); !ok {
			return nil, fmt.Errorf("%q is no codewhale-ls code (docs/diagnostics.md lists them)", strings.TrimSpace(word))
		}
		codes = append(codes, code)
	}
	return codes, nil
}
