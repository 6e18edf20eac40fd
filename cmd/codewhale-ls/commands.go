package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/hooks"
)

func version(stdout io.Writer) int {
	fmt.Fprintf(stdout, "codewhale-ls %s\nreproduces Codewhale %s (commit %s)\n", gate.Version, gate.CodewhaleVersion, gate.CodewhaleCommit[:8])
	return 0
}

func serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "codewhale-ls serve: the language server is not yet implemented")
	return 1
}

func schema(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "codewhale-ls schema: not yet implemented")
	return 1
}

// decide loads the snapshot and runs the gate with real hooks. Background
// hooks are given their queue and drained before the command exits.
func decide(opts config.Options, req gate.Request) gate.Decision {
	snap := config.Load(opts)
	bg := hooks.NewBackground(hooks.ShellRunner{})
	defer bg.Close()
	return gate.Decide(context.Background(), snap, req, gate.Deps{Hooks: hooks.ShellRunner{}, Background: bg, SessionID: newSessionID()})
}

func newSessionID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "sess_" + hex.EncodeToString(b[:])
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
	fs, err := parseFlags(args, commonFlags, nil)
	if err != nil {
		return fail(err.Error())
	}
	opts, err := fs.loadOptions()
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
	writeJSON(stdout, decide(opts, req))
	return 0
}
