package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// knownTopLevel are the user config keys Codewhale reads (docs/codewhale/pipeline.md §11.1);
// any other key is silently ignored by Codewhale.
var knownTopLevel = []string{
	"stop_words", "provider", "api_key", "apiKey", "base_url", "baseUrl", "http_headers", "httpHeaders", "title",
	"default_text_model", "defaultTextModel", "auth_mode", "authMode", "reasoning_effort", "tools", "skills_dir",
	"mcp_config_path", "mcp_oauth_callback_port", "mcp_oauth_callback_url", "notes_path", "memory_path",
	"strict_tool_mode", "instructions", "allow_shell", "prompt_suggestion", "approval_policy", "approvalPolicy",
	"sandbox_mode", "sandboxMode", "telemetry", "fallback_providers", "fallbackProviders", "yolo", "verbosity",
	"sandbox_backend", "sandboxBackend", "sandbox_url", "sandboxUrl", "sandbox_api_key", "sandboxApiKey",
	"prefer_bwrap", "preferBwrap", "bwrap_ro_roots", "bwrapRoRoots", "bwrap_dev_roots", "bwrapDevRoots",
	"managed_config_path", "managedConfigPath", "requirements_path", "requirementsPath", "max_subagents",
	"maxSubagents", "retry", "features", "auto_review", "tui", "transcript", "hooks", "providers", "notifications",
	"approval", "network", "verifier", "advisor", "skills", "snapshots", "search", "goal", "memory", "speech", "auto",
	"hotbar", "update", "lsp", "context", "fleet", "workflow", "subagents", "runtime_api", "workshop", "vision_model",
	"mini_window", "profiles", "projects", "workspace", "telemetry_endpoint", "model",
}

// ValidApprovalPolicies are the values Config::validate accepts.
var ValidApprovalPolicies = []string{"on-request", "untrusted", "never", "auto", "suggest"}

// ValidSandboxModes are the values Config::validate accepts.
var ValidSandboxModes = []string{"read-only", "workspace-write", "danger-full-access", "external-sandbox"}

// UserConfig is what a config.toml (user or managed) says that matters to
// authorization.
type UserConfig struct {
	ApprovalPolicy     Setting
	SandboxMode        Setting
	AllowShell         BoolSetting
	Yolo               BoolSetting
	ManagedPath        Setting
	RequirementsPath   Setting
	DefaultSelection   string
	Hooks              *tomldoc.TableValue
	AutoReview         *tomldoc.TableValue
	Projects           *tomldoc.TableValue
	WorkspaceEntries   *tomldoc.TableValue
	hasManagedOrReqKey bool
	AddedSettings
}

// first returns the entry of the first alias present.
func first(t *tomldoc.TableValue, names ...string) *tomldoc.Entry {
	for _, n := range names {
		if e := t.Get(n); e != nil {
			return e
		}
	}
	return nil
}

// readUserConfig extracts the settings of a parsed config.toml; fatal
// problems (the ones that stop Codewhale) are errors in f.
func readUserConfig(f *File, doc *tomldoc.Doc, source string, r release.Release) UserConfig {
	var c UserConfig
	if doc == nil {
		return c
	}
	root := doc.Root
	c.ApprovalPolicy = stringSetting(f, root, source, "approval_policy", "approvalPolicy")
	c.SandboxMode = stringSetting(f, root, source, "sandbox_mode", "sandboxMode")
	c.ManagedPath = stringSetting(f, root, source, "managed_config_path", "managedConfigPath")
	c.RequirementsPath = stringSetting(f, root, source, "requirements_path", "requirementsPath")
	c.hasManagedOrReqKey = c.ManagedPath.Set || c.RequirementsPath.Set
	c.AllowShell = boolSetting(f, root, source, "allow_shell")
	c.Yolo = boolSetting(f, root, source, "yolo")
	c.Hooks = table(f, root, "hooks")
	c.AutoReview = table(f, root, "auto_review")
	c.Projects = table(f, root, "projects")
	c.WorkspaceEntries = table(f, root, "workspace")
	if approval := table(f, root, "approval"); approval != nil {
		if v, e, ok := approval.String("default_selection"); ok {
			c.DefaultSelection = v
		} else if e != nil {
			f.add(problem.InvalidValue, problem.Error, e.Value.Span, "Codewhale refuses to start: [approval] default_selection must be a string")
		}
	}
	if r.Has(release.AddedConfigKeys) {
		c.AddedSettings = readAddedSettings(f, root, source)
	}
	checkNestedAddedKeys(f, root, r)
	if r.Has(release.RemovedConfigKeys) {
		reportRemovedKeys(f, root)
	}
	known := knownTopLevelIn(r)
	for _, e := range root.Entries {
		if !slices.Contains(known, e.Key) {
			f.add(problem.UnknownKey, problem.Warning, e.KeySpan, fmt.Sprintf("Codewhale silently ignores the unknown key `%s`%s", e.Key, problem.DidYouMean(e.Key, known)))
		}
	}
	for _, nest := range []string{"general", "sandbox"} {
		t, _ := root.Sub(nest)
		for _, k := range []string{"allow_shell", "sandbox_mode", "approval_policy", "verbosity"} {
			if e := t.Get(k); e != nil {
				f.add(problem.SettingNested, problem.Warning, e.KeySpan, fmt.Sprintf("Codewhale silently drops [%s] %s: move it to the top of the file, before any table", nest, k))
			}
		}
	}
	return c
}

func stringSetting(f *File, t *tomldoc.TableValue, source string, names ...string) Setting {
	e := first(t, names...)
	if e == nil {
		return Setting{}
	}
	if e.Value.Kind != tomldoc.String {
		f.add(problem.InvalidValue, problem.Error, e.Value.Span, fmt.Sprintf("Codewhale refuses to start: %s must be a string, not %s", e.Key, e.Value.Kind))
		return Setting{}
	}
	return Setting{Value: e.Value.Str, Set: true, Source: source, File: f.Path, Span: e.Value.Span}
}

func boolSetting(f *File, t *tomldoc.TableValue, source, name string) BoolSetting {
	e := t.Get(name)
	if e == nil {
		return BoolSetting{}
	}
	if e.Value.Kind != tomldoc.Bool {
		f.add(problem.InvalidValue, problem.Error, e.Value.Span, fmt.Sprintf("Codewhale refuses to start: %s must be true or false, not %s", name, e.Value.Kind))
		return BoolSetting{}
	}
	return BoolSetting{Value: e.Value.Bool, Set: true, Source: source}
}

func table(f *File, t *tomldoc.TableValue, name string) *tomldoc.TableValue {
	sub, e := t.Sub(name)
	if e != nil && sub == nil {
		f.add(problem.InvalidValue, problem.Error, e.Value.Span, fmt.Sprintf("Codewhale refuses to start: %s must be a table, not %s", name, e.Value.Kind))
	}
	return sub
}

// validate applies Config::validate to the merged values (docs/codewhale/pipeline.md §1.1
// step 6): an approval_policy or sandbox_mode outside the accepted sets
// stops Codewhale.
func validate(approval, sandbox Setting) []string {
	var fatal []string
	if approval.Set && !slices.Contains(ValidApprovalPolicies, ascii.Lower(strings.TrimSpace(approval.Value))) {
		fatal = append(fatal, fmt.Sprintf("approval_policy %q from %s is not one of %s", approval.Value, approval.Source, strings.Join(ValidApprovalPolicies, ", ")))
	}
	if sandbox.Set && !slices.Contains(ValidSandboxModes, ascii.Lower(strings.TrimSpace(sandbox.Value))) {
		fatal = append(fatal, fmt.Sprintf("sandbox_mode %q from %s is not one of %s", sandbox.Value, sandbox.Source, strings.Join(ValidSandboxModes, ", ")))
	}
	return fatal
}

// canonical resolves a path for comparison the way Codewhale canonicalises
// workspace keys: tilde-expanded, absolute, symlinks resolved when possible.
func canonical(p, home string) string {
	p = expandTilde(p, home)
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return filepath.Clean(p)
}

// projectEntry finds the [projects."<path>"] (or [workspace."<path>"]) table
// naming this workspace.
func projectEntry(t *tomldoc.TableValue, workspace, home string) *tomldoc.TableValue {
	if t == nil || workspace == "" {
		return nil
	}
	want := canonical(workspace, home)
	for _, e := range t.Entries {
		if e.Value.Kind == tomldoc.Table && canonical(e.Key, home) == want {
			return e.Value.Table
		}
	}
	return nil
}

// trusted reports `trust_level = "trusted"` (case-insensitive) for the
// workspace in the user config, also under a nested extras table.
func trusted(c UserConfig, workspace, home string) bool {
	entry := projectEntry(c.Projects, workspace, home)
	if entry == nil {
		return false
	}
	for _, t := range []*tomldoc.TableValue{entry, subOrNil(entry, "extras")} {
		if v, _, ok := t.String("trust_level"); ok && strings.EqualFold(strings.TrimSpace(v), "trusted") {
			return true
		}
	}
	return false
}

func subOrNil(t *tomldoc.TableValue, key string) *tomldoc.TableValue {
	s, _ := t.Sub(key)
	return s
}
