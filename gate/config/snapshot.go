package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/codewhale-ls/codewhale-ls/gate/autoreview"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/hooks"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/repolaw"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// Snapshot is every policy file of one user and one workspace, loaded once
// and never changed: a decision reads exactly one snapshot, so it can never
// see half of an edit.
type Snapshot struct {
	// Release is the Codewhale release the snapshot was loaded as: every
	// release-dependent behaviour of the loaders and the gate asks it, so a
	// decision reads one release as it reads one set of files.
	Release release.Release
	Paths   Paths
	Policy  Policy
	// Files are every file the load looked at, in a stable order.
	Files []*File
	// engine is compiled from Permissions on first use: linting never
	// needs it, deciding always does.
	engine     *execpolicy.Engine
	engineOnce sync.Once
	// Permissions is the parsed permissions.toml (nil when missing or
	// unreadable), kept for linters that reason about its rules.
	Permissions *execpolicy.File
	// PermissionsSaveRefused is why Codewhale refuses approval saves to
	// permissions.toml ("" when it would save): the file or its lock file
	// is a symlink or not a regular file.
	PermissionsSaveRefused string
	Hooks                  hooks.Config
	AutoReview             autoreview.Config
	Law                    repolaw.Law
	Trusted                bool
	// ProjectHooksLoaded says whether the project hooks.toml counted.
	ProjectHooksLoaded bool
	// ProjectHooksStatus says why it did not (hookapproval.go).
	ProjectHooksStatus ProjectHooksStatus

	buffers Buffers
	kinds   map[Kind]bool // Options.Kinds
}

// reads says whether the load reads files of kind (Options.Kinds).
func (s *Snapshot) reads(kind Kind) bool { return s.kinds == nil || s.kinds[kind] }

// readTOML is parseTOML for a kind the load reads, else a
// missing file.
func (s *Snapshot) readTOML(kind Kind, path string) *File {
	if !s.reads(kind) {
		return &File{Kind: kind, Path: path, State: Missing}
	}
	return parseTOML(s.buffers, kind, path)
}

// Engine is the compiled typed-rule engine of the accepted permissions.toml
// (an empty engine when it is missing or rejected).
func (s *Snapshot) Engine() *execpolicy.Engine {
	s.engineOnce.Do(func() {
		if s.Permissions != nil && s.Permissions.Accepted {
			s.engine = execpolicy.NewEngineFromFile(s.Permissions, execpolicy.WithRelease(s.Release))
		} else {
			s.engine = execpolicy.NewEngine(nil, execpolicy.WithRelease(s.Release))
		}
	})
	return s.engine
}

// Fatal lists why Codewhale would refuse to start with these files.
func (s *Snapshot) Fatal() []string { return s.Policy.Fatal }

// File returns the loaded file of a kind, or nil.
func (s *Snapshot) File(kind Kind) *File {
	for _, f := range s.Files {
		if f.Kind == kind {
			return f
		}
	}
	return nil
}

// Load reads every file of docs/codewhale/contract.md §1 for opts and builds a snapshot.
// It never fails: what Codewhale would refuse to start with is recorded in
// Policy.Fatal (and turns every decision into a deny), and every problem is
// kept on its file.
func Load(opts Options) *Snapshot {
	s := &Snapshot{Release: opts.Release, buffers: opts.Buffers, kinds: opts.Kinds}
	paths, err := ResolvePaths(opts)
	s.Paths = paths
	if err != nil {
		s.Policy.Fatal = append(s.Policy.Fatal, err.Error())
		return s
	}
	env := opts.Env
	if env == nil {
		env = OSEnv{}
	}

	userFile := s.readTOML(KindUserConfig, paths.Config)
	userDoc := userFile.Doc
	s.Files = append(s.Files, userFile)
	s.fatalFromFile(userFile, "failed to load config "+quote(paths.Config))
	user := readUserConfig(userFile, userDoc, "config.toml", opts.Release)
	s.fatalFromProblems(userFile, "config.toml")

	merged := user
	approvalFromEnv := applyEnv(&merged, env, opts.Release)

	managedPath := paths.Managed
	if user.ManagedPath.Set {
		managedPath = expandTilde(user.ManagedPath.Value, paths.Home)
	}
	managedFile := s.readTOML(KindManaged, managedPath)
	managedDoc := managedFile.Doc
	managed := readUserConfig(managedFile, managedDoc, "managed config", opts.Release)
	managedUnreadable := managedFile.State == Invalid
	if managedFile.State != Missing {
		s.Files = append(s.Files, managedFile)
	}
	mergeManaged(&merged, managed)

	reqPath := paths.Requirements
	if user.RequirementsPath.Set {
		reqPath = expandTilde(user.RequirementsPath.Value, paths.Home)
	}
	reqFile := s.readTOML(KindRequirements, reqPath)
	reqDoc := reqFile.Doc
	reqs := readRequirements(reqFile, reqDoc)
	if reqFile.State != Missing {
		s.Files = append(s.Files, reqFile)
		s.fatalFromFile(reqFile, "failed to load requirements "+quote(reqPath))
		// Wrong types do not deserialize either: Codewhale cannot apply
		// the requirements, so it does not start (fail closed).
		s.fatalFromProblems(reqFile, "requirements")
	}
	reqFatal, reqChanged := reqs.check(merged.ApprovalPolicy, merged.SandboxMode, opts.Release)
	s.Policy.Fatal = append(s.Policy.Fatal, reqFatal...)
	if reqChanged {
		s.Policy.FatalChanges = append(s.Policy.FatalChanges, release.StricterRequirements)
	}
	s.Policy.Fatal = append(s.Policy.Fatal, validate(merged.ApprovalPolicy, merged.SandboxMode)...)

	// The user's [workspace."<abs>"] allow_shell, unless managed settings
	// own the config or the environment already decided.
	if v, ok := workspaceShell(user, opts.Workspace, paths.Home); ok && !user.hasManagedOrReqKey && !strings.HasPrefix(merged.AllowShell.Source, "CODEWHALE_") && !strings.HasPrefix(merged.AllowShell.Source, "DEEPSEEK_") {
		merged.AllowShell = BoolSetting{Value: v, Set: true, Source: "config.toml workspace entry"}
	}

	settingsFile := s.readTOML(KindSettings, paths.Settings)
	settingsDoc := settingsFile.Doc
	if settingsFile.State != Missing {
		s.Files = append(s.Files, settingsFile)
	}
	saved := savedPosture(settingsFile, settingsDoc)

	overlay := Overlay{Path: paths.Overlay}
	var overlayFile *File
	if s.reads(KindOverlay) {
		overlayFile, overlay = loadOverlay(opts.Buffers, paths, merged.ApprovalPolicy, merged.SandboxMode, saved, opts.Release)
	}
	if overlayFile != nil {
		s.Files = append(s.Files, overlayFile)
	}
	p := &s.Policy
	p.ApprovalPolicy, p.SandboxMode, p.AllowShell = merged.ApprovalPolicy, merged.SandboxMode, merged.AllowShell
	p.Yolo = merged.Yolo.Value
	p.SavedPosture, p.Overlay = saved, overlay
	if opts.Release.Has(release.AddedConfigKeys) {
		p.AddedSettings = merged.AddedSettings.withDefaults(opts.Release)
	}
	if opts.Release.Has(release.ReadDenyList) {
		p.ReadDenyList = buildReadDenyList(p.AddedSettings, paths.Home, paths.Workspace)
	}
	if overlay.ApprovalPolicy.Set {
		p.ApprovalPolicy = overlay.ApprovalPolicy
	}
	if overlay.SandboxMode.Set {
		p.SandboxMode = overlay.SandboxMode
	}
	if overlay.ShellOff {
		p.AllowShell = BoolSetting{Value: false, Set: true, Source: "project config"}
	}
	if reqs.Present && reqFile.State != Invalid && reqs.locksPosture(opts.Release) && !reqs.locksPosture(release.Oldest()) {
		p.LockChanges = append(p.LockChanges, release.StricterRequirements)
	}
	resolvePosture(p, approvalSource(reqs, reqFile.State == Invalid, overlay, managed, managedUnreadable, approvalFromEnv, user, opts.Release))

	s.loadPermissions()
	s.loadHooks(userFile, merged.Hooks, opts.Workspace, user)
	s.loadAutoReview(userFile, merged.AutoReview)
	s.loadLaw(opts.Workspace)
	return s
}

func quote(p string) string { return fmt.Sprintf("%q", p) }

// fatalFromFile: a file that cannot be read or parsed stops Codewhale. The
// reason never quotes the file's contents.
func (s *Snapshot) fatalFromFile(f *File, what string) {
	if f.State == Invalid {
		s.Policy.Fatal = append(s.Policy.Fatal, what+"; file contents were omitted")
	}
}

// fatalFromProblems: errors found while reading a loaded config stop
// Codewhale too (wrong types are serde failures).
func (s *Snapshot) fatalFromProblems(f *File, name string) {
	if f.State != Loaded {
		return
	}
	for _, pr := range f.Problems {
		if pr.Severity == problem.Error {
			s.Policy.Fatal = append(s.Policy.Fatal, fmt.Sprintf("%s is invalid: %s", name, pr.Message))
			f.State = Invalid
			return
		}
	}
}

func (s *Snapshot) loadPermissions() {
	if !s.reads(KindPermissions) {
		return
	}
	path := s.Paths.Permissions
	f := &File{Kind: KindPermissions, Path: path, State: Missing}
	s.Files = append(s.Files, f)
	s.PermissionsSaveRefused = saveRefusal(path)
	// The TUI start-up loader reads through a symlink; the config crate's
	// loader refuses one. Decisions follow the TUI; diagnostics say so.
	src, err := s.buffers.readThrough(path)
	if os.IsNotExist(err) {
		return
	}
	if err != nil {
		f.State = Invalid
		f.add(problem.FileRejected, problem.Error, problem.Span{}, "Codewhale refuses to start: cannot read "+path+": "+err.Error())
		s.Policy.Fatal = append(s.Policy.Fatal, fmt.Sprintf("Failed to parse permissions file %q; file contents were omitted", path))
		return
	}
	f.Src = src
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		f.add(problem.FileRejected, problem.Warning, problem.Span{}, "permissions.toml is a symlink: Codewhale's TUI reads through it, but its app-server, /permissions and approval saves refuse it (\"must not be a symlink\")")
	}
	pf, problems := execpolicy.ParseFile(src)
	s.Permissions, f.Doc = pf, pf.Doc
	for i := range problems {
		problems[i].File = path
	}
	f.Problems = append(f.Problems, problems...)
	if !pf.Accepted {
		f.State = Invalid
		s.Policy.Fatal = append(s.Policy.Fatal, fmt.Sprintf("Failed to parse permissions file %q; file contents were omitted", path))
		return
	}
	f.State = Loaded
}

// saveRefusal is why an "always" rule cannot be saved to the
// permissions.toml at path, or "". Only what the files are counts here; the
// writer checks again when it writes. A save writes a temporary file
// beside the file and renames it over, so the folder must be writable
// too, as must the file and its lock where they exist.
func saveRefusal(path string) string {
	for _, p := range []string{path, path + ".lock"} {
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
		case fi.Mode()&os.ModeSymlink != 0:
			return filepath.Base(p) + " is a symlink, and Codewhale refuses approval saves through one (add the rule to the file it points to yourself)"
		case !fi.Mode().IsRegular():
			return filepath.Base(p) + " is not a regular file"
		case !writable(p):
			return filepath.Base(p) + " is not writable"
		}
	}
	if dir := filepath.Dir(path); !writable(dir) {
		return "the folder holding permissions.toml (" + dir + ") is not writable"
	}
	return ""
}

func (s *Snapshot) loadHooks(userFile *File, table *tomldoc.TableValue, workspace string, user UserConfig) {
	global := hooks.Config{Enabled: true, Release: s.Release}
	if table != nil {
		var problems []problem.Problem
		global, problems = hooks.FromUserConfig(table, s.Release)
		for i := range problems {
			problems[i].File = userFile.Path
		}
		userFile.Problems = append(userFile.Problems, problems...)
		if global.Rejected {
			s.Policy.Fatal = append(s.Policy.Fatal, "config.toml [hooks] does not parse; file contents were omitted")
		}
	}
	s.Hooks = global
	s.Trusted = trusted(user, workspace, s.Paths.Home)
	if s.Paths.ProjectHooks == "" || !s.reads(KindProjectHooks) {
		return
	}
	f := parseTOML(s.buffers, KindProjectHooks, s.Paths.ProjectHooks)
	doc := f.Doc
	if f.State == Missing {
		return
	}
	s.Files = append(s.Files, f)
	if !s.Trusted {
		s.ProjectHooksStatus = ProjectHooksStatus{State: ProjectHooksUntrusted, Why: "the workspace is not trusted"}
		f.add(problem.ProjectHooksNotLoaded, problem.Info, problem.Span{}, "project hooks.toml is not loaded: the workspace is not trusted in the user config ([projects.\""+workspace+"\"] trust_level = \"trusted\")")
		return
	}
	if !s.projectHooksApproved(f, userFile) {
		if doc != nil {
			s.ProjectHooksStatus.Withheld, _ = hooks.FromProjectFile(doc, release.Oldest())
			// Unapproved, its hooks do not run, but what is wrong with
			// them still shows, so the file can be fixed before approval.
			_, problems := hooks.FromProjectFile(doc, s.Release)
			for i := range problems {
				problems[i].File = f.Path
			}
			f.Problems = append(f.Problems, problems...)
		}
		return
	}
	if doc == nil {
		s.ProjectHooksStatus.State, s.ProjectHooksStatus.Why = ProjectHooksRejected, "the file cannot be read as TOML"
		for i := range f.Problems {
			f.Problems[i].Message += " — Codewhale drops all project hooks"
		}
		return
	}
	project, problems := hooks.FromProjectFile(doc, s.Release)
	for i := range problems {
		problems[i].File = f.Path
	}
	f.Problems = append(f.Problems, problems...)
	if project.Rejected {
		s.ProjectHooksStatus.State, s.ProjectHooksStatus.Why = ProjectHooksRejected, "the file does not parse as a whole"
		f.State = Invalid
		return
	}
	s.Hooks = hooks.Combine(global, project)
	s.ProjectHooksLoaded = true
	s.ProjectHooksStatus.State = ProjectHooksLoaded
}

func (s *Snapshot) loadLaw(workspace string) {
	if workspace == "" || !s.reads(KindConstitution) {
		return
	}
	path, found := repolaw.Find(workspace)
	if !found {
		// A buffer for a file not on disk counts as present, as for the
		// TOML files (a baseline of a constitution.json since deleted).
		for _, candidate := range repolaw.Candidates(workspace) {
			if _, open := s.buffers[candidate]; open {
				path, found = candidate, true
				break
			}
		}
	}
	if !found {
		return
	}
	buffer, open := s.buffers[path]
	law, problems, src := repolaw.Load(path, buffer, open)
	f := &File{Kind: KindConstitution, Path: path, State: Loaded, Src: src, Problems: problems}
	for _, pr := range problems {
		// Only errors mean "zero rules"; a dropped glob (CW400 warning)
		// leaves the other rules in force.
		if pr.Severity == problem.Error && (pr.Code == problem.ConstitutionIgnored || pr.Code == problem.SyntaxError) {
			f.State = Invalid
		}
	}
	s.Files = append(s.Files, f)
	s.Law = law
}
