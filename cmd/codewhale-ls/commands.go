package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"

	cwschema "github.com/codewhale-ls/codewhale-ls/diagnostics/schema"
	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/hooks"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/internal/buildinfo"
	"github.com/codewhale-ls/codewhale-ls/rpc"
)

// version prints what the binary is and was built from
// (internal/buildinfo), and the Codewhale releases it reproduces; with
// --json the same as one object, for scripts and the release's checks.
func version(args []string, stdout, stderr io.Writer) int {
	fs, err := parseFlags(args, nil, []string{"json"})
	if err == nil && len(fs.args) > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.args[0])
	}
	if err != nil {
		fmt.Fprintf(stderr, "codewhale-ls version: %v\n%s", err, commandHelp["version"])
		return 1
	}
	info := buildinfo.Read()
	if fs.bools["json"] {
		type reproduced struct {
			Version string `json:"version"`
			Commit  string `json:"commit"`
		}
		out := struct {
			buildinfo.Info
			Codewhale []reproduced `json:"codewhale"`
		}{Info: info}
		for _, r := range release.Implemented {
			out.Codewhale = append(out.Codewhale, reproduced{r.Version, r.Commit})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintln(stderr, "codewhale-ls version:", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stdout, "codewhale-ls %s\n", info.Version)
	fmt.Fprintln(stdout, info.Line())
	for _, r := range release.Implemented {
		fmt.Fprintf(stdout, "reproduces Codewhale %s (commit %s)\n", r.Version, r.Commit[:8])
	}
	return 0
}

// serve runs the language server on stdin and stdout; --stdio, the only
// transport, is accepted because editors pass it. Logs go to stderr.
func serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, err := parseFlags(args, []string{"codewhale-version"}, []string{"stdio"})
	if err == nil && len(fs.args) > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.args[0])
	}
	if err == nil {
		_, _, err = release.Named(fs.codewhaleVersion(), nil)
	}
	if err != nil {
		fmt.Fprintln(stderr, "codewhale-ls serve:", err)
		return 1
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	if err := rpc.Serve(context.Background(), interruptible(stdin), stdout, rpc.Options{Log: log, CodewhaleVersion: fs.values["codewhale-version"]}); err != nil {
		log.Error("codewhale-ls serve", "error", err)
		return 1
	}
	return 0
}

// schema prints a policy file's JSON Schema as a release reads it:
// --codewhale-version's release (before or after NAME), else the newest
// implemented one (the schemas an editor without codewhale-ls uses).
func schema(args []string, stdout, stderr io.Writer) int {
	usage := func(msg string) int {
		if msg != "" {
			fmt.Fprintln(stderr, "codewhale-ls schema:", msg)
		}
		fmt.Fprintf(stderr, "usage: codewhale-ls schema %s [--codewhale-version VERSION]\n", strings.Join(cwschema.Names(), "|"))
		return 1
	}
	fs, err := parseFlags(args, []string{"codewhale-version"}, nil)
	if err != nil {
		return usage(err.Error())
	}
	if len(fs.args) != 1 {
		return usage("")
	}
	r := release.Newest()
	choice, named, err := release.Named(fs.codewhaleVersion(), nil)
	if err != nil {
		return usage(err.Error())
	}
	if named {
		if !choice.Exact() {
			fmt.Fprintln(stderr, "codewhale-ls schema: "+choice.Describe())
		}
		r = choice.Implementation()
	}
	data, ok := cwschema.Get(fs.args[0], r)
	if !ok {
		return usage(fmt.Sprintf("no schema %q", fs.args[0]))
	}
	_, _ = stdout.Write(data)
	return 0
}

// deciding is how the commands decide: load the snapshot and run the gate
// with real hooks, the hardening layer on unless exact (--exact,
// docs/hardening.md); ctx ending cuts the hooks short and denies the call.
// Background hooks are given their queue and drained before the command
// exits.
func deciding(exact bool) func(ctx context.Context, opts config.Options, req gate.Request) gate.Decision {
	return func(ctx context.Context, opts config.Options, req gate.Request) gate.Decision {
		snap := config.Load(opts)
		bg := hooks.NewBackground(hooks.ShellRunner{})
		defer bg.Close()
		return gate.Decide(ctx, snap, req, gate.Deps{Hooks: hooks.ShellRunner{}, Background: bg, SessionID: gate.NewSessionID(), Exact: exact})
	}
}

func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func authorize(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fail := func(msg string) int {
		b, _ := json.Marshal(map[string]string{"error": msg})
		fmt.Fprintln(stderr, string(b))
		return 1
	}
	fs, err := parseFlags(args, commonFlags, []string{"exact"})
	if err != nil {
		return fail(err.Error())
	}
	against, err := fs.codewhale(context.Background())
	if err != nil {
		return fail(err.Error())
	}
	opts, err := fs.loadOptions(against)
	if err != nil {
		return fail(err.Error())
	}
	data, err := io.ReadAll(stdin)
	if err != nil {
		return fail("reading the request: " + err.Error())
	}
	defaults, err := fs.requestDefaults(opts.Workspace)
	if err != nil {
		return fail(err.Error())
	}
	req, err := gate.ParseRequest(data, defaults)
	if err != nil {
		return fail(err.Error())
	}
	opts.Workspace = req.Workspace
	writeJSON(stdout, deciding(fs.bools["exact"])(context.Background(), opts, req))
	return 0
}
