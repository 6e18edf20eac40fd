package receiptlog

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/gate"
)

// Issue 26, "the filters select exactly what they say": each filter,
// alone and together, over a log of many receipts in rotated generations
// with lines written before receipts, selects exactly the receipts a
// plain reading of its words picks from what was written, in the order
// written.
func TestFiltersSelectExactlyWhatTheySay(t *testing.T) {
	fx := writeFixture(t)
	inside := func(r approvals.Receipt, dirs ...string) bool {
		for _, d := range dirs {
			if r.Repo == fx.dirs[d] || strings.HasPrefix(r.Repo, fx.dirs[d]+"/") {
				return true
			}
		}
		return false
	}
	since := func(s string) time.Time {
		t.Helper()
		at, err := ParseSince(s, fixtureNow)
		if err != nil {
			t.Fatal(err)
		}
		return at
	}
	repo := func(name string) []string {
		t.Helper()
		forms, err := RepoForms(fx.dirs[name])
		if err != nil {
			t.Fatal(err)
		}
		return forms
	}
	tests := []struct {
		name   string
		filter Filter
		want   func(r approvals.Receipt) bool
	}{
		{"since 2h", Filter{Since: since("2h")}, func(r approvals.Receipt) bool { return !r.Time.Before(fixtureNow.Add(-2 * time.Hour)) }},
		{"since 50m", Filter{Since: since("50m")}, func(r approvals.Receipt) bool { return !r.Time.Before(fixtureNow.Add(-50 * time.Minute)) }},
		{"since 7d", Filter{Since: since("7d")}, func(r approvals.Receipt) bool { return !r.Time.Before(fixtureNow.AddDate(0, 0, -7)) }},
		{"since a date", Filter{Since: since("2026-12-05")}, func(r approvals.Receipt) bool {
			return !r.Time.Before(time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC))
		}},
		{"since an RFC 3339 time", Filter{Since: since("2026-12-01T09:00:00+01:00")}, func(r approvals.Receipt) bool {
			return !r.Time.Before(time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC))
		}},
		{"agent codex", Filter{Agent: "codex"}, func(r approvals.Receipt) bool { return r.Agent == "codex" }},
		{"agent codewhale: the editor's own calls", Filter{Agent: EditorAgent}, func(r approvals.Receipt) bool { return r.Agent == "" }},
		{"decision deny", Filter{Decision: gate.Deny}, func(r approvals.Receipt) bool { return r.Decision == gate.Deny }},
		{"decision ask", Filter{Decision: gate.Ask}, func(r approvals.Receipt) bool { return r.Decision == gate.Ask }},
		{"tool read_file", Filter{Tool: "read_file"}, func(r approvals.Receipt) bool { return r.Tool == "read_file" }},
		{"repo app: itself and inside, not application", Filter{Repo: repo("app")}, func(r approvals.Receipt) bool { return inside(r, "app") }},
		{"repo app/sub", Filter{Repo: repo("app/sub")}, func(r approvals.Receipt) bool { return inside(r, "app/sub") }},
		{"repo application", Filter{Repo: repo("application")}, func(r approvals.Receipt) bool { return inside(r, "application") }},
		{"repo through a symlink to app", Filter{Repo: repo("applink")}, func(r approvals.Receipt) bool { return inside(r, "app") }},
		{"everything together", Filter{Since: since("3d"), Agent: "claude-code", Decision: gate.Allow, Tool: "exec_shell", Repo: repo("app")},
			func(r approvals.Receipt) bool {
				return !r.Time.Before(fixtureNow.AddDate(0, 0, -3)) && r.Agent == "claude-code" && r.Decision == gate.Allow && r.Tool == "exec_shell" && inside(r, "app")
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var want []approvals.Receipt
			for _, r := range fx.receipts {
				if tc.want(r) {
					want = append(want, r)
				}
			}
			if len(want) == 0 || len(want) == len(fx.receipts) {
				t.Fatalf("the fixture gives this filter %d of %d receipts: it cannot tell a filter from none", len(want), len(fx.receipts))
			}
			got, matched := readAll(t, fx.path, tc.filter, 0)
			if !slices.Equal(keys(got), keys(want)) || matched != len(want) {
				t.Errorf("selected %d (matched %d), want %d\n got %v\nwant %v", len(got), matched, len(want), keys(got), keys(want))
			}
			// --limit N is the last N of them.
			last, matched := readAll(t, fx.path, tc.filter, 3)
			if n := min(3, len(want)); !slices.Equal(keys(last), keys(want[len(want)-n:])) || matched != len(want) {
				t.Errorf("--limit 3 gave %v (matched %d), want %v", keys(last), matched, keys(want[len(want)-n:]))
			}
		})
	}
}

// Every receipt written is read once, oldest first, across the
// generations; old lines without "v" included.
func TestReadsEveryGenerationOldestFirst(t *testing.T) {
	fx := writeFixture(t)
	got, matched := readAll(t, fx.path, Filter{}, 0)
	if !slices.Equal(keys(got), keys(fx.receipts)) || matched != len(fx.receipts) {
		t.Fatalf("read %d receipts, want %d in order", len(got), len(fx.receipts))
	}
	if got[0].V != 0 || got[0].ID != "" || got[len(got)-1].ID != fixtureID(fixtureReceipts-1) {
		t.Errorf("first %+v, last %+v", got[0], got[len(got)-1])
	}
	last, _ := readAll(t, fx.path, Filter{}, 50)
	if !slices.Equal(keys(last), keys(fx.receipts[len(fx.receipts)-50:])) {
		t.Errorf("the last 50 are not the newest 50")
	}
}

func TestParseSinceRefusesWhatItCannotRead(t *testing.T) {
	for _, s := range []string{"", "yesterday", "-2h", "2x", "1.5d", "2026-13-01", "2026-12-05 10:00", "7days"} {
		if at, err := ParseSince(s, fixtureNow); err == nil {
			t.Errorf("ParseSince(%q) = %v, want an error", s, at)
		} else if !strings.Contains(err.Error(), "--since") {
			t.Errorf("ParseSince(%q): %v does not name --since", s, err)
		}
	}
	if _, err := ParseDecision("refuse"); err == nil || !strings.Contains(err.Error(), "--decision") {
		t.Errorf("ParseDecision(refuse) = %v", err)
	}
}

// A line too long, a line that is not JSON and a JSON line that is no
// receipt are reported by file and line, never quoted, and skipped: the
// lines around them are read.
func TestSkipsLinesItCannotShow(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "decisions.jsonl")
	good := func(i int) string {
		return `{"v":1,"id":"` + fixtureID(i) + `","time":"2026-12-06T10:00:0` + string(rune('0'+i)) + `Z","tool":"exec_shell","decision":"allow","layer":5,"layerName":"permissions","reason":"ok","callId":null,"rule":null,"approval":null}`
	}
	long := `{"v":1,"reason":"` + strings.Repeat("ghp_", MaxLineBytes/4) + `"}`
	lines := []string{good(1), long, "not json ghp_secret", good(2), `{"hello":"world"}`, "", `{"time":"x"}`, good(3)}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var skipped []Skipped
	reader, err := Log{Path: path, Skip: func(s Skipped) { skipped = append(skipped, s) }}.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	got, _, err := reader.Last(Filter{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ids := []string{got[0].ID, got[1].ID, got[2].ID}; len(got) != 3 || !slices.Equal(ids, []string{fixtureID(1), fixtureID(2), fixtureID(3)}) {
		t.Errorf("read %d receipts: %+v", len(got), got)
	}
	wantLines := []int{2, 3, 5, 7}
	if len(skipped) != len(wantLines) {
		t.Fatalf("skipped %v, want lines %v", skipped, wantLines)
	}
	for i, s := range skipped {
		if s.File != path || s.Line != wantLines[i] || strings.Contains(s.String(), "ghp_") {
			t.Errorf("skipped[%d] = %s, want %s line %d without the line's text", i, s, path, wantLines[i])
		}
	}
	if !strings.Contains(skipped[0].Why, "longer than") {
		t.Errorf("the long line: %s", skipped[0].Why)
	}
}

// A FIFO, a symlink or a directory at the log's path (or a generation's)
// is refused at once with an error naming it, never waited on; a log
// that cannot be opened names its path.
func TestRefusesWhatIsNoLogWithoutHanging(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.jsonl")
	if err := os.WriteFile(real, []byte(`{"time":"2026-12-06T10:00:00Z","decision":"allow","tool":"x"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := func(p string) {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skip("no FIFOs here:", err)
		}
	}
	tests := []struct {
		name, want string
		plant      func(path string)
	}{
		{"a FIFO", "a FIFO", fifo},
		{"a FIFO as generation 1", "a FIFO", func(p string) {
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			fifo(p + ".1")
		}},
		{"a symlink", "is a symlink", func(p string) {
			if err := os.Symlink(real, p); err != nil {
				t.Fatal(err)
			}
		}},
		{"a directory", "a directory", func(p string) {
			if err := os.Mkdir(p, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, string(rune('a'+i)), "decisions.jsonl")
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			tc.plant(path)
			done := make(chan error, 1)
			go func() {
				r, err := Log{Path: path}.Open()
				if err == nil {
					r.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), filepath.Dir(path)) {
					t.Errorf("Open = %v, want an error naming the path and %q", err, tc.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Open hangs")
			}
		})
	}
	t.Run("unreadable", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root reads every file")
		}
		path := filepath.Join(dir, "unreadable.jsonl")
		if err := os.WriteFile(path, nil, 0o000); err != nil {
			t.Fatal(err)
		}
		_, err := Log{Path: path}.Open()
		if !errors.Is(err, os.ErrPermission) || !strings.Contains(err.Error(), path) {
			t.Errorf("Open = %v, want permission denied naming %s", err, path)
		}
	})
	t.Run("under a file", func(t *testing.T) {
		path := filepath.Join(real, "decisions.jsonl")
		_, err := Log{Path: path}.Open()
		if !errors.Is(err, syscall.ENOTDIR) || !strings.Contains(err.Error(), path) {
			t.Errorf("Open = %v, want not a directory naming %s", err, path)
		}
	})
	t.Run("none yet", func(t *testing.T) {
		r, err := Log{Path: filepath.Join(dir, "none", "decisions.jsonl")}.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if got, matched, err := r.Last(Filter{}, 0); err != nil || len(got) != 0 || matched != 0 || len(r.Files()) != 0 {
			t.Errorf("a log not yet written: %v, %d, %v, files %v", got, matched, err, r.Files())
		}
	})
}
