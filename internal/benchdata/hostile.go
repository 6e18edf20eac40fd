package benchdata

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Hostile is one shell line built to make a decision slow (issue 23
// point 14): deep nesting, huge words, many commands, many
// here-documents. A decision of any of them must take at most 50 ms
// (docs/performance.md, "Hostile inputs").
type Hostile struct {
	Name    string
	Command string
}

// MaxHookEventBytes is the hook's input cap (agents.MaxEventBytes, 8 MiB),
// repeated here so benchdata stays below every package it measures.
const MaxHookEventBytes = 8 << 20

// HostileCommands are the hostile shell lines, each at most 1 MiB unless
// its name says otherwise, the same ones every run.
func HostileCommands() []Hostile {
	const mib = 1 << 20
	repeat := strings.Repeat
	var hs []Hostile
	add := func(name, command string) { hs = append(hs, Hostile{name, command}) }

	// The ones issue 23 measured.
	add("brace-seq-500", "echo "+repeat("{1..1000} ", 500))
	add("rm-brace-lists-2.6k", "rm -rf "+fill("{a,b,c,d,e,f,g,h,i,j} ", 2600))
	add("procsub-3000", "cat "+repeat("<(cat ", 3000)+"x"+repeat(")", 3000))
	add("cmdsub-20000", "echo "+repeat("$(echo ", 20000)+"x"+repeat(")", 20000))
	add("line-1MiB", "echo "+fill("abcdefg ", mib))
	add("heredoc-4096-one-line", heredocsOneLine(4096))
	add("heredoc-4096-commands", heredocCommands(4096))

	// Others of the same families.
	add("brace-product-2^20", "rm -rf /"+repeat("{a,b}", 20))
	add("brace-nested-1000", "rm -rf "+repeat("{a,", 1000)+"b"+repeat("}", 1000))
	add("subshell-20000", repeat("(", 20000)+"ls"+repeat(")", 20000))
	add("group-20000", repeat("{ ", 20000)+"ls"+repeat("; }", 20000))
	add("backquote-deep", backquotes(mib))
	add("backquote-flat-50000", "echo "+repeat("`ls` ", 50000))
	add("param-nest-20000", "echo "+repeat("${x:-", 20000)+"y"+repeat("}", 20000))
	add("arith-nest-20000", "echo $(("+repeat("(", 20000)+"1"+repeat(")", 20000)+"))")
	add("dquote-cmdsub-20000", "echo "+repeat(`"$(echo `, 20000)+"x"+repeat(`)"`, 20000))
	add("semicolons-100k", repeat("ls; ", 100000))
	add("and-100k", repeat("true && ", 100000)+"true")
	add("pipeline-100k", repeat("cat | ", 100000)+"cat")
	add("redirections-100k", "echo x"+repeat(" >f", 100000))
	add("word-1MiB", "echo "+repeat("a", mib))
	add("single-quoted-1MiB", "echo '"+repeat("a b ", mib/4)+"'")
	add("ansi-c-1MiB", "echo $'"+repeat(`\x41`, mib/4)+"'")
	add("rm-words-1MiB", "rm -rf "+fill("x/ ", mib))
	add("newlines-100k", repeat("ls\n", 100000))
	add("sh-c-nest-12", shC(12))
	add("eval-100k", repeat("eval ls; ", 100000))
	// Wrappers, each a command head from which 0.10.1's expander reads
	// the rest of the line again (up to 512 of them).
	add("xargs-1MiB", fill("xargs ", mib)+"rm -rf /")
	add("xargs-I-1MiB", fill("xargs -I{} ", mib)+"rm -rf /")
	add("sudo-1MiB", fill("sudo ", mib)+"rm -rf /")
	return hs
}

// fill repeats unit to at most n bytes (at least once).
func fill(unit string, n int) string {
	return strings.Repeat(unit, max(1, n/len(unit)))
}

// heredocsOneLine is one cat reading n here-documents, all opened on its
// line, their bodies after it.
func heredocsOneLine(n int) string {
	var b strings.Builder
	b.WriteString("cat")
	for i := range n {
		fmt.Fprintf(&b, " <<E%d", i)
	}
	b.WriteByte('\n')
	for i := range n {
		fmt.Fprintf(&b, "body %d\nE%d\n", i, i)
	}
	return b.String()
}

// heredocCommands is n commands, each with its own here-document.
func heredocCommands(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "cat <<E%d\nbody %d\nE%d\n", i, i, i)
	}
	return b.String()
}

// backquotes nests backquoted echo commands in each other as deep as fits
// in n bytes: each level escapes the one inside it, so the text doubles
// with each level.
func backquotes(n int) string {
	s := "x"
	for {
		r := strings.NewReplacer(`\`, `\\`, "`", "\\`", "$", `\$`)
		next := "echo `" + r.Replace(s) + "`"
		if len(next) > n {
			return s
		}
		s = next
	}
}

// shC nests sh -c '…' depth deep, quoting each level for the next.
func shC(depth int) string {
	s := "rm -rf /"
	for range depth {
		s = "sh -c '" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}

// HostileEvent is one agent's hook event, just under the hook's input cap,
// of a shell call whose command is hostile.
type HostileEvent struct {
	Name  string
	Agent string // agents.Lookup's name
	Event []byte
}

// HostileEvents are a shell call's event of each agent's shape
// (agents/testdata/captured), its command filled until the event is just
// under MaxHookEventBytes: short commands joined by `&&`, a quoted
// argument each with an escape JSON must decode, so the event's decoding
// and every layer see 8 MiB.
func HostileEvents(cwd string) []HostileEvent {
	shapes := []struct {
		agent string
		event func(command string) map[string]any
	}{
		{"claude-code", func(c string) map[string]any {
			return map[string]any{"session_id": "s", "cwd": cwd, "permission_mode": "default", "hook_event_name": "PreToolUse",
				"tool_name": "Bash", "tool_input": map[string]any{"command": c, "description": "d"}, "tool_use_id": "toolu_00"}
		}},
		{"codex", func(c string) map[string]any {
			return map[string]any{"session_id": "s", "cwd": cwd, "hook_event_name": "PreToolUse", "permission_mode": "default",
				"tool_name": "Bash", "tool_input": map[string]any{"command": c}, "tool_use_id": "call_00"}
		}},
		{"copilot-cli", func(c string) map[string]any {
			return map[string]any{"sessionId": "s", "timestamp": 1, "cwd": cwd, "toolName": "bash",
				"toolArgs": map[string]any{"command": c, "description": "d"}}
		}},
		{"gemini-cli", func(c string) map[string]any {
			return map[string]any{"session_id": "s", "cwd": cwd, "hook_event_name": "BeforeTool",
				"tool_name": "run_shell_command", "tool_input": map[string]any{"command": c}}
		}},
		{"cursor", func(c string) map[string]any {
			return map[string]any{"hook_event_name": "beforeShellExecution", "cwd": cwd, "workspace_roots": []string{cwd}, "command": c}
		}},
	}
	unit := "echo \"a\tb\" && " // quotes, tab and & all escaped in JSON
	quoted, _ := json.Marshal(unit)
	unitJSON := len(quoted) - 2
	var out []HostileEvent
	for _, s := range shapes {
		skeleton, _ := json.Marshal(s.event(""))
		n := (MaxHookEventBytes - 4096 - len(skeleton)) / unitJSON
		command := strings.Repeat(unit, n) + "true"
		event, err := json.Marshal(s.event(command))
		if err != nil || len(event) >= MaxHookEventBytes {
			panic(fmt.Sprintf("benchdata: %s's hostile event is %d bytes (%v)", s.agent, len(event), err))
		}
		out = append(out, HostileEvent{Name: "event-8MiB-" + s.agent, Agent: s.agent, Event: event})
	}
	return out
}
