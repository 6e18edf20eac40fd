package gate

import (
	"slices"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

var releases = []string{"0.9.10", "0.10.0", "0.10.1"}

// newer reports whether version has change c.
func has(t *testing.T, version string, c release.Change) bool {
	t.Helper()
	r, ok := release.Of(version)
	if !ok {
		t.Fatalf("release %s is not implemented", version)
	}
	return r.Has(c)
}

func changedBy(d Decision, c release.Change) bool {
	return slices.Contains(d.Changes, c.String())
}

// docs/codewhale/releases/0.10.0.md B.0: from 0.10.0 yolo is Agent with the
// Full Access posture, so allow_shell = false keeps the shell off (0.9.10's
// Yolo mode turned it on); a locked posture refuses yolo in both.
func TestYoloModePerRelease(t *testing.T) {
	for _, v := range releases {
		t.Run(v, func(t *testing.T) {
			newer := has(t, v, release.ThreeModes)
			off := load(t, files{config: "allow_shell = false\n", release: v}).noFatal(t)
			req := off.call("bash", map[string]any{"command": "ls"})
			req.Mode = tool.Yolo
			d := off.decide(t, req, Deps{})
			checkTrace(t, d)
			shellOff := d.Layer == LayerAdmission && strings.Contains(d.Reason, "shell is disabled")
			wantMode := map[bool]string{false: "yolo", true: "agent"}[newer]
			if shellOff != newer || d.Mode != wantMode || d.Posture != "full-access" || changedBy(d, release.ThreeModes) != newer {
				t.Errorf("yolo + allow_shell=false: %s layer %d mode %s posture %s changes %v (%q)", d.Decision, d.Layer, d.Mode, d.Posture, d.Changes, d.Reason)
			}

			unset := load(t, files{release: v}).noFatal(t)
			req = unset.call("write_file", map[string]any{"path": "a.txt", "content": "x"})
			req.Mode = tool.Yolo
			if d := unset.decide(t, req, Deps{}); d.Decision != Allow || d.Mode != wantMode || d.Sandbox.Type != "danger-full-access" {
				t.Errorf("yolo write: %s mode %s sandbox %+v", d.Decision, d.Mode, d.Sandbox)
			}

			locked := load(t, files{config: "approval_policy = \"on-request\"\n", release: v}).noFatal(t)
			req = locked.call("write_file", map[string]any{"path": "/etc/x", "content": "x"})
			req.Mode = tool.Yolo
			if d := locked.decide(t, req, Deps{}); d.Decision != Ask || d.Mode != "agent" || d.Posture != "ask" {
				t.Errorf("yolo under a lock: %s mode %s posture %s", d.Decision, d.Mode, d.Posture)
			}
		})
	}
}

// Over LSP a request asking for yolo is refused at every release: under
// 0.10.x it would mean the Full Access posture, which loosens.
func TestYoloRequestRefusedPerRelease(t *testing.T) {
	for _, v := range releases {
		fx := load(t, files{release: v}).noFatal(t)
		req := fx.call("read_file", map[string]any{"path": "a"})
		req.Mode = tool.Yolo
		d := fx.decide(t, req, Deps{RequestMayOnlyTighten: true})
		if d.Decision != Deny || d.Layer != LayerPosture || !strings.Contains(d.Reason, "mode yolo") {
			t.Errorf("%s: %s layer %d %q", v, d.Decision, d.Layer, d.Reason)
		}
	}
}
