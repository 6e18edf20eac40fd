package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// AddedSettings are the user config keys release.AddedConfigKeys brought
// (Codewhale 0.10.0: docs/codewhale/releases/0.10.0.md B.1, B.11). Loaded
// as a release without that change every field is unset and zero; loaded
// as one with it the unset ones hold Codewhale's defaults (Source
// "default").
type AddedSettings struct {
	// SandboxNetworkAccess gives workspace-write and external sandboxes
	// the network (B.9.1); default false.
	SandboxNetworkAccess BoolSetting
	// SandboxReadDenylistDefaults turns the built-in credential read
	// deny-list on (B.9.2); default true.
	SandboxReadDenylistDefaults BoolSetting
	// SandboxDeniedReadPaths are extra denied read paths, as written (`~`
	// expands when the deny-list is built); they cannot be exempted.
	SandboxDeniedReadPaths ListSetting
	// SandboxReadDenylistExempt removes the built-in rules at or below
	// each path, as written; `.env` exempts the .env rule by file name.
	SandboxReadDenylistExempt ListSetting
	// ApprovalTimeoutSeconds is [approval] timeout_seconds: 0 (or unset)
	// waits forever, anything else is clamped to 24 h; an unanswered
	// approval then denies.
	ApprovalTimeoutSeconds IntSetting
	// UserInputTimeoutSeconds is [tools] user_input_timeout_seconds:
	// default 300, 0 waits forever, clamped to 24 h.
	UserInputTimeoutSeconds IntSetting
	// UserInputMaxQuestions and UserInputMaxOptions bound
	// request_user_input: 1..=10 (default 6) and 2..=10 (default 4).
	UserInputMaxQuestions IntSetting
	UserInputMaxOptions   IntSetting
	// CodeMode is [features] code_mode, which registers execute_tools:
	// off by default in 0.10.0, on in 0.10.1 (Part D.12).
	CodeMode BoolSetting
	// ProjectInstructionImports only shapes the prompt; read so that its
	// type is checked as Codewhale checks it.
	ProjectInstructionImports ListSetting
}

// addedTopLevel are the top-level config.toml keys of release.AddedConfigKeys.
var addedTopLevel = []string{
	"sandbox_network_access", "sandbox_read_denylist_defaults", "sandbox_denied_read_paths",
	"sandbox_read_denylist_exempt", "project_instruction_imports", "compaction",
}

// knownTopLevelIn is the top-level keys release r reads.
func knownTopLevelIn(r release.Release) []string {
	if r.Has(release.AddedConfigKeys) {
		return slices.Concat(knownTopLevel, addedTopLevel)
	}
	return knownTopLevel
}

// maxWaitSeconds is the 24 h Codewhale clamps its waits to.
const maxWaitSeconds = 24 * 60 * 60

// intRange is an integer key's accepted range and default.
type intRange struct {
	table, key       string
	min, max, def    int64
	zeroMeansForever bool
}

var (
	approvalTimeout  = intRange{table: "approval", key: "timeout_seconds", min: 0, max: maxWaitSeconds, def: 0, zeroMeansForever: true}
	userInputTimeout = intRange{table: "tools", key: "user_input_timeout_seconds", min: 0, max: maxWaitSeconds, def: 300, zeroMeansForever: true}
	userInputMaxQ    = intRange{table: "tools", key: "user_input_max_questions", min: 1, max: 10, def: 6}
	userInputMaxO    = intRange{table: "tools", key: "user_input_max_options", min: 2, max: 10, def: 4}
)

// readAddedSettings reads the keys of AddedSettings from a parsed config
// (user or managed). A wrong type is an error, as serde's is (Codewhale
// refuses to start); a number out of range is clamped with a warning.
func readAddedSettings(f *File, root *tomldoc.TableValue, source string) AddedSettings {
	var s AddedSettings
	s.SandboxNetworkAccess = boolSetting(f, root, source, "sandbox_network_access")
	s.SandboxReadDenylistDefaults = boolSetting(f, root, source, "sandbox_read_denylist_defaults")
	s.SandboxDeniedReadPaths = listSetting(f, root, source, "sandbox_denied_read_paths")
	s.SandboxReadDenylistExempt = listSetting(f, root, source, "sandbox_read_denylist_exempt")
	s.ProjectInstructionImports = listSetting(f, root, source, "project_instruction_imports")
	approval, _ := root.Sub("approval") // readUserConfig checks its type
	tools := table(f, root, "tools")
	s.ApprovalTimeoutSeconds = intSetting(f, approval, source, approvalTimeout)
	s.UserInputTimeoutSeconds = intSetting(f, tools, source, userInputTimeout)
	s.UserInputMaxQuestions = intSetting(f, tools, source, userInputMaxQ)
	s.UserInputMaxOptions = intSetting(f, tools, source, userInputMaxO)
	if features := table(f, root, "features"); features != nil {
		s.CodeMode = boolSetting(f, features, source, "code_mode")
	}
	table(f, root, "compaction") // only its type matters to authorization
	return s
}

func listSetting(f *File, t *tomldoc.TableValue, source, name string) ListSetting {
	if t.Get(name) == nil {
		return ListSetting{}
	}
	list := stringList(f, t, name)
	if list == nil {
		list = []string{}
	}
	return ListSetting{Value: list, Set: true, Source: source}
}

// intSetting reads [r.table] r.key.
func intSetting(f *File, t *tomldoc.TableValue, source string, r intRange) IntSetting {
	e := t.Get(r.key)
	if e == nil {
		return IntSetting{}
	}
	name := fmt.Sprintf("[%s] %s", r.table, r.key)
	if e.Value.Kind != tomldoc.Integer || e.Value.Int < 0 {
		got := e.Value.Kind.String()
		if e.Value.Kind == tomldoc.Integer {
			got = e.Value.Raw
		}
		f.add(problem.InvalidValue, problem.Error, e.Value.Span, fmt.Sprintf("Codewhale refuses to start: %s must be a non-negative integer, not %s", name, got))
		return IntSetting{}
	}
	v := e.Value.Int
	switch {
	case v > r.max:
		f.add(problem.InvalidValue, problem.Warning, e.Value.Span, fmt.Sprintf("%s = %d is above %d: Codewhale uses %d", name, v, r.max, r.max))
		v = r.max
	case v < r.min:
		f.add(problem.InvalidValue, problem.Warning, e.Value.Span, fmt.Sprintf("%s = %d is below %d: Codewhale uses %d", name, v, r.min, r.min))
		v = r.min
	}
	return IntSetting{Value: v, Set: true, Source: source}
}

// mergeManaged is mergeManaged for the added keys: a key the managed
// config sets replaces the user's.
func (s *AddedSettings) mergeManaged(m AddedSettings) {
	pickBool := func(dst *BoolSetting, src BoolSetting) {
		if src.Set {
			*dst = src
		}
	}
	pickInt := func(dst *IntSetting, src IntSetting) {
		if src.Set {
			*dst = src
		}
	}
	pickList := func(dst *ListSetting, src ListSetting) {
		if src.Set {
			*dst = src
		}
	}
	pickBool(&s.SandboxNetworkAccess, m.SandboxNetworkAccess)
	pickBool(&s.SandboxReadDenylistDefaults, m.SandboxReadDenylistDefaults)
	pickList(&s.SandboxDeniedReadPaths, m.SandboxDeniedReadPaths)
	pickList(&s.SandboxReadDenylistExempt, m.SandboxReadDenylistExempt)
	pickInt(&s.ApprovalTimeoutSeconds, m.ApprovalTimeoutSeconds)
	pickInt(&s.UserInputTimeoutSeconds, m.UserInputTimeoutSeconds)
	pickInt(&s.UserInputMaxQuestions, m.UserInputMaxQuestions)
	pickInt(&s.UserInputMaxOptions, m.UserInputMaxOptions)
	pickBool(&s.CodeMode, m.CodeMode)
	pickList(&s.ProjectInstructionImports, m.ProjectInstructionImports)
}

// applyEnv is the environment's word on the added keys.
func (s *AddedSettings) applyEnv(env Env) {
	if v, n, ok := envFirst(env, "CODEWHALE_SANDBOX_NETWORK_ACCESS"); ok {
		s.SandboxNetworkAccess = BoolSetting{Value: truthy(v), Set: true, Source: n}
	}
}

// withDefaults fills what no file set with Codewhale's defaults for r.
func (s AddedSettings) withDefaults(r release.Release) AddedSettings {
	if !s.SandboxReadDenylistDefaults.Set {
		s.SandboxReadDenylistDefaults = BoolSetting{Value: true, Source: "default"}
	}
	if !s.CodeMode.Set {
		s.CodeMode = BoolSetting{Value: r.Has(release.CodeModeDefaultOn), Source: "default"}
	}
	for _, d := range []struct {
		dst *IntSetting
		r   intRange
	}{{&s.ApprovalTimeoutSeconds, approvalTimeout}, {&s.UserInputTimeoutSeconds, userInputTimeout}, {&s.UserInputMaxQuestions, userInputMaxQ}, {&s.UserInputMaxOptions, userInputMaxO}} {
		if !d.dst.Set {
			*d.dst = IntSetting{Value: d.r.def, Source: "default"}
		}
	}
	return s
}

// reportRemovedKeys reports the keys release.RemovedConfigKeys removed
// (Codewhale 0.10.1: docs/codewhale/releases/0.10.0.md Part D.9): they are not typos, so the warning names the release that
// dropped them instead of suggesting another key. "Seam-manager keys" are
// not named in the changelog; every [context] key starting with `seam` is
// taken to be one (docs/codewhale/releases/choices.md, D.9).
func reportRemovedKeys(f *File, root *tomldoc.TableValue) {
	removed := func(e *tomldoc.Entry, name string) {
		f.add(problem.UnknownKey, problem.Warning, e.KeySpan, fmt.Sprintf("Codewhale 0.10.1 removed %s: it is ignored and no longer does anything", name))
	}
	if ctx, _ := root.Sub("context"); ctx != nil {
		for _, e := range ctx.Entries {
			if e.Key == "enabled" || strings.HasPrefix(e.Key, "seam") {
				removed(e, "[context] "+e.Key)
			}
		}
	}
	if tui, _ := root.Sub("tui"); tui != nil {
		if e := tui.Get("terminal_probe_timeout_ms"); e != nil {
			removed(e, "[tui] terminal_probe_timeout_ms")
		}
	}
}

// addedNestedKeys are the keys of release.AddedConfigKeys inside tables that also hold
// keys codewhale-ls does not model ([tools], [features]): only those keys
// are checked there, so other keys of those tables raise nothing.
var addedNestedKeys = []intRange{approvalTimeout, userInputTimeout, userInputMaxQ, userInputMaxO, {table: "features", key: "code_mode"}}

// checkNestedAddedKeys reports, in [approval], [tools] and [features], a
// key release.AddedConfigKeys added when the release does not read it, and, when it does, a
// key a typo away from one of them: `[approval] timeout_secnds = 30`
// would leave approvals unbounded without a word.
func checkNestedAddedKeys(f *File, root *tomldoc.TableValue, r release.Release) {
	for _, table := range []string{"approval", "tools", "features"} {
		t, _ := root.Sub(table)
		if t == nil {
			continue
		}
		var known []string
		for _, k := range addedNestedKeys {
			if k.table == table {
				known = append(known, k.key)
			}
		}
		for _, e := range t.Entries {
			switch {
			case slices.Contains(known, e.Key) && !r.Has(release.AddedConfigKeys):
				f.add(problem.UnknownKey, problem.Warning, e.KeySpan, fmt.Sprintf("Codewhale %s does not read [%s] %s: it was added in Codewhale 0.10.0", r.Name(), table, e.Key))
			case !slices.Contains(known, e.Key) && r.Has(release.AddedConfigKeys):
				if hint := problem.DidYouMean(e.Key, known); hint != "" {
					f.add(problem.UnknownKey, problem.Warning, e.KeySpan, fmt.Sprintf("Codewhale silently ignores the unknown key `%s` in [%s]%s", e.Key, table, hint))
				}
			}
		}
	}
}
