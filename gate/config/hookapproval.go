package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/hardening"
	"github.com/codewhale-ls/codewhale-ls/gate/hooks"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// Since Codewhale 0.10.0 a project hooks.toml runs only when the workspace
// is trusted and the exact bytes of the file were approved with
// `/hooks approve <digest>` (docs/codewhale/releases/0.10.0.md B.3).
// Codewhale records that approval in the user's config.toml, beside the
// workspace's trust (docs/codewhale/releases/choices.md, B.3-digest):
//
//	[projects."<the workspace, symlinks resolved>"]
//	hooks_sha256 = "<lower-case hex SHA-256 of the file's exact bytes>"
//
// codewhale-ls reads that record (codewhaleApproval) and, besides it, its
// own store, HookApprovalsFile under the Codewhale home, which
// `codewhale-ls hooks approve` writes, keyed by the file:
//
//	[projects."<absolute path of the hooks.toml>"]
//	approved_sha256 = "<hex SHA-256 of its exact bytes>"
//
// Either record approves. Neither is read from the repository: a record
// in a file inside the workspace does not count, and anything but a
// readable record naming these bytes leaves the project hooks unloaded.
const HookApprovalsFile = "hooks_approvals.toml"

// CodewhaleHookApprovalKey is the key of a workspace's table in the user
// config under which Codewhale 0.10 records `/hooks approve`.
const CodewhaleHookApprovalKey = "hooks_sha256"

// ProjectHooksState says whether a project hooks.toml counted, and if not,
// why.
type ProjectHooksState string

const (
	// ProjectHooksNone: there is no project hooks.toml.
	ProjectHooksNone ProjectHooksState = ""
	// ProjectHooksLoaded: its hooks run after the global ones.
	ProjectHooksLoaded ProjectHooksState = "loaded"
	// ProjectHooksUntrusted: the workspace is not trusted in the user config.
	ProjectHooksUntrusted ProjectHooksState = "untrusted"
	// ProjectHooksNotApproved: trusted, but no approval names this file.
	ProjectHooksNotApproved ProjectHooksState = "not-approved"
	// ProjectHooksEdited: trusted and approved once, but the bytes changed
	// since.
	ProjectHooksEdited ProjectHooksState = "edited-since-approval"
	// ProjectHooksStoreUnreadable: trusted, but the approvals could not be
	// read, so none counts.
	ProjectHooksStoreUnreadable ProjectHooksState = "approval-store-unreadable"
	// ProjectHooksRejected: trusted (and approved), but the file does not
	// parse as a whole, so none of its hooks run.
	ProjectHooksRejected ProjectHooksState = "rejected"
)

// ProjectHooksStatus is what the load found of the project hooks.toml.
type ProjectHooksStatus struct {
	State ProjectHooksState
	// Digest is the hex SHA-256 of the file's exact bytes, what `/hooks
	// approve` takes ("" when there is no file, it cannot be read, or the
	// workspace is untrusted, so no approval is asked for).
	Digest string
	// Why explains a state other than loaded, in words for a diagnostic.
	Why string
	// ApprovedIn is the file whose record approved the bytes: the user
	// config (Codewhale's /hooks approve) or HookApprovalsFile
	// (`codewhale-ls hooks approve`); "" when none did.
	ApprovedIn string
	// Withheld are the hooks of a trusted workspace's file that did not
	// load only for want of an approved digest, read as 0.9.10 (which ran
	// them) reads them: a decision names the digest change only when one
	// of them would have run for its call.
	Withheld hooks.Config
}

// HookApprovals is where the approved digests of project hooks files are
// read from (our assumption; see HookApprovalsFile), "" without an absolute
// Codewhale home.
func (p Paths) HookApprovals() string {
	if !filepath.IsAbs(p.CodewhaleDir) {
		return ""
	}
	return filepath.Join(p.CodewhaleDir, HookApprovalsFile)
}

// HookDigest is the digest `/hooks approve` takes: the hex SHA-256 of the
// file's exact bytes, so any edit, even of a comment or a line ending,
// needs a new approval.
func HookDigest(src []byte) string {
	sum := sha256.Sum256(src)
	return hex.EncodeToString(sum[:])
}

// projectHooksApproved decides, for a trusted workspace, whether the
// release lets the bytes of the project hooks file f load, and says why
// not with a CW303 on f. Before release.HookDigestApproval trust alone
// suffices. user is the user config, where Codewhale records its
// approvals.
func (s *Snapshot) projectHooksApproved(f, user *File) bool {
	if f.State == Invalid && len(f.Src) == 0 {
		// Unreadable (a symlink, not a regular file): there are no bytes
		// to approve, and the caller drops the file and says why.
		return true
	}
	digest := HookDigest(f.Src)
	s.ProjectHooksStatus.Digest = digest
	if !s.Release.Has(release.HookDigestApproval) {
		return true
	}
	workspace := s.Paths.Workspace
	if fi, err := os.Lstat(filepath.Dir(f.Path)); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		// Codewhale reviews and loads .codewhale/hooks.toml only where
		// neither is a symlink, so no approval can count for it.
		s.ProjectHooksStatus.State, s.ProjectHooksStatus.Why = ProjectHooksStoreUnreadable, filepath.Dir(f.Path)+" is a symlink, and Codewhale neither approves nor loads project hooks through one"
		f.add(problem.ProjectHooksNotLoaded, problem.Info, problem.Span{}, "project hooks.toml is not loaded: "+s.ProjectHooksStatus.Why)
		return false
	}
	cwState, cwWhy := codewhaleApproval(user, workspace, s.Paths.Home, digest)
	if cwState == ProjectHooksLoaded {
		s.ProjectHooksStatus.ApprovedIn = user.Path
		return true
	}
	store := s.Paths.HookApprovals()
	state, why := approvalOf(store, workspace, f.Path, digest)
	if state == ProjectHooksLoaded {
		s.ProjectHooksStatus.ApprovedIn = store
		return true
	}
	// The stronger of the two reasons stands: an edit since an approval
	// says more than no approval at all.
	if cwState == ProjectHooksEdited || (cwState == ProjectHooksStoreUnreadable && state == ProjectHooksNotApproved) {
		state = cwState
	}
	s.ProjectHooksStatus.State, s.ProjectHooksStatus.Why = state, cwWhy+"; "+why
	f.add(problem.ProjectHooksNotLoaded, problem.Info, problem.Span{}, fmt.Sprintf(
		"project hooks.toml is not loaded: the workspace is trusted, but %s; Codewhale %s runs a project hooks.toml only once its exact bytes are approved (/hooks review, then /hooks approve %s in Codewhale, recorded as %s in config.toml); `%s` approves them for codewhale-ls. Its lints below still apply.",
		s.ProjectHooksStatus.Why, s.Release.Name(), digest, CodewhaleHookApprovalKey, ApproveCommand(f.Path)))
	return false
}

// ApproveCommand is the command that approves the project hooks file at
// path for codewhale-ls.
func ApproveCommand(path string) string {
	return "codewhale-ls hooks approve " + hardening.Quote(path)
}

// Inside reports whether path lies in dir, both with symlinks resolved
// where they can be.
func Inside(path, dir string) bool {
	if path == "" || dir == "" {
		return false
	}
	resolve := func(p string) string {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return real
		}
		// A file not there yet: resolve its folder.
		if real, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			return filepath.Join(real, filepath.Base(p))
		}
		return filepath.Clean(p)
	}
	rel, err := filepath.Rel(resolve(dir), resolve(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// codewhaleApproval reads Codewhale's own record of /hooks approve for the
// workspace in the user config: `hooks_sha256` in the table of
// [projects] whose key is the workspace with symlinks resolved, exactly
// as Codewhale writes and looks it up (no `~`, no other spelling). It
// approves only the exact digest Codewhale computes (lower-case hex). A
// user config that does not parse, lies inside the workspace (where the
// repository could have written it), or holds the digest as another type,
// approves nothing.
func codewhaleApproval(user *File, workspace, home, digest string) (ProjectHooksState, string) {
	switch {
	case user == nil || user.State == Missing:
		return ProjectHooksNotApproved, "Codewhale has not approved these bytes (there is no config.toml to hold its /hooks approve record)"
	case user.Doc == nil:
		return ProjectHooksStoreUnreadable, fmt.Sprintf("Codewhale's /hooks approve record cannot be read: %s does not parse", user.Path)
	case Inside(user.Path, workspace):
		return ProjectHooksStoreUnreadable, fmt.Sprintf("the user config %s lies inside the workspace, so a /hooks approve record in it could be the repository's own and does not count", user.Path)
	}
	key := canonical(workspace, home)
	projects, _ := user.Doc.Root.Sub("projects")
	if projects == nil {
		return ProjectHooksNotApproved, fmt.Sprintf("Codewhale has not approved these bytes (%s has no [projects.%q] %s)", user.Path, key, CodewhaleHookApprovalKey)
	}
	entry, _ := projects.Sub(key)
	if entry == nil || entry.Get(CodewhaleHookApprovalKey) == nil {
		return ProjectHooksNotApproved, fmt.Sprintf("Codewhale has not approved these bytes (%s has no [projects.%q] %s)", user.Path, key, CodewhaleHookApprovalKey)
	}
	approved, _, ok := entry.String(CodewhaleHookApprovalKey)
	switch {
	case !ok:
		return ProjectHooksStoreUnreadable, fmt.Sprintf("%s of [projects.%q] in %s is not a string, so Codewhale's approval does not count", CodewhaleHookApprovalKey, key, user.Path)
	case approved == digest:
		return ProjectHooksLoaded, ""
	}
	return ProjectHooksEdited, fmt.Sprintf("the file was edited since Codewhale approved it (%s %s in %s)", CodewhaleHookApprovalKey, problem.Excerpt(approved), user.Path)
}

// approvalOf reads codewhale-ls's store at storePath for the hooks file at
// hooksPath (or the same file with symlinks resolved) with the given
// digest. Only a readable store outside the workspace whose entry for the
// file holds exactly this digest approves; every other answer says why
// not.
func approvalOf(storePath, workspace, hooksPath, digest string) (ProjectHooksState, string) {
	if storePath == "" {
		return ProjectHooksStoreUnreadable, "no Codewhale home was found to read codewhale-ls's approvals from"
	}
	if Inside(storePath, workspace) {
		return ProjectHooksStoreUnreadable, fmt.Sprintf("codewhale-ls's approvals in %s lie inside the workspace, so none counts", storePath)
	}
	src, present, err := readRegular(storePath)
	switch {
	case !present:
		return ProjectHooksNotApproved, "codewhale-ls has not approved them either (no approvals are recorded in " + storePath + ")"
	case err != nil:
		return ProjectHooksStoreUnreadable, fmt.Sprintf("codewhale-ls's approvals in %s cannot be read (%v), so none counts", storePath, err)
	}
	doc, perr := tomldoc.Parse(src)
	if perr != nil {
		return ProjectHooksStoreUnreadable, fmt.Sprintf("codewhale-ls's approvals in %s do not parse (%s), so none counts", storePath, perr.Message)
	}
	projects, e := doc.Root.Sub("projects")
	var entry *tomldoc.TableValue
	if projects != nil {
		for _, key := range approvalKeys(hooksPath) {
			if entry, e = projects.Sub(key); entry != nil || e != nil {
				break
			}
		}
	}
	switch {
	case e != nil && entry == nil:
		return ProjectHooksStoreUnreadable, fmt.Sprintf("`%s` in %s is not a table, so no approval there counts", e.Key, storePath)
	case entry == nil:
		return ProjectHooksNotApproved, "codewhale-ls has not approved them either (" + storePath + " has no approval for this file)"
	}
	approved, _, ok := entry.String("approved_sha256")
	switch {
	case !ok:
		return ProjectHooksStoreUnreadable, fmt.Sprintf("the approval of this file in %s has no approved_sha256 string, so it does not count", storePath)
	case strings.EqualFold(strings.TrimSpace(approved), digest):
		return ProjectHooksLoaded, ""
	}
	return ProjectHooksEdited, "the file was edited since codewhale-ls approved it (approved " + problem.Excerpt(approved) + ")"
}

// approvalKeys are the keys under which codewhale-ls's store may name the
// hooks file at path: as given, and with its folder's symlinks resolved
// (what `codewhale-ls hooks approve` writes), so that the workspace
// reached either way finds it.
func approvalKeys(path string) []string {
	keys := []string{path}
	if real, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		if k := filepath.Join(real, filepath.Base(path)); k != path {
			keys = append(keys, k)
		}
	}
	return keys
}

// ApprovalKey is the key `codewhale-ls hooks approve` records the hooks
// file at path under: absolute, its folder's symlinks resolved.
func ApprovalKey(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	keys := approvalKeys(path)
	return keys[len(keys)-1]
}
