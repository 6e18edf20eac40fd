package receiptlog

import (
	"fmt"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/approvals"
)

// MinIDPrefix is the shortest id prefix Find takes, as git takes
// abbreviated commits: shorter ones would match too much to be meant.
const MinIDPrefix = 4

// maxCandidates bounds the receipts an ambiguous prefix lists.
const maxCandidates = 10

// NotFoundError is why Find found no receipt.
type NotFoundError struct {
	ID    string
	Files []string
}

func (e *NotFoundError) Error() string {
	if len(e.Files) == 0 {
		return fmt.Sprintf("no receipt %s: no decisions recorded yet", e.ID)
	}
	return fmt.Sprintf("no receipt %s in %s: `codewhale-ls log` lists the ids (lines written before receipts have none)", e.ID, strings.Join(e.Files, ", "))
}

// AmbiguousError is why Find did not choose: more receipts than one have
// ids starting with ID.
type AmbiguousError struct {
	ID         string
	Candidates []approvals.Receipt
	// More counts the candidates not listed.
	More int
}

func (e *AmbiguousError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s names more than one receipt; give more of its id:", e.ID)
	for _, c := range e.Candidates {
		fmt.Fprintf(&b, "\n  %s  %s  %s  %s  %s", c.ID, c.Time.UTC().Format("2006-01-02T15:04:05Z"), AgentOf(c), c.Decision, visibleAgain(c.Tool))
	}
	if e.More > 0 {
		fmt.Fprintf(&b, "\n  and %d more", e.More)
	}
	return b.String()
}

// Find is the receipt whose id is id or, like git's abbreviated commits,
// the one receipt whose id starts with id (at least MinIDPrefix
// characters): a *NotFoundError when none does, an *AmbiguousError
// listing them when several do.
func (r *Reader) Find(id string) (approvals.Receipt, error) {
	if len(id) < MinIDPrefix {
		return approvals.Receipt{}, fmt.Errorf("a receipt id has at least %d characters; got %q", MinIDPrefix, id)
	}
	var (
		exact      *approvals.Receipt
		candidates []approvals.Receipt
		count      int
	)
	files := r.Files()
	err := r.Scan(Filter{}, func(rc approvals.Receipt) {
		switch {
		case rc.ID == id:
			exact = &rc
		case strings.HasPrefix(rc.ID, id):
			count++
			if len(candidates) < maxCandidates {
				candidates = append(candidates, rc)
			}
		}
	})
	switch {
	case err != nil:
		return approvals.Receipt{}, err
	case exact != nil:
		return *exact, nil
	case count == 1:
		return candidates[0], nil
	case count == 0:
		return approvals.Receipt{}, &NotFoundError{ID: id, Files: files}
	}
	return approvals.Receipt{}, &AmbiguousError{ID: id, Candidates: candidates, More: count - len(candidates)}
}
