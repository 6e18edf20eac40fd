package gate

import (
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy/shell"
	"github.com/codewhale-ls/codewhale-ls/gate/patchfiles"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// Sessions is what layer 8 knows of earlier answers in this session:
// the keys "approve for session" granted, and the exact approval keys the
// user denied (docs/codewhale/pipeline.md §8.2). Which keys a call's grant
// adds and looks for depends on the release (sessionGrants).
type Sessions interface {
	Approved(key string) bool
	Denied(exactKey string) bool
}

// NoSessions is a session with no earlier answers (the CLI).
type NoSessions struct{}

func (NoSessions) Approved(string) bool { return false }
func (NoSessions) Denied(string) bool   { return false }

var shellKeyed = []string{"exec_shell", "task_shell_start", "exec_shell_wait", "exec_shell_interact", "exec_wait", "exec_interact"}

func netHost(input map[string]any) string {
	raw, _ := input["url"].(string)
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	return u.Hostname()
}

// ExactKey is the approval key a session denial is stored under.
func ExactKey(semantic string, input map[string]any) string {
	switch {
	case slices.Contains([]string{"apply_patch", "write_file", "edit_file", "fim_edit"}, semantic):
		return "file:" + semantic + ":" + fingerprint(input)
	case slices.Contains(shellKeyed, semantic):
		return "shell:" + semantic + ":" + fingerprint(input)
	case slices.Contains([]string{"fetch_url", "web.fetch", "web_fetch"}, semantic):
		return "net:" + netHost(input)
	}
	return "tool:" + semantic + ":" + fingerprint(input)
}

// shellExactOnly are the shell tools whose session grant covers only the
// exact call since release.ShellGrantsNarrowed: they act on a running
// process, which no command family describes.
var shellExactOnly = []string{"exec_shell_wait", "exec_shell_interact", "exec_wait", "exec_interact"}

// GroupingKey is the key "approve for session" grants, as release r
// computes it (docs/codewhale/pipeline.md §8.3; docs/codewhale/releases/0.10.0.md
// B.8.3; docs/codewhale/releases/0.10.1.md Part D item 7).
func GroupingKey(r release.Release, semantic string, input map[string]any) string {
	switch {
	case semantic == "apply_patch":
		files := patchfiles.Targets(input)
		perFile := r.Has(release.PatchGrantsPerFile)
		switch {
		case len(files) == 0 && perFile:
			// A patch whose files cannot be resolved shares no grant.
			return "patch:unresolved:" + fingerprint(input)
		case len(files) == 0:
			return "patch:no_files"
		}
		sorted := slices.Clone(files)
		if perFile {
			// The executor's resolver: ./a and a are the same file.
			for i, f := range sorted {
				sorted[i] = path.Clean(filepath.ToSlash(f))
			}
		}
		slices.Sort(sorted)
		return "patch:" + fingerprint(slices.Compact(sorted))
	case slices.Contains(shellExactOnly, semantic) && r.Has(release.ShellGrantsNarrowed):
		return ExactKey(semantic, input)
	case slices.Contains(shellKeyed, semantic):
		cmd, _ := input["command"].(string)
		prefix := shell.DialectOf(r).Classify(cmd) // the arity-aware command prefix, as the release classifies
		if r.Has(release.ShellGrantsNarrowed) && !simpleFamilyCommand(cmd, prefix) {
			return "shell:exact:" + fingerprint(cmd)
		}
		if prefix == "" {
			prefix = "<empty>"
		}
		return "shell:" + prefix
	case slices.Contains([]string{"fetch_url", "web.fetch", "web_fetch"}, semantic):
		return "net:" + netHost(input)
	}
	return ExactKey(semantic, input)
}

// simpleFamilyCommand reports whether a 0.10.1 session grant of command may
// cover its whole family: the command is exactly a family Codewhale knows,
// spelled literally at its front, followed by nothing but options that
// carry no value (`cargo test --release`, `git status -s`). Anything else
// (an argument, `--out=x`, `-j4`, a quote, a variable, a redirection, a
// chain, a wrapper or assignment in front) is granted as the exact command
// (docs/codewhale/releases/choices.md, D.7).
func simpleFamilyCommand(command, family string) bool {
	if !shell.KnownFamily(family) {
		return false
	}
	var familyBuf [4]string // a family has a word or two; the buffer keeps them off the heap
	familyWords := familyBuf[:0]
	for w := range strings.FieldsSeq(family) {
		familyWords = append(familyWords, w)
	}
	met := 0 // the command's words that spelled the family
	for w := range strings.FieldsSeq(command) {
		switch {
		case met < len(familyWords):
			if w != familyWords[met] {
				return false
			}
			met++
		case !valueFreeOption(w):
			return false
		}
	}
	return met == len(familyWords)
}

// valueFreeOption reports a cluster of short flags or a long flag, with no
// value attached: `-s`, `-la`, `--release`; not `-j4`, `--out=x`, `-`. It
// is ^(-[A-Za-z]+|--[A-Za-z][A-Za-z-]*)$ (TestValueFreeOption), without a
// regular expression's machine for every word of every held command.
func valueFreeOption(w string) bool {
	rest, long := strings.CutPrefix(w, "--")
	if !long {
		var short bool
		if rest, short = strings.CutPrefix(w, "-"); !short || rest == "" {
			return false
		}
	} else if rest == "" || !isASCIILetter(rest[0]) {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if !isASCIILetter(rest[i]) && !(long && rest[i] == '-') {
			return false
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// sessionGrants are the keys "approve for session" adds for a call, which
// are also the keys an earlier grant must hold for the call to pass
// without a card: in 0.9.10 the tool name as well as the grouping key, so
// one grant covered every later call of the tool; since
// release.SessionGrantsByFamily the grouping key alone
// (docs/codewhale/releases/0.10.0.md B.8.3).
func sessionGrants(r release.Release, toolName, groupingKey string) []string {
	if r.Has(release.SessionGrantsByFamily) {
		return []string{groupingKey}
	}
	return []string{toolName, groupingKey}
}

// sessionApproved reports whether an earlier grant covers one of keys.
func sessionApproved(sessions Sessions, keys []string) bool {
	return slices.ContainsFunc(keys, sessions.Approved)
}

// authority is what the posture resolver of §4.4 reads.
type authority struct {
	mode        session.Mode
	posture     session.Posture
	autoApprove bool
}

type resolution int

const (
	resolveAllow resolution = iota
	resolvePrompt
	resolveDeny
)

// resolve is the posture-level truth table of §4.4.
func resolve(a authority, req Requirement, nonBypassable bool) resolution {
	yolo := a.mode == session.Yolo
	if a.posture == session.Never && req != ReqAuto && !a.autoApprove && !yolo {
		return resolveDeny
	}
	if req == ReqAuto {
		return resolveAllow
	}
	if nonBypassable {
		if a.autoApprove || yolo {
			return resolveAllow
		}
		return resolvePrompt
	}
	if a.autoApprove || a.posture == session.FullAccess || yolo {
		return resolveAllow
	}
	return resolvePrompt
}

// disposition is the UI disposition of §8.2, in Codewhale's order.
type disposition struct {
	verdict Verdict // Allow (auto-approve), Deny, or Ask (open the card)
	reason  string
	source  string // "session-grant" when a grant decided, "posture" when the posture did
}

func dispose(a authority, sessions Sessions, name, exactKey string, grants []string, force bool, desc string) disposition {
	if sessions.Denied(exactKey) {
		return disposition{Deny, fmt.Sprintf("Auto-denied %s: the same call was denied earlier in this session.", name), "session-grant"}
	}
	if a.posture == session.AutoReview {
		return disposition{Deny, fmt.Sprintf("Auto-Review posture never opens an approval card; the held call is denied: %s", desc), "posture"}
	}
	p := resolve(a, ReqSuggest, false)
	if force && p == resolveAllow {
		return disposition{Deny, fmt.Sprintf("Full Access policy hold: this call requires explicit approval that Full Access cannot give: %s", desc), ""}
	}
	if !force && p == resolveAllow {
		return disposition{Allow, "approved by the " + postureOrMode(a) + " posture", "posture"}
	}
	if !force && sessionApproved(sessions, grants) {
		return disposition{Allow, "approved for this session earlier", "session-grant"}
	}
	if p == resolveDeny {
		return disposition{Deny, fmt.Sprintf("Blocked tool '%s' (approval_mode=never)", name), "posture"}
	}
	return disposition{Ask, desc, ""}
}

func postureOrMode(a authority) string {
	if a.mode == session.Yolo {
		return "yolo mode"
	}
	return a.posture.Label()
}
