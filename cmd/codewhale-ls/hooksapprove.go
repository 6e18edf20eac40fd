package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/hooks"
	"github.com/codewhale-ls/codewhale-ls/gate/policyfile"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

const hooksUsage = "usage: codewhale-ls hooks approve [FILE] [--config PATH] [--workspace DIR] [--yes]\n"

// hooksCommand runs `codewhale-ls hooks approve [FILE]`.
func hooksCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "approve" {
		fmt.Fprint(stderr, "codewhale-ls hooks: the one subcommand is approve\n"+hooksUsage)
		return 1
	}
	return hooksApprove(args[1:], isTerminal(stdin), stdin, stdout, stderr)
}

// hooksApprove shows a project hooks.toml (every invisible or look-alike
// character escaped), its lints and its digest, and, confirmed on a
// terminal or by --yes, records the digest of its exact bytes in
// codewhale-ls's approval store (config.HookApprovalsFile), atomically.
// Codewhale's own approval (/hooks approve) is read as it is; this one is
// for codewhale-ls alone, so it never writes Codewhale's config.toml.
func hooksApprove(args []string, terminal bool, stdin io.Reader, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "codewhale-ls hooks approve: "+format+"\n", a...)
		return 1
	}
	fs, err := parseFlags(args, []string{"config", "workspace"}, []string{"yes"})
	if err != nil {
		fmt.Fprint(stderr, hooksUsage)
		return fail("%v", err)
	}
	if len(fs.args) > 1 {
		fmt.Fprint(stderr, hooksUsage)
		return fail("name at most one file")
	}
	var path string
	if len(fs.args) == 1 {
		if path, err = filepath.Abs(fs.args[0]); err != nil {
			return fail("%v", err)
		}
	} else {
		ws, err := fs.workspace()
		if err != nil {
			return fail("%v", err)
		}
		path = filepath.Join(ws, ".codewhale", "hooks.toml")
	}
	if filepath.Base(path) != "hooks.toml" || filepath.Base(filepath.Dir(path)) != ".codewhale" {
		return fail("%s is not a project hooks file: Codewhale reads only <workspace>/.codewhale/hooks.toml", path)
	}
	workspace := filepath.Dir(filepath.Dir(path))
	src, err := readHooksFile(path)
	if err != nil {
		return fail("%v (nothing was recorded)", err)
	}

	// Load the workspace as the hook would: the store, the trust, and
	// whether these bytes are already approved.
	opts := config.Options{ConfigFlag: fs.values["config"], Workspace: workspace, Env: config.OSEnv{}, Release: release.Newest()}
	snap := config.Load(opts)
	store := snap.Paths.HookApprovals()
	if store == "" {
		return fail("no Codewhale home was found to record the approval in (nothing was recorded)")
	}
	if config.Inside(store, workspace) {
		return fail("the approval store %s lies inside the workspace, where no approval counts (nothing was recorded)", store)
	}
	digest := config.HookDigest(src)

	shown, escaped := problem.Visible{Multiline: true}.Show(string(src))
	fmt.Fprintf(stdout, "%s (%d bytes", path, len(src))
	if escaped > 0 {
		fmt.Fprintf(stdout, ", %d characters shown as %s…%s escapes", escaped, problem.EscapeOpen, problem.EscapeClose)
	}
	fmt.Fprintf(stdout, "):\n\n%s\n\nsha256 %s\n", strings.TrimSuffix(shown, "\n"), digest)

	doc, synErr := tomldoc.Parse(src)
	if synErr != nil {
		return fail("the file does not parse (line %d: %s), so none of its hooks could run; fix it, then approve it (nothing was recorded)",
			problem.NewLines(src).LineOf(synErr.Span.Start)+1, synErr.Message)
	}
	cfg, problems := hooks.FromProjectFile(doc, snap.Release)
	lines := problem.NewLines(src)
	rejected := cfg.Rejected
	for _, p := range problems {
		fmt.Fprintf(stdout, "%s:%d: %s %s %s\n", path, lines.LineOf(p.Span.Start)+1, p.Severity, p.Code, p.Message)
		rejected = rejected || p.Severity == problem.Error
	}
	if rejected {
		// As Codewhale, which refuses to approve a file with hooks it
		// would drop: approving would hide what is wrong.
		return fail("the file has errors (above); correct them before approving it (nothing was recorded)")
	}
	if !snap.Trusted {
		return fail("the workspace %s is not trusted in %s, so its hooks.toml never loads, approved or not: trust it first ([projects.%q] trust_level = \"trusted\", or /trust in Codewhale) (nothing was recorded)",
			workspace, snap.Paths.Config, workspace)
	}
	if st := snap.ProjectHooksStatus; st.State == config.ProjectHooksLoaded && st.Digest == digest && st.ApprovedIn != "" {
		fmt.Fprintf(stderr, "these bytes are already approved (in %s); nothing to record\n", st.ApprovedIn)
		return 0
	}
	if !confirmed(fs.bools["yes"], terminal, stdin, stderr, fmt.Sprintf("Let codewhale-ls run the hooks of these exact bytes (sha256 %s)?", digest[:12]), "recorded") {
		return 1
	}
	if err := recordHookApproval(store, config.ApprovalKey(path), digest); err != nil {
		return fail("%v (nothing was recorded)", err)
	}
	after := config.Load(opts)
	if !after.ProjectHooksLoaded {
		return fail("recorded in %s, yet the file still does not load: %s", store, after.ProjectHooksStatus.Why)
	}
	fmt.Fprintf(stderr, "approved for codewhale-ls: %s (sha256 %s), recorded in %s; its hooks run from the next call.\n", path, digest, store)
	if after.ProjectHooksStatus.ApprovedIn == store {
		fmt.Fprintf(stderr, "Codewhale itself runs them once you approve the same bytes there: /hooks review, then /hooks approve %s\n", digest)
	}
	return 0
}

// readHooksFile reads the hooks file at path as Codewhale reviews it:
// neither the file nor its .codewhale folder may be a symlink, and it must
// be a regular file.
func readHooksFile(path string) ([]byte, error) {
	for _, p := range []string{filepath.Dir(path), path} {
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
			return nil, err
		case fi.Mode()&os.ModeSymlink != 0:
			return nil, fmt.Errorf("%s is a symlink, and Codewhale never loads project hooks through one", p)
		}
	}
	return policyfile.Read(path)
}

// recordHookApproval sets approved_sha256 = digest for key in the store,
// under its lock, replacing the file atomically (policyfile.Rewrite): the
// rest of the file is kept byte for byte, and a store that does not parse
// is left alone.
func recordHookApproval(store, key, digest string) error {
	if err := os.MkdirAll(filepath.Dir(store), 0o700); err != nil {
		return err
	}
	unlock, err := policyfile.LockExclusive(store + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	_, err = policyfile.Rewrite(store, 0o600, func(old []byte, exists bool) ([]byte, error) {
		doc, synErr := tomldoc.Parse(old)
		if synErr != nil {
			return nil, fmt.Errorf("%s does not parse (%s); fix it first", store, synErr.Message)
		}
		projects, e := doc.Root.Sub("projects")
		if projects == nil && e != nil {
			return nil, fmt.Errorf("`projects` in %s is not a table; fix it first", store)
		}
		var entry *tomldoc.TableValue
		if projects != nil {
			entry, e = projects.Sub(key)
			if entry == nil && e != nil {
				return nil, fmt.Errorf("the entry of %s in %s is not a table; fix it first", key, store)
			}
		}
		value := tomlBasicString(digest)
		if entry != nil {
			prior := entry.Get("approved_sha256")
			if prior == nil {
				return nil, fmt.Errorf("the entry of %s in %s has no approved_sha256 line to replace; fix it first", key, store)
			}
			span := prior.Value.Span
			return append(append(append([]byte{}, old[:span.Start]...), value...), old[span.End:]...), nil
		}
		out := append([]byte{}, old...)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		if len(out) > 0 {
			out = append(out, '\n')
		}
		return append(out, "[projects."+tomlBasicString(key)+"]\napproved_sha256 = "+value+"\n"...), nil
	})
	return err
}

// tomlBasicString quotes s as a TOML basic string.
func tomlBasicString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
