package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/approvals/receiptlog"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
)

// The exit codes of `codewhale-ls log` (docs/codewhale/contract.md §2).
const (
	logOK       = 0
	logFailed   = 1 // the log cannot be read, or no such receipt
	logBadUsage = 2
)

const (
	// defaultLimit is how many receipts `log` prints without --limit: a
	// screen or two.
	defaultLimit = 50
	// maxSkipsShown bounds the lines named as skipped: a log of garbage
	// says so without flooding the terminal.
	maxSkipsShown = 20
)

// logCommand is `codewhale-ls log [filters]` and `codewhale-ls log show
// ID`: it only reads flags and prints; approvals/receiptlog reads, filters
// and renders.
func logCommand(args []string, stdout, stderr io.Writer) int {
	fs, err := parseFlags(args, []string{"since", "agent", "decision", "repo", "tool", "limit", "file"}, []string{"json", "follow"})
	if err != nil {
		return logUsage(stderr, err.Error())
	}
	if len(fs.args) > 0 && fs.args[0] == "show" {
		return logShow(fs, stdout, stderr)
	}
	if len(fs.args) > 0 {
		return logUsage(stderr, fmt.Sprintf("unexpected argument %q (log show ID explains one receipt)", fs.args[0]))
	}
	filter, err := logFilter(fs, time.Now())
	if err != nil {
		return logUsage(stderr, err.Error())
	}
	limit := defaultLimit
	if v, ok := fs.values["limit"]; ok {
		if limit, err = strconv.Atoi(v); err != nil || limit < 0 {
			return logUsage(stderr, fmt.Sprintf("--limit must be a whole number, 0 for every receipt; got %q", v))
		}
	}
	path, home, err := logPath(fs)
	if err != nil {
		fmt.Fprintln(stderr, "codewhale-ls log:", err)
		return logFailed
	}
	skips := &skipReport{stderr: stderr}
	reader, err := receiptlog.Log{Path: path, Skip: skips.add}.Open()
	if err != nil {
		fmt.Fprintf(stderr, "codewhale-ls log: %v\n", err)
		return logFailed
	}
	defer reader.Close()
	files := reader.Files()
	out := newLogPrinter(fs.bools["json"], stdout, home)
	receipts, more, err := reader.Last(filter, limit)
	for _, r := range receipts {
		out.print(r)
	}
	skips.finish()
	if err != nil {
		fmt.Fprintf(stderr, "codewhale-ls log: %v\n", err)
		return logFailed
	}
	out.summary(stderr, path, files, len(receipts), more)
	if !fs.bools["follow"] {
		return logOK
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(stderr, "following %s: new decisions appear as they are made; Ctrl-C stops\n", path)
	err = reader.Follow(ctx, filter, out.print)
	skips.finish()
	if err != nil {
		fmt.Fprintf(stderr, "codewhale-ls log: %v\n", err)
		return logFailed
	}
	return logOK
}

// logShow is `codewhale-ls log show ID [--json] [--file PATH]`.
func logShow(fs *flagSet, stdout, stderr io.Writer) int {
	for _, name := range []string{"since", "agent", "decision", "repo", "tool", "limit"} {
		if _, ok := fs.values[name]; ok {
			return logUsage(stderr, fmt.Sprintf("log show takes no --%s: it shows one receipt, named by its id", name))
		}
	}
	if fs.bools["follow"] {
		return logUsage(stderr, "log show takes no --follow: it shows one receipt, named by its id")
	}
	if len(fs.args) != 2 {
		return logUsage(stderr, "log show needs one receipt ID (the last column of `codewhale-ls log`)")
	}
	if id := fs.args[1]; len(id) < receiptlog.MinIDPrefix {
		return logUsage(stderr, fmt.Sprintf("a receipt ID has at least %d characters (the last column of `codewhale-ls log`); got %q", receiptlog.MinIDPrefix, id))
	}
	path, home, err := logPath(fs)
	if err != nil {
		fmt.Fprintln(stderr, "codewhale-ls log show:", err)
		return logFailed
	}
	skips := &skipReport{stderr: stderr}
	reader, err := receiptlog.Log{Path: path, Skip: skips.add}.Open()
	if err != nil {
		fmt.Fprintf(stderr, "codewhale-ls log show: %v\n", err)
		return logFailed
	}
	defer reader.Close()
	r, err := reader.Find(fs.args[1])
	skips.finish()
	if err != nil {
		fmt.Fprintf(stderr, "codewhale-ls log show: %v\n", err)
		return logFailed
	}
	if fs.bools["json"] {
		_ = receiptlog.WriteJSON(stdout, r)
		return logOK
	}
	receiptlog.Explain(stdout, r, receiptlog.TableOptions{Home: home})
	return logOK
}

// logUsage reports a usage mistake, naming the flag, with the usage.
func logUsage(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "codewhale-ls log: %s\n%s", msg, logUsageLine)
	return logBadUsage
}

const logUsageLine = `usage: codewhale-ls log [--since 2h|2026-12-05|RFC3339] [--agent NAME] [--decision allow|ask|deny]
                        [--repo DIR] [--tool NAME] [--limit N] [--json] [--follow] [--file PATH]
       codewhale-ls log show ID [--json] [--file PATH]
`

// logFilter reads the filter flags.
func logFilter(fs *flagSet, now time.Time) (receiptlog.Filter, error) {
	var f receiptlog.Filter
	var err error
	if v, ok := fs.values["since"]; ok {
		if f.Since, err = receiptlog.ParseSince(v, now); err != nil {
			return f, err
		}
	}
	if v, ok := fs.values["decision"]; ok {
		if f.Decision, err = receiptlog.ParseDecision(v); err != nil {
			return f, err
		}
	}
	if v, ok := fs.values["repo"]; ok {
		if f.Repo, err = receiptlog.RepoForms(v); err != nil {
			return f, err
		}
	}
	for _, name := range []string{"agent", "tool"} {
		if v, ok := fs.values[name]; ok && strings.TrimSpace(v) == "" {
			return f, fmt.Errorf("--%s needs a name", name)
		}
	}
	f.Agent, f.Tool = fs.values["agent"], fs.values["tool"]
	return f, nil
}

// logPath is --file, else the log under the Codewhale home
// (approvals.DefaultDecisionLogFor: $CODEWHALE_HOME, else ~/.codewhale),
// and the user's home for ~ in the table.
func logPath(fs *flagSet) (path, home string, err error) {
	opts := config.Options{Env: config.OSEnv{}}
	paths, _ := config.ResolvePaths(opts)
	if v, ok := fs.values["file"]; ok {
		if v == "" {
			return "", "", errors.New("--file needs a path")
		}
		return v, paths.Home, nil
	}
	path = approvals.DefaultDecisionLogFor(opts)
	if path == "" {
		return "", "", errors.New("no Codewhale home was found (set CODEWHALE_HOME or HOME), so there is no decision log to read; name one with --file PATH")
	}
	return path, paths.Home, nil
}

// logPrinter prints receipts as the table or as JSON lines.
type logPrinter struct {
	json   bool
	w      io.Writer
	table  *receiptlog.Table
	header bool
}

func newLogPrinter(asJSON bool, stdout io.Writer, home string) *logPrinter {
	p := &logPrinter{json: asJSON, w: stdout}
	if !asJSON {
		o := receiptlog.TableOptions{Home: home}
		if f, ok := stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			if width, _, err := term.GetSize(int(f.Fd())); err == nil {
				o.Width = width
			}
			o.Color = os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
		}
		p.table = receiptlog.NewTable(o)
	}
	return p
}

// print prints one receipt, after the table's header the first time.
func (p *logPrinter) print(r approvals.Receipt) {
	if p.json {
		_ = receiptlog.WriteJSON(p.w, r)
		return
	}
	p.printHeader()
	fmt.Fprintln(p.w, p.table.Row(r))
}

func (p *logPrinter) printHeader() {
	if !p.header {
		fmt.Fprintln(p.w, p.table.Header())
		p.header = true
	}
}

// summary says what was read: none matched, or that older decisions
// were left out. For the table it follows the table; beside JSON, which
// tools read, it goes to stderr.
func (p *logPrinter) summary(stderr io.Writer, path string, files []string, shown int, more bool) {
	w := p.w
	if p.json {
		w = stderr
	}
	from := path
	if rotated := len(files) - 1; rotated > 0 {
		from = fmt.Sprintf("%s and %d rotated %s", path, rotated, plural(rotated, "file"))
	}
	switch {
	case len(files) == 0:
		fmt.Fprintf(w, "no decisions recorded yet in %s: decisions are recorded when an agent's hook or an editor decides a call\n", path)
	case shown == 0:
		fmt.Fprintf(w, "no decision in %s matched\n", from)
	case more:
		fmt.Fprintf(w, "the last %d decisions that matched, from %s; older ones are left out (--limit N shows more, 0 all)\n", shown, from)
	}
}

// plural is what with an s unless n is 1.
func plural(n int, what string) string {
	if n == 1 {
		return what
	}
	return what + "s"
}

// skipReport tells stderr of the lines the log could not show, the
// first maxSkipsShown of them, then how many more.
type skipReport struct {
	stderr        io.Writer
	named, hidden int
}

func (s *skipReport) add(skipped receiptlog.Skipped) {
	if s.named == maxSkipsShown {
		s.hidden++
		return
	}
	s.named++
	fmt.Fprintf(s.stderr, "codewhale-ls log: %s\n", skipped)
}

// finish says how many skipped lines were not named.
func (s *skipReport) finish() {
	if s.hidden > 0 {
		fmt.Fprintf(s.stderr, "codewhale-ls log: %d more lines skipped\n", s.hidden)
		s.hidden = 0
	}
}
