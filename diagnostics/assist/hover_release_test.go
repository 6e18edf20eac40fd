package assist

import (
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// TestHoverPerRelease: a hover says what the user's release does and
// names it (docs/codewhale/releases/0.10.0.md A.2.2, A.3.4, B.1, B.3;
// releases/0.10.1.md D.9).
func TestHoverPerRelease(t *testing.T) {
	perm := []byte("[[rules]]\ntool = \"read_file\"\npath = \"/etc/shadow\"\naction = \"deny\"\n\n" +
		"[[rules]]\ntool = \"exec_shell\"\ncommand = \"dd * of=/dev/sda\"\naction = \"deny\"\n")
	cfg := []byte("sandbox_network_access = true\n\n[tui]\nterminal_probe_timeout_ms = 100\n")
	cases := []struct {
		name    string
		kind    config.Kind
		src     []byte
		needle  string
		version string
		want    []string
		wantNot []string
	}{
		{"rooted path rule in 0.9.10", config.KindPermissions, perm, `path = "/etc/sha|dow"`, "0.9.10",
			[]string{"an absolute path outside the session's workspace never matches", "*As Codewhale 0.9.10 does.*"}, []string{"inside or outside the workspace"}},
		{"rooted path rule in 0.10.1", config.KindPermissions, perm, `path = "/etc/sha|dow"`, "0.10.1",
			[]string{"`/etc/shadow` exactly as written, inside or outside the workspace", "a call whose path has a `..` component meets it too", "In Codewhale 0.10.1 it matches:"}, nil},
		{"path key in 0.10.0", config.KindPermissions, perm, `pa|th = "/etc/shadow"`, "0.10.0",
			[]string{"A rooted path", "Codewhale 0.10.0"}, []string{"a call whose path has a `..` component meets"}},
		{"wildcard deny in 0.9.10", config.KindPermissions, perm, `command = "dd * of|=/dev/sda"`, "0.9.10",
			[]string{"`*` is a literal word here"}, []string{"heredoc"}},
		{"wildcard deny in 0.10.0", config.KindPermissions, perm, `command = "dd * of|=/dev/sda"`, "0.10.0",
			[]string{"each `*` word matches any number of command words", "heredoc data"}, nil},
		{"new key in 0.9.10", config.KindUserConfig, cfg, "sandbox_network_acc|ess", "0.9.10",
			[]string{"Codewhale 0.9.10 does not read `sandbox_network_access` (Codewhale 0.10.0 added it)"}, nil},
		{"new key in 0.10.0", config.KindUserConfig, cfg, "sandbox_network_acc|ess", "0.10.0",
			[]string{"**`sandbox_network_access`** · boolean · default `false`", "outbound network"}, nil},
		{"removed key in 0.10.0", config.KindUserConfig, cfg, "terminal_probe_time|out_ms", "0.10.0",
			[]string{"**`terminal_probe_timeout_ms`** · integer"}, nil},
		{"removed key in 0.10.1", config.KindUserConfig, cfg, "terminal_probe_time|out_ms", "0.10.1",
			[]string{"Codewhale 0.10.1: `terminal_probe_timeout_ms` was removed in Codewhale 0.10.1"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			md, _, ok := Hover(c.kind, c.src, at(t, c.src, c.needle), nil, release.MustOf(c.version))
			if !ok {
				t.Fatal("no hover")
			}
			checkMarkdown(t, md, c.want, c.wantNot)
		})
	}
}

// Completion offers the keys of the user's release only.
func TestCompletePerRelease(t *testing.T) {
	src := []byte("sandbox_net")
	offered := func(version string) bool {
		r := release.MustOf(version)
		for _, it := range Complete(config.KindUserConfig, src, len(src), r) {
			if it.Label == "sandbox_network_access" {
				return true
			}
		}
		return false
	}
	if offered("0.9.10") || !offered("0.10.1") {
		t.Errorf("sandbox_network_access offered: 0.9.10 %v, 0.10.1 %v", offered("0.9.10"), offered("0.10.1"))
	}
}

// From 0.10.1 an allow's words must lead the command (0.10.1.md N5), so
// the hover no longer says that flags between them match; a deny's still
// do.
func TestRuleFactsFlagsBetweenWordsPerRelease(t *testing.T) {
	for _, c := range []struct {
		action, version string
		flags           bool
	}{
		{"allow", "0.10.0", true},
		{"allow", "0.10.1", false},
		{"deny", "0.10.1", true},
	} {
		src := []byte("[[rules]]\ntool = \"exec_shell\"\ncommand = \"git status\"\naction = \"" + c.action + "\"\n")
		md, _, ok := Hover(config.KindPermissions, src, at(t, src, `command = "git sta|tus"`), nil, release.MustOf(c.version))
		if !ok {
			t.Fatalf("%s at %s: no hover", c.action, c.version)
		}
		if got := strings.Contains(md, "`git --flag status`"); got != c.flags {
			t.Errorf("%s at %s: flags between the words = %v, want %v:\n%s", c.action, c.version, got, c.flags, md)
		}
	}
}
