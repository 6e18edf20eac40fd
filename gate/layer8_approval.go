package gate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy/shell"
	"github.com/codewhale-ls/codewhale-ls/gate/patchfiles"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

// Sessions is what layer 8 knows of earlier answers in this session.
// Codewhale keys approvals by tool name or grouping key and denials by the
// exact approval key (docs/codewhale/pipeline.md §8.2).
type Sessions interface {
	Approved(toolName, groupingKey string) bool
	Denied(exactKey string) bool
}

// NoSessions is a session with no earlier answers (the CLI).
type NoSessions struct{}

func (NoSessions) Approved(string, string) bool { return false }
func (NoSessions) Denied(string) bool           { return false }

// fingerprint is the first 8 bytes of SHA-256, in hex, of a canonical JSON
// rendering with sorted keys (encoding/json sorts map keys). Like
// Codewhale's serde_json rendering, it does not HTML-escape `<`, `>`, `&`.
func fingerprint(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	var b []byte
	if err := enc.Encode(v); err != nil {
		b = []byte(fmt.Sprint(v))
	} else {
		b = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

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

// GroupingKey is the key "approve for session" grants.
func GroupingKey(semantic string, input map[string]any) string {
	switch {
	case semantic == "apply_patch":
		files := patchfiles.Targets(input)
		if len(files) == 0 {
			return "patch:no_files"
		}
		sorted := append([]string(nil), files...)
		sort.Strings(sorted)
		return "patch:" + fingerprint(sorted)
	case slices.Contains(shellKeyed, semantic):
		cmd, _ := input["command"].(string)
		prefix := shell.Classify(cmd) // the arity-aware command prefix
		if prefix == "" {
			prefix = "<empty>"
		}
		return "shell:" + prefix
	case slices.Contains([]string{"fetch_url", "web.fetch", "web_fetch"}, semantic):
		return "net:" + netHost(input)
	}
	return ExactKey(semantic, input)
}

// authority is what the posture resolver of §4.4 reads.
type authority struct {
	mode        tool.Mode
	posture     tool.Posture
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
	yolo := a.mode == tool.Yolo
	if a.posture == tool.Never && req != ReqAuto && !a.autoApprove && !yolo {
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
	if a.autoApprove || a.posture == tool.FullAccess || yolo {
		return resolveAllow
	}
	return resolvePrompt
}

// disposition is the UI disposition of §8.2, in Codewhale's order.
type disposition struct {
	verdict Verdict // Allow (auto-approve), Deny, or Ask (open the card)
	reason  string
	source  string // "session-grant" when a grant decided
}

func dispose(a authority, sessions Sessions, name, exactKey, groupingKey string, force bool, desc string) disposition {
	if sessions.Denied(exactKey) {
		return disposition{Deny, fmt.Sprintf("Auto-denied %s: the same call was denied earlier in this session.", name), "session-grant"}
	}
	if a.posture == tool.AutoReview {
		return disposition{Deny, fmt.Sprintf("Auto-Review posture never opens an approval card; the held call is denied: %s", desc), ""}
	}
	p := resolve(a, ReqSuggest, false)
	if force && p == resolveAllow {
		return disposition{Deny, fmt.Sprintf("Full Access policy hold: this call requires explicit approval that Full Access cannot give: %s", desc), ""}
	}
	if !force && p == resolveAllow {
		return disposition{Allow, "approved by the " + postureOrMode(a) + " posture", ""}
	}
	if !force && sessions.Approved(name, groupingKey) {
		return disposition{Allow, "approved for this session earlier", "session-grant"}
	}
	if p == resolveDeny {
		return disposition{Deny, fmt.Sprintf("Blocked tool '%s' (approval_mode=never)", name), ""}
	}
	return disposition{Ask, desc, ""}
}

func postureOrMode(a authority) string {
	if a.mode == tool.Yolo {
		return "yolo mode"
	}
	return a.posture.Label()
}

// isRepoLawDescription recognises repo-law cards, which may never save an
// allow rule.
func isRepoLawDescription(desc string) bool {
	return strings.HasPrefix(desc, "Repo law holds this write:") && strings.Contains(desc, ".codewhale/constitution.json")
}
