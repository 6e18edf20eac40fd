package release

// The typed-rule engine's changes (gate/execpolicy and its shell package):
// docs/codewhale/releases/0.10.0.md Part A and docs/codewhale/releases/0.10.1.md Part A.
// Changes that landed in 0.9.11–0.9.13 are given as 0.10.0, the first
// implemented release that has them; the ID's section says when they
// landed.
var (
	// RootedPathRules: a rule path starting with /, ~/ or a drive letter
	// matches the call path byte for byte, in or outside the workspace.
	RootedPathRules = Change{ID: "A.2.2", Since: "0.10.0", Summary: "a rooted path rule (/…, ~/…, C:/…) matches that exact path, inside or outside the workspace"}
	// DenyTargetsFromExpander: deny targets are the expander's output only;
	// heredoc bodies are data and naive segments are no targets.
	DenyTargetsFromExpander = Change{ID: "A.2.3", Since: "0.10.0", Summary: "deny rules are matched against the commands the shell would run only: heredoc data and quoted text are no longer deny targets"}
	// DenyWildcard: a `*` token of a promoted deny prefix matches any
	// number of command words.
	DenyWildcard = Change{ID: "A.3.4", Since: "0.10.0", Summary: "a `*` word in a deny prefix matches any number of command words"}
	// RunTimeWordsRefused: with deny rules in force, a command whose words
	// are known only at run time is refused (or asked).
	RunTimeWordsRefused = Change{ID: "N1", Since: "0.10.1", Summary: "while deny rules exist, a command whose words are only known at run time is refused"}
	// RawTextDenyTarget: the raw trimmed text is a deny target again.
	RawTextDenyTarget = Change{ID: "N2", Since: "0.10.1", Summary: "the command's raw text is a deny target again"}
	// TypedDenyMatcher: typed deny rules match through the deny matcher
	// (wildcards, flags skipped) and path-folded command words.
	TypedDenyMatcher = Change{ID: "N3", Since: "0.10.1", Summary: "typed deny rules match like deny prefixes (`*` wildcard, skipped flags, /bin/rm is rm)"}
	// DenyOptionsAnywhere: a deny rule's options may follow positionals.
	DenyOptionsAnywhere = Change{ID: "N4", Since: "0.10.1", Summary: "a deny rule's options match wherever they appear after the command word"}
	// PrefixGrantEligibility: trusted/allow prefixes cover only eligible
	// commands whose arity class is spelled at the front.
	PrefixGrantEligibility = Change{ID: "N5", Since: "0.10.1", Summary: "allow and trusted prefixes cover only simple commands (no nested code, run-time words or redirection) spelled literally at the front"}
	// PythonModuleClass: python -m <module> is classified with its module
	// (0.10.1.md A.3.5(a): in 0.10.1 at the latest).
	PythonModuleClass = Change{ID: "A.3.5a", Since: "0.10.1", Summary: "`python -m <module>` is named by its module, as `python -m pytest`, for allow and trusted prefixes"}
	// ControlFlagChain: "chained" is the expander's control flag.
	ControlFlagChain = Change{ID: "N6", Since: "0.10.1", Summary: "a command counts as chained by what the shell would run, not by naive splitting"}
	// AmendmentEligibility: "always" amendments only for prefix-eligible
	// commands.
	AmendmentEligibility = Change{ID: "N7", Since: "0.10.1", Summary: "an \"always\" prefix is proposed only for commands a prefix may cover"}
	// DotDotPathsMeetDeny: a call path with .. meets deny and ask path
	// rules.
	DotDotPathsMeetDeny = Change{ID: "N8", Since: "0.10.1", Summary: "a call path containing .. meets deny and ask path rules"}
	// ExpanderRewrite: wrappers by their option grammar, code strings,
	// reserved words, find -exec payloads.
	ExpanderRewrite = Change{ID: "N9", Since: "0.10.1", Summary: "the shell expander unwraps wrappers by their options and reads code strings, find -exec payloads and compound commands"}
	// TaskShellRules: the commands of task_shell_start and task gate runs
	// meet the shell's deny and ask rules (0.10.1.md Part D′, D.6:
	// changelog-only).
	TaskShellRules = Change{ID: "D.6", Since: "0.10.1", Summary: "task_shell_start and task gate commands meet the shell's deny and ask rules"}
	// LegacyTomlRules: the legacy execpolicy.toml deny patterns
	// prefix-match and refuse run-time words.
	LegacyTomlRules = Change{ID: "N10", Since: "0.10.1", Summary: "legacy execpolicy.toml deny patterns also prefix-match, and run-time command words are denied"}
)

// engineChanges lists the variables above.
var engineChanges = []Change{
	RootedPathRules, DenyTargetsFromExpander, DenyWildcard,
	RunTimeWordsRefused, RawTextDenyTarget, TypedDenyMatcher, DenyOptionsAnywhere,
	PrefixGrantEligibility, PythonModuleClass, ControlFlagChain, AmendmentEligibility, DotDotPathsMeetDeny,
	ExpanderRewrite, TaskShellRules, LegacyTomlRules,
}
