package assist

import (
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

func TestHoverKeysAndValues(t *testing.T) {
	cases := []struct {
		name, fixture, needle string
		covers                string // the text the hover span must be
		want, wantNot         []string
	}{
		{"approval_policy key", "config.toml", "approval_po|licy = ", "approval_policy",
			[]string{"**`approval_policy`** · string", "locks the posture", "`\"on-request\"`: Ask", "`\"untrusted\"`", "`\"never\"`", "`\"auto\"`", "`\"suggest\"`"}, []string{"default"}},
		{"approval_policy value", "config.toml", `"on-re|quest"`, `"on-request"`,
			[]string{"**`\"on-request\"`** (`approval_policy`)", "approval card"}, nil},
		{"sandbox_mode value", "config.toml", `"workspace-|write"`, `"workspace-write"`,
			[]string{"inside the workspace"}, nil},
		{"yolo-free boolean value describes its key", "config.toml", "allow_shell = tr|ue", "true",
			[]string{"**`allow_shell`** · boolean", "shell tools"}, nil},
		{"default_selection", "config.toml", "default_sel|ection", "default_selection",
			[]string{"default `\"deny\"`", "`\"allow_once\"`"}, nil},
		{"hook event value", "config.toml", `event = "tool_call_be|fore"`, `"tool_call_before"`,
			[]string{"can deny the call"}, nil},
		{"hook continue_on_error", "config.toml", "continue_on_er|ror = false", "continue_on_error",
			[]string{"default `true`", "fails open", "strict gate"}, nil},
		{"nested condition in an inline array", "config.toml", `category = "sh|ell"`, `"shell"`,
			[]string{"**`\"shell\"`** (`category`)", "`bash`"}, nil},
		{"condition type", "config.toml", `{ type = "mo|de"`, `"mode"`,
			[]string{"engine spelling"}, nil},
		{"auto_review action_kind", "config.toml", `action_kind = "pub|lish"`, `"publish"`,
			[]string{"Publishing"}, nil},
		{"auto_review header component", "config.toml", "[[auto_review.bl|ock]]", "block",
			[]string{"**`block`** · array of tables", "refused in every posture"}, nil},
		{"projects path key", "config.toml", `[projects."/home/dev/src/wid|get"]`, `"/home/dev/src/widget"`,
			[]string{"The entry of one directory."}, nil},
		{"trust_level", "config.toml", "trust_le|vel", "trust_level",
			[]string{"project hooks", "Common values: `\"trusted\"`"}, nil},
		{"workspace allow_shell", "config.toml", "[workspace.\"/home/dev/src/widget\"]\nallow_sh|ell", "allow_shell",
			[]string{"this directory"}, nil},
		{"features", "config.toml", "shell_to|ol", "shell_tool", []string{"ACP"}, nil},
		{"dropped [general] key", "config.toml", "[gene|ral]", "general", []string{"silently dropped"}, nil},
		{"secret key never shows its value", "config.toml", "api_k|ey", "api_key",
			[]string{"never shows its value"}, []string{"sk-secret-value"}},
		{"rule action value", "permissions.toml", `action = "de|ny"`, `"deny"`,
			[]string{"**`\"deny\"`** (`action`)", "hard-deny prefix"}, nil},
		{"rule command_exact", "permissions.toml", "command_ex|act = true\naction = \"deny\"", "command_exact",
			[]string{"default `false`", "weaker than it reads"}, nil},
		{"project hooks timeout", "hooks.toml", "timeout_se|cs", "timeout_secs",
			[]string{"default `30`", "`0` drops the hook"}, nil},
		{"project hooks exit_code", "hooks.toml", "code = |1", "1", []string{"**`code`** · integer"}, nil},
		{"constitution key", "constitution.json", `"act|ion": "block"`, `"action"`,
			[]string{"**`action`** · string · default `\"ask\"`", "`\"block\"`: Refuse the write"}, nil},
		{"constitution value", "constitution.json", `"blo|ck"`, `"block"`, []string{"every posture"}, nil},
		{"constitution paths", "constitution.json", `"pa|ths": ["CHANGELOG.md"]`, `"paths"`,
			[]string{"array of strings", "globset", "default `[]`"}, nil},
		{"constitution nested prose", "constitution.json", `"before_claiming_|done"`, `"before_claiming_done"`,
			[]string{"not enforced"}, nil},
		{"typing config: value", "config_typing.toml", `"ne|`, `"ne`,
			[]string{"is not an allowed value of `approval_policy`", "`\"never\"`"}, nil},
		{"typing config: key", "config_typing.toml", "sandbox_mo|de =", "sandbox_mode",
			[]string{"**`sandbox_mode`**"}, nil},
		{"typing constitution", "constitution_typing.json", `"pa|ths": ["crates/**"]`, `"paths"`,
			[]string{"globset"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := fixture(t, c.fixture)
			off := at(t, src, c.needle)
			md, span, ok := Hover(fixtureKinds[c.fixture], src, off, nil, release.Release{})
			if !ok {
				t.Fatalf("no hover at %q", c.needle)
			}
			if got := string(src[span.Start:span.End]); got != c.covers {
				t.Errorf("span covers %q, want %q", got, c.covers)
			}
			checkMarkdown(t, md, c.want, c.wantNot)
		})
	}
}

func TestHoverUnknownKeys(t *testing.T) {
	cases := []struct {
		kind config.Kind
		src  string
		want []string
	}{
		{config.KindPermissions, "[[rules]]\ntool = \"exec_shell\"\nacton = \"deny\"\n",
			[]string{"strict schema", "rejects the whole file", "Did you mean `action`?"}},
		{config.KindUserConfig, "aproval_policy = \"never\"\n",
			[]string{"silently ignored", "Did you mean `approval_policy`?"}},
	}
	for _, c := range cases {
		off := strings.Index(c.src, "a") + 1
		if c.kind == config.KindPermissions {
			off = strings.Index(c.src, "acton") + 1
		}
		md, _, ok := Hover(c.kind, []byte(c.src), off, nil, release.Release{})
		if !ok {
			t.Fatalf("%q: no hover", c.src)
		}
		for _, w := range c.want {
			if !strings.Contains(md, w) {
				t.Errorf("%q: hover lacks %q:\n%s", c.src, w, md)
			}
		}
	}
}

func TestHoverNothing(t *testing.T) {
	src := fixture(t, "permissions.toml")
	cases := []struct {
		kind   config.Kind
		src    []byte
		offset int
	}{
		{config.KindPermissions, src, 3},                     // a comment
		{config.KindPermissions, src, -1},                    // out of range
		{config.KindPermissions, src, len(src) + 1},          // out of range
		{config.KindSettings, []byte("default_mode = 1"), 2}, // no schema
	}
	for _, c := range cases {
		if md, _, ok := Hover(c.kind, c.src, c.offset, nil, release.Release{}); ok {
			t.Errorf("%s at %d: unexpected hover %q", c.kind, c.offset, md)
		}
	}
}

func TestFileNotes(t *testing.T) {
	src := []byte("approval_policy = \"never\"\n")
	for kind, want := range map[config.Kind]string{
		config.KindOverlay: "*Project overlay*",
		config.KindManaged: "*Managed config*",
	} {
		md, _, ok := Hover(kind, src, 2, nil, release.Release{})
		if !ok || !strings.Contains(md, want) || !strings.Contains(md, "`approval_policy`") {
			t.Errorf("%s: %q", kind, md)
		}
	}
}

func TestRuleFacts(t *testing.T) {
	src := fixture(t, "permissions.toml")
	cases := []struct {
		name, needle string
		want         []string
	}{
		{"promoted deny, from a key", `command = "cargo pub|lish"`, []string{
			"**Rule 1** `tool=exec_shell command=cargo publish` · deny",
			"starts with the words `cargo publish`", "`cargo --flag publish`", "**Workspace** every workspace",
			"promoted to the hard-deny prefix `cargo publish`"}},
		{"promoted allow, from the header", "action = \"deny\"\n\n[[ru|les]]\ntool = \"exec_shell\"\ncommand = \"git status\"", []string{
			"**Rule 2**", "promoted to the trusted prefix `git status`", "chained command"}},
		{"from the header's brackets", "|[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push\"", []string{
			"**Rule 3** `tool=exec_shell command=git push` · ask", "ask rules are never promoted"}},
		{"exact deny is not promoted", "command = \"rm -rf /\"\ncommand_ex|act", []string{
			"`tool=exec_shell command=rm -rf / command_exact=true`", "exactly `rm -rf /`",
			"none: an exact command is not promoted"}},
		{"workspace-scoped allow", `workspace = "/home/dev/src/wid|get"`, []string{
			"**Workspace** only sessions whose workspace root is `/home/dev/src/widget`", "none: an exact command"}},
		{"path rule", `path = ".e|nv"`, []string{
			"`tool=read_file path=.env` · deny", "**Path** `.env` only", "none: the rule has no command"}},
		{"unevaluated tool and dead workspace", `tool = "ba|sh"`, []string{
			"never evaluates", "**Workspace** none: `relative/dir`", "none: a workspace-scoped rule is not promoted"}},
		{"command on a file tool is still promoted", `tool = "write_|file"`, []string{
			"file tools pass an empty command, so this never matches", "promoted to the trusted prefix `git diff`"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			md, _, ok := Hover(config.KindPermissions, src, at(t, src, c.needle), nil, release.Release{})
			if !ok {
				t.Fatal("no hover")
			}
			for _, w := range c.want {
				if !strings.Contains(md, w) {
					t.Errorf("hover lacks %q:\n%s", w, md)
				}
			}
			if strings.Contains(md, "Ranking") {
				t.Error("ranking without a snapshot")
			}
			if strings.Contains(md, "`bash` calls") && strings.Contains(md, "file tools pass") {
				t.Error("bash is not a file tool")
			}
		})
	}
}

func TestRuleFactsWithSnapshot(t *testing.T) {
	src := fixture(t, "permissions.toml")
	f, _ := execpolicy.ParseFile(src)
	snap := &config.Snapshot{Permissions: f}
	md, _, _ := Hover(config.KindPermissions, src, at(t, src, `command = "git pu|sh"`), snap, release.Release{})
	for _, w := range []string{"**Ranking** specificity 1018", "deny beats ask beats allow", "4 other rule(s) for `exec_shell`"} {
		if !strings.Contains(md, w) {
			t.Errorf("hover lacks %q:\n%s", w, md)
		}
	}
}

func TestRuleFactsOfARejectedFile(t *testing.T) {
	src := []byte("[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push\"\naction = \"Deny\"\n")
	md, _, ok := Hover(config.KindPermissions, src, 14, nil, release.Release{})
	if !ok || !strings.Contains(md, "rejected as it stands") {
		t.Errorf("%q", md)
	}
	inline := fixture(t, "permissions_inline.toml")
	md, _, _ = Hover(config.KindPermissions, inline, at(t, inline, `"Cargo.|lock"`), nil, release.Release{})
	if !strings.Contains(md, "**Rule 2** `tool=write_file path=Cargo.lock` · ask") || strings.Contains(md, "rejected") {
		t.Errorf("inline rule: %q", md)
	}
}
