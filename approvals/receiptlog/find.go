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
	ID string
	// Files are the files read, oldest first: the log last.
	Files []string
}

func (e *NotFoundError) Error() string {
	id := visibleAgain(e.ID)
	if len(e.Files) == 0 {
		return fmt.Sprintf("no receipt %s: no decisions recorded yet", id)
	}
	read := e.Files[len(e.Files)-1]
	if rotated := len(e.Files) - 1; rotated > 0 {
		read = fmt.Sprintf("%s or its %d rotated files", read, rotated)
	}
	return fmt.Sprintf("no receipt %s in %s: `codewhale-ls log` lists the ids (lines written before receipts have none)", id, read)
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
	fmt.Fprintf(&b, "%s names more than one receipt; give more of its id:", visibleAgain(e.ID))
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
		return approvals.Receipt{}, fmt.Errorf("a receipt id has at least %d characters; got %s", MinIDPrefix, visibleAgain(id))
	}
	var (
		exact      *approvals.Receipt
		candidates []approvals.Receipt
		count      int
	)
	files := r.Files()
	err := r.scan(Filter{idPrefix: id}, r.log.shown(func(rc approvals.Receipt) {
		switch {
		case rc.ID == id:
			exact = &rc
		case strings.HasPrefix(rc.ID, id):
			count++
			if len(candidates) < maxCandidates {
				candidates = append(candidates, rc)
			}
		}
	}))
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
