package hooks

import (
	"context"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func FuzzReduceStdoutAgrees(f *testing.F) {
	for _, seed := range []string{
		`{"decision":"deny","reason":"a\u0000b","updatedInput":{"x":[1,2.5e3,-0,true,null,"\ud83d\ude00"]},"additionalContext":"c"}`,
		" \u00a0{\"decision\":\"ask\"}\u2028\n",
		`{"decision":"deny","decision":1}`,
		`{"decision":"denied"}`,
		`{"d\u0065cision":"d\u0065ny"}`,
		`{"reason":"\ud800x","additionalContext":"\udc00\ud800\udc00"}`,
		`{"reason":"` + strings.Repeat(" ", 10) + strings.Repeat("é", maxTextChars) + `   "}`,
		`{"reason":"` + strings.Repeat("é", maxTextChars) + `  x"}`,
		`{"updatedInput":{"command":"ls"},"updatedInput":[]}`,
		`{"updatedInput":{ "a" : { "b" : [ 1 , 2 ] } }}`,
		`{"x":1,}`, `{"x":01}`, `{"x":1.}`, `{"x":-}`, `{"x":1e}`, `[1,2]`, `null`, `"s"`, ``, `{}x`,
		"{\"reason\":\"\xff\xfe\"}",
		`{"reason":` + strings.Repeat("[", 50) + `}`,
		`{"a":` + strings.Repeat("[", maxJSONDepth-1) + strings.Repeat("]", maxJSONDepth-1) + `,"decision":"deny"}`,
		`{"a":` + strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth) + `,"decision":"deny"}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, stdout string) {
		reduced := reduceStdout(strings.NewReader(stdout))
		if got, want := parseReply(reduced), parseReply(stdout); !reflect.DeepEqual(got, want) {
			t.Fatalf("reduced to %q: %+v, whole output: %+v", reduced, got, want)
		}
	})
}

// hugeOutput is a hook's stdout of n padding bytes inside a JSON string,
// with tail after it, generated as it is read.
type hugeOutput struct {
	head, tail string
	n          int
	want       decision // the whole output's decision
}

func (h *hugeOutput) Read(p []byte) (int, error) {
	switch {
	case h.head != "":
		n := copy(p, h.head)
		h.head = h.head[n:]
		return n, nil
	case h.n > 0:
		n := min(len(p), h.n)
		for i := range p[:n] {
			p[i] = 'a'
		}
		h.n -= n
		return n, nil
	case h.tail != "":
		n := copy(p, h.tail)
		h.tail = h.tail[n:]
		return n, nil
	}
	return 0, io.EOF
}

// hugeBytes is four times the allocation bound of the test below.
const hugeBytes = 16<<20 + 1

// Codewhale reads all of a hook's stdout: a deny after 64 MiB of padding
// still denies. Before, stdout was cut at 1 MiB and the call allowed.
func TestHugeStdoutStillDenies(t *testing.T) {
	call := bashCall
	call.Workspace = t.TempDir()
	h := shellHook(`printf '{"pad":"'; head -c 67108865 /dev/zero | tr '\0' a; printf '","decision":"deny","reason":"big"}'`)
	h.TimeoutSecs = 120
	got := Before(context.Background(), ShellRunner{}, nil, Config{Enabled: true, Hooks: []Hook{h}}, call)
	if !got.Denied || got.Reason != "ToolCallBefore hook denied tool 'bash': big" {
		t.Fatalf("denied %v: %s", got.Denied, got.Reason)
	}
}

// Whatever is huge in the output, the verdict is the whole output's and
// the memory reduceStdout allocates does not grow with it.
func TestReduceStdoutMemoryIsBounded(t *testing.T) {
	cases := map[string]*hugeOutput{
		"padding before":    {head: `{"pad":"`, n: hugeBytes, tail: `","decision":"deny"}`, want: decideDeny},
		"padding after":     {head: `{"decision":"deny","pad":"`, n: hugeBytes, tail: `"}`, want: decideDeny},
		"long reason":       {head: `{"decision":"deny","reason":"`, n: hugeBytes, tail: `"}`, want: decideDeny},
		"long key":          {head: `{"`, n: hugeBytes, tail: `":1,"decision":"ask"}`, want: decideAsk},
		"long input":        {head: `{"decision":"deny","updatedInput":{"command":"`, n: hugeBytes, tail: `"}}`, want: decideDeny},
		"long decision":     {head: `{"decision":"deny`, n: hugeBytes, tail: `"}`, want: noDecision},
		"broken at the end": {head: `{"decision":"deny","pad":"`, n: hugeBytes, tail: `"`, want: noDecision},
		// Past what is kept a string is skipped in bulk, yet still read
		// as JSON: a control character breaks it, an escape does not.
		"control character late": {head: `{"decision":"deny","reason":"`, n: hugeBytes, tail: "\x01\"}", want: noDecision},
		"escape late":            {head: `{"decision":"deny","reason":"`, n: hugeBytes, tail: `\u00e9\"x"}`, want: decideDeny},
		"bad escape late":        {head: `{"decision":"deny","reason":"`, n: hugeBytes, tail: `\q"}`, want: noDecision},
	}
	for name, out := range cases {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			reduced := reduceStdout(out)
			runtime.ReadMemStats(&after)
			if r := parseReply(reduced); r.decision != out.want {
				t.Fatalf("reduced to %.200q: decision %v", reduced, r.decision)
			}
			if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 4<<20 {
				t.Errorf("allocated %d bytes for %d bytes of output", allocated, hugeBytes)
			}
		})
	}
}

// serde_json, which Codewhale parses hook output with, refuses a value
// nested 128 deep; such output is no verdict there, so even a deny passes
// the call through. Both readers reproduce that boundary.
func TestNestingLimitIsSerdeJSONs(t *testing.T) {
	nested := func(levels int) string { // levels in all, the outer object included
		return `{"decision":"deny","x":` + strings.Repeat("[", levels-1) + strings.Repeat("]", levels-1) + `}`
	}
	for levels, want := range map[int]decision{127: decideDeny, 128: noDecision} {
		out := nested(levels)
		if got := parseReply(out).decision; got != want {
			t.Errorf("%d levels, whole output: decision %v, want %v", levels, got, want)
		}
		if got := parseReply(reduceStdout(strings.NewReader(out))).decision; got != want {
			t.Errorf("%d levels, reduced: decision %v, want %v", levels, got, want)
		}
	}
	if nestedDeeperThan([]byte(`{"s":"[[[[\"[[["}`), 1) {
		t.Error("brackets inside a string counted")
	}
}
