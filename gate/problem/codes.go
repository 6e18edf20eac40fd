package problem

// Code is a diagnostic's stable identifier, "CW" and three digits. Every code
// has a heading "## CWxxx" in docs/diagnostics.md (the editor links there
// through codeDescription.href) and an entry in Codes; codes_test.go holds
// the two together, and rpc's golden test holds every entry to a fixture
// that produces it.
type Code string

// The codes, in the order of docs/diagnostics.md. Names say what was found;
// the digits are the stable part users write in `# codewhale-ls: ignore CODE`.
const (
	SyntaxError                Code = "CW001"
	UnknownKey                 Code = "CW002"
	InvalidValue               Code = "CW003"
	MissingKey                 Code = "CW004"
	FileRejected               Code = "CW005"
	OverlayDoesNotTighten      Code = "CW100"
	ProjectKeyNeverApplied     Code = "CW101"
	ProjectKeyIgnored          Code = "CW102"
	OverlayDisabled            Code = "CW103"
	RuleShadowed               Code = "CW200"
	RuleDuplicate              Code = "CW201"
	AskUnderNever              Code = "CW202"
	GlobalPrefix               Code = "CW203"
	WeakDeny                   Code = "CW204"
	AllowRedirections          Code = "CW205"
	WorkspaceNeverMatches      Code = "CW206"
	PathNeverMatches           Code = "CW207"
	ToolNeverEvaluated         Code = "CW208"
	ExactWithoutCommand        Code = "CW209"
	RuleAsArray                Code = "CW210"
	RuleBypassed               Code = "CW211"
	HookDropped                Code = "CW300"
	HookFailsOpen              Code = "CW301"
	HookToolNameNeverMatches   Code = "CW302"
	ProjectHooksNotLoaded      Code = "CW303"
	ConstitutionIgnored        Code = "CW400"
	InvariantAdvisory          Code = "CW401"
	PolicyLoosened             Code = "CW500"
	RefusesToStart             Code = "CW600"
	SettingNested              Code = "CW601"
	ValueDoesNotRestrict       Code = "CW602"
	AutoReviewRuleRejected     Code = "CW603"
	AutoReviewToolNeverMatches Code = "CW604"
	AgentUnhooked              Code = "CW700"
	ReleaseNotImplemented      Code = "CW900"
)

// CodeInfo is one row of the table: what docs/diagnostics.md says of a code
// in its heading's first line, "**Title.** File: .... Severity: ....".
type CodeInfo struct {
	Code Code
	// Name is the code's identifier in words run together, the name of
	// its constant above (SARIF's rule name, which code-scanning services
	// show beside the id).
	Name string
	// Title is the bold sentence under the code's heading, without the
	// final period.
	Title string
	// Severity is the code's usual severity. Where docs/codewhale/contract.md
	// §5 gives it by file or by case, SeverityVaries is the docs' wording
	// ("error in permissions.toml, warning elsewhere"); producers then pick
	// the severity per finding, and Severity is the first one named.
	Severity       Severity
	SeverityVaries string
	// PerRelease names, for a code whose findings differ between Codewhale
	// releases (the **Per release** notes of docs/diagnostics.md), each
	// release whose note says what changes, in a few words.
	PerRelease map[string]string
}

// Codes is every diagnostic code codewhale-ls reports, in docs order.
var Codes = []CodeInfo{
	{Code: SyntaxError, Name: "SyntaxError", Title: "Syntax error (TOML or JSON), at the exact position", Severity: Error},
	{Code: UnknownKey, Name: "UnknownKey", Title: "Unknown key; the nearest known key is suggested", Severity: Error,
		SeverityVaries: "error in permissions.toml, warning elsewhere",
		PerRelease: map[string]string{
			"0.10.0": "a typo of a key 0.10.0 added gets the same rename fix",
			"0.10.1": "a key 0.10.1 removed gets a fix that deletes its line",
		}},
	{Code: InvalidValue, Name: "InvalidValue", Title: "Wrong type or invalid value", Severity: Error,
		SeverityVaries: "error; warning for a value Codewhale ignores or clamps (`permission_posture`, an integer out of range), info for the legacy `default_mode = \"yolo\"` it migrates"},
	{Code: MissingKey, Name: "MissingKey", Title: "A required key is missing (`tool` in a rule; `event`, `command` in a hook)", Severity: Error},
	{Code: FileRejected, Name: "FileRejected", Title: "The file is rejected or ignored as a whole; related information lists every cause", Severity: Error,
		SeverityVaries: "error; warning for a symlinked `permissions.toml` (the TUI reads through it, the app-server refuses it)"},
	{Code: OverlayDoesNotTighten, Name: "OverlayDoesNotTighten", Title: "`approval_policy`, `sandbox_mode` or `allow_shell = true` that does not tighten the user's value", Severity: Warning},
	{Code: ProjectKeyNeverApplied, Name: "ProjectKeyNeverApplied", Title: "A key never applied in project scope (`api_key`, `base_url`, `provider`, `mcp_config_path`, `instructions`, ...)", Severity: Warning},
	{Code: ProjectKeyIgnored, Name: "ProjectKeyIgnored", Title: "A key Codewhale silently ignores in project scope (`hooks`, `auto_review`, `yolo`, `tools`, ...)", Severity: Warning},
	{Code: OverlayDisabled, Name: "OverlayDisabled", Title: "The overlay is disabled (symlink, parse failure)", Severity: Error},
	{Code: RuleShadowed, Name: "RuleShadowed", Title: "A rule that can never win (shadowed); related information points at the winner", Severity: Warning,
		PerRelease: map[string]string{
			"0.9.10": "a promoted deny's `*` is a literal word",
			"0.10.0": "a promoted deny's `*` matches any words and shadows what it covers",
			"0.10.1": "an allow covers an exact command only when its words are at the front",
		}},
	{Code: RuleDuplicate, Name: "RuleDuplicate", Title: "Duplicate rule", Severity: Warning},
	{Code: AskUnderNever, Name: "AskUnderNever", Title: "An `ask` rule while the effective approval_policy is `never`", Severity: Warning},
	{Code: GlobalPrefix, Name: "GlobalPrefix", Title: "A non-exact `allow`/`deny` without `workspace` is also a global trusted/denied shell prefix for every tool, path and repository", Severity: Warning,
		SeverityVaries: "warning; error from 0.10.0 for a promoted deny of only `*` words (Per release, below)",
		PerRelease: map[string]string{
			"0.9.10": "`*` is literal: only the warning",
			"0.10.0": "a promoted deny of only `*` words is an error",
		}},
	{Code: WeakDeny, Name: "WeakDeny", Title: "A deny that is weaker than it reads", Severity: Warning,
		PerRelease: map[string]string{
			"0.9.10": "a `*` in any deny is a literal word",
			"0.10.0": "a promoted deny's `*` is a wildcard; reordered flags get the wildcard spelling",
			"0.10.1": "a workspace-scoped deny matches like a prefix and is no longer reported",
		}},
	{Code: AllowRedirections, Name: "AllowRedirections", Title: "An allow that also approves redirections or substitutions", Severity: Info,
		PerRelease: map[string]string{
			"0.10.1": "redirections and substitutions ask; the note says what the allow still approves",
		}},
	{Code: WorkspaceNeverMatches, Name: "WorkspaceNeverMatches", Title: "A `workspace` that can never match", Severity: Warning,
		PerRelease: map[string]string{
			"0.10.0": "the message adds that a rooted path would match without the workspace key",
		}},
	{Code: PathNeverMatches, Name: "PathNeverMatches", Title: "A `path` that can never match (traversal, outside the workspace; glob characters are literal)", Severity: Warning,
		PerRelease: map[string]string{
			"0.9.10": "an absolute path without a workspace is reported",
			"0.10.0": "a rooted path matches anywhere; `//`, `/./` and a trailing `/` never match",
			"0.10.1": "a deny or ask path with `..` meets the calls whose path has `..`",
		}},
	{Code: ToolNeverEvaluated, Name: "ToolNeverEvaluated", Title: "A `tool` the rule layer never evaluates", Severity: Warning},
	{Code: ExactWithoutCommand, Name: "ExactWithoutCommand", Title: "`command_exact` without `command`", Severity: Warning},
	{Code: RuleAsArray, Name: "RuleAsArray", Title: "A rule written as an array of its fields", Severity: Warning},
	{Code: RuleBypassed, Name: "RuleBypassed", Title: "A shell deny or ask rule that other spellings of its command walk past", Severity: Info,
		PerRelease: map[string]string{
			"0.9.10": "most rewrites get through: nested substitutions, ANSI-C quoting, braces, shells fed by pipes and here-strings, interpreters, aliases",
			"0.10.0": "as 0.9.10, and a command after 255 lines",
			"0.10.1": "the engine sees nested substitutions, eval, ANSI-C quoting and shells fed by pipes; flag orders, look-alike letters, xargs input, git aliases and interpreters still get through",
		}},
	{Code: HookDropped, Name: "HookDropped", Title: "A hook Codewhale drops at load", Severity: Error},
	{Code: HookFailsOpen, Name: "HookFailsOpen", Title: "A `tool_call_before` gate that fails open", Severity: Warning},
	{Code: HookToolNameNeverMatches, Name: "HookToolNameNeverMatches", Title: "A `tool_name` condition that never matches a real call name", Severity: Warning},
	{Code: ProjectHooksNotLoaded, Name: "ProjectHooksNotLoaded", Title: "Project hooks.toml not loaded: the workspace is not trusted, or (Codewhale 0.10.0 and later) these exact bytes are not approved", Severity: Info},
	{Code: ConstitutionIgnored, Name: "ConstitutionIgnored", Title: "The file is ignored (bad JSON, bad action, missing text, bad glob): zero paths are protected", Severity: Error},
	{Code: InvariantAdvisory, Name: "InvariantAdvisory", Title: "An invariant without `paths`: advisory only", Severity: Info},
	{Code: PolicyLoosened, Name: "PolicyLoosened", Title: "The edit loosens policy against the baseline (git HEAD, else the file as it was on disk when opened)", Severity: Warning,
		PerRelease: map[string]string{
			"0.10.0": "the sandbox keys 0.10.0 added, `[approval] timeout_seconds` and lost deny wildcards count too",
		}},
	{Code: RefusesToStart, Name: "RefusesToStart", Title: "`approval_policy` / `sandbox_mode` that makes Codewhale refuse to start", Severity: Error},
	{Code: SettingNested, Name: "SettingNested", Title: "A setting nested where Codewhale drops it", Severity: Warning},
	{Code: ValueDoesNotRestrict, Name: "ValueDoesNotRestrict", Title: "A value that validates but does not restrict (or does not apply where it reads)", Severity: Warning},
	{Code: AutoReviewRuleRejected, Name: "AutoReviewRuleRejected", Title: "An `[auto_review]` rule Codewhale rejects at start", Severity: Error},
	{Code: AutoReviewToolNeverMatches, Name: "AutoReviewToolNeverMatches", Title: "An `[auto_review]` rule `tool` that never matches a raw call name", Severity: Warning},
	{Code: AgentUnhooked, Name: "AgentUnhooked", Title: "Another coding agent is configured in this workspace without codewhale-ls's hook, or only with a project entry it does not read in every session", Severity: Warning,
		SeverityVaries: "warning; info for a hook installed only in the project's file"},
	{Code: ReleaseNotImplemented, Name: "ReleaseNotImplemented", Title: "Your Codewhale is a release whose behaviour codewhale-ls does not implement", Severity: Info},
}

// Info is code's row of Codes; false for a string that is no code.
func (c Code) Info() (CodeInfo, bool) {
	for _, info := range Codes {
		if info.Code == c {
			return info, true
		}
	}
	return CodeInfo{}, false
}
