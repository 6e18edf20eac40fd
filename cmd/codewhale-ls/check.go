package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/codewhale-ls/codewhale-ls/diagnostics"
	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// check lints the policy files of the workspace (or the named ones among
// them) and exits by the contract: 0 clean, 2 warnings at a warning fail
// level, 3 errors, 1 bad usage.
// reportWriters are check's --format values.
var reportWriters = map[string]func(io.Writer, []diagnostics.FileReport, release.Choice) error{
	"text": func(w io.Writer, r []diagnostics.FileReport, c release.Choice) error {
		diagnostics.WriteText(w, r, c)
		return nil
	},
	"json": diagnostics.WriteJSON,
	"sarif": func(w io.Writer, r []diagnostics.FileReport, c release.Choice) error {
		return diagnostics.WriteSARIF(w, r, gate.Version, c)
	},
	"github": func(w io.Writer, r []diagnostics.FileReport, c release.Choice) error {
		diagnostics.WriteGitHub(w, r, c)
		return nil
	},
}

func check(args []string, stdout, stderr io.Writer) int {
	fs, err := parseFlags(args, append(commonFlags, "format", "fail-level"), nil)
	if err != nil {
		fmt.Fprintln(stderr, "codewhale-ls check:", err)
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
	res := diagnostics.Check(diagnostics.Input{Options: opts, Codewhale: against})
	wanted := map[string]bool{}
	for _, a := range fs.args {
		abs, err := filepath.Abs(a)
		if err != nil {
			fmt.Fprintln(stderr, "codewhale-ls check:", err)
			return 1
		}
		wanted[abs] = true
	}
	var reports []diagnostics.FileReport
	for _, f := range res.Files {
		if len(wanted) > 0 && !wanted[f.Path] {
			continue
		}
		delete(wanted, f.Path)
		reports = append(reports, diagnostics.Place(f.Path, f.Src, f.Problems))
	}
	for p := range wanted {
		fmt.Fprintf(stderr, "codewhale-ls check: %s is not one of the policy files Codewhale reads for workspace %s\n", p, opts.Workspace)
		return 1
	}
	if err := write(stdout, reports, against); err != nil {
		fmt.Fprintln(stderr, "codewhale-ls check:", err)
		return 1
	}
	s := diagnostics.Summarize(reports)
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

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
