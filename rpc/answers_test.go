package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDecodeAnswerIsStrict(t *testing.T) {
	for raw, want := range map[string]string{
		`{"choice":"once"}`:                 "once",
		` { "choice" : "deny" } `:           "deny",
		`{"choice":""}`:                     "",
		`{"Choice":"once"}`:                 "!",
		`{"CHOICE":"once"}`:                 "!",
		`{"choice":"once","extra":1}`:       "!",
		`{"choice":"deny","choice":"once"}`: "!",
		`{"choice":1}`:                      "!",
		`{"choice":{"id":"once"}}`:          "!",
		`{"choice":"once"}{}`:               "!",
		`{}`:                                "!",
		`["once"]`:                          "!",
		`"once"`:                            "!",
	} {
		got, ok := decodeAnswer([]byte(raw))
		if !ok {
			got = "!"
		}
		if string(got) != want {
			t.Errorf("decodeAnswer(%s) = %q, want %q", raw, got, want)
		}
	}
}

// {"Choice": "once"} is not an answer: Go's json would read it as one.
func TestMiscasedAnswerIsDenied(t *testing.T) {
	w := newWorld(t)
	s := approvalSession(t, w, nil, func(prompted) any { return map[string]string{"Choice": "once"} })
	d := s.authorize(w.call("bash", bash("cargo test")))
	expect(t, d, "deny", 8, "dismissed/prompt")
	s.shutdown()
}

// An ambiguous answer is denied at once: one that carries both result
// and error (jsonrpc2 dropped it and the prompt waited for its deadline,
// also when its id was written 1.0 or "jsonrpc" was missing), and one
// that names a member twice (jsonrpc2 kept the last "result": allow).
func TestAmbiguousAnswerIsDeniedAtOnce(t *testing.T) {
	for _, c := range []struct{ name, frame, reason string }{
		{"result and error", `{"jsonrpc":"2.0","id":%d,"result":{"choice":"once"},"error":{"code":-32000,"message":"boom"}}`, "both result and error"},
		{"result and error, id 1.0", `{"jsonrpc":"2.0","id":%d.0,"result":{"choice":"once"},"error":{"code":-32000,"message":"boom"}}`, "both result and error"},
		{"result and error, no jsonrpc", `{"id":%d,"error":{"code":-32000,"message":"boom"},"result":{"choice":"once"}}`, "both result and error"},
		{"two results", `{"jsonrpc":"2.0","id":%d,"result":{"choice":"deny"},"result":{"choice":"once"}}`, `member "result" twice`},
		{"two results, one capitalised", `{"jsonrpc":"2.0","id":%d,"result":{"choice":"once"},"Result":{"choice":"deny"}}`, `member "Result" twice`},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			s := approvalSession(t, w, map[string]any{"approvalTimeoutSeconds": 3600}, nil)
			release := make(chan struct{})
			t.Cleanup(func() { close(release) })
			s.mu.Lock()
			s.approve = func(ctx context.Context, method string, params json.RawMessage) (any, error) {
				s.mu.Lock()
				id, _ := s.promptID.Number()
				s.mu.Unlock()
				frame := fmt.Sprintf(c.frame, id)
				if _, err := fmt.Fprintf(s.toSrv, "Content-Length: %d\r\n\r\n%s", len(frame), frame); err != nil {
					return nil, err
				}
				select { // never answer properly
				case <-release:
				case <-ctx.Done():
				}
				return nil, nil
			}
			s.mu.Unlock()
			d := s.authorize(w.call("bash", bash("cargo test")))
			expect(t, d, "deny", 8, "dismissed/prompt")
			if !strings.Contains(d.Reason, c.reason) {
				t.Errorf("reason %q, want it to say %q", d.Reason, c.reason)
			}
		})
	}
}

// A dotfiles setup: permissions.toml links elsewhere. The card the editor
// gets offers no "always" and says why.
func TestNoAlwaysOverTheWireForASymlinkedFile(t *testing.T) {
	w := newWorld(t)
	dotfile := filepath.Join(w.tmp, "dotfiles", "permissions.toml")
	w.write(t, dotfile, "")
	if err := os.Symlink(dotfile, w.permissionsPath()); err != nil {
		t.Fatal(err)
	}
	s := approvalSession(t, w, nil, choose("once"))
	expect(t, s.authorize(w.call("bash", bash("cargo test"))), "allow", 8, "once/prompt")
	p := s.lastPrompt()
	for _, c := range p.Choices {
		if c.ID == "always" {
			t.Errorf("always offered: %+v", p.Choices)
		}
	}
	if !strings.Contains(p.Detail, "is not offered: permissions.toml is a symlink") {
		t.Errorf("detail %q", p.Detail)
	}
	s.shutdown()
}
