// Package fakemodel is a scripted model server on 127.0.0.1 that the real
// agent CLIs talk to instead of their vendors' services, so that their
// pre-tool hooks can be tested offline (docs/codewhale/deps.md Appendix F).
//
// It speaks four wire formats, each the one an agent uses:
//
//   - Anthropic Messages with SSE (Claude Code): POST /v1/messages
//   - Gemini generateContent / streamGenerateContent (Gemini CLI):
//     POST /v1beta/models/MODEL:generateContent and :streamGenerateContent
//   - OpenAI Responses with SSE (Codex): POST /v1/responses
//   - OpenAI Chat Completions with SSE (Copilot CLI): POST /chat/completions
//     (with or without /v1)
//
// The reply is chosen without per-session state: a request that offers
// tools is answered with Script[n], where n is the number of tool results
// the request already carries (so the agent's n-th call has been made and
// its result reported), and with a final text once the script is done. A
// request that offers no tools (a title, a summary, a classifier the CLI
// runs on the side) gets a short text. Every request is recorded, with the
// tool results extracted, so a test can read what the agent told the model
// after each call: whether a hook's deny reached it, whether a file's
// content did.
package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// Step is one scripted model turn: a tool call, or (Tool empty) a text.
type Step struct {
	// Tool is the name of the tool to call, in the agent's own spelling.
	// "*SUFFIX" calls the first tool the request offers whose name ends in
	// SUFFIX: an MCP tool's name is the agent's own composition of server
	// and tool, which the test need not know in advance.
	Tool string
	// Args are the tool's arguments, marshalled to JSON.
	Args any
	// Raw is the input of a freeform tool (Responses API "custom" tools,
	// such as Codex's apply_patch on GPT-5 models), used instead of Args
	// when the request declares Tool as a custom tool.
	Raw string
	// Text is the text of a step without a tool.
	Text string
}

// FinalText is what the model says when the script is done.
const FinalText = "All done."

// Request is one recorded request.
type Request struct {
	Seq  int
	API  string // "anthropic", "gemini", "responses", "chat", or "other"
	Path string
	Body []byte
	// Tools are the names of the tools the request offers.
	Tools []string
	// Results are the tool results it carries, oldest first, as text.
	Results []string
	// Replied is what the server answered: a tool name, or "text".
	Replied string
}

// Server is a running fake model.
type Server struct {
	URL    string // http://127.0.0.1:PORT, no trailing slash
	srv    *http.Server
	ln     net.Listener
	done   chan struct{}
	mu     sync.Mutex
	script []Step
	reqs   []Request
}

// Start listens on 127.0.0.1 (only) and serves the script until Close.
func Start(script []Step) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), ln: ln, done: make(chan struct{}), script: script}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.handle)}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// Close stops the server and waits for its goroutine.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	return err
}

// SetScript replaces the script for the requests that follow.
func (s *Server) SetScript(script []Step) {
	s.mu.Lock()
	s.script = script
	s.mu.Unlock()
}

// Reset forgets the recorded requests, so that Results speaks of the
// next session only.
func (s *Server) Reset() {
	s.mu.Lock()
	s.reqs = nil
	s.mu.Unlock()
}

// Requests returns a copy of what was recorded so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Results returns the tool results of the recorded request that carries
// the most of them: what the agent told the model after each scripted call.
func (s *Server) Results() []string {
	var best []string
	for _, r := range s.Requests() {
		if len(r.Results) > len(best) {
			best = r.Results
		}
	}
	return best
}

// ToolsOffered returns the tool names of the first request that offered
// any.
func (s *Server) ToolsOffered() []string {
	for _, r := range s.Requests() {
		if len(r.Tools) > 0 {
			return r.Tools
		}
	}
	return nil
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	path := r.URL.Path
	rec := Request{Path: r.Method + " " + r.URL.RequestURI(), Body: body, API: "other"}
	var reply func(step *Step, turn int)
	var parsed map[string]any
	_ = json.Unmarshal(body, &parsed)
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/messages/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": 1})
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/messages"):
		rec.API = "anthropic"
		rec.Tools, rec.Results = anthropicTools(parsed), anthropicResults(parsed)
		stream, _ := parsed["stream"].(bool)
		reply = func(step *Step, turn int) { anthropicReply(w, step, turn, stream) }
	case r.Method == http.MethodPost && strings.Contains(path, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": 1})
	case r.Method == http.MethodPost && (strings.Contains(path, ":generateContent") || strings.Contains(path, ":streamGenerateContent")):
		rec.API = "gemini"
		rec.Tools, rec.Results = geminiTools(parsed), geminiResults(parsed)
		stream := strings.Contains(path, ":streamGenerateContent")
		reply = func(step *Step, turn int) { geminiReply(w, step, turn, stream, parsed) }
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/responses"):
		rec.API = "responses"
		rec.Tools, rec.Results = responsesTools(parsed), responsesResults(parsed)
		custom := customTools(parsed)
		reply = func(step *Step, turn int) { responsesReply(w, step, turn, custom) }
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/chat/completions"):
		rec.API = "chat"
		rec.Tools, rec.Results = chatTools(parsed), chatResults(parsed)
		stream, _ := parsed["stream"].(bool)
		custom := customTools(parsed)
		reply = func(step *Step, turn int) { chatReply(w, step, turn, stream, custom) }
	case r.Method == http.MethodGet && strings.HasSuffix(path, "/models"):
		writeJSON(w, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
	default:
		http.NotFound(w, r)
	}
	s.mu.Lock()
	rec.Seq = len(s.reqs)
	var step *Step
	turn := len(rec.Results)
	if reply != nil && len(rec.Tools) > 0 && turn < len(s.script) {
		st := s.script[turn]
		if suffix, ok := strings.CutPrefix(st.Tool, "*"); ok {
			for _, name := range rec.Tools {
				if strings.HasSuffix(name, suffix) {
					st.Tool = name
					break
				}
			}
		}
		step = &st
	}
	switch {
	case reply == nil:
	case step != nil && step.Tool != "":
		rec.Replied = step.Tool
	default:
		rec.Replied = "text"
	}
	s.reqs = append(s.reqs, rec)
	s.mu.Unlock()
	if reply != nil {
		if step == nil {
			text := FinalText
			if len(rec.Tools) == 0 {
				text = "ok"
			}
			step = &Step{Text: text}
		}
		reply(step, turn)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// sse writes one server-sent event; name may be empty.
func sse(w io.Writer, name string, v any) {
	b, _ := json.Marshal(v)
	if name != "" {
		fmt.Fprintf(w, "event: %s\n", name)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
}

func startSSE(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

func argsJSON(step *Step) string {
	if step.Args == nil {
		return "{}"
	}
	b, err := json.Marshal(step.Args)
	if err != nil {
		return "{}"
	}
	return string(b)
}

func asList(v any) []any { l, _ := v.([]any); return l }
func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
func str(v any) string { s, _ := v.(string); return s }

// resultText flattens a tool result's content (a string, or a list of
// blocks with "text") into text.
func resultText(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, x := range c {
			if m := asMap(x); m != nil {
				if t, ok := m["text"].(string); ok {
					b.WriteString(t)
					continue
				}
			}
			j, _ := json.Marshal(x)
			b.Write(j)
		}
		return b.String()
	case nil:
		return ""
	default:
		j, _ := json.Marshal(c)
		return string(j)
	}
}

// customTools returns the names of freeform tools a Responses or Chat
// request declares ({"type": "custom", "name": ...}).
func customTools(req map[string]any) map[string]bool {
	out := map[string]bool{}
	for _, t := range asList(req["tools"]) {
		m := asMap(t)
		if str(m["type"]) != "custom" {
			continue
		}
		name := str(m["name"])
		if name == "" {
			name = str(asMap(m["custom"])["name"])
		}
		out[name] = true
	}
	return out
}

// ---- Anthropic Messages ----

func anthropicTools(req map[string]any) []string {
	var out []string
	for _, t := range asList(req["tools"]) {
		if n := str(asMap(t)["name"]); n != "" {
			out = append(out, n)
		}
	}
	return out
}

func anthropicResults(req map[string]any) []string {
	var out []string
	for _, m := range asList(req["messages"]) {
		for _, c := range asList(asMap(m)["content"]) {
			cm := asMap(c)
			if str(cm["type"]) == "tool_result" {
				out = append(out, resultText(cm["content"]))
			}
		}
	}
	return out
}

func anthropicReply(w http.ResponseWriter, step *Step, turn int, stream bool) {
	id := fmt.Sprintf("toolu_%02d", turn)
	usage := map[string]any{"input_tokens": 1, "output_tokens": 1}
	var block map[string]any
	stop := "end_turn"
	if step.Tool != "" {
		stop = "tool_use"
		var input any = map[string]any{}
		_ = json.Unmarshal([]byte(argsJSON(step)), &input)
		block = map[string]any{"type": "tool_use", "id": id, "name": step.Tool, "input": input}
	} else {
		block = map[string]any{"type": "text", "text": step.Text}
	}
	msg := map[string]any{"id": fmt.Sprintf("msg_%02d", turn), "type": "message", "role": "assistant",
		"model": "fake", "stop_sequence": nil, "usage": usage}
	if !stream {
		msg["content"] = []any{block}
		msg["stop_reason"] = stop
		writeJSON(w, msg)
		return
	}
	startSSE(w)
	msg["content"] = []any{}
	msg["stop_reason"] = nil
	sse(w, "message_start", map[string]any{"type": "message_start", "message": msg})
	if step.Tool != "" {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": id, "name": step.Tool, "input": map[string]any{}}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": argsJSON(step)}})
	} else {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": step.Text}})
	}
	sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 1}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

// ---- Gemini ----

func geminiTools(req map[string]any) []string {
	var out []string
	for _, t := range asList(req["tools"]) {
		for _, f := range asList(asMap(t)["functionDeclarations"]) {
			if n := str(asMap(f)["name"]); n != "" {
				out = append(out, n)
			}
		}
	}
	return out
}

func geminiResults(req map[string]any) []string {
	var out []string
	for _, c := range asList(req["contents"]) {
		for _, p := range asList(asMap(c)["parts"]) {
			if fr := asMap(asMap(p)["functionResponse"]); fr != nil {
				out = append(out, resultText(fr["response"]))
			}
		}
	}
	return out
}

func geminiReply(w http.ResponseWriter, step *Step, turn int, stream bool, req map[string]any) {
	var part map[string]any
	if step.Tool != "" {
		var args any = map[string]any{}
		_ = json.Unmarshal([]byte(argsJSON(step)), &args)
		part = map[string]any{"functionCall": map[string]any{"name": step.Tool, "args": args, "id": fmt.Sprintf("call_%02d", turn)}}
	} else {
		text := step.Text
		// A side request that wants JSON (Gemini CLI's next-speaker check
		// and similar) gets an object that ends the turn.
		if cfg := asMap(req["generationConfig"]); str(cfg["responseMimeType"]) == "application/json" {
			text = `{"next_speaker":"user","reasoning":"done","complexity_reasoning":"simple","complexity_score":1,"model_choice":"flash"}`
		}
		part = map[string]any{"text": text}
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
		"modelVersion":  "fake",
	}
	if !stream {
		writeJSON(w, resp)
		return
	}
	startSSE(w)
	sse(w, "", resp)
}

// ---- OpenAI Responses ----

func responsesTools(req map[string]any) []string {
	var out []string
	for _, t := range asList(req["tools"]) {
		m := asMap(t)
		n := str(m["name"])
		if n == "" {
			n = str(m["type"]) // built-in tools such as local_shell, web_search
		}
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}

func responsesResults(req map[string]any) []string {
	var out []string
	for _, it := range asList(req["input"]) {
		m := asMap(it)
		switch str(m["type"]) {
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output", "tool_search_output", "mcp_tool_call_output":
			out = append(out, resultText(m["output"]))
		}
	}
	return out
}

func responsesReply(w http.ResponseWriter, step *Step, turn int, custom map[string]bool) {
	var item map[string]any
	callID := fmt.Sprintf("call_%02d", turn)
	switch {
	case step.Tool != "" && custom[step.Tool]:
		input := step.Raw
		if input == "" {
			input = argsJSON(step)
		}
		item = map[string]any{"type": "custom_tool_call", "id": "ctc_" + callID, "call_id": callID,
			"name": step.Tool, "input": input, "status": "completed"}
	case step.Tool != "":
		item = map[string]any{"type": "function_call", "id": "fc_" + callID, "call_id": callID,
			"name": step.Tool, "arguments": argsJSON(step), "status": "completed"}
	default:
		item = map[string]any{"type": "message", "id": "msg_" + callID, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": step.Text, "annotations": []any{}}}}
	}
	respID := fmt.Sprintf("resp_%02d", turn)
	usage := map[string]any{"input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
		"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}
	startSSE(w)
	sse(w, "response.created", map[string]any{"type": "response.created",
		"response": map[string]any{"id": respID, "object": "response", "status": "in_progress", "output": []any{}}})
	sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	if step.Tool == "" {
		sse(w, "response.output_text.delta", map[string]any{"type": "response.output_text.delta", "output_index": 0,
			"content_index": 0, "item_id": item["id"], "delta": step.Text})
	}
	sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	sse(w, "response.completed", map[string]any{"type": "response.completed",
		"response": map[string]any{"id": respID, "object": "response", "status": "completed", "output": []any{item}, "usage": usage}})
}

// ---- OpenAI Chat Completions ----

func chatTools(req map[string]any) []string {
	var out []string
	for _, t := range asList(req["tools"]) {
		m := asMap(t)
		n := str(asMap(m["function"])["name"])
		if n == "" {
			n = str(asMap(m["custom"])["name"])
		}
		if n == "" {
			n = str(m["name"])
		}
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}

func chatResults(req map[string]any) []string {
	var out []string
	for _, m := range asList(req["messages"]) {
		mm := asMap(m)
		if str(mm["role"]) == "tool" {
			out = append(out, resultText(mm["content"]))
		}
	}
	return out
}

func chatReply(w http.ResponseWriter, step *Step, turn int, stream bool, custom map[string]bool) {
	id := fmt.Sprintf("chatcmpl-%02d", turn)
	usage := map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
	var call map[string]any
	finish := "stop"
	if step.Tool != "" {
		finish = "tool_calls"
		callID := fmt.Sprintf("call_%02d", turn)
		if custom[step.Tool] {
			input := step.Raw
			if input == "" {
				input = argsJSON(step)
			}
			call = map[string]any{"index": 0, "id": callID, "type": "custom",
				"custom": map[string]any{"name": step.Tool, "input": input}}
		} else {
			call = map[string]any{"index": 0, "id": callID, "type": "function",
				"function": map[string]any{"name": step.Tool, "arguments": argsJSON(step)}}
		}
	}
	if !stream {
		msg := map[string]any{"role": "assistant", "content": nil}
		if call != nil {
			delete(call, "index")
			msg["tool_calls"] = []any{call}
		} else {
			msg["content"] = step.Text
		}
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": 0, "model": "fake",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	startSSE(w)
	delta := map[string]any{"role": "assistant"}
	if call != nil {
		delta["tool_calls"] = []any{call}
	} else {
		delta["content"] = step.Text
	}
	chunk := func(d map[string]any, fin any, u any) map[string]any {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": "fake",
			"choices": []any{map[string]any{"index": 0, "delta": d, "finish_reason": fin}}}
		if u != nil {
			c["usage"] = u
		}
		return c
	}
	sse(w, "", chunk(delta, nil, nil))
	sse(w, "", chunk(map[string]any{}, finish, usage))
	_, _ = io.Copy(w, bytes.NewReader([]byte("data: [DONE]\n\n")))
}
