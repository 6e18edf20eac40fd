package gate

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// docs/codewhale/contract.md §3: a malformed AuthorizeRequest is an error naming the field.
func TestParseRequestErrors(t *testing.T) {
	defaults := Request{Workspace: "/ws"}
	long := strings.Repeat("n", MaxNameBytes+1)
	rows := []struct {
		json  string
		field string // "" = a whole-request error
		msg   string // substring of the message
	}{
		{`{"tool":"bash","input":{},"bogus":1}`, "bogus", "unknown field"},
		{`{"tool":"bash","input":{},"Tool":"x"}`, "Tool", "unknown field"},
		{`{"input":{}}`, "tool", "required"},
		{`{"tool":null,"input":{}}`, "tool", "required"},
		{`{"tool":"","input":{}}`, "tool", "must not be empty"},
		{`{"tool":7,"input":{}}`, "tool", "must be a string"},
		{`{"tool":"bash"}`, "input", "required"},
		{`{"tool":"bash","input":null}`, "input", "must be a JSON object"},
		{`{"tool":"bash","input":[1]}`, "input", "must be a JSON object"},
		{`{"tool":"bash","input":"ls"}`, "input", "must be a JSON object"},
		{`{"tool":"bash","input":3}`, "input", "must be a JSON object"},
		{`{"tool":"bash","input":{},"workspace":1}`, "workspace", "must be a string"},
		{`{"tool":"bash","input":{},"workspace":"rel/dir"}`, "workspace", "must be an absolute path"},
		{`{"tool":"bash","input":{},"mode":2}`, "mode", "must be a string"},
		{`{"tool":"bash","input":{},"mode":"work"}`, "mode", "must be one of plan, agent, operate, yolo"},
		{`{"tool":"bash","input":{},"mode":"Plan"}`, "mode", "must be one of"},
		{`{"tool":"bash","input":{},"posture":false}`, "posture", "must be a string"},
		{`{"tool":"bash","input":{},"posture":"bypass"}`, "posture", "must be one of ask, auto-review, full-access, never"},
		{`{"tool":"bash","input":{},"origin":[]}`, "origin", "must be a string"},
		{`{"tool":"bash","input":{},"origin":"remote"}`, "origin", "must be one of interactive, background, headless"},
		{`{"tool":"bash","input":{},"callId":17}`, "callId", "must be a string"},
		{`{"tool":"bash","input":{},"allowedTools":"bash"}`, "allowedTools", "must be an array of strings"},
		{`{"tool":"bash","input":{},"allowedTools":[1]}`, "allowedTools", "must be an array of strings"},
		{`{"tool":"bash","input":{},"disallowedTools":{"a":1}}`, "disallowedTools", "must be an array of strings"},
		{`{"tool":"bash","input":{}} {"tool":"x"}`, "", "trailing data"},
		{`{"tool":"bash","input":{}} x`, "", "trailing data"},
		{`not json`, "", "not a JSON object"},
		{``, "", "not a JSON object"},
		{`[1,2]`, "", "not a JSON object"},
		{`"bash"`, "", "not a JSON object"},
		{`null`, "", "not a JSON object"},
		{`{"tool":"bash",`, "", "not a JSON object"},
		// Names are quoted in reasons, prompts and log lines: a huge one is refused.
		{`{"tool":"` + long + `","input":{}}`, "tool", "at most 4096"},
		{`{"tool":"bash","input":{},"callId":"` + long + `"}`, "callId", "at most 4096"},
		{`{"tool":"bash","input":{},"workspace":"/` + long + `"}`, "workspace", "at most 4096"},
		{`{"tool":"bash","input":{},"mode":"` + long + `"}`, "mode", "at most 4096"},
		{`{"tool":"bash","input":{},"disallowedTools":["x","` + long + `"]}`, "disallowedTools", "at most 4096"},
	}
	for _, r := range rows {
		_, err := ParseRequest([]byte(r.json), defaults)
		var re *RequestError
		if !errors.As(err, &re) {
			t.Errorf("%s: error %v, want a RequestError", r.json, err)
			continue
		}
		if re.Field != r.field || !strings.Contains(re.Message, r.msg) {
			t.Errorf("%s: field %q message %q, want %q / %q", r.json, re.Field, re.Message, r.field, r.msg)
		}
		if r.field != "" && !strings.Contains(err.Error(), `"`+r.field+`"`) {
			t.Errorf("%s: error text %q does not name the field", r.json, err)
		}
	}
}

func TestParseRequestValid(t *testing.T) {
	full := Request{Workspace: "/default", Mode: session.Operate, Origin: session.Background}
	req, err := ParseRequest([]byte(`{"tool":"bash","input":{"action":"run","command":"git push origin main"},
		"workspace":"/abs/repo/./x/..","mode":"plan","posture":"auto-review","origin":"headless","callId":"call_17",
		"allowedTools":["bash","read"],"disallowedTools":["web_search"]}`), full)
	if err != nil {
		t.Fatal(err)
	}
	if req.Tool != "bash" || req.Workspace != "/abs/repo" || req.Mode != session.Plan || req.Posture == nil || *req.Posture != session.AutoReview ||
		req.Origin != session.Headless || req.CallID == nil || *req.CallID != "call_17" || !req.HasAllowList() ||
		!reflect.DeepEqual(req.AllowedTools, []string{"bash", "read"}) || !reflect.DeepEqual(req.DisallowedTools, []string{"web_search"}) ||
		req.Input["command"] != "git push origin main" {
		t.Errorf("parsed %+v", req)
	}

	// Absent fields keep the defaults; no list stays no list; [] stays an empty list.
	req, err = ParseRequest([]byte(`{"tool":"read","input":{},"allowedTools":[]}`), full)
	if err != nil {
		t.Fatal(err)
	}
	if req.Workspace != "/default" || req.Mode != session.Operate || req.Origin != session.Background || req.Posture != nil || req.CallID != nil {
		t.Errorf("defaults lost: %+v", req)
	}
	if !req.HasAllowList() || req.AllowedTools == nil || len(req.AllowedTools) != 0 || req.DisallowedTools != nil {
		t.Errorf("lists: %+v", req)
	}
	req, _ = ParseRequest([]byte(`{"tool":"read","input":{},"allowedTools":null}`), full)
	if req.HasAllowList() {
		t.Error("null allowedTools made a list")
	}
}
