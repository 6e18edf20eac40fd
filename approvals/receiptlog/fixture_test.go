package receiptlog

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/codewhale-ls/codewhale-ls/approvals"
	"github.com/codewhale-ls/codewhale-ls/gate"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fixtureNow is the time the fixture's log is read at.
var fixtureNow = time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)

// fixture is a decision log of many receipts of different agents,
// repositories, tools, decisions and times, rotated into several
// generations, its oldest lines written before receipts (no "v").
type fixture struct {
	path string
	// dirs are the repositories by name: app, app/sub, application
	// (which starts as app does, but is not inside it), other; applink
	// is a symlink to app.
	dirs map[string]string
	// receipts are what was written, oldest first.
	receipts []approvals.Receipt
}

const (
	fixtureOld      = 12  // lines written before receipts
	fixtureReceipts = 240 // in all
)

var (
	fixtureAgents    = []string{"claude-code", "codex", "", "cursor"}
	fixtureRepos     = []string{"app", "app/sub", "application", "other"}
	fixtureTools     = []string{"exec_shell", "read_file", "apply_patch"}
	fixtureDecisions = []gate.Verdict{gate.Allow, gate.Ask, gate.Deny}
)

// fixtureID is receipt i's id: the receipts of each run of 32 share
// their first four characters, so that prefixes are ambiguous as real
// ones can be.
func fixtureID(i int) string {
	const alphabet = "23456789abcdefghijkmnpqrstuvwxyz"
	return "kq2" + string(alphabet[(i/len(alphabet))%len(alphabet)]) + string(alphabet[i%len(alphabet)]) + "xyzab"
}

// fixtureReceipt is the i-th receipt of the fixture, at
// fixtureNow - (fixtureReceipts-i)×45 min (seven and a half days in all).
func fixtureReceipt(dirs map[string]string, i int) approvals.Receipt {
	when := fixtureNow.Add(-time.Duration(fixtureReceipts-i) * 45 * time.Minute)
	agent := fixtureAgents[i%len(fixtureAgents)]
	tool := fixtureTools[i%len(fixtureTools)]
	decision := fixtureDecisions[(i/2)%len(fixtureDecisions)]
	layer := gate.LayerPermissions
	r := approvals.Receipt{
		Time: when, Agent: agent, Tool: tool, Decision: decision, Layer: layer, LayerName: layer.String(),
		Reason: fmt.Sprintf("decision %d", i),
	}
	if i < fixtureOld {
		return r
	}
	r.V, r.ID = approvals.ReceiptVersion, fixtureID(i)
	r.Session = fmt.Sprintf("session-%d", i%5)
	r.Repo = dirs[fixtureRepos[(i/4)%len(fixtureRepos)]]
	r.Input = []approvals.ReceiptInput{{Field: "command", Text: fmt.Sprintf("make step%d", i), Bytes: 10}}
	r.Decider = &approvals.Decider{Kind: approvals.DecidedByRule, Summary: fmt.Sprintf("the rule 'make step%d' at /p.toml:%d", i, i), File: "/p.toml", Line: i, Rule: fmt.Sprintf("make step%d", i)}
	r.Codewhale, r.Hardening = "0.10.1", "on"
	r.Trace = []gate.TraceEntry{
		{Layer: gate.LayerPosture, Name: "posture", Effect: gate.EffectNone, Detail: "posture ask"},
		{Layer: layer, Name: layer.String(), Effect: gate.Effect(decision), Detail: fmt.Sprintf("rule make step%d", i)},
	}
	return r
}

// writeFixture writes the fixture's log: the old lines by hand (as issue
// 15's log wrote them), then every receipt through approvals.DecisionLog,
// rotated small so that they spread over several generations.
func writeFixture(t testing.TB) fixture {
	t.Helper()
	root := t.TempDir()
	f := fixture{path: filepath.Join(root, "home", "codewhale-ls", "decisions.jsonl"), dirs: map[string]string{}}
	for _, name := range fixtureRepos {
		f.dirs[name] = filepath.Join(root, name)
		if err := os.MkdirAll(f.dirs[name], 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(f.dirs["app"], filepath.Join(root, "applink")); err != nil {
		t.Fatal(err)
	}
	f.dirs["applink"] = filepath.Join(root, "applink")
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		t.Fatal(err)
	}
	var old []byte
	for i := range fixtureOld {
		r := fixtureReceipt(f.dirs, i)
		f.receipts = append(f.receipts, r)
		line, err := json.Marshal(map[string]any{
			"time": r.Time, "callId": nil, "tool": r.Tool, "decision": r.Decision, "layer": r.Layer,
			"layerName": r.LayerName, "rule": nil, "reason": r.Reason, "approval": nil, "agent": r.Agent,
		})
		if err != nil {
			t.Fatal(err)
		}
		old = append(append(old, line...), '\n')
	}
	if err := os.WriteFile(f.path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	log, err := approvals.OpenRotatingDecisionLog(f.path, approvals.Rotation{MaxBytes: 24 << 10, Generations: 20})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	for i := fixtureOld; i < fixtureReceipts; i++ {
		r := fixtureReceipt(f.dirs, i)
		f.receipts = append(f.receipts, r)
		if err := log.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(generation(f.path, 3)); err != nil {
		t.Fatalf("the fixture did not rotate into generations: %v", err)
	}
	return f
}

// key names a receipt of the fixture (old lines have no id).
func key(r approvals.Receipt) string { return r.Time.UTC().Format(time.RFC3339Nano) }

func keys(rs []approvals.Receipt) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = key(r)
	}
	return out
}

// readAll reads the log at path through f, failing the test on an error
// or a skipped line.
func readAll(t *testing.T, path string, f Filter, limit int) ([]approvals.Receipt, bool) {
	t.Helper()
	reader, err := Log{Path: path, Skip: func(s Skipped) { t.Errorf("skipped %s", s) }}.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	got, more, err := reader.Last(f, limit)
	if err != nil {
		t.Fatal(err)
	}
	return got, more
}
