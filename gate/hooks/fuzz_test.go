package hooks

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

func FuzzLoad(f *testing.F) {
	f.Add("[hooks]\n[[hooks.hooks]]\nevent = \"tool_call_before\"\ncommand = \"x\"\ncondition = { type = \"all\", conditions = [{ type = \"mode\", mode = \"Plan\" }] }\n")
	f.Add("[[hooks]]\nevent = 1\ncondition = { type = \"any\", conditions = 3 }\n")
	f.Add("hooks = [1, \"x\", { event = \"shell_env\", command = \"\", timeout_secs = -3 }]\n")
	f.Add("[hooks]\nhooks = { a = 1 }\ndefault_timeout_secs = 0\n")
	f.Fuzz(func(t *testing.T, src string) {
		doc, err := tomldoc.Parse([]byte(src))
		if err != nil {
			return
		}
		table, _ := doc.Root.Sub("hooks")
		user, problems := FromUserConfig(table, release.Release{})
		checkSpans(t, src, problems)
		project, problems := FromProjectFile(doc, release.Release{})
		checkSpans(t, src, problems)
		for _, cfg := range []Config{user, project} {
			if cfg.Rejected && len(cfg.Hooks) > 0 {
				t.Fatal("a rejected file kept hooks")
			}
		}
	})
}

func checkSpans(t *testing.T, src string, problems []problem.Problem) {
	t.Helper()
	for _, p := range problems {
		if p.Span.Start < 0 || p.Span.End > len(src) || p.Span.Start > p.Span.End {
			t.Fatalf("span %+v outside the text", p.Span)
		}
	}
}

func FuzzParseReply(f *testing.F) {
	f.Add(`{"decision":"deny","reason":"a\u0000b","updatedInput":{"x":[1,2]},"additionalContext":"c"}`)
	f.Add(`[1,2]`)
	f.Add(`{"reason":` + strings.Repeat("[", 50) + `}`)
	f.Fuzz(func(t *testing.T, stdout string) {
		r := parseReply(stdout)
		if strings.ContainsFunc(r.reason+r.context, func(c rune) bool { return c < 0x20 || c == 0x7f }) {
			t.Fatalf("control character kept: %q", r.reason+r.context)
		}
		_ = fold([]run{{hook: beforeHook("f", true), result: exited(1, stdout), reply: r}})
	})
}

func FuzzToolNameMatches(f *testing.F) {
	f.Add("mcp_*_read", "mcp_fs_read")
	f.Add("a*b*", "aab")
	f.Add("a*\n*b", "a\nb")
	f.Add("*", "x\ny")
	f.Add("ab*ba", "aba")
	f.Add("\uFFFD*", "\xff")
	f.Fuzz(func(t *testing.T, pattern, name string) {
		got := toolNameMatches(pattern, name)
		if got && !strings.Contains(pattern, "*") && pattern != name {
			t.Fatal("a pattern without * matched another name")
		}
		// Codewhale's names are Rust strings, always UTF-8; Go's regexp
		// would read a stray byte as U+FFFD.
		if !utf8.ValidString(name) {
			return
		}
		if want := codewhaleToolNameRegex(pattern, name); got != want {
			t.Fatalf("toolNameMatches(%q, %q) = %v; Codewhale's regex says %v", pattern, name, got, want)
		}
	})
}

// codewhaleToolNameRegex is Codewhale's own test: an anchored regex with
// every `*` turned into `.*` and every other character literal.
func codewhaleToolNameRegex(pattern, name string) bool {
	if !strings.Contains(pattern, "*") {
		return pattern == name
	}
	parts := strings.Split(pattern, "*")
	for i, part := range parts {
		parts[i] = regexp.QuoteMeta(part)
	}
	re, err := regexp.Compile(`^(?:` + strings.Join(parts, ".*") + `)$`)
	return err == nil && re.MatchString(name)
}
