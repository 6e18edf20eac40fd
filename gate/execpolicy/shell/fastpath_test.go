package shell

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
)

// The fast paths must give exactly what the general code (or, where that
// was rewritten, a restatement of the spec) gives. These references are the
// straightforward versions, kept here to compare against.

func referenceSegments(command string) []string {
	var out []string
	for _, piece := range strings.FieldsFunc(command, func(r rune) bool {
		return r == '&' || r == '|' || r == ';' || r == '\n'
	}) {
		if piece = strings.TrimSpace(piece); piece != "" {
			out = append(out, piece)
		}
	}
	return out
}

func referenceCollapsed(command string) string {
	return strings.Join(strings.Fields(ascii.Lower(command)), " ")
}

func referenceClassify(command string) string { return referenceClassifyAs(command, false) }

// referenceClassifyAs is classify as docs/codewhale/releases/0.10.1.md
// A.2.5 states it when pythonModule: a second token spelled exactly `-m`
// after a first token that lowercases to python or python3 is kept as a
// positional word.
func referenceClassifyAs(command string, pythonModule bool) string {
	var positional []string
	tokens := strings.Fields(command)
	module := pythonModule && len(tokens) > 1 && tokens[1] == "-m" &&
		(ascii.Lower(tokens[0]) == "python" || ascii.Lower(tokens[0]) == "python3")
	for i, tok := range tokens {
		if !strings.HasPrefix(tok, "-") || module && i == 1 {
			positional = append(positional, ascii.Lower(tok))
		}
	}
	n := len(positional)
	if n == 0 {
		return ""
	}
	for depth := min(maxArityDepth, n); depth >= 1; depth-- {
		if a, ok := arity[strings.Join(positional[:depth], " ")]; ok {
			return strings.Join(positional[:min(a, n)], " ")
		}
	}
	return positional[0]
}

func referenceDenyHeads(target []string) []string {
	var heads []string
	reached := make([]bool, len(target)+2)
	reached[commandStart(target)] = true
	for i, tok := range target {
		if !reached[i] {
			continue
		}
		heads = append(heads, tok)
		if base := basename(tok); base != tok && base != "" {
			heads = append(heads, base)
		}
		if strings.HasPrefix(tok, "-") {
			reached[i+1] = true
			if !strings.Contains(tok, "=") {
				reached[i+2] = true
			}
		}
	}
	return heads
}

// checkFastPaths compares every fast path on command with its reference.
func checkFastPaths(t *testing.T, command string) (plain bool) {
	t.Helper()
	if got, want := Segments(command), referenceSegments(command); !slices.Equal(got, want) {
		t.Fatalf("Segments(%q) = %q, want %q", command, got, want)
	}
	if got, want := Chained(command), len(referenceSegments(command)) > 1; got != want {
		t.Fatalf("Chained(%q) = %v, want %v", command, got, want)
	}
	full := appendExpandedTargets(nil, command)
	if got := DenyTargets(command); !slices.Equal(got, full) {
		t.Fatalf("DenyTargets(%q) = %q, expander gives %q", command, got, full)
	}
	if plain = isPlain(command); plain {
		// The claim the plain path rests on: the expander adds nothing.
		if lines := Expand(command); !slices.Equal(lines, appendPlainTargets(nil, command)) {
			t.Fatalf("plain %q: expander lines %q are not its trimmed text and segments", command, lines)
		}
	}
	for _, target := range full {
		tokens := DenyTokens(target)
		if got, want := dialect0910.AppendDenyHeads(nil, tokens), referenceDenyHeads(tokens); !slices.Equal(got, want) {
			t.Fatalf("DenyHeads(%q) = %q, want %q", tokens, got, want)
		}
	}
	if got, want := expandClassic(command), Expand(command); !slices.Equal(got, want) {
		t.Fatalf("expandClassic(%q) = %q, want Expand's %q", command, got, want)
	}
	if !strings.Contains(command, "<<") {
		if got, want := expandHeredocAware(command), Expand(command); !slices.Equal(got, want) {
			t.Fatalf("0.10.0 expansion of %q = %q, want Expand's %q", command, got, want)
		}
	}
	if isPlainRewrite(command) {
		if got, want := expandRewrite(command), expandRewriteGeneral(command); !reflect.DeepEqual(got, want) {
			t.Fatalf("0.10.1 expansion of plain %q = %+v, the expander gives %+v", command, got, want)
		}
	}
	s := dialect0910.AllowSubject(command)
	if want := referenceCollapsed(command); s.Collapsed != want {
		t.Fatalf("Collapsed(%q) = %q, want %q", command, s.Collapsed, want)
	}
	if want := referenceClassify(command); s.Class != want || dialect0910.Classify(command) != want {
		t.Fatalf("Classify(%q) = %q, want %q", command, s.Class, want)
	}
	return plain
}

var (
	fastPathWords = []string{
		"git", "status", "cargo", "test", "--workspace", "npm", "run", "build", "go", "mod", "tidy",
		"docker", "compose", "up", "rm", "-rf", "/", "x", "Git", "STATUS", "/usr/bin/git", "a>b", "#", "~",
		"*", "5", "1.5s", "-c", "-lc", "--command", "sudo", "ENV", "/bin/bash", "sh", "eval", "timeout",
		"A=1", "{", "}", "'a b'", `"q"`, "$(id)", "`w`", `a\ b`, "${H}", "(x)", "<(ls)", "É", "$HOME",
	}
	fastPathSeparators = []string{
		" ", " ", " ", " ", "  ", "\t", ";", " && ", "||", " | ", "&", "\n", "\r", "\r\n", " ; ", "\u00a0", "\v",
	}
)

func randomShellCommand(rng *rand.Rand) string {
	var b strings.Builder
	if rng.IntN(6) == 0 {
		b.WriteString(" ")
	}
	// Mostly the first twenty words, which keep a command plain.
	for i := range rng.IntN(9) {
		if i > 0 {
			b.WriteString(fastPathSeparators[rng.IntN(len(fastPathSeparators))])
		}
		if rng.IntN(4) > 0 {
			b.WriteString(fastPathWords[rng.IntN(20)])
		} else {
			b.WriteString(fastPathWords[rng.IntN(len(fastPathWords))])
		}
	}
	if rng.IntN(6) == 0 {
		b.WriteString(" ;")
	}
	return b.String()
}

func TestFastPathsMatchReferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	plain, total := 0, 20000
	for range total {
		if checkFastPaths(t, randomShellCommand(rng)) {
			plain++
		}
	}
	// Both sides of the plain test must be exercised for the comparison to
	// mean anything.
	if plain < total/10 || plain > total*9/10 {
		t.Fatalf("%d of %d random commands were plain", plain, total)
	}
}

func TestPlainCommands(t *testing.T) {
	for _, command := range []string{
		"cargo test --workspace", "git status && cargo test", "  a; a  ", "echo hi > out.txt", "",
		"echo $HOME", "cargo test --features=x", "ls x=1", "go vet ./... | tee log",
		strings.Repeat("a;", maxPlainSegments),
	} {
		if !isPlain(command) {
			t.Errorf("isPlain(%q) = false", command)
		}
		checkFastPaths(t, command)
	}
}

// Every exclusion of isPlain is needed: each command below breaks one rule
// only, and its plain targets would miss an expander line.
func TestPlainExclusionsAreNeeded(t *testing.T) {
	for _, command := range []string{
		"cargo  test", "a\tb", "a\rb", "x\v", "a\u00a0", "echo 'x'", `echo "x"`, "echo `w`", `a\ b`,
		"echo $(id)", "(x)", "{ ls; }", "A=1 ls", "ls; sudo rm x", "/bin/Bash -c x", "eval x", "-x bash -c y",
		"5 bash -c y",
	} {
		if isPlain(command) {
			t.Errorf("isPlain(%q) = true", command)
		}
		if plain, full := appendPlainTargets(nil, command), appendExpandedTargets(nil, command); slices.Equal(plain, full) {
			t.Errorf("%q: plain targets %q equal the expander's, so the exclusion is not needed", command, plain)
		}
	}
	if isPlain(strings.Repeat("a;", maxPlainSegments+1)) {
		t.Error("a chain longer than maxPlainSegments is plain")
	}
}

// classifyCollapsed looks at no more than maxArityDepth positional words.
func TestArityWithinDepth(t *testing.T) {
	for key, a := range arity {
		if a > maxArityDepth {
			t.Errorf("arity[%q] = %d exceeds %d", key, a, maxArityDepth)
		}
	}
}

func FuzzFastPaths(f *testing.F) {
	for _, s := range []string{
		"cargo test --workspace", "git status && cargo test", "  a; a  ", "git  status", "sudo ls",
		"a\rb", "echo 'x'", "Git -C x STATUS", "go mod tidy -v", "npm run build", "a\u00a0b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, command string) { checkFastPaths(t, command) })
}

// Every exclusion of isPlainRewrite is needed: each command below breaks
// one rule only, and the 0.10.1 expander makes more of it than one line.
func TestPlainRewriteExclusionsAreNeeded(t *testing.T) {
	for _, command := range []string{
		" ls", "ls ", "ls  x", "ls\tx", "ls #x", "ls $x", "ls *", "ls x?", "ls [ab]", "ls {a,b}", "ls > x",
		"ls; x", "ls|x", "ls&x", "ls 'x'", `ls "x"`, `ls \x`, "ls (x)", "ls `x`", "A=1 ls", "if ls", "sudo ls",
		"eval ls", "bash -c x", "source /dev/stdin", "find . -exec ls ;", "Bash.exe -c x", "ls\nx", "ls\rx",
	} {
		if isPlainRewrite(command) {
			t.Errorf("isPlainRewrite(%q) = true", command)
		}
		if e := expandRewriteGeneral(command); reflect.DeepEqual(e, Expansion{Commands: []string{command}}) {
			t.Errorf("%q: the expander gives only the line itself, so the exclusion is not needed", command)
		}
	}
}
