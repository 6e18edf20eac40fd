package receiptlog

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

// fullLog writes a decision log as full as the default rotation lets it
// grow: decisions.jsonl and its three generations of 10 MiB each
// (approvals.DefaultRotation), of receipts like the fixture's. It returns
// the log's path, its size in all and the id of its oldest receipt.
func fullLog(b *testing.B) (path string, size int64, oldest string) {
	b.Helper()
	root := b.TempDir()
	dirs := map[string]string{}
	for _, name := range fixtureRepos {
		dirs[name] = filepath.Join(root, name)
	}
	path = filepath.Join(root, "decisions.jsonl")
	const perFile = 10 << 20
	i := fixtureOld
	for g := 3; g >= 0; g-- {
		name := path
		if g > 0 {
			name = generation(path, g)
		}
		f, err := os.Create(name)
		if err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriter(f)
		for written := 0; written < perFile-4<<10; i++ {
			r := fixtureReceipt(dirs, i%fixtureReceipts)
			r.ID = fmt.Sprintf("b%09d", i)
			before := w.Buffered()
			if err := WriteJSON(w, r); err != nil {
				b.Fatal(err)
			}
			written += w.Buffered() - before
			if w.Available() < 8<<10 {
				if err := w.Flush(); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
		info, err := f.Stat()
		if err != nil {
			b.Fatal(err)
		}
		size += info.Size()
		f.Close()
	}
	return path, size, fmt.Sprintf("b%09d", fixtureOld)
}

// BenchmarkReadFullLog is `codewhale-ls log` on a log at its largest
// (40 MiB: the log and three generations): the last 50 receipts, read
// from the end, without and with filters; every receipt (--limit 0),
// each line's header decoded and filtered, the kept ones decoded whole
// and masked again; and finding an id in the oldest generation (log
// show), which reads every line. MB/s is given for what reads it all.
func BenchmarkReadFullLog(b *testing.B) {
	path, size, oldest := fullLog(b)
	repo, err := RepoForms(filepath.Join(filepath.Dir(path), "app"))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		filter Filter
		limit  int
	}{
		{"last 50", Filter{}, 50},
		{"last 50 filtered", Filter{Since: fixtureNow.Add(-72 * time.Hour), Agent: "codex", Decision: gate.Deny, Repo: repo}, 50},
		{"every one", Filter{}, 0},
		{"every one filtered", Filter{Since: fixtureNow.Add(-72 * time.Hour), Agent: "codex", Decision: gate.Deny, Repo: repo}, 0},
	} {
		b.Run(c.name, func(b *testing.B) {
			if c.limit == 0 {
				b.SetBytes(size)
			}
			for b.Loop() {
				reader, err := Log{Path: path}.Open()
				if err != nil {
					b.Fatal(err)
				}
				got, _, err := reader.Last(c.filter, c.limit)
				reader.Close()
				if err != nil || len(got) == 0 {
					b.Fatalf("read %d receipts: %v", len(got), err)
				}
			}
		})
	}
	b.Run("show the oldest", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			reader, err := Log{Path: path}.Open()
			if err != nil {
				b.Fatal(err)
			}
			r, err := reader.Find(oldest)
			reader.Close()
			if err != nil || r.ID != oldest {
				b.Fatalf("Find(%s) = %s, %v", oldest, r.ID, err)
			}
		}
	})
}
