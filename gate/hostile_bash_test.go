package gate

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// The hostile corpus (issue 23) is gate/testdata/hardening/hostile/CLASS.txt:
// forms that run a denied command (`git push`, `cargo publish`, `rm -rf /`)
// in a way its written text hides. Every form in it has been run by real
// bash and seen to start the denied program: TestHostileFormsRunInBash
// keeps it so.

// hostileForm is one form of the hostile corpus.
type hostileForm struct {
	class, text string
	line        int
}

// hostileCorpus reads every class of the hostile corpus, in the format of
// bypasses.txt: one form per line, `\n` standing for a line break and
// `\r\n` for a carriage return and a line break; # lines are comments.
func hostileCorpus(t testing.TB) []hostileForm {
	t.Helper()
	paths, err := filepath.Glob("testdata/hardening/hostile/*.txt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no hostile corpus: %v", err)
	}
	var out []hostileForm
	for _, p := range paths {
		out = append(out, hostileFile(t, p)...)
	}
	return out
}

// hostileFile reads one file of forms; its name is their class.
func hostileFile(t testing.TB, path string) []hostileForm {
	t.Helper()
	class := strings.TrimSuffix(filepath.Base(path), ".txt")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []hostileForm
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.ReplaceAll(line, `\r\n`, "\r\n")
		line = strings.ReplaceAll(line, `\n`, "\n")
		out = append(out, hostileForm{class: class, text: line, line: n})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// A stub sandbox for confirming forms in real bash. The forms run as
// `bash -c FORM` with the environment emptied (no inherited variable but
// those set here), the working directory a fresh temporary directory with
// HOME and TMPDIR inside the sandbox, and PATH one directory holding:
//
//   - stubs for `rm`, `cargo` and `curl`, shell scripts that append their
//     argv to a log and do nothing else (the cargo stub then asks the real
//     cargo, when there is one, for the `--help` of the same words, which
//     names the subcommand an alias resolves to and runs nothing);
//   - `git`, a script that logs its argv and runs the real git. Git runs
//     with GIT_TRACE, so the trace shows `built-in: git push` whenever a
//     push really starts, however the line reached it (aliases,
//     GIT_CONFIG_*, git-core's `git-push`, the dynamic loader). The
//     repository is a `git init` with no remote (one shared by the forms,
//     and a form's own when it writes git's config) whose push.gpgSign is
//     malformed, so `git push` dies reading its config, its first step,
//     before it looks for a remote (pushPoison); GIT_DIR points at it
//     whatever the line's directory, no system or global config is read
//     and GIT_ALLOW_PROTOCOL=file forbids every network transport besides;
//   - links to the real harmless programs the forms use (interpreters,
//     wrappers, coreutils that only copy or print).
//
// Before a form runs, a copy of it has its absolute paths to rm, cargo and
// curl rewritten to the stubs, and /tmp/ to a directory of the sandbox;
// the corpus file is never changed. A form that names any other absolute
// path outside a short allowlist, that could reach the real programs
// another way (`command -p`, a PATH of its own, `env -i`, a URL), or that
// uses a real program able to harm `/` (find's -delete, chmod or chown
// recursively, mv, dd, shred) is refused rather than run: `/` itself is
// allowed, as the stub rm's operand.

// stubbed are the programs the sandbox replaces.
var stubbed = []string{"rm", "cargo", "curl"}

// sandboxTools are real programs linked into the sandbox's PATH: none can
// remove files outside the working directory or reach the network by the
// forms' use of them.
var sandboxTools = []string{
	"bash", "sh", "dash", "env", "python3", "python3.11", "python", "perl", "node", "awk", "mawk", "gawk", "sed",
	"xargs", "find", "cat", "cp", "ln", "chmod", "mkdir", "touch", "tee", "head", "tail", "tr", "rev",
	"cut", "sort", "base64", "xxd", "od", "printf", "echo", "true", "false", "sleep", "ls", "basename", "dirname",
	"taskset", "flock", "script", "unshare", "setpriv", "prlimit", "strace", "fakeroot", "faked-sysv", "faked",
	"getopt", "nice", "nohup", "timeout", "stdbuf", "setsid", "chrt", "ionice", "ld.so", "expr", "seq", "yes",
	"stat", "id", "uname", "cmp", "wc", "grep", "readlink", "realpath",
	"setarch", "linux64", "linux32", "runuser", "sg", "su", "gdb", "ssh-agent",
	"nsenter", "capsh", "start-stop-daemon",
}

// allowedPaths are the absolute paths a form may name: git (run with the
// sandbox's protections), shells, the dynamic loader and places that hold
// nothing.
var allowedPaths = regexp.MustCompile(`^(/[/.]*|/\*|/usr/bin/git|/bin/git|/usr/lib/git-core(/[a-z-]*)?|/lib64/ld-linux-x86-64\.so\.2|/usr/bin/ld\.so|/bin/(ba|da)?sh|/usr/bin/(ba|da)?sh|/usr/bin/env|/usr/bin/(perl|python3|node|xargs|awk|sed)|/dev/(null|stdin|stdout|fd(/[0-9]+)?)|/proc/self/fd(/[0-9]+)?|/tmp(/[A-Za-z0-9._-]*)?)$`)

var absPath = regexp.MustCompile(`(?:^|[\s'"=:;(|&<>{}\[,` + "`" + `])(/[A-Za-z0-9._*+-]*(?:/[A-Za-z0-9._*+-]*)*)`)

// refusedText are ways to reach the real programs past the sandbox's PATH.
var refusedText = []string{
	"command -p", "getconf", "env -i", "--ignore-environment", "-u PATH", "unset PATH", "://", "git@",
	"GIT_DIR", "--git-dir", "GIT_WORK_TREE", "--work-tree", "GIT_EXEC_PATH", "--exec-path", "sudo", "doas", "/root",
	"-delete", "chmod -R", "chmod --recursive",
}

// loginShell is su or runuser starting a login shell, which resets PATH.
var loginShell = regexp.MustCompile(`(^|[^A-Za-z0-9_.-])(su|runuser)( +[^ ;|&]+)*? +(-|-l|--login)( |$)`)

// refusedPrograms are real programs that could harm `/`, which the
// sandbox allows as the stub rm's operand.
var refusedPrograms = regexp.MustCompile(`(^|[^A-Za-z0-9_.-])(mv|dd|shred|truncate|mkfs|rmdir|unlink|chown|chgrp)([^A-Za-z0-9_.-]|$)`)

// gitCoreOnPath is the one PATH a form may set: git-core's directory before
// the sandbox's.
var gitCoreOnPath = regexp.MustCompile(`PATH=(/usr/lib/git-core:\$PATH|\$PATH:/usr/lib/git-core)`)

// stubbedPath is an absolute path to a stubbed program.
var stubbedPath = regexp.MustCompile(`(^|[^A-Za-z0-9_./-])(/usr/local/bin/|/usr/bin/|/bin/|/usr/local/sbin/|/usr/sbin/|/sbin/)(rm|cargo|curl)\b`)

// tmpPath is a path under /tmp, which the sandbox moves to its own.
var tmpPath = regexp.MustCompile(`(^|[^A-Za-z0-9_./-])/tmp/`)

// sandboxCopy is the form as the sandbox runs it, or why it will not.
func sandboxCopy(form, root string) (string, error) {
	bin, tmp := filepath.Join(root, "bin"), filepath.Join(root, "tmp")
	for _, s := range refusedText {
		if strings.Contains(form, s) {
			return "", fmt.Errorf("it contains %q", s)
		}
	}
	if loginShell.MatchString(form) {
		return "", errors.New("it starts a login shell, which resets PATH")
	}
	if m := refusedPrograms.FindStringSubmatch(form); m != nil {
		return "", fmt.Errorf("it names %s", m[2])
	}
	rest := gitCoreOnPath.ReplaceAllString(form, "")
	if strings.Contains(rest, "PATH") {
		return "", errors.New("it sets a PATH of its own")
	}
	// /tmp/ first: the stubs' own paths may lie under it.
	form = tmpPath.ReplaceAllString(form, "${1}"+tmp+"/")
	form = stubbedPath.ReplaceAllString(form, "${1}"+bin+"/${3}")
	for _, m := range absPath.FindAllStringSubmatch(form, -1) {
		p := m[1]
		if strings.HasPrefix(p, root+"/") || allowedPaths.MatchString(p) {
			continue
		}
		return "", fmt.Errorf("it names %s, which the sandbox cannot vouch for", p)
	}
	return form, nil
}

type bashSandbox struct {
	root, bin string
	missing   map[string]bool // sandbox tools not installed here
	git       string          // the real git, "" when absent
	env       []string        // extra environment every run gets
	// noCargo: no real cargo here, so a form that runs `cargo publish`
	// only through one of cargo's aliases cannot be confirmed (the stub
	// does not expand them).
	noCargo bool
}

// cargoAlias marks a form whose denied command only cargo's own alias
// expansion makes.
var cargoAlias = regexp.MustCompile(`CARGO_ALIAS_|\[alias\]`)

const stubScript = `#!/bin/sh
{ printf '%s' NAME; for a in "$@"; do printf '\037%s' "$a"; done; printf '\n'; } >> "$CODEWHALE_STUB_LOG"
`

func newBashSandbox(t testing.TB) *bashSandbox {
	t.Helper()
	root := t.TempDir()
	sb := &bashSandbox{root: root, bin: filepath.Join(root, "bin"), missing: map[string]bool{}}
	must(t, os.MkdirAll(sb.bin, 0o755))
	must(t, os.MkdirAll(filepath.Join(root, "tmp"), 0o755))
	for _, name := range stubbed {
		script := strings.Replace(stubScript, "NAME", name, 1)
		if name == "cargo" {
			if real, err := exec.LookPath("cargo"); err == nil {
				script += `[ -n "$CODEWHALE_REAL_CARGO" ] && "$CODEWHALE_REAL_CARGO" "$@" --help >> "$CODEWHALE_STUB_LOG.cargo" 2>&1` + "\n"
				home, _ := os.UserHomeDir()
				sb.env = append(sb.env, "CODEWHALE_REAL_CARGO="+real,
					"RUSTUP_HOME="+envOr("RUSTUP_HOME", filepath.Join(home, ".rustup")),
					"CARGO_HOME="+envOr("CARGO_HOME", filepath.Join(home, ".cargo")))
			} else {
				sb.noCargo = true
			}
		}
		script += "exit 0\n"
		must(t, os.WriteFile(filepath.Join(sb.bin, name), []byte(script), 0o755))
	}
	if real, err := exec.LookPath("git"); err == nil {
		sb.git = real
		must(t, sandboxRepo(real, filepath.Join(root, "repo")))
		script := strings.Replace(stubScript, "NAME", "git", 1) + `exec "$CODEWHALE_REAL_GIT" "$@"` + "\n"
		must(t, os.WriteFile(filepath.Join(sb.bin, "git"), []byte(script), 0o755))
		sb.env = append(sb.env, "CODEWHALE_REAL_GIT="+real)
	} else {
		sb.missing["git"] = true
	}
	for _, name := range sandboxTools {
		real, err := exec.LookPath(name)
		if err == nil && strings.HasPrefix(name, "python") {
			// pyenv and the like install shims that need their own PATH:
			// link the interpreter itself.
			if out, err := exec.Command(real, "-c", "import sys; print(sys.executable)").Output(); err == nil {
				real = strings.TrimSpace(string(out))
			}
		}
		if err != nil {
			sb.missing[name] = true
			continue
		}
		must(t, os.Symlink(real, filepath.Join(sb.bin, name)))
	}
	return sb
}

// pushPoison is the sandbox repository's push.gpgSign: git dies on the
// malformed value as soon as `git push` reads its config, which is the
// first thing it does, after GIT_TRACE has logged `built-in: git push`
// and before it looks for any remote. Only push and send-pack read the
// key, so every other git command works.
const pushPoison = "never-push-from-the-codewhale-sandbox"

// sandboxRepo makes dir a git repository no push can leave.
func sandboxRepo(git, dir string) error {
	for _, args := range [][]string{{"init", "-q", dir}, {"--git-dir=" + filepath.Join(dir, ".git"), "config", "push.gpgSign", pushPoison}} {
		cmd := exec.Command(git, args...)
		cmd.Env = []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=" + dir}
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v: %s", args, err, out)
		}
	}
	return nil
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// needs is the first sandbox tool the form uses that is not installed
// here, "" when it can run.
func (sb *bashSandbox) needs(form string) string {
	if sb.noCargo && cargoAlias.MatchString(form) {
		return "cargo (a real one, which expands its aliases)"
	}
	for name := range sb.missing {
		if regexp.MustCompile(`(^|[^A-Za-z0-9_.-])` + regexp.QuoteMeta(name) + `($|[^A-Za-z0-9_-])`).MatchString(form) {
			return name
		}
	}
	return ""
}

// ran is what a form started of the denied programs.
type ran struct {
	denied []string // "git push", "cargo publish", "rm -rf /" for each start
	log    string   // every stub's argv, one line each
	err    error
	took   time.Duration
}

// run runs form in a fresh working directory of the sandbox.
func (sb *bashSandbox) run(ctx context.Context, id int, form string) ran {
	dir := filepath.Join(sb.root, fmt.Sprintf("w%d", id))
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return ran{err: err}
	}
	src, err := sandboxCopy(form, sb.root)
	if err != nil {
		return ran{err: fmt.Errorf("refused: %v", err)}
	}
	gitDir := filepath.Join(sb.root, "repo", ".git")
	if sb.git != "" && strings.Contains(form, "git config") {
		// A form that writes git's config gets a repository of its own.
		if err := sandboxRepo(sb.git, dir); err != nil {
			return ran{err: err}
		}
		gitDir = filepath.Join(dir, ".git")
	}
	log := filepath.Join(sb.root, fmt.Sprintf("w%d.log", id))
	trace := filepath.Join(sb.root, fmt.Sprintf("w%d.trace", id))
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(sb.bin, "bash"), "-c", src)
	cmd.Dir = dir
	cmd.Env = append([]string{
		"PATH=" + sb.bin,
		"HOME=" + home,
		"TMPDIR=" + filepath.Join(sb.root, "tmp"),
		"LANG=C",
		"CODEWHALE_STUB_LOG=" + log,
		"GIT_TRACE=" + trace,
		"GIT_DIR=" + gitDir,
		"GIT_CEILING_DIRECTORIES=" + sb.root,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_ALLOW_PROTOCOL=file",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_PAGER=cat",
		"PAGER=cat",
	}, sb.env...)
	cmd.WaitDelay = time.Second
	start := time.Now()
	out, runErr := cmd.CombinedOutput()
	r := ran{took: time.Since(start)}
	logText, _ := os.ReadFile(log)
	cargoHelp, _ := os.ReadFile(log + ".cargo")
	traceText, _ := os.ReadFile(trace)
	r.log = string(logText)
	for l := range strings.SplitSeq(strings.TrimSpace(r.log), "\n") {
		argv := strings.Split(l, "\x1f")
		switch {
		case argv[0] == "rm" && rmRemovesRoot(argv[1:]):
			r.denied = append(r.denied, "rm -rf /")
		case argv[0] == "cargo" && cargoPublishes(argv[1:]):
			r.denied = append(r.denied, "cargo publish")
		}
	}
	if strings.Contains(string(cargoHelp), "Upload a package to the registry") && !slices.Contains(r.denied, "cargo publish") {
		r.denied = append(r.denied, "cargo publish")
	}
	for range strings.Count(string(traceText), "trace: built-in: git push") {
		r.denied = append(r.denied, "git push")
	}
	if !slices.Contains(r.denied, "git push") {
		// A form that sets GIT_TRACE itself takes the trace elsewhere:
		// the stub's argv still shows a push as written.
		for l := range strings.SplitSeq(strings.TrimSpace(r.log), "\n") {
			if argv := strings.Split(l, "\x1f"); argv[0] == "git" && gitPushes(argv[1:]) {
				r.denied = append(r.denied, "git push")
			}
		}
	}
	if len(r.denied) == 0 && runErr != nil && ctx.Err() != nil {
		r.err = fmt.Errorf("timed out: %s", out)
	}
	return r
}

// gitPushes: git's words run `push` as written (after git's global
// options), aliases aside.
func gitPushes(args []string) bool {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-c" || a == "-C" || a == "--config-env" || a == "--namespace":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a == "push"
		}
	}
	return false
}

// cargoPublishes: cargo's words run `publish` (after a rustup
// `+toolchain` and cargo's global options).
func cargoPublishes(args []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case strings.HasPrefix(a, "+") && i == 0:
		case a == "-Z" || a == "--config" || a == "-C" || a == "--color":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a == "publish"
		}
	}
	return false
}

// rmLong are GNU rm's long options; an unambiguous prefix names one, as
// getopt_long reads it.
var rmLong = []string{"force", "interactive", "one-file-system", "no-preserve-root", "preserve-root", "recursive", "dir", "verbose", "help", "version"}

// rmRemovesRoot: GNU rm's argv (read as getopt_long does: options
// anywhere before `--`, clustered short options, long-option prefixes)
// removes recursively and by force a path that is the root directory, or
// every entry of it (`/*`). An option rm does not know stops it.
func rmRemovesRoot(args []string) bool {
	recursive, force, root := false, false, false
	topLevel := 0
	options := true
	for _, a := range args {
		switch {
		case options && a == "--":
			options = false
		case options && strings.HasPrefix(a, "--"):
			name, _, _ := strings.Cut(a[2:], "=")
			var hits []string
			for _, l := range rmLong {
				if l == name {
					hits = []string{l}
					break
				}
				if strings.HasPrefix(l, name) {
					hits = append(hits, l)
				}
			}
			if len(hits) != 1 {
				return false // rm stops: an unknown or ambiguous option
			}
			if len(hits) == 1 {
				recursive = recursive || hits[0] == "recursive"
				switch hits[0] {
				case "force":
					force = true
				case "interactive":
					force = false
				}
			}
		case options && strings.HasPrefix(a, "-") && a != "-":
			for _, c := range a[1:] {
				recursive = recursive || c == 'r' || c == 'R'
				switch c {
				case 'f':
					force = true
				case 'i', 'I':
					force = false // rm's last -f, -i or -I wins
				case 'r', 'R', 'd', 'v':
				default:
					return false // rm stops: an unknown option
				}
			}
		default:
			if strings.HasPrefix(a, "/") && filepath.Clean(a) == "/" {
				root = true
			} else if filepath.Dir(a) == "/" {
				topLevel++
			}
		}
	}
	return recursive && force && (root || topLevel >= 5)
}

// confirmHostile runs every form in the sandbox, in parallel.
func confirmHostile(t *testing.T, sb *bashSandbox, forms []string) []ran {
	out := make([]ran, len(forms))
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(2, runtime.GOMAXPROCS(0)*2) {
		wg.Go(func() {
			for i := range work {
				out[i] = sb.run(t.Context(), i, forms[i])
			}
		})
	}
	for i := range forms {
		work <- i
	}
	close(work)
	wg.Wait()
	return out
}

// TestHostileFormsRunInBash: every form of the hostile corpus, run by real
// bash in the stub sandbox, starts a denied program (`git push`, `cargo
// publish`, `rm -rf /` or an equivalent spelling of its flags). A form that
// starts none does not belong in the corpus. With -short, every fourth
// form.
func TestHostileFormsRunInBash(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash here")
	}
	forms := hostileCorpus(t)
	if testing.Short() {
		// Every fourth form: the run costs a process or more per form.
		var some []hostileForm
		for i, f := range forms {
			if i%4 == 0 {
				some = append(some, f)
			}
		}
		forms = some
	}
	sb := newBashSandbox(t)
	texts := make([]string, len(forms))
	for i, f := range forms {
		texts[i] = f.text
	}
	results := confirmHostile(t, sb, texts)
	confirmed := map[string]int{}
	total := map[string]int{}
	var classes []string
	for i, f := range forms {
		if total[f.class] == 0 {
			classes = append(classes, f.class)
		}
		total[f.class]++
		if need := sb.needs(f.text); need != "" {
			t.Logf("%s:%d: cannot confirm here, %s is not installed: %q", f.class, f.line, need, f.text)
			continue
		}
		r := results[i]
		switch {
		case r.err != nil:
			t.Errorf("%s:%d: %q: %v", f.class, f.line, f.text, r.err)
		case len(r.denied) == 0:
			t.Errorf("%s:%d: bash ran no denied program for %q (stubs logged %q)", f.class, f.line, f.text, r.log)
		default:
			confirmed[f.class]++
			if testing.Verbose() {
				t.Logf("%s:%d: %q ran %s", f.class, f.line, f.text, strings.Join(r.denied, ", "))
			}
		}
	}
	if testing.Verbose() {
		slow := make([]int, len(forms))
		for i := range slow {
			slow[i] = i
		}
		sort.Slice(slow, func(a, b int) bool { return results[slow[a]].took > results[slow[b]].took })
		for _, i := range slow[:min(10, len(slow))] {
			t.Logf("slow: %v %q", results[i].took, forms[i].text)
		}
	}
	sort.Strings(classes)
	sum := 0
	for _, c := range classes {
		t.Logf("%s: %d of %d forms confirmed in bash", c, confirmed[c], total[c])
		sum += confirmed[c]
	}
	t.Logf("all classes: %d of %d forms confirmed", sum, len(forms))
}

// TestHostileCandidatesInBash is for writing the corpus: with
// CODEWHALE_HOSTILE_CANDIDATES=FILE (the corpus format) it runs each form
// of FILE in the sandbox and logs whether bash started a denied program,
// failing nothing. Forms that start none stay out of the corpus.
func TestHostileCandidatesInBash(t *testing.T) {
	path := os.Getenv("CODEWHALE_HOSTILE_CANDIDATES")
	if path == "" {
		t.Skip("CODEWHALE_HOSTILE_CANDIDATES is not set")
	}
	forms := hostileFile(t, path)
	texts := make([]string, len(forms))
	for i, f := range forms {
		texts[i] = f.text
	}
	sb := newBashSandbox(t)
	for i, r := range confirmHostile(t, sb, texts) {
		switch {
		case r.err != nil:
			t.Logf("line %d: %v: %q", forms[i].line, r.err, forms[i].text)
		case len(r.denied) == 0:
			t.Logf("line %d: runs no denied program: %q (stubs logged %q)", forms[i].line, forms[i].text, r.log)
		default:
			t.Logf("line %d: runs %s: %q", forms[i].line, strings.Join(r.denied, ", "), forms[i].text)
		}
	}
}

// TestRmFlagSpellingsAreRealRm: every way the hostile corpus spells rm's
// flags makes the real rm remove a directory tree by force, so the
// stub's reading of them (rmRemovesRoot) is rm's own. Each runs on a
// temporary tree, never on /.
func TestRmFlagSpellingsAreRealRm(t *testing.T) {
	rm, err := exec.LookPath("rm")
	if err != nil {
		t.Skip("no rm here")
	}
	for _, flags := range [][]string{
		{"-rf"}, {"-fr"}, {"-Rf"}, {"-r", "-f"}, {"--r", "--f"}, {"--recur", "--forc"}, {"--recursive", "--force"},
		{"-r", "--force"}, {"-rfv"}, {"-rf", "--"}, {"-rfd"}, {"--rec", "-f"}, {"-f", "-R"}, {"-rf", "--no-preserve-root"},
		{"--force", "--recursive", "--one-file-system"},
	} {
		dir := filepath.Join(t.TempDir(), "tree")
		must(t, os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "a", "b", "f"), nil, 0o400))
		args := append(slices.Clone(flags), dir)
		if out, err := exec.Command(rm, args...).CombinedOutput(); err != nil {
			t.Errorf("rm %v: %v: %s", args, err, out)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("rm %v left the tree", args)
		}
		if !rmRemovesRoot(append(slices.Clone(flags), "/")) {
			t.Errorf("rmRemovesRoot does not read %v / as rm -rf /", flags)
		}
	}
}

// TestSandboxCopyKeepsRealProgramsUnreachable: the copy of a form the
// bash sandbox runs names the stubs for rm, cargo and curl wherever the
// form names the real ones, keeps /tmp to the sandbox, and refuses a
// form with any other way to the real programs.
func TestSandboxCopyKeepsRealProgramsUnreachable(t *testing.T) {
	root := "/tmp/sandbox"
	for form, want := range map[string]string{
		"/bin/rm -rf /":                         "/tmp/sandbox/bin/rm -rf /",
		"/usr/bin/rm -fr /":                     "/tmp/sandbox/bin/rm -fr /",
		"cp /bin/rm ./r; ./r -rf /":             "cp /tmp/sandbox/bin/rm ./r; ./r -rf /",
		"x=/usr/local/bin/cargo; $x p":          "x=/tmp/sandbox/bin/cargo; $x p",
		"flock /tmp/l git push":                 "flock /tmp/sandbox/tmp/l git push",
		"/usr/bin/git push":                     "/usr/bin/git push",
		"rm -rf /*":                             "rm -rf /*",
		"git add x && git push":                 "git add x && git push",
		"PATH=/usr/lib/git-core:$PATH git-push": "PATH=/usr/lib/git-core:$PATH git-push",
	} {
		got, err := sandboxCopy(form, root)
		if err != nil || got != want {
			t.Errorf("sandboxCopy(%q) = %q, %v; want %q", form, got, err, want)
		}
	}
	for _, form := range []string{
		"command -p rm -rf /", "PATH=/usr/bin rm -rf /", "env -i rm -rf /", "/usr/bin/shred -u x", "/sbin/reboot",
		"git push https://example.com/x", "GIT_DIR=/work/main/.git git push", "unset PATH; rm -rf /", "/usr/bin/../bin/rm -rf /",
		"/root/.cargo/bin/cargo publish", "sudo rm -rf /", "su - -c 'rm -rf /'", "su -l root -c 'rm -rf /'", "runuser -u root -l -- rm -rf /", "find / -delete", "chmod -R 000 /", "mv /* .", "dd if=/dev/zero of=x",
	} {
		if got, err := sandboxCopy(form, root); err == nil {
			t.Errorf("sandboxCopy(%q) ran it as %q", form, got)
		}
	}
}
