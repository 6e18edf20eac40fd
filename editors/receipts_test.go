package editors_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/approvals"
)

// readReceipts reads the decision log: its bytes and its receipts.
func readReceipts(t *testing.T, path string) ([]byte, []approvals.Receipt) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the decision log: %v", err)
	}
	var out []approvals.Receipt
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var r approvals.Receipt
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: a line is not a receipt (%v): %s", path, err, sc.Bytes())
		}
		out = append(out, r)
	}
	return raw, out
}
