package rpc

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

var update = flag.Bool("update", false, "rewrite the want.json section of the golden files")

// TestGolden runs every testdata/golden/*.txtar through the server: the
// archive's files are written under a temp dir ($TMP in their text; home/
// is $HOME, ws/ the workspace), the files its comment names with `open
// PATH` are opened in the editor (with the disk text; an `edited/PATH`
// section then replaces the buffer, as a user's edit does), and every
// publishDiagnostics the session ends with must equal the want.json section.
func TestGolden(t *testing.T) {
	archives, _ := filepath.Glob("testdata/golden/*.txtar")
	if len(archives) == 0 {
		t.Fatal("no golden files")
	}
	for _, archive := range archives {
		t.Run(strings.TrimSuffix(filepath.Base(archive), ".txtar"), func(t *testing.T) {
			data, err := os.ReadFile(archive)
			if err != nil {
				t.Fatal(err)
			}
			comment, files := parseTxtar(data)
			got := runGolden(t, comment, files)
			// A fixture named for a code must produce it; the clean one none.
			name := filepath.Base(archive)
			if code, _, ok := strings.Cut(name, "_"); ok && strings.HasPrefix(code, "cw") {
				if !bytes.Contains(got, []byte(`"code": "`+strings.ToUpper(code)+`"`)) {
					t.Errorf("%s does not produce %s:\n%s", name, strings.ToUpper(code), got)
				}
			} else if bytes.Contains(got, []byte(`"code"`)) {
				t.Errorf("%s should produce no diagnostics:\n%s", name, got)
			}
			checkSeverities(t, got)
			if *update {
				files = slices.DeleteFunc(files, func(f txtarFile) bool { return f.name == "want.json" })
				files = append(files, txtarFile{"want.json", got})
				if err := os.WriteFile(archive, formatTxtar(comment, files), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			i := slices.IndexFunc(files, func(f txtarFile) bool { return f.name == "want.json" })
			if i < 0 {
				t.Fatalf("no want.json section; run with -update. Got:\n%s", got)
			}
			if want := files[i].data; !bytes.Equal(got, want) {
				t.Errorf("diagnostics differ (-update rewrites)\ngot:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestGoldenCoversEveryCode: every code of the table has a fixture named
// for it (which TestGolden holds to producing it), and every fixture named
// for a code names one of the table.
func TestGoldenCoversEveryCode(t *testing.T) {
	for _, info := range problem.Codes {
		prefix := strings.ToLower(string(info.Code))
		if fixtures, _ := filepath.Glob("testdata/golden/" + prefix + "_*.txtar"); len(fixtures) == 0 {
			t.Errorf("%s (%s) has no testdata/golden/%s_*.txtar", info.Code, info.Title, prefix)
		}
	}
	archives, _ := filepath.Glob("testdata/golden/cw*.txtar")
	for _, archive := range archives {
		code, _, _ := strings.Cut(filepath.Base(archive), "_")
		if _, ok := problem.Code(strings.ToUpper(code)).Info(); !ok {
			t.Errorf("%s is named for %s, which is no code of problem.Codes", archive, strings.ToUpper(code))
		}
	}
}

// checkSeverities: every diagnostic of a golden run has a severity the
// table gives its code: the usual one, or one its SeverityVaries names
// (docs/diagnostics.md, "Severity:").
func checkSeverities(t *testing.T, got []byte) {
	t.Helper()
	var files []struct {
		Diagnostics []struct {
			Code     problem.Code                `json:"code"`
			Severity protocol.DiagnosticSeverity `json:"severity"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal(got, &files); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		for _, d := range f.Diagnostics {
			code := d.Code
			info, ok := code.Info()
			if !ok {
				t.Errorf("%q is no code of problem.Codes", code)
				continue
			}
			allowed := false
			for _, s := range []problem.Severity{problem.Error, problem.Warning, problem.Info} {
				if severity(s) == d.Severity && (s == info.Severity || strings.Contains(info.SeverityVaries, s.String())) {
					allowed = true
				}
			}
			if !allowed {
				t.Errorf("%s has severity %v; problem.Codes gives %s %q", code, d.Severity, info.Severity, info.SeverityVaries)
			}
		}
	}
}

func runGolden(t *testing.T, comment string, files []txtarFile) []byte {
	w := newWorld(t)
	hasConfig := false
	edits := map[string]string{}
	for _, f := range files {
		if f.name == "want.json" {
			continue
		}
		if rel, ok := strings.CutPrefix(f.name, "edited/"); ok {
			edits[rel] = strings.ReplaceAll(string(f.data), "$TMP", w.tmp)
			continue
		}
		text := strings.ReplaceAll(string(f.data), "$TMP", w.tmp)
		if f.name == "home/.codewhale/config.toml" {
			hasConfig = true
			if !strings.Contains(text, "managed_config_path") || !strings.Contains(text, "requirements_path") {
				t.Fatal(`home/.codewhale/config.toml must set managed_config_path = "$TMP/managed.toml" and requirements_path = "$TMP/requirements.toml"`)
			}
		}
		w.write(t, filepath.Join(w.tmp, filepath.FromSlash(f.name)), text)
	}
	if !hasConfig {
		w.write(t, w.configPath(), w.hermeticKeys())
	}
	// A line `codewhale VERSION` pins the release the fixture is linted as
	// (else the newest, as with no codewhale on PATH).
	var opts Options
	for _, line := range strings.Split(comment, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "codewhale "); ok {
			opts.CodewhaleVersion = v
		}
	}
	s := newSession(t, w, opts)
	s.initialize(editor)
	opened := map[string]int32{}
	for _, line := range strings.Split(comment, "\n") {
		if rel, ok := strings.CutPrefix(strings.TrimSpace(line), "open "); ok {
			path := filepath.Join(w.tmp, filepath.FromSlash(rel))
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("open %s: %v", rel, err)
			}
			u := s.open(path, 1, string(text))
			opened[path] = 1
			if edited, ok := edits[rel]; ok {
				s.change(u, 2, &protocol.TextDocumentContentChangeWholeDocument{Text: edited})
				opened[path] = 2
			}
		}
	}
	if len(opened) == 0 {
		t.Fatal("a golden file must open at least one document")
	}
	for p, v := range opened {
		s.waitVersion(protocolURI(p), v)
	}
	// Shutdown waits for the running check: its publications are all in.
	s.shutdown()

	type published struct {
		URI         string          `json:"uri"`
		Diagnostics json.RawMessage `json:"diagnostics"`
	}
	var out []published
	s.mu.Lock()
	for u, p := range s.published {
		b, err := protocol.Marshal(p.Diagnostics)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, published{string(u), b})
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b published) int { return strings.Compare(a.URI, b.URI) })
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(bytes.ReplaceAll(b, []byte(w.tmp), []byte("$TMP")), '\n')
}

// A txtar archive: a comment, then files each introduced by "-- name --".
type txtarFile struct {
	name string
	data []byte
}

func parseTxtar(data []byte) (string, []txtarFile) {
	var comment strings.Builder
	var files []txtarFile
	for _, line := range strings.SplitAfter(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if name, ok := strings.CutPrefix(trimmed, "-- "); ok && strings.HasSuffix(name, " --") {
			files = append(files, txtarFile{name: strings.TrimSuffix(name, " --")})
			continue
		}
		if len(files) == 0 {
			comment.WriteString(line)
		} else {
			files[len(files)-1].data = append(files[len(files)-1].data, line...)
		}
	}
	return comment.String(), files
}

func formatTxtar(comment string, files []txtarFile) []byte {
	var b bytes.Buffer
	b.WriteString(comment)
	for _, f := range files {
		b.WriteString("-- " + f.name + " --\n")
		b.Write(f.data)
	}
	return b.Bytes()
}
