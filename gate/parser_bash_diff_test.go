package gate

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// TestShellParserAgainstBash is a differential test of mvdan.cc/sh, the
// parser the hardening layer reads lines with, against bash (issue 23).
// It generates shell lines from a small grammar (quotes, escapes, $'…',
// braces, substitutions, here-strings and here-documents, comments, line
// continuations with LF and CRLF, `((`, `[[`, case, arrays, functions),
// seeded so a run is repeatable, and for each line compares:
//
//   - bash: the simple commands it really runs, with their words, from
//     an xtrace run (`bash -x -c LINE`) with an empty PATH and each
//     command of the vocabulary (a, b, git, cargo, rm) an exported
//     function that returns 0, so no program runs at all and each command
//     is only traced;
//   - mvdan: the simple commands its parser finds (syntax.Walk over the
//     CallExprs, substitutions and function bodies included), their words
//     expanded as literals (quotes, escapes, $'…', braces, arithmetic;
//     a command substitution expands to nothing, as the traced commands
//     print nothing). A word holding a parameter expansion is dynamic: its
//     command then matches by name only.
//
// A disagreement is a command bash ran that mvdan did not find, or a
// line mvdan rejects on which bash ran a command: in both the layer cannot
// see what runs. (A command mvdan finds that bash skips, after `||` say,
// is no disagreement.) Disagreements are reported, not failed: the layer's
// authors decide what to do with each kind. Lines among them that run a
// denied command belong in hostile/parse-divergence.txt.
//
// 400 lines by default (100 with -short), and no more than 25 s of them;
// CODEWHALE_SHDIFF_LINES=N for more (without the time limit) and
// CODEWHALE_SHDIFF_SEED to change the seed.
func TestShellParserAgainstBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash here")
	}
	n, seed := 400, uint64(23)
	if testing.Short() {
		n = 100
	}
	if v, err := strconv.Atoi(os.Getenv("CODEWHALE_SHDIFF_LINES")); err == nil && v > 0 {
		n = v
	}
	if v, err := strconv.ParseUint(os.Getenv("CODEWHALE_SHDIFF_SEED"), 10, 64); err == nil {
		seed = v
	}
	g := &lineGen{r: rand.New(rand.NewPCG(seed, 23))}
	lines := make([]string, n)
	for i := range lines {
		lines[i] = g.line()
	}
	empty := t.TempDir()
	results := make([]diffResult, n)
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(2, runtime.GOMAXPROCS(0)*2) {
		wg.Go(func() {
			// The number of lines bounds the work, not the clock: a slow
			// machine compares them all, later.
			for i := range work {
				results[i] = compareLine(t.Context(), bash, empty, lines[i])
			}
		})
	}
	for i := range lines {
		work <- i
	}
	close(work)
	wg.Wait()
	kinds := map[string]int{}
	compared, rejected, bothReject, denied, crKept := 0, 0, 0, 0, 0
	for i, r := range results {
		if r.skipped {
			continue
		}
		compared++
		crKept += r.crKept
		if r.mvdanErr != nil {
			rejected++
			if len(r.bashRan) == 0 {
				bothReject++
			}
		}
		if len(r.unseen) == 0 {
			continue
		}
		kind := "mvdan reads otherwise"
		if r.mvdanErr != nil {
			kind = "mvdan rejects"
		}
		kind += ": " + divergenceKind(lines[i], r.mvdanErr)
		kinds[kind]++
		runsDenied := r.runsDenied
		if runsDenied {
			denied++
		}
		if kinds[kind] <= 12 || testing.Verbose() {
			t.Logf("line %d: %s (%v): bash ran %q, mvdan found %q; runs a denied command: %v\n\t%q", i, kind, r.mvdanErr, r.unseen, r.mvdanFound, runsDenied, lines[i])
		}
	}
	t.Logf("seed %d: %d of %d lines compared in time; mvdan rejects %d (bash runs nothing on %d of them); %d disagreements, %d of them run a denied command",
		seed, compared, n, rejected, bothReject, sumValues(kinds), denied)
	t.Logf("%d commands bash ran with a CRLF's CR kept in their last word, which mvdan reads without it (not counted: the layer reads them stricter)", crKept)
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		t.Logf("disagreements: %s: %d", k, kinds[k])
	}
}

// commentBackslash is a comment ending in a backslash before a line
// break: bash ends the comment there, mvdan continues the line.
var commentBackslash = regexp.MustCompile(`(^|[ \t;])#[^\n]*\\\r?\n`)

// divergenceKind names the likely cause of a disagreement, for the
// report: the constructs the grammar found mvdan and bash to read apart.
func divergenceKind(line string, err error) string {
	switch {
	case strings.Contains(line, "\\\r\n"):
		return "backslash-CRLF (bash: an escaped CR, then the command ends; mvdan: a line continuation)"
	case commentBackslash.MatchString(line):
		return "a comment ending in a backslash (bash: the comment ends; mvdan: the next line joins it)"
	case err != nil && (strings.Contains(err.Error(), "((") || strings.Contains(err.Error(), "arithmetic") ||
		strings.Contains(err.Error(), "must follow a name") && strings.Contains(line, "((")):
		return "`((` that bash reads as nested subshells"
	case err != nil && strings.Contains(err.Error(), "can only be used"):
		return "a later syntax error (bash runs the commands before it)"
	case err != nil && strings.Contains(err.Error(), "`") && strings.Contains(line, "`"):
		return "escapes inside backquotes"
	case err != nil:
		return "other syntax mvdan rejects"
	}
	return "other"
}

func sumValues(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

type diffResult struct {
	bashRan    []string // the vocabulary commands bash ran, words joined by spaces
	bashArgv   [][]string
	runsDenied bool // an unseen command is git push, cargo publish or rm -rf /
	mvdanFound []string
	mvdanErr   error
	unseen     []string // bash ran, mvdan did not find
	crKept     int      // bash ran with a CR kept at the end, mvdan without
	skipped    bool
}

// shVocabulary are the command names the grammar uses and the comparison
// looks at.
var shVocabulary = []string{"a", "b", "git", "cargo", "rm"}

func compareLine(ctx context.Context, bash, empty, line string) diffResult {
	var r diffResult
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-x", "-c", line)
	cmd.Dir = empty
	cmd.Env = []string{
		"PATH=" + filepath.Join(empty, "nothing"),
		"HOME=" + empty,
		"LANG=C",
	}
	for _, name := range shVocabulary {
		cmd.Env = append(cmd.Env, "BASH_FUNC_"+name+"%%=() { return 0; }")
	}
	// The trace goes to its own descriptor, so a line's own `2>&1`
	// cannot mix it into a substitution's output.
	trace, err := os.CreateTemp(empty, "trace")
	if err != nil {
		r.mvdanErr = err
		return r
	}
	defer os.Remove(trace.Name())
	defer trace.Close()
	cmd.ExtraFiles = []*os.File{trace}
	cmd.Env = append(cmd.Env, "BASH_XTRACEFD=3")
	cmd.Stdin = nil
	cmd.Stderr = io.Discard
	cmd.Stdout = io.Discard
	_ = cmd.Run()
	traced, _ := os.ReadFile(trace.Name())
	for l := range strings.SplitSeq(string(traced), "\n") {
		// bash's xtrace marks a command "+ ", "++ " a level down (bash
		// takes no PS4 from the environment when run as root, so the
		// default it is).
		rest := strings.TrimLeft(l, "+")
		if len(rest) == len(l) || !strings.HasPrefix(rest, " ") {
			continue
		}
		rest = rest[1:]
		words := xtraceWords(rest)
		for len(words) > 0 && isAssignment(words[0]) {
			words = words[1:]
		}
		if len(words) > 0 && slices.Contains(shVocabulary, words[0]) {
			r.bashRan = append(r.bashRan, strings.Join(words, " "))
			r.bashArgv = append(r.bashArgv, words)
		}
	}
	literal, byName, anyName, err := mvdanCommands(line)
	r.mvdanErr = err
	for k := range literal {
		r.mvdanFound = append(r.mvdanFound, k)
	}
	for k := range byName {
		r.mvdanFound = append(r.mvdanFound, k+" …")
	}
	slices.Sort(r.mvdanFound)
	for i, c := range r.bashRan {
		name, _, _ := strings.Cut(c, " ")
		if literal[c] || byName[name] || anyName {
			continue
		}
		if withoutCR(r.bashArgv[i]) != c && literal[withoutCR(r.bashArgv[i])] {
			// bash keeps the CR of a CRLF in the line's last word (`git
			// push\r` runs git with `push\r`; a brace expansion repeats
			// it), mvdan drops it: a command the layer reads as stricter
			// than it is, never one it misses.
			r.crKept++
			continue
		}
		if !slices.Contains(r.unseen, c) {
			r.unseen = append(r.unseen, c)
			argv := r.bashArgv[i]
			if c == "git push" || c == "cargo publish" || argv[0] == "rm" && rmRemovesRoot(argv[1:]) {
				r.runsDenied = true
			}
		}
	}
	return r
}

// withoutCR is a command's words with their CRs removed, a word that
// was only a CR (`$(a)` before CRLF) dropped.
func withoutCR(argv []string) string {
	var words []string
	for _, w := range argv {
		if w = strings.ReplaceAll(w, "\r", ""); w != "" {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	name, _, _ = strings.Cut(name, "[")
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// xtraceWords splits one line of bash's xtrace: words separated by
// spaces, quoted as bash quotes them there ('…' with '\” for a quote,
// $'…' with C escapes).
func xtraceWords(s string) []string {
	var words []string
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ':
			if in {
				words = append(words, b.String())
				b.Reset()
				in = false
			}
		case c == '\'':
			in = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				b.WriteString(s[i+1:])
				i = len(s)
				break
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '\\' && i+1 < len(s):
			in = true
			b.WriteByte(s[i+1])
			i++
		case c == '$' && i+1 < len(s) && s[i+1] == '\'':
			in = true
			i += 2
			for ; i < len(s) && s[i] != '\''; i++ {
				if s[i] != '\\' || i+1 >= len(s) {
					b.WriteByte(s[i])
					continue
				}
				i++
				switch e := s[i]; e {
				case 'n':
					b.WriteByte('\n')
				case 'r':
					b.WriteByte('\r')
				case 't':
					b.WriteByte('\t')
				case 'a':
					b.WriteByte('\a')
				case 'b':
					b.WriteByte('\b')
				case 'E', 'e':
					b.WriteByte(0x1b)
				case 'v':
					b.WriteByte('\v')
				case 'f':
					b.WriteByte('\f')
				case '0', '1', '2', '3':
					v, k := 0, 0
					for ; k < 3 && i+k < len(s) && s[i+k] >= '0' && s[i+k] <= '7'; k++ {
						v = v*8 + int(s[i+k]-'0')
					}
					b.WriteByte(byte(v))
					i += k - 1
				default:
					b.WriteByte(e)
				}
			}
		default:
			in = true
			b.WriteByte(c)
		}
	}
	if in {
		words = append(words, b.String())
	}
	return words
}

// mvdanCommands are the vocabulary commands mvdan's parser finds in line:
// literal is each command whose words all expand as literals, byName
// each command name whose other words are dynamic, and anyName says a
// command word itself is dynamic.
func mvdanCommands(line string) (literal, byName map[string]bool, anyName bool, err error) {
	literal, byName = map[string]bool{}, map[string]bool{}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return literal, byName, false, err
	}
	cfg := &expand.Config{CmdSubst: func(io.Writer, *syntax.CmdSubst) error { return nil }}
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok || len(c.Args) == 0 {
			return true
		}
		dynamic := false
		for _, w := range c.Args {
			syntax.Walk(w, func(n syntax.Node) bool {
				switch n.(type) {
				case *syntax.CmdSubst:
					return false
				case *syntax.ParamExp, *syntax.ProcSubst:
					dynamic = true
				}
				return true
			})
		}
		fields, ferr := expand.Fields(cfg, c.Args...)
		if ferr != nil || len(fields) == 0 {
			anyName = anyName || dynamic || ferr != nil
			return true
		}
		nameDynamic := false
		syntax.Walk(c.Args[0], func(n syntax.Node) bool {
			if _, ok := n.(*syntax.ParamExp); ok {
				nameDynamic = true
			}
			return true
		})
		switch {
		case nameDynamic:
			anyName = true
		case dynamic:
			byName[fields[0]] = true
		default:
			literal[strings.Join(fields, " ")] = true
		}
		return true
	})
	return literal, byName, anyName, nil
}

// lineGen generates shell lines from a small grammar.
type lineGen struct {
	r     *rand.Rand
	depth int
}

func (g *lineGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *lineGen) chance(p float64) bool { return g.r.Float64() < p }

var genLits = []string{"x", "y", "push", "publish", "-rf", "/", "p", "1", "--", "-v", "a.b", "k=v"}

// word is one shell word.
func (g *lineGen) word() string {
	w := g.part()
	if g.chance(0.2) {
		w += g.part()
	}
	return w
}

func (g *lineGen) lit() string { return genLits[g.r.IntN(len(genLits))] }

func (g *lineGen) part() string {
	switch g.r.IntN(16) {
	case 0:
		return "'" + g.lit() + " " + g.lit() + "'"
	case 1:
		return `"` + g.lit() + `"`
	case 2:
		var b strings.Builder
		b.WriteString("$'")
		for _, c := range []byte(g.lit()) {
			switch g.r.IntN(3) {
			case 0:
				fmt.Fprintf(&b, `\x%02x`, c)
			case 1:
				fmt.Fprintf(&b, `\%03o`, c)
			default:
				b.WriteByte(c)
			}
		}
		return b.String() + "'"
	case 3:
		return `\` + g.pick("p", " ", "\\", "'", `"`, "#", ";", "$", "x")
	case 4:
		return "{" + g.lit() + "," + g.lit() + "}"
	case 5:
		if g.depth < 3 {
			g.depth++
			defer func() { g.depth-- }()
			return "$(" + g.command() + ")"
		}
	case 6:
		if g.depth < 2 {
			g.depth++
			defer func() { g.depth-- }()
			return "`" + g.command() + "`"
		}
	case 7:
		return "$((" + g.pick("1+2", "3*4", "1?2:3", "(1)", "0x10") + "))"
	case 8:
		return g.pick("$v", "${v:-push}", `"$v"`, "${v}x", "${#v}", "${v/x/y}")
	case 9:
		return `"` + g.lit() + ` $(` + g.pick("a", "b") + `)"`
	case 10:
		return g.lit() + "#" + g.lit()
	case 11:
		return `"` + g.lit() + `\` + g.pick(`"`, "$", "\\", "`", "x") + `"`
	case 12:
		return "$\"" + g.lit() + "\""
	}
	return g.lit()
}

// command is one simple command of the vocabulary.
func (g *lineGen) command() string {
	var b strings.Builder
	if g.chance(0.1) {
		b.WriteString("v=" + g.word() + " ")
	}
	name := shVocabulary[g.r.IntN(len(shVocabulary))]
	if g.chance(0.1) {
		name = g.pick(`\`+name, "'"+name+"'", `"`+name+`"`)
	}
	b.WriteString(name)
	for range g.r.IntN(4) {
		if g.chance(0.08) {
			b.WriteString(g.pick(" \\\n", " \\\r\n", "\\\n", " \\\r\n "))
		} else {
			b.WriteString(" ")
		}
		b.WriteString(g.word())
	}
	if g.chance(0.1) {
		b.WriteString(g.pick(" >/dev/null", " 2>&1", " <<< "+g.word(), " </dev/null"))
	}
	return b.String()
}

// statement is a command or a compound command holding some.
func (g *lineGen) statement() string {
	if g.depth >= 3 {
		return g.command()
	}
	g.depth++
	defer func() { g.depth-- }()
	s := g.statement
	switch g.r.IntN(24) {
	case 0:
		return "{ " + s() + "; }"
	case 1:
		return "( " + s() + " )"
	case 2:
		if g.chance(0.3) {
			return "((" + s() + ") )"
		}
		return "( (" + s() + ") )"
	case 3:
		return "(( 1 )) && " + s()
	case 4:
		return "[[ -n " + g.word() + " ]] && " + s()
	case 5:
		return "if " + s() + "; then " + s() + "; fi"
	case 6:
		return "for i in x y; do " + s() + "; done"
	case 7:
		return "case " + g.word() + " in x) " + s() + ";; *) " + s() + ";; esac"
	case 8:
		return "f() { " + s() + "; }; f"
	case 9:
		return "arr=(" + g.word() + " " + g.word() + "); " + g.pick(shVocabulary...) + ` "${arr[@]}"`
	case 10:
		return g.command() + " <<E\n" + g.lit() + " $(a)\nE\n" + s()
	case 11:
		return g.command() + " <<'E'\n" + g.lit() + "\nE\n" + s()
	case 12:
		return s() + " | " + s()
	case 13:
		return s() + " || " + s()
	case 14:
		return s() + " && " + s()
	case 15:
		return s() + g.pick(" # "+g.lit(), " #"+g.lit()+"\\", " # x \\") + "\n" + s()
	case 16:
		return "x=" + g.word() + "; " + s()
	}
	return g.command()
}

// line is one to three statements, with LF or CRLF between some.
func (g *lineGen) line() string {
	var b strings.Builder
	for i := range 1 + g.r.IntN(3) {
		if i > 0 {
			b.WriteString(g.pick("; ", "\n", "\r\n", " && ", ";\r\n"))
		}
		b.WriteString(g.statement())
	}
	if g.chance(0.05) {
		b.WriteString(g.pick("\n", "\r\n", " #", "\nfi", "\n)", " \\"))
	}
	return b.String()
}
