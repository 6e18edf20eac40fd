package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/codewhale-ls/codewhale-ls/agents/install"
	"github.com/codewhale-ls/codewhale-ls/diagnostics"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/internal/buildinfo"
)

// reportWriters are check's --format values.
var reportWriters = map[string]func(io.Writer, diagnostics.Report) error{
	"text": func(w io.Writer, r diagnostics.Report) error {
		diagnostics.WriteText(w, r)
		return nil
	},
	"json": diagnostics.WriteJSON,
	"sarif": func(w io.Writer, r diagnostics.Report) error {
		return diagnostics.WriteSARIF(w, r, buildinfo.Version())
	},
	"github": func(w io.Writer, r diagnostics.Report) error {
		diagnostics.WriteGitHub(w, r)
		return nil
	},
}

// check lints the policy files of the workspace (or the named ones among
// them, reading no other file but their context: diagnostics.Input.Only),
// with --fix first writes their safe fixes and lints again, and exits by
// the contract (docs/codewhale/contract.md §2): 0 clean, 2 warnings at a
// warning fail level, 3 errors, 1 bad usage or a failure.
func check(args []string, stdout, stderr io.Writer) int {
	fs, err := parseFlags(args, append(commonFlags, "format", "fail-level", "baseline", "ignore"), []string{"fix", "unsafe-fixes", "ci"})
	if err != nil {
		fmt.Fprintln(stderr, "codewhale-ls check:", err)
		return 1
	}
	if fs.bools["unsafe-fixes"] && !fs.bools["fix"] {
		fmt.Fprintln(stderr, "codewhale-ls check: --unsafe-fixes applies fixes only with --fix; nothing was written")
		return 1
	}
	format, failLevel := orDefault(fs.values["format"], "text"), orDefault(fs.values["fail-level"], "error")
	if failLevel != "error" && failLevel != "warning" && failLevel != "none" {
		fmt.Fprintf(stderr, "codewhale-ls check: --fail-level must be error, warning or none; got %q\n", failLevel)
		return 1
	}
	write, ok := reportWriters[format]
	if !ok {
		fmt.Fprintf(stderr, "codewhale-ls check: --format must be text, json, sarif or github; got %q\n", format)
		return 1
	}
	against, err := fs.codewhale(context.Background())
	if err != nil {
		fmt.Fprintln(stderr, "codewhale-ls check:", err)
		return 1
	}
	opts, err := fs.loadOptions(against)
	if err != nil {
		fmt.Fprintln(stderr, "codewhale-ls check:", err)
		return 1
	}
	// A workspace that is not there would check nothing and pass green.
	if fi, err := os.Stat(opts.Workspace); err != nil || !fi.IsDir() {
		fmt.Fprintf(stderr, "codewhale-ls check: --workspace %s is not a directory\n", opts.Workspace)
		return 1
	}
	var ignore []problem.Code
	if list, given := fs.values["ignore"]; given {
		if ignore, err = diagnostics.ParseCodes(list); err != nil {
			fmt.Fprintln(stderr, "codewhale-ls check: --ignore:", err)
			return 1
		}
	}
	named, err := absPaths(fs.args)
	if err != nil {
		fmt.Fprintln(stderr, "codewhale-ls check:", err)
		return 1
	}
	if rev, given := fs.values["baseline"]; given && rev == "" {
		fmt.Fprintf(stderr, "codewhale-ls check: --baseline needs a git revision or %s\n", diagnostics.NoBaseline)
		return 1
	}
	baseline, err := diagnostics.CheckBaseline(context.Background(), opts.Workspace, fs.values["baseline"])
	if err != nil {
		fmt.Fprintln(stderr, "codewhale-ls check:", err)
		return 1
	}
	ci := fs.bools["ci"] || diagnostics.InCI(os.Getenv)
	input := diagnostics.Input{Options: opts, Codewhale: against, Only: named, Baseline: baseline, CI: ci, Ignore: ignore}
	files, err := checkFiles(input)
	if err != nil {
		fmt.Fprintln(stderr, "codewhale-ls check:", err)
		return 1
	}
	if fs.bools["fix"] {
		plans, ok := fixFiles(files, stderr, fs.bools["unsafe-fixes"])
		if !ok {
			return 1
		}
		// What remains is what the files now hold.
		if files, err = checkFiles(input); err != nil {
			fmt.Fprintln(stderr, "codewhale-ls check:", err)
			return 1
		}
		printFixes(stderr, plans, files, fs.bools["unsafe-fixes"])
	}
	report := diagnostics.Report{Against: against, Root: diagnostics.RepositoryOf(opts.Workspace)}
	for _, f := range files {
		report.Files = append(report.Files, diagnostics.Place(f.Path, f.Src, f.Problems))
	}
	if err := write(stdout, report); err != nil {
		fmt.Fprintln(stderr, "codewhale-ls check:", err)
		return 1
	}
	s := diagnostics.Summarize(report.Files)
	switch {
	case failLevel == "none":
		return 0
	case s.Errors > 0:
		return 3
	case failLevel == "warning" && s.Warnings > 0:
		return 2
	}
	return 0
}

// absPaths is the FILE arguments made absolute, as Input.Only wants them.
func absPaths(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		abs, err := filepath.Abs(a)
		if err != nil {
			return nil, err
		}
		out = append(out, abs)
	}
	return out, nil
}

// checkFiles lints in (the named files alone when in.Only has any); a
// named file that is not one of the policy files read for the workspace
// is an error, not a silent pass.
func checkFiles(in diagnostics.Input) ([]*diagnostics.FileResult, error) {
	res := diagnostics.Check(in)
	for _, p := range in.Only {
		if res.File(p) == nil {
			return nil, fmt.Errorf("%s is not one of the policy files Codewhale reads for workspace %s (or it does not exist)", p, in.Options.Workspace)
		}
	}
	return res.Files, nil
}

// plannedFix is what fixFiles did to one file: the plan, and the bytes it
// was made on.
type plannedFix struct {
	path string
	src  []byte
	plan diagnostics.FixPlan
}

// fixFiles writes to each file the fixes diagnostics.PlanFixes decides on:
// the safe ones the editor's source.fixAll would apply, and with unsafe
// (--unsafe-fixes) the others too; each file replaced atomically and only
// if it still holds the bytes that were checked. It returns the plans for
// printFixes; false when a file could not be written.
func fixFiles(files []*diagnostics.FileResult, stderr io.Writer, unsafe bool) ([]plannedFix, bool) {
	ok := true
	var plans []plannedFix
	for _, f := range files {
		plan := diagnostics.PlanFixes(f.Problems, unsafe)
		if len(plan.Fix.Edits) > 0 {
			change, err := install.Plan(f.Path, func(current []byte, exists bool) ([]byte, error) {
				if !exists || !bytes.Equal(current, f.Src) {
					return nil, fmt.Errorf("changed since it was checked; nothing was written, run the command again")
				}
				return diagnostics.ApplyFix(current, plan.Fix), nil
			})
			if err == nil {
				err = change.Apply()
			}
			if err != nil {
				fmt.Fprintln(stderr, "codewhale-ls check --fix:", err)
				ok = false
				continue
			}
		}
		plans = append(plans, plannedFix{f.Path, f.Src, plan})
	}
	return plans, ok
}

// printFixes says, for each file, what check --fix fixed and what it left
// with why, the left problems being those the files still hold (now, the
// lint after the fixes).
func printFixes(stderr io.Writer, plans []plannedFix, now []*diagnostics.FileResult, unsafe bool) {
	for _, p := range plans {
		var after *diagnostics.FileResult
		for _, f := range now {
			if f.Path == p.path {
				after = f
			}
		}
		if summary := p.plan.Remaining(p.src, after).Summary(p.path, p.src, unsafe); summary != "" {
			fmt.Fprintln(stderr, "codewhale-ls check --fix:", summary)
		}
	}
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
