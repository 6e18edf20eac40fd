package receiptlog

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
			got, more := readAll(t, fx.path, tc.filter, 0)
			if !slices.Equal(keys(got), keys(want)) || more {
				t.Errorf("selected %d (more %v), want %d\n got %v\nwant %v", len(got), more, len(want), keys(got), keys(want))
			}
			// --limit N is the last N of them, read from the end.
			for _, n := range []int{1, 3, len(want), len(want) + 1} {
				last, more := readAll(t, fx.path, tc.filter, n)
				kept := min(n, len(want))
				if !slices.Equal(keys(last), keys(want[len(want)-kept:])) || more != (len(want) > n) {
					t.Errorf("--limit %d gave %v (more %v), want %v", n, keys(last), more, keys(want[len(want)-kept:]))
				}
			}
		})
	}
}

// Every receipt written is read once, oldest first, across the
// generations; old lines without "v" included.
func TestReadsEveryGenerationOldestFirst(t *testing.T) {
	fx := writeFixture(t)
	got, more := readAll(t, fx.path, Filter{}, 0)
	if !slices.Equal(keys(got), keys(fx.receipts)) || more {
		t.Fatalf("read %d receipts, want %d in order", len(got), len(fx.receipts))
	}
	if got[0].V != 0 || got[0].ID != "" || got[len(got)-1].ID != fixtureID(fixtureReceipts-1) {
		t.Errorf("first %+v, last %+v", got[0], got[len(got)-1])
	}
	last, more := readAll(t, fx.path, Filter{}, 50)
	if !slices.Equal(keys(last), keys(fx.receipts[len(fx.receipts)-50:])) || !more {
		t.Errorf("the last 50 are not the newest 50")
	}
	// Every one, read from the end: across every generation to the old
	// lines of the first.
	all, more := readAll(t, fx.path, Filter{}, len(fx.receipts))
	if !slices.Equal(keys(all), keys(fx.receipts)) || more {
		t.Errorf("read from the end: %d receipts, more %v", len(all), more)
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
	// From the start of the file (every receipt) and from its end (the
	// last ten), and in the middle of a rotated generation, the lines
	// the reader cannot show are named alike.
	if err := os.WriteFile(path+".1", []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{0, 10} {
		var skipped []Skipped
		reader, err := Log{Path: path, Skip: func(s Skipped) { skipped = append(skipped, s) }}.Open()
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := reader.Last(Filter{}, limit)
		reader.Close()
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range got {
			ids = append(ids, r.ID)
		}
		want := []string{fixtureID(1), fixtureID(2), fixtureID(3)}
		if !slices.Equal(ids, append(slices.Clone(want), want...)) {
			t.Errorf("limit %d: read %v", limit, ids)
		}
		slices.SortFunc(skipped, func(a, b Skipped) int {
			return strings.Compare(fmt.Sprintf("%s:%03d", a.File, a.Line), fmt.Sprintf("%s:%03d", b.File, b.Line))
		})
		var wantSkipped []string
		for _, file := range []string{path, path + ".1"} {
			for _, line := range []int{2, 3, 5, 7} {
				wantSkipped = append(wantSkipped, fmt.Sprintf("%s:%d", file, line))
			}
		}
		var gotSkipped []string
		for _, s := range skipped {
			gotSkipped = append(gotSkipped, fmt.Sprintf("%s:%d", s.File, s.Line))
			if strings.Contains(s.String(), "ghp_") {
				t.Errorf("limit %d: %s quotes the line", limit, s)
			}
			if s.Line == 2 && !strings.Contains(s.Why, "longer than") {
				t.Errorf("limit %d: the long line: %s", limit, s.Why)
			}
		}
		slices.Sort(gotSkipped)
		slices.Sort(wantSkipped)
		if !slices.Equal(gotSkipped, wantSkipped) {
			t.Errorf("limit %d: skipped %v, want %v", limit, gotSkipped, wantSkipped)
		}
	}
}

// Reading a log no writer locked (a copy) leaves nothing beside it.
func TestReadingCreatesNoLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "copy.jsonl")
	if err := os.WriteFile(path, []byte(`{"time":"2026-12-06T10:00:00Z","decision":"allow","tool":"x"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := readAll(t, path, Filter{}, 10); len(got) != 1 {
		t.Fatalf("read %d receipts", len(got))
	}
	if _, err := os.Stat(path + ".lock"); err == nil {
		t.Errorf("reading created %s.lock", path)
	}
}
