package main

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

type pipes struct {
	io.Reader
	io.Writer
}

func (p pipes) Close() error {
	p.Reader.(*io.PipeReader).Close()
	return p.Writer.(*io.PipeWriter).Close()
}

// TestServe: `codewhale-ls serve --stdio` speaks LSP on stdin/stdout and
// exits 0 after shutdown and exit; nothing but the protocol is on stdout.
func TestServe(t *testing.T) {
	for _, args := range [][]string{{"serve", "--stdio"}, {}} {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		var stderr bytes.Buffer
		code := make(chan int, 1)
		go func() { code <- run(args, inR, outW, &stderr) }()
		conn := jsonrpc2.NewConn(jsonrpc2.NewStream(pipes{outR, inW}))
		conn.Go(context.Background(), jsonrpc2.MethodNotFoundHandler)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var res struct {
			ServerInfo struct {
				Name string `json:"name"`
			} `json:"serverInfo"`
		}
		if _, err := conn.Call(ctx, protocol.MethodInitialize, map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}, &res); err != nil || res.ServerInfo.Name != "codewhale-ls" {
			t.Errorf("%v: initialize = %+v, %v", args, res, err)
		}
		if _, err := conn.Call(ctx, protocol.MethodShutdown, nil, nil); err != nil {
			t.Errorf("%v: shutdown: %v", args, err)
		}
		if err := conn.Notify(ctx, protocol.MethodExit, nil); err != nil {
			t.Fatal(err)
		}
		select {
		case c := <-code:
			if c != 0 {
				t.Errorf("%v: exit %d, stderr %s", args, c, stderr.String())
			}
		case <-ctx.Done():
			t.Fatalf("%v: serve did not exit", args)
		}
		cancel()
		conn.Close()
	}
	if code := run([]string{"serve", "--tcp"}, nil, io.Discard, io.Discard); code != 1 {
		t.Errorf("serve --tcp: exit %d, want 1", code)
	}
}
