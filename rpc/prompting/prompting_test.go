package prompting

import (
	"strings"
	"testing"
)

func TestChoose(t *testing.T) {
	for _, c := range []struct {
		name   string
		client Client
		want   Kind
	}{
		{"VS Code: codewhale/approve", Client{Approvals: "codewhale", MessageActions: true}, Request},
		{"Neovim: the notification", Client{Approvals: "codewhale", Async: true, MessageActions: true}, Notification},
		{"the option alone is a declaration", Client{Approvals: "codewhale"}, Request},
		{"Helix master, Sublime, Kakoune: action items", Client{MessageActions: true}, MessageRequest},
		{"approvalsAsync without approvals is no declaration", Client{Async: true}, None},
		{"Helix 25.07: nothing declared", Client{}, None},
		{"showMessageRequest named without the capability", Client{Approvals: "showMessageRequest"}, None},
	} {
		got := Choose(c.client)
		if got.Kind != c.want {
			t.Errorf("%s: %s, want %s", c.name, got.Kind, c.want)
		}
		if got.Served() != (c.want != None) {
			t.Errorf("%s: served = %v", c.name, got.Served())
		}
		if (got.Why != "") != (c.want == None) || (c.want == None && !strings.Contains(got.Why, "window.showMessage.messageActionItem")) {
			t.Errorf("%s: why %q", c.name, got.Why)
		}
	}
}
