package fakemodel

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func start(t *testing.T, script []Step) *Server {
	t.Helper()
	s, err := Start(script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		http.DefaultClient.CloseIdleConnections()
		_ = s.Close()
	})
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") {
		t.Fatalf("the server must listen on 127.0.0.1 only, got %s", s.URL)
	}
	return s
}

func post(t *testing.T, url string, body any) string {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s %s", url, resp.Status, out)
	}
	return string(out)
}

// sseData returns the data lines of an SSE stream, decoded.
func sseData(t *testing.T, stream string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(stream))
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || line == "[DONE]" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("data line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

var script = []Step{{Tool: "Bash", Args: map[string]any{"command": "ls"}}}

// Each API answers the first turn with the scripted call and, once the
// request carries its result, the final text; the result is recorded.
func TestAnthropic(t *testing.T) {
	s := start(t, script)
	tools := []any{map[string]any{"name": "Bash"}}
	first := post(t, s.URL+"/v1/messages?beta=true", map[string]any{"stream": true, "tools": tools,
		"messages": []any{map[string]any{"role": "user", "content": "go"}}})
	if !strings.Contains(first, `"partial_json":"{\"command\":\"ls\"}"`) || !strings.Contains(first, `"stop_reason":"tool_use"`) {
		t.Errorf("first turn:\n%s", first)
	}
	second := post(t, s.URL+"/v1/messages", map[string]any{"stream": false, "tools": tools,
		"messages": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_00", "content": []any{map[string]any{"type": "text", "text": "denied by hook"}}}}}}})
	if !strings.Contains(second, FinalText) {
		t.Errorf("second turn: %s", second)
	}
	if got := s.Results(); len(got) != 1 || got[0] != "denied by hook" {
		t.Errorf("results %q", got)
	}
	// A side request without tools is not a turn of the script.
	if side := post(t, s.URL+"/v1/messages", map[string]any{"messages": []any{}}); !strings.Contains(side, `"text":"ok"`) {
		t.Errorf("side request: %s", side)
	}
	if reqs := s.Requests(); len(reqs) != 3 || reqs[0].Replied != "Bash" || reqs[1].Replied != "text" || reqs[0].Tools[0] != "Bash" {
		t.Errorf("recorded %+v", reqs)
	}
	s.Reset()
	if got := s.Results(); len(got) != 0 {
		t.Errorf("after Reset: results %q", got)
	}
}

func TestGemini(t *testing.T) {
	s := start(t, []Step{{Tool: "read_file", Args: map[string]any{"file_path": "a"}}})
	tools := []any{map[string]any{"functionDeclarations": []any{map[string]any{"name": "read_file"}}}}
	first := sseData(t, post(t, s.URL+"/v1beta/models/m:streamGenerateContent?alt=sse", map[string]any{"tools": tools,
		"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "go"}}}}}))
	call, _ := json.Marshal(first)
	if !strings.Contains(string(call), `"functionCall":{"args":{"file_path":"a"}`) {
		t.Errorf("first turn: %s", call)
	}
	post(t, s.URL+"/v1beta/models/m:generateContent", map[string]any{"tools": tools, "contents": []any{
		map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"name": "read_file",
			"response": map[string]any{"error": "Tool execution blocked: no"}}}}}}})
	if got := s.Results(); len(got) != 1 || !strings.Contains(got[0], "Tool execution blocked: no") {
		t.Errorf("results %q", got)
	}
	// A side request that asks for JSON gets JSON.
	side := post(t, s.URL+"/v1beta/models/m:generateContent", map[string]any{"generationConfig": map[string]any{"responseMimeType": "application/json"}})
	if !strings.Contains(side, `next_speaker`) {
		t.Errorf("JSON side request: %s", side)
	}
}

func TestResponses(t *testing.T) {
	s := start(t, []Step{{Tool: "apply_patch", Raw: "*** Begin Patch\n*** End Patch\n"}, {Tool: "exec_command", Args: map[string]any{"cmd": "ls"}}})
	tools := []any{map[string]any{"type": "custom", "name": "apply_patch"}, map[string]any{"type": "function", "name": "exec_command"}}
	first := sseData(t, post(t, s.URL+"/v1/responses", map[string]any{"tools": tools, "input": []any{}}))
	if item := first[len(first)-2]["item"].(map[string]any); item["type"] != "custom_tool_call" || item["input"] != "*** Begin Patch\n*** End Patch\n" {
		t.Errorf("a freeform tool is called with its raw input: %v", item)
	}
	second := sseData(t, post(t, s.URL+"/v1/responses", map[string]any{"tools": tools, "input": []any{
		map[string]any{"type": "custom_tool_call_output", "call_id": "call_00", "output": "patched"}}}))
	if item := second[len(second)-2]["item"].(map[string]any); item["type"] != "function_call" || item["arguments"] != `{"cmd":"ls"}` {
		t.Errorf("second turn: %v", item)
	}
	if last := second[len(second)-1]; last["type"] != "response.completed" {
		t.Errorf("the stream ends with response.completed, got %v", last)
	}
	if got := s.Results(); len(got) != 1 || got[0] != "patched" {
		t.Errorf("results %q", got)
	}
}

func TestChat(t *testing.T) {
	s := start(t, script)
	tools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "Bash"}}}
	first := post(t, s.URL+"/v1/chat/completions", map[string]any{"stream": true, "tools": tools, "messages": []any{}})
	if !strings.Contains(first, `"finish_reason":"tool_calls"`) || !strings.HasSuffix(first, "data: [DONE]\n\n") {
		t.Errorf("first turn:\n%s", first)
	}
	post(t, s.URL+"/chat/completions", map[string]any{"tools": tools, "messages": []any{
		map[string]any{"role": "tool", "tool_call_id": "call_00", "content": "Denied by preToolUse hook: no"}}})
	if got := s.Results(); len(got) != 1 || got[0] != "Denied by preToolUse hook: no" {
		t.Errorf("results %q", got)
	}
	if got := s.ToolsOffered(); len(got) != 1 || got[0] != "Bash" {
		t.Errorf("tools offered %q", got)
	}
}

// "*SUFFIX" calls the offered tool whose name ends so.
func TestSuffix(t *testing.T) {
	s := start(t, []Step{{Tool: "*touch_marker"}})
	tools := []any{map[string]any{"name": "Bash"}, map[string]any{"name": "mcp__fake__touch_marker"}}
	first := post(t, s.URL+"/v1/messages", map[string]any{"tools": tools, "messages": []any{}})
	if !strings.Contains(first, `"name":"mcp__fake__touch_marker"`) {
		t.Errorf("first turn: %s", first)
	}
}
