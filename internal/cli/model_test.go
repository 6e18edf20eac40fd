package cli

import (
	"reflect"
	"strings"
	"testing"
)

// A help text in the shapes cmd/codewhale-ls/help.go writes them.
var sampleHelp = map[string]string{
	"check": `usage: prog check [flags] [FILE...]

Lints the files (all of them), only FILE... when given. More.

  --format text|json        how findings are printed (default text)
  --baseline REV|none       report what loosens the policy
                            against git revision REV
  --fix                     first write every safe fix
  --workspace DIR           the workspace
`,
	"hook": `usage: prog hook AGENT [--config PATH] [--timeout SECONDS] [--exact] < event.json
       prog hook install|uninstall AGENT [--user|--project [--workspace DIR]] [--yes]

As AGENT's hook: decides. AGENT is one of
alpha, beta-2. Every error is a deny.

  --alert MODE              when a card arrives: desktop, bell
`,
	"explain": `usage: prog explain [flags] TOOL (--command CMD | --path P) [--json]

Shows how every layer judges a call.

TOOL is an MCP tool (mcp_x) or one of the tools:
  read write
  exec_shell
`,
	"log": `usage: prog log [--since 2h|RFC3339] [--decision allow|ask|deny]
                [--repo DIR] [--json]
       prog log show ID [--json]

Shows the decision log; more.

  --decision D              only these decisions
`,
	"help": `usage: prog help [COMMAND] (also --help, -h)

Prints the commands.
`,
}

func TestCompletionModelParse(t *testing.T) {
	m, err := Parse("prog", sampleHelp)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range m.Commands {
		names = append(names, c.Name)
	}
	if want := []string{"check", "explain", "help", "hook", "log"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("commands %v, want %v", names, want)
	}
	check := m.Command("check")
	if check.Summary != "Lints the files, only FILE... when given" || len(check.Words) != 0 ||
		!reflect.DeepEqual(check.Operand, &Operand{Name: "FILE", Kind: File, Many: true}) {
		t.Errorf("check: %+v, operand %+v", check, check.Operand)
	}
	wantFlags := []Flag{
		{Name: "baseline", Value: "REV|none", Summary: "report what loosens the policy against git revision REV"},
		{Name: "fix", Summary: "first write every safe fix"},
		{Name: "format", Value: "text|json", Kind: Choices, Values: []string{"text", "json"}, Summary: "how findings are printed"},
		{Name: "workspace", Value: "DIR", Kind: Dir, Summary: "the workspace"},
	}
	if !reflect.DeepEqual(check.Flags, wantFlags) {
		t.Errorf("check flags:\n got %+v\nwant %+v", check.Flags, wantFlags)
	}

	hook := m.Command("hook")
	if !reflect.DeepEqual(hook.Words, []string{"install", "uninstall"}) ||
		!reflect.DeepEqual(hook.Operand, &Operand{Name: "AGENT", Kind: Choices, Values: []string{"alpha", "beta-2"}}) {
		t.Errorf("hook: words %v, operand %+v", hook.Words, hook.Operand)
	}
	var hookFlags []string
	for _, f := range hook.Flags {
		hookFlags = append(hookFlags, f.Name+"="+f.Value)
	}
	// Flags from both usage lines (--user|--project is two) and the flag
	// lines; "< event.json" is standard input, no operand.
	if want := []string{"alert=MODE", "config=PATH", "exact=", "project=", "timeout=SECONDS", "user=", "workspace=DIR", "yes="}; !reflect.DeepEqual(hookFlags, want) {
		t.Errorf("hook flags %v, want %v", hookFlags, want)
	}

	explain := m.Command("explain")
	if o := explain.Operand; o == nil || o.Name != "TOOL" || !reflect.DeepEqual(o.Values, []string{"read", "write", "exec_shell"}) {
		t.Errorf("explain operand %+v", o)
	}
	if f := explain.Flag("command"); f == nil || f.Value != "CMD" || explain.Flag("path") == nil || explain.Flag("json").Value != "" {
		t.Errorf("explain flags %+v", explain.Flags)
	}

	log := m.Command("log")
	// A usage line's closed set stays when a flag line names the value D.
	if f := log.Flag("decision"); f == nil || f.Kind != Choices || !reflect.DeepEqual(f.Values, []string{"allow", "ask", "deny"}) || f.Summary != "only these decisions" {
		t.Errorf("log --decision %+v", f)
	}
	if f := log.Flag("since"); f == nil || f.Kind != Nothing || log.Flag("repo") == nil || log.Flag("repo").Kind != Dir {
		t.Errorf("log flags %+v", log.Flags)
	}
	if !reflect.DeepEqual(log.Words, []string{"show"}) || log.Operand == nil || log.Operand.Name != "ID" || log.Operand.Kind != Nothing {
		t.Errorf("log: words %v, operand %+v", log.Words, log.Operand)
	}

	help := m.Command("help")
	if !reflect.DeepEqual(help.Aliases, []string{"--help", "-h"}) || help.Operand == nil ||
		!reflect.DeepEqual(help.Operand.Values, names) {
		t.Errorf("help: aliases %v, operand %+v", help.Aliases, help.Operand)
	}
	if want := []string{"alert", "baseline", "command", "config", "decision", "format", "path", "repo", "since", "timeout", "workspace"}; !reflect.DeepEqual(m.Valued(), want) {
		t.Errorf("valued %v, want %v", m.Valued(), want)
	}
}

// A help text the model cannot read is an error naming the command, not
// a completion that quietly lacks it.
func TestCompletionModelParseErrors(t *testing.T) {
	for name, help := range map[string]map[string]string{
		"no usage":           {"check": "Lints.\n"},
		"another command's":  {"check": "usage: prog lint [FILE...]\n"},
		"an unreadable word": {"check": "usage: prog check --format text|json FILE... {x}\n"},
		"a flag both valued and not": {
			"check":   "usage: prog check [--json FORMAT]\n",
			"explain": "usage: prog explain [--json]\n",
		},
	} {
		if _, err := Parse("prog", help); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), "prog check") && !strings.Contains(err.Error(), "--json") {
			t.Errorf("%s: the error does not say where: %v", name, err)
		}
	}
}

// Text that roff would read as a request or an escape is escaped, and the
// page has no date (the same program gives the same bytes).
func TestManEscapes(t *testing.T) {
	m, err := Parse("prog", map[string]string{"check": "usage: prog check [--x]\n\nLints.\n\n.starts with a dot\n'and a quote\nback\\slash\n"})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := m.Man(&b, Page{Version: "1.2.3", Title: "a program", SeeAlso: []string{"git(1)", "the docs"}}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		".TH PROG 1 \"\" \"prog 1.2.3\" \"User Commands\"\n",
		"\\&.starts with a dot\n", "\\&'and a quote\n", "back\\eslash\n",
		"prog check [\\-\\-x]\n", ".BR git (1),\nthe docs\n",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
}
