package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/hooks"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// Since Codewhale 0.10.0 a project hooks.toml runs only when the workspace
// is trusted and the exact bytes of the file were approved with
// `/hooks approve <digest>` (docs/codewhale/releases/0.10.0.md B.3).
// Where Codewhale keeps those approvals is not known, so this is our
// assumption, written down in docs/codewhale/releases/choices.md
// (B.3-digest): the file HookApprovalsFile under the Codewhale home, with
//
//	[projects."<absolute path of the hooks.toml>"]
//	approved_sha256 = "<hex SHA-256 of its exact bytes>"
//
// Anything but a readable store naming this file with these bytes leaves
// the project hooks unloaded: an unknown store fails closed.
const HookApprovalsFile = "hooks_approvals.toml"

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
// suffices.
func (s *Snapshot) projectHooksApproved(f *File) bool {
	if f.State == Invalid && len(f.Src) == 0 {
		// Unreadable (a symlink, not a regular file): there are no bytes
		// to approve, and the caller drops the file and says why.
		return true
	}
	s.ProjectHooksStatus.Digest = HookDigest(f.Src)
	if !s.Release.Has(release.HookDigestApproval) {
		return true
	}
	state, why := approvalOf(s.Paths.HookApprovals(), f.Path, s.ProjectHooksStatus.Digest)
	if state == ProjectHooksLoaded {
		return true
	}
	s.ProjectHooksStatus.State, s.ProjectHooksStatus.Why = state, why
	f.add(problem.ProjectHooksNotLoaded, problem.Info, problem.Span{}, fmt.Sprintf(
		"project hooks.toml is not loaded: the workspace is trusted, but %s; Codewhale %s runs a project hooks.toml only once its exact bytes are approved (/hooks review, then /hooks approve %s)",
		why, s.Release.Name(), s.ProjectHooksStatus.Digest))
	return false
}

// approvalOf reads the store at storePath for the hooks file at hooksPath
// with the given digest. Only a readable store whose entry for the file
// holds exactly this digest approves; every other answer says why not.
func approvalOf(storePath, hooksPath, digest string) (ProjectHooksState, string) {
	if storePath == "" {
		return ProjectHooksStoreUnreadable, "no Codewhale home was found to read approvals from"
	}
	src, present, err := readRegular(storePath)
	switch {
	case !present:
		return ProjectHooksNotApproved, "these bytes are not approved (no approvals are recorded in " + storePath + ")"
	case err != nil:
		return ProjectHooksStoreUnreadable, fmt.Sprintf("the approvals in %s cannot be read (%v), so none counts", storePath, err)
	}
	doc, perr := tomldoc.Parse(src)
	if perr != nil {
		return ProjectHooksStoreUnreadable, fmt.Sprintf("the approvals in %s do not parse (%s), so none counts", storePath, perr.Message)
	}
	projects, e := doc.Root.Sub("projects")
	var entry *tomldoc.TableValue
	if projects != nil {
		entry, e = projects.Sub(hooksPath)
	}
	switch {
	case e != nil && entry == nil:
		return ProjectHooksStoreUnreadable, fmt.Sprintf("`%s` in %s is not a table, so no approval there counts", e.Key, storePath)
	case entry == nil:
		return ProjectHooksNotApproved, "these bytes are not approved (" + storePath + " has no approval for this file)"
	}
	approved, _, ok := entry.String("approved_sha256")
	switch {
	case !ok:
		return ProjectHooksStoreUnreadable, fmt.Sprintf("the approval of this file in %s has no approved_sha256 string, so it does not count", storePath)
	case strings.EqualFold(strings.TrimSpace(approved), digest):
		return ProjectHooksLoaded, ""
	}
	return ProjectHooksEdited, "the file was edited since its approval (approved " + problem.Excerpt(approved) + ")"
}
