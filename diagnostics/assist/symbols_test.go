package assist

import (
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
)

// outline flattens symbols to "kind name (detail)" lines, children
// indented, and checks every span on the way.
func outline(t *testing.T, src []byte, symbols []Symbol, indent string) []string {
	t.Helper()
	var out []string
	for _, s := range symbols {
		if s.Span.Start < 0 || s.Span.End > len(src) || s.Span.Start > s.Span.End {
			t.Errorf("%s: span %+v out of the text", s.Name, s.Span)
		}
		if s.SelectionSpan.Start < s.Span.Start || s.SelectionSpan.End > s.Span.End {
			t.Errorf("%s: selection %+v outside span %+v", s.Name, s.SelectionSpan, s.Span)
		}
		line := indent + [...]string{"?", "table", "key", "rule", "hook", "invariant"}[s.Kind] + " " + s.Name
		if s.Detail != "" {
			line += " (" + s.Detail + ")"
		}
		out = append(out, line)
		out = append(out, outline(t, src, s.Children, indent+"  ")...)
	}
	return out
}

func TestSymbols(t *testing.T) {
	cases := []struct {
		fixture string
		want    []string
	}{
		{"permissions.toml", []string{
			"rule tool=exec_shell command=cargo publish (deny · hard-deny prefix)",
			"rule tool=exec_shell command=git status (allow · trusted prefix)",
			"rule tool=exec_shell command=git push (ask)",
			"rule tool=exec_shell command=rm -rf / command_exact=true (deny)",
			"rule tool=exec_shell command=make test command_exact=true workspace=/home/dev/src/widget (allow)",
			"rule tool=read_file path=.env (deny)",
			"rule tool=bash command=npm run build workspace=relative/dir (deny)",
			"rule tool=write_file command=git diff (allow · trusted prefix)",
		}},
		{"permissions_inline.toml", []string{
			"rule tool=exec_shell command=git diff (allow · trusted prefix)",
			"rule tool=write_file path=Cargo.lock (ask)",
		}},
		// Broken TOML: the outline comes from the headers.
		{"permissions_typing.toml", []string{
			"rule tool=exec_shell command=git push (ask)",
			"rule tool=read_file (ask)",
		}},
		{"config.toml", []string{
			`key approval_policy ("on-request")`,
			`key sandbox_mode ("workspace-write")`,
			"key allow_shell (boolean)",
			"key api_key (string)",
			"table approval",
			`  key default_selection ("deny")`,
			"table hooks",
			"  key enabled (boolean)",
			"  key default_timeout_secs (integer)",
			"  hook guard (tool_call_before)",
			"  hook session_start",
			"table auto_review",
			"  rule config-allow-1 (allow tool=read action_kind=read)",
			"  rule no-publish (block tool=bash action_kind=publish)",
			"table projects",
			"  table /home/dev/src/widget",
			"    key trust_level (string)",
			"table workspace",
			"  table /home/dev/src/widget",
			"    key allow_shell (boolean)",
			"table features",
			"  key shell_tool (boolean)",
			"table general",
			"  key approval_policy (string)", // [general] is not a Codewhale table
		}},
		{"config_typing.toml", []string{"hook tool_call_before"}},
		{"hooks.toml", []string{
			"hook no-pipe-to-shell (tool_call_before)",
			"hook tool_call_after",
		}},
		{"constitution.json", []string{
			"invariant Keep the public API documented. (advisory)",
			"invariant The wire format is frozen (block: crates/protocol/**)",
			"invariant Release notes need human review (ask: CHANGELOG.md)",
		}},
		{"constitution_typing.json", []string{
			"invariant Frozen (bl: crates/**)",
			"invariant Second (advisory)",
		}},
	}
	for _, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
			src := fixture(t, c.fixture)
			got := outline(t, src, Symbols(fixtureKinds[c.fixture], src), "")
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("outline:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// The whole entry is the span; the header or name is the selection.
func TestSymbolSpans(t *testing.T) {
	src := fixture(t, "permissions.toml")
	first := Symbols(config.KindPermissions, src)[0]
	if got := string(src[first.Span.Start:first.Span.End]); got != "[[rules]]\ntool = \"exec_shell\"\ncommand = \"cargo publish\"\naction = \"deny\"" {
		t.Errorf("span %q", got)
	}
	if got := string(src[first.SelectionSpan.Start:first.SelectionSpan.End]); got != "rules" {
		t.Errorf("selection %q", got)
	}
	law := fixture(t, "constitution.json")
	frozen := Symbols(config.KindConstitution, law)[1]
	if got := string(law[frozen.SelectionSpan.Start:frozen.SelectionSpan.End]); got != `"The wire format is frozen"` {
		t.Errorf("invariant selection %q", got)
	}
	if got := string(law[frozen.Span.Start:frozen.Span.End]); !strings.HasPrefix(got, "{") || !strings.HasSuffix(got, "}") {
		t.Errorf("invariant span %q", got)
	}
	hooks := fixture(t, "hooks.toml")
	hook := Symbols(config.KindProjectHooks, hooks)[0]
	if got := string(hooks[hook.Span.Start:hook.Span.End]); !strings.HasPrefix(got, "[[hooks]]") || !strings.HasSuffix(got, `category = "shell" }`) {
		t.Errorf("hook span %q", got)
	}
}

func TestSymbolsOfOtherFiles(t *testing.T) {
	if s := Symbols(config.KindSettings, []byte("permission_posture = \"ask\"\n")); s != nil {
		t.Errorf("settings.toml has no schema, got %+v", s)
	}
	if s := Symbols(config.KindUserConfig, []byte("[\"\"]\nx = 1\n")); len(s) != 1 || s[0].Name != `""` {
		t.Errorf("an empty table name must still name the symbol: %+v", s)
	}
}
