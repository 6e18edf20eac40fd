package execpolicy

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy/shell"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// releaseCase is one row of a delta spec's example table: a
// permissions.toml, a call, and the phase each implemented release gives
// (0.9.10, 0.10.0, 0.10.1), with the reason where the spec words it.
type releaseCase struct {
	name string
	toml string
	call Input
	want [3]Phase
	why  string // the 0.10.1 reason, when the table gives it
	fold bool   // a macOS/Windows build
}

func rule(lines string) string { return "[[rules]]\n" + lines + "\n" }

func filePath(p string) *string { return &p }

// runReleaseCases decides each case at every implemented release.
func runReleaseCases(t *testing.T, cases []releaseCase) {
	t.Helper()
	for _, c := range cases {
		f, _ := ParseFile([]byte(c.toml))
		if !f.Accepted {
			t.Fatalf("%s: rules rejected: %s", c.name, f.SerdeError)
		}
		in := c.call
		if in.Tool == "" {
			in.Tool = DefaultTool
		}
		if in.Cwd == "" {
			in.Cwd = "/workspace"
		}
		for i, r := range release.Implemented {
			res := NewEngineFromFile(f, WithRelease(r), WithPathCaseFolding(c.fold)).Check(in)
			if res.Phase != c.want[i] {
				t.Errorf("%s at %s: %s (%s), want %s", c.name, r.Version, res.Phase, res.Reason, c.want[i])
			}
			if i == len(release.Implemented)-1 && c.why != "" && res.Reason != c.why {
				t.Errorf("%s at %s: reason %q, want %q", c.name, r.Version, res.Reason, c.why)
			}
		}
	}
}

var (
	before010  = [3]Phase{Allowed, Forbidden, Forbidden}
	allowedAll = [3]Phase{Allowed, Allowed, Allowed}
	forbidAll  = [3]Phase{Forbidden, Forbidden, Forbidden}
	only0101   = [3]Phase{Allowed, Allowed, Forbidden}
)

// docs/codewhale/releases/0.10.0.md A.2.2: rooted path rules.
func TestRootedPathRules(t *testing.T) {
	shadow := rule(`tool = "read_file"` + "\n" + `path = "/etc/shadow"` + "\n" + `action = "deny"`)
	read := func(path string) Input {
		return Input{Tool: "read_file", Path: filePath(path), Mode: Mode{Kind: OnFailure}}
	}
	runReleaseCases(t, []releaseCase{
		{name: "rooted", toml: shadow, call: read("/etc/shadow"), want: before010,
			why: "Permission rule 'tool=read_file path=/etc/shadow' explicitly denies this invocation."},
		{name: "padded", toml: shadow, call: read(" /etc/shadow "), want: before010},
		{name: "double slash", toml: shadow, call: read("/etc//shadow"), want: allowedAll},
		{name: "trailing slash", toml: shadow, call: read("/etc/shadow/"), want: allowedAll},
		{name: "case on Linux", toml: rule(`tool = "read_file"` + "\n" + `path = "/ETC/shadow"` + "\n" + `action = "deny"`),
			call: read("/etc/shadow"), want: allowedAll},
		{name: "case folded", toml: rule(`tool = "read_file"` + "\n" + `path = "/ETC/shadow"` + "\n" + `action = "deny"`),
			call: read("/etc/shadow"), want: before010, fold: true},
		{name: "relative cwd", toml: shadow,
			call: Input{Tool: "read_file", Path: filePath("/etc/shadow"), Cwd: "relative", Mode: Mode{Kind: OnFailure}}, want: before010},
		{name: "workspace clause", toml: shadow + `workspace = "/workspace"` + "\n",
			call: Input{Tool: "read_file", Path: filePath("/etc/shadow"), Cwd: "/other", Mode: Mode{Kind: OnFailure}}, want: allowedAll},
		{name: "dotdot rule", toml: rule(`tool = "read_file"` + "\n" + `path = "/etc/../etc/shadow"` + "\n" + `action = "deny"`),
			call: read("/etc/../etc/shadow"), want: [3]Phase{Allowed, Allowed, Forbidden}}, // 0.10.1: N8
		{name: "ask in Never", toml: rule(`tool = "read_file"` + "\n" + `path = "/etc/shadow"` + "\n" + `action = "ask"`),
			call: Input{Tool: "read_file", Path: filePath("/etc/shadow"), Mode: Mode{Kind: Never}}, want: before010,
			why: "Typed ask rule 'tool=read_file path=/etc/shadow' requires approval, but approval policy is never."},
		{name: "drive letters", toml: rule(`tool = "read_file"` + "\n" + `path = "C:/Users/u/.aws/credentials"` + "\n" + `action = "deny"`),
			call: Input{Tool: "read_file", Path: filePath(`C:\Users\u\.aws\credentials`), Cwd: `C:\workspace`, Mode: Mode{Kind: OnFailure}}, want: before010},
		{name: "tilde literal", toml: rule(`tool = "read_file"` + "\n" + `path = "~/.ssh/id_rsa"` + "\n" + `action = "deny"`),
			call: read("~/.ssh/id_rsa"), want: forbidAll},
		{name: "tilde not expanded", toml: rule(`tool = "read_file"` + "\n" + `path = "~/.ssh/id_rsa"` + "\n" + `action = "deny"`),
			call: Input{Tool: "read_file", Path: filePath("/root/.ssh/id_rsa"), Cwd: "/root", Mode: Mode{Kind: OnFailure}}, want: allowedAll},
		{name: "tilde rooted only", toml: rule(`tool = "read_file"` + "\n" + `path = "~/.ssh/config"` + "\n" + `action = "deny"`),
			call: read("/workspace/~/.ssh/config"), want: [3]Phase{Forbidden, Allowed, Allowed}},
		{name: "tilde dir", toml: rule(`tool = "list_dir"` + "\n" + `path = "~/"` + "\n" + `action = "deny"`),
			call: Input{Tool: "list_dir", Path: filePath("~"), Mode: Mode{Kind: OnFailure}}, want: [3]Phase{Forbidden, Allowed, Allowed}},
		{name: "relative rule", toml: rule(`tool = "edit_file"` + "\n" + `path = "src/a.rs"` + "\n" + `action = "deny"`),
			call: Input{Tool: "edit_file", Path: filePath("/src/a.rs"), Mode: Mode{Kind: OnFailure}}, want: allowedAll},
	})
	// An allow outside the workspace now names its rule.
	f, _ := ParseFile([]byte(rule(`tool = "write_file"` + "\n" + `path = "/workspace/src/a.rs"` + "\n" + `action = "allow"`)))
	in := Input{Tool: "write_file", Path: filePath("/workspace/src/a.rs"), Cwd: "/home/dev", Mode: Mode{Kind: Never}}
	if r := NewEngineFromFile(f, WithPathCaseFolding(false)).Check(in); r.MatchedAction != nil {
		t.Errorf("0.9.10 matched %v", *r.MatchedAction)
	}
	r010 := release.MustOf("0.10.0")
	if r := NewEngineFromFile(f, WithRelease(r010), WithPathCaseFolding(false)).Check(in); r.MatchedAction == nil || *r.MatchedAction != Allow ||
		!slices.Contains(r.Changes, release.RootedPathRules) {
		t.Errorf("0.10.0: %+v", r)
	}
}

func denyRule(command string) string {
	return rule(`tool = "exec_shell"` + "\n" + `command = "` + command + `"` + "\n" + `action = "deny"`)
}

func typedDenyRule(command string) string {
	return denyRule(command) + `workspace = "/workspace"` + "\n"
}

func never(command string) Input { return Input{Command: command, Mode: Mode{Kind: Never}} }

// docs/codewhale/releases/0.10.0.md A.3.4: the `*` of a promoted deny.
func TestDenyWildcard(t *testing.T) {
	runReleaseCases(t, []releaseCase{
		{name: "dd", toml: denyRule("dd * of=/dev/sda"), call: never("dd if=/dev/zero bs=1m of=/dev/sda"), want: before010,
			why: "Command blocked by denied prefix rule 'dd * of=/dev/sda'"},
		{name: "zero words", toml: denyRule("grep * ~/.ssh/id_rsa"), call: never("grep ~/.ssh/id_rsa"), want: before010},
		{name: "tail required", toml: denyRule("grep * /home/z"), call: never("grep x /etc/y"), want: allowedAll},
		{name: "no leak across segments", toml: denyRule("grep * ~/.ssh/id_rsa"), call: never("grep x /etc/y && echo done"), want: allowedAll},
		{name: "anchoring removed", toml: denyRule("git * push"), call: never("git checkout push"), want: before010},
		{name: "whole words", toml: denyRule("git * push"), call: never("git pushd"), want: allowedAll},
		{name: "rm * /", toml: denyRule("rm * /"), call: never("rm -rf /tmp/x /"), want: before010},
		{name: "rm * / tail", toml: denyRule("rm * /"), call: never("rm -rf /tmp/x"), want: allowedAll},
		{name: "trailing", toml: denyRule("rm -rf *"), call: never("rm -rf"), want: before010},
		{name: "leading", toml: denyRule("* rm -rf /"), call: never("rm -rf /"), want: before010},
		// 0.10.1's typed rule behind the prefix also reads /bin/rm as rm (N3).
		{name: "leading is not a command word", toml: denyRule("* rm -rf /"), call: never("/bin/rm -rf /"), want: only0101},
		{name: "everything", toml: denyRule("*"), call: never("ls"), want: before010},
		{name: "file tool", toml: denyRule("*"), call: Input{Tool: "read_file", Mode: Mode{Kind: Never}}, want: allowedAll},
		{name: "slash flag on Linux", toml: denyRule("rm /q file"), call: never("rm /q file"), want: forbidAll},
		{name: "slash flag stays literal", toml: denyRule("rm file"), call: never("rm /q file"), want: allowedAll},
		{name: "exe stays literal", toml: denyRule("git push"), call: never("git.exe push"), want: allowedAll},
		// Typed rules read `*` literally until 0.10.1 (N3).
		{name: "typed literal", toml: typedDenyRule("dd * of=/dev/sda"), call: never("dd if=/dev/zero bs=1m of=/dev/sda"), want: only0101},
		{name: "typed literal star", toml: typedDenyRule("dd * of=/dev/sda"), call: never("dd * of=/dev/sda"), want: forbidAll},
	})
	// `*` is literal in allow rules at every release.
	allow := rule(`tool = "exec_shell"` + "\n" + `command = "git push *"` + "\n" + `action = "allow"`)
	runReleaseCases(t, []releaseCase{{name: "allow literal", toml: allow,
		call: Input{Command: "git push origin main", Mode: Mode{Kind: UnlessTrusted}},
		want: [3]Phase{NeedsApproval, NeedsApproval, NeedsApproval}}})
}

// docs/codewhale/releases/0.10.1.md N3: typed deny rules match as deny
// prefixes and through path-folded command words; ask keeps the arity
// matcher.
func TestTypedDenyMatcher(t *testing.T) {
	chained := "Permission rule 'tool=exec_shell command=rm workspace=/workspace' explicitly denies a chained segment of this invocation."
	runReleaseCases(t, []releaseCase{
		{name: "flag before subcommand", toml: typedDenyRule("git push"), call: never("git -C . push"), want: only0101,
			why: "Permission rule 'tool=exec_shell command=git push workspace=/workspace' explicitly denies this invocation."},
		{name: "config before subcommand", toml: typedDenyRule("git push"), call: never("git -c a=b push origin main"), want: only0101},
		{name: "flag without value", toml: typedDenyRule("git push"), call: never("git --no-pager push"), want: forbidAll},
		{name: "other subcommand", toml: typedDenyRule("git push"), call: never("git -C . status"), want: allowedAll},
		{name: "absolute command word", toml: typedDenyRule("rm"), call: never("/bin/rm x"), want: only0101, why: chained},
		{name: "relative command word", toml: typedDenyRule("rm"), call: never("./rm -rf build"), want: only0101, why: chained},
		{name: "wildcard", toml: typedDenyRule("git * push"), call: never("git checkout push"), want: only0101},
		{name: "exact", toml: denyRule("git push") + "command_exact = true\n", call: never("git -C . push"), want: allowedAll},
		{name: "typed ask", toml: rule(`tool = "exec_shell"` + "\n" + `command = "git push"` + "\n" + `workspace = "/workspace"` + "\n" + `action = "ask"`),
			call: Input{Command: "git -C . push", Mode: Mode{Kind: OnFailure}}, want: allowedAll},
		{name: "typed ask star", toml: rule(`tool = "exec_shell"` + "\n" + `command = "git * push"` + "\n" + `action = "ask"`),
			call: Input{Command: "git log push", Mode: Mode{Kind: OnFailure}}, want: allowedAll},
	})
}

// docs/codewhale/releases/0.10.1.md N4: a deny rule's options after the
// command's positionals.
func TestDenyOptionsAnywhere(t *testing.T) {
	runReleaseCases(t, []releaseCase{
		{name: "force last", toml: denyRule("git push --force"), call: never("git push origin main --force"), want: only0101,
			why: "Command blocked by denied prefix rule 'git push --force'"},
		{name: "force after remote", toml: denyRule("git push --force"), call: never("git push origin --force"), want: only0101},
		{name: "another option", toml: denyRule("git push --force"), call: never("git push --force-with-lease"), want: allowedAll},
		{name: "not the command", toml: denyRule("git push --force"), call: never("echo git push --force"), want: allowedAll},
		{name: "rm options later", toml: denyRule("rm -rf /"), call: never("rm x -rf /"), want: only0101},
		{name: "positional order kept", toml: denyRule("rm -rf /"), call: never("rm / -rf"), want: allowedAll},
	})
}

// docs/codewhale/releases/0.10.1.md N8: a call path with `..` meets deny
// and ask path rules, whatever their path.
func TestDotDotPathsMeetDeny(t *testing.T) {
	protected := func(action string) string {
		return rule(`tool = "write_file"` + "\n" + `path = "protected.txt"` + "\n" + `action = "` + action + `"`)
	}
	write := func(path string, mode ModeKind) Input {
		return Input{Tool: "write_file", Path: filePath(path), Mode: Mode{Kind: mode}}
	}
	shadow := rule(`tool = "read_file"` + "\n" + `path = "/etc/shadow"` + "\n" + `action = "deny"`)
	runReleaseCases(t, []releaseCase{
		{name: "deny", toml: protected("deny"), call: write("sub/../protected.txt", OnFailure), want: only0101},
		{name: "deny parent", toml: protected("deny"), call: write("../protected.txt", OnFailure), want: only0101},
		{name: "ask", toml: protected("ask"), call: write("sub/../protected.txt", OnFailure),
			want: [3]Phase{Allowed, Allowed, NeedsApproval}, why: "Typed ask rule 'tool=write_file path=protected.txt' requires approval."},
		{name: "allow", toml: protected("allow"), call: write("sub/../protected.txt", OnFailure), want: allowedAll},
		{name: "unrelated file", toml: shadow, call: Input{Tool: "read_file", Path: filePath("src/../README.md"), Mode: Mode{Kind: Never}}, want: only0101},
		{name: "workspace clause first", toml: shadow + `workspace = "/other"` + "\n",
			call: Input{Tool: "read_file", Path: filePath("src/../README.md"), Mode: Mode{Kind: Never}}, want: allowedAll},
		{name: "tool clause first", toml: rule(`tool = "write_file"` + "\n" + `path = "/etc/shadow"` + "\n" + `action = "deny"`),
			call: Input{Tool: "read_file", Path: filePath("src/../README.md"), Mode: Mode{Kind: Never}}, want: allowedAll},
		{name: "tilde", toml: rule(`tool = "read_file"` + "\n" + `path = "~/.ssh/config"` + "\n" + `action = "deny"`),
			call: Input{Tool: "read_file", Path: filePath("~/.ssh/../ssh/config"), Mode: Mode{Kind: Never}}, want: only0101},
	})
	// Codewhale 0.10.1 splits the call path untrimmed for this test (issue
	// 17), so whitespace next to a `..` hides it: the deny or ask rule is
	// not met and the call is allowed, as at every release. Whitespace
	// elsewhere leaves the `..` part whole.
	var cases []releaseCase
	for _, path := range []string{" ../protected.txt", "\t../protected.txt", "sub/.. ", ".. ", "\n..", "sub/ ../protected.txt", "sub/..\t/protected.txt"} {
		cases = append(cases,
			releaseCase{name: "deny " + strconv.Quote(path), toml: protected("deny"), call: write(path, OnFailure), want: allowedAll},
			releaseCase{name: "ask " + strconv.Quote(path), toml: protected("ask"), call: write(path, OnFailure), want: allowedAll})
	}
	for _, path := range []string{"  sub/../protected.txt", "sub/../protected.txt ", "\tsub/../x\t", `sub\..\protected.txt `, "a/../b/../c"} {
		cases = append(cases, releaseCase{name: "deny " + strconv.Quote(path), toml: protected("deny"), call: write(path, OnFailure), want: only0101})
	}
	read := func(path string) Input {
		return Input{Tool: "read_file", Path: filePath(path), Mode: Mode{Kind: Never}}
	}
	runReleaseCases(t, append(cases,
		releaseCase{name: "rooted, trailing space", toml: shadow, call: read("/etc/../etc/shadow "), want: only0101},
		releaseCase{name: "rooted, dot-dot last", toml: shadow, call: read("/etc/.. "), want: allowedAll},
		releaseCase{name: "rooted, no dot-dot", toml: shadow, call: read(" /etc/shadow "), want: before010},
	))
}

// TestDotDotMatchesReference compares the N8 test with the upstream rule as
// docs/codewhale/releases/0.10.1.md A.2.8 states it, on random call paths: a
// deny or ask path rule whose own path no call names is met exactly when the
// call path as given, `\` made `/`, has a component `..`.
func TestDotDotMatchesReference(t *testing.T) {
	pieces := []string{"..", "..", "/", "/", `\`, " ", "\t", "\n", "sub", ".", "x", "..x", "~", "C:"}
	rng := rand.New(rand.NewPCG(17, 8))
	engines := map[string][]*Engine{}
	for _, action := range []string{"deny", "ask", "allow"} {
		f, _ := ParseFile([]byte(rule(`tool = "read_file"` + "\n" + `path = "/never/named"` + "\n" + `action = "` + action + `"`)))
		for _, r := range release.Implemented {
			engines[action] = append(engines[action], NewEngineFromFile(f, WithRelease(r)))
		}
	}
	want := map[string]Phase{"deny": Forbidden, "ask": NeedsApproval, "allow": Allowed}
	for range 3000 {
		var b strings.Builder
		for range 1 + rng.IntN(6) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		path := b.String()
		meets := slices.Contains(strings.Split(strings.ReplaceAll(path, `\`, "/"), "/"), "..")
		for action, byRelease := range engines {
			for i, e := range byRelease {
				expected := Allowed
				if meets && release.Implemented[i].Has(release.DotDotPathsMeetDeny) {
					expected = want[action]
				}
				in := Input{Tool: "read_file", Path: &path, Cwd: "/workspace", Mode: Mode{Kind: OnFailure}}
				if got := e.Check(in); got.Phase != expected {
					t.Fatalf("%s rule at %s, path %q: %s (%s), want %s", action, release.Implemented[i].Version, path, got.Phase, got.Reason, expected)
				}
			}
		}
	}
}

// docs/codewhale/releases/0.10.1.md N5: an allow pattern's class must be
// spelled at the front of the command, and is never empty; python -m keeps
// its module.
func TestLiteralLeadingWords(t *testing.T) {
	trusted := func(prefix string) string {
		return rule(`tool = "exec_shell"` + "\n" + `command = "` + prefix + `"` + "\n" + `action = "allow"`)
	}
	unless := func(command string) Input { return Input{Command: command, Mode: Mode{Kind: UnlessTrusted}} }
	asked := [3]Phase{Allowed, Allowed, NeedsApproval}
	runReleaseCases(t, []releaseCase{
		{name: "flag between", toml: trusted("git status"), call: unless("git --no-pager status"), want: asked},
		{name: "cargo", toml: trusted("cargo test"), call: unless("cargo --locked test"), want: asked},
		{name: "spelled", toml: trusted("git status"), call: unless("git status -s"), want: allowedAll},
		{name: "python module", toml: trusted("python -m pytest"), call: unless("python -m pytest -x"), want: allowedAll},
	})
	for _, c := range []struct {
		command string
		want    [3]string
	}{
		{"python -m pytest -q", [3]string{"python", "python", "python -m pytest"}},
		{"python3 -m pip install x", [3]string{"python3", "python3", "python3 -m pip"}},
		{"python -x -m pytest", [3]string{"python", "python", "python"}},
		{"Python -M pytest", [3]string{"python", "python", "python"}},
		{"Python -m pytest", [3]string{"python", "python", "python -m pytest"}},
		{"git --no-pager status", [3]string{"git status", "git status", "git status"}},
	} {
		for i, r := range release.Implemented {
			if got := shell.DialectOf(r).Classify(c.command); got != c.want[i] {
				t.Errorf("Classify(%q) at %s = %q, want %q", c.command, r.Version, got, c.want[i])
			}
		}
	}
}

// For the same rules and call, 0.9.10 and 0.10.1 differ and the newer
// result names the change.
func TestChangesNameTheRelease(t *testing.T) {
	f, _ := ParseFile([]byte(denyRule("dd * of=/dev/sda")))
	in := never("dd if=/dev/zero of=/dev/sda")
	in.Tool, in.Cwd = DefaultTool, "/workspace"
	old := NewEngineFromFile(f).Check(in)
	if old.Phase != Allowed || old.Changes != nil {
		t.Fatalf("0.9.10: %+v", old)
	}
	r := release.MustOf("0.10.1")
	got := NewEngineFromFile(f, WithRelease(r)).Check(in)
	if got.Phase != Forbidden || !slices.Equal(got.Changes, []release.Change{release.DenyWildcard}) {
		t.Fatalf("0.10.1: %s %v", got.Phase, got.Changes)
	}
	// An outcome the releases share names nothing.
	in.Command = "dd * of=/dev/sda"
	if same := NewEngineFromFile(f, WithRelease(r)).Check(in); same.Phase != Forbidden || same.Changes != nil {
		t.Fatalf("literal: %s %v", same.Phase, same.Changes)
	}
}

// RootedPath is the rooted channel's reading of a rule path, shared by the
// engine and the lints (docs/codewhale/releases/0.10.0.md A.2.2).
func TestRootedPath(t *testing.T) {
	for _, c := range []struct {
		value  string
		fold   bool
		form   string
		rooted bool
	}{
		{" /etc//Passwd/ ", false, "/etc//Passwd/", true},
		{"/etc/Passwd", true, "/etc/passwd", true},
		{`C:\Users\x`, false, "C:/Users/x", true},
		{`~\.ssh\id`, false, "~/.ssh/id", true},
		{"~", false, "~", false},
		{"~user/x", false, "~user/x", false},
		{"C:x", false, "C:x", false},
		{"src/./a", false, "src/./a", false},
	} {
		if form, rooted := RootedPath(c.value, c.fold); form != c.form || rooted != c.rooted {
			t.Errorf("RootedPath(%q, %v) = %q, %v; want %q, %v", c.value, c.fold, form, rooted, c.form, c.rooted)
		}
	}
}

func TestHasDotDot(t *testing.T) {
	for path, want := range map[string]bool{"../x": true, "a/../b": true, "a/..": true, "..": true, "a/..b": false, "a/b..": false, "a\\..\\b": false, "": false} {
		if got := HasDotDot(path); got != want {
			t.Errorf("HasDotDot(%q) = %v, want %v", path, got, want)
		}
	}
}

// A line of many deny targets answers the lost-target question only when
// asked (issue 23): heredoc data the oldest release judged, behind 20
// other commands, still names the change as it does on its own.
func TestLostTargetOfALongLine(t *testing.T) {
	f, _ := ParseFile([]byte(denyRule("git switch -f")))
	r := release.MustOf("0.10.0")
	for _, command := range []string{
		"cat <<'EOF'\ngit switch -f\nEOF",
		strings.Repeat("ls; ", 20) + "cat <<'EOF'\ngit switch -f\nEOF",
	} {
		in := never(command)
		in.Tool, in.Cwd = DefaultTool, "/workspace"
		if old := NewEngineFromFile(f).Check(in); old.Phase != Forbidden {
			t.Fatalf("0.9.10, %q: %s", command, old.Phase)
		}
		got := NewEngineFromFile(f, WithRelease(r)).Check(in)
		if got.Phase == Forbidden || !slices.Equal(got.Changes, []release.Change{release.DenyTargetsFromExpander}) {
			t.Fatalf("0.10.0, %q: %s %v", command, got.Phase, got.Changes)
		}
	}
}
