package rpc

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/codewhale-ls/codewhale-ls/diagnostics"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

var update = flag.Bool("update", false, "rewrite the want sections of the golden files and the then sections of the cases")

// wantSection is the archive section holding the expected diagnostics, one
// line each (testdata/golden/README.md).
const wantSection = "want"

// TestGolden runs every testdata/golden/*.txtar through the server: the
// archive's files are written under a temp dir ($TMP in their text; home/
// is $HOME, ws/ the workspace), the files its comment names with `open
// PATH` are opened in the editor (with the disk text; an `edited/PATH`
// section then replaces the buffer, as a user's edit does), and every
// publishDiagnostics the session ends with, written as
// testdata/golden/README.md says, must equal the want section.
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
			publications := runGolden(t, comment, files)
			checkNamedCode(t, filepath.Base(archive), publications)
			for _, p := range publications {
				for _, d := range p.Diagnostics {
					checkDerived(t, d)
				}
			}
			got := renderPublications(t, publications)
			if *update {
				files = slices.DeleteFunc(files, func(f txtarFile) bool { return f.name == wantSection })
				files = append(files, txtarFile{wantSection, []byte(got)})
				if err := os.WriteFile(archive, formatTxtar(comment, files), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			i := slices.IndexFunc(files, func(f txtarFile) bool { return f.name == wantSection })
			if i < 0 {
				t.Fatalf("no %s section; run with -update. Got:\n%s", wantSection, got)
			}
			if want := string(files[i].data); got != want {
				t.Errorf("diagnostics differ (-update rewrites); %s\ngot:\n%s\nwant:\n%s", firstDifference(got, want), got, want)
			}
		})
	}
}

// firstDifference names the first line of the want section that the
// output does not match, as a long message hides a one-column change.
func firstDifference(got, want string) string {
	gotLines, wantLines := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(gotLines), len(wantLines)) {
		g, w := "(none)", "(none)"
		if i < len(gotLines) {
			g = gotLines[i]
		}
		if i < len(wantLines) {
			w = wantLines[i]
		}
		if g != w {
			return fmt.Sprintf("first at want line %d:\n  got: %s\n want: %s", i+1, g, w)
		}
	}
	return "no line differs"
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

// wirePublication is one publishDiagnostics as the client reads it, $TMP
// in place of the temp dir. It is decoded with unknown fields refused: a
// field the want lines do not show (tags, data, ...) fails the test rather
// than going unchecked, and the format is to be extended for it.
type wirePublication struct {
	URI         string           `json:"uri"`
	Diagnostics []wireDiagnostic `json:"diagnostics"`
}

type wireDiagnostic struct {
	Range           protocol.Range              `json:"range"`
	Severity        protocol.DiagnosticSeverity `json:"severity"`
	Code            problem.Code                `json:"code"`
	CodeDescription struct {
		Href string `json:"href"`
	} `json:"codeDescription"`
	Source             string `json:"source"`
	Message            string `json:"message"`
	RelatedInformation []struct {
		Location struct {
			URI   string         `json:"uri"`
			Range protocol.Range `json:"range"`
		} `json:"location"`
		Message string `json:"message"`
	} `json:"relatedInformation"`
}

// checkNamedCode: a fixture named for a code must produce it; the clean
// one none.
func checkNamedCode(t *testing.T, name string, publications []wirePublication) {
	t.Helper()
	var codes []problem.Code
	for _, p := range publications {
		for _, d := range p.Diagnostics {
			codes = append(codes, d.Code)
		}
	}
	if code, _, ok := strings.Cut(name, "_"); ok && strings.HasPrefix(code, "cw") {
		if !slices.Contains(codes, problem.Code(strings.ToUpper(code))) {
			t.Errorf("%s does not produce %s, only %v", name, strings.ToUpper(code), codes)
		}
	} else if len(codes) > 0 {
		t.Errorf("%s should produce no diagnostics, got %v", name, codes)
	}
}

// checkDerived holds what the want lines leave out, as it follows from the
// code, to that rule: the source is always "codewhale" and the href is the
// code's entry in docs/diagnostics.md.
func checkDerived(t *testing.T, d wireDiagnostic) {
	t.Helper()
	if d.Source != "codewhale" {
		t.Errorf("%s has source %q, want \"codewhale\"", d.Code, d.Source)
	}
	if want := diagnostics.DocURL(d.Code); d.CodeDescription.Href != want {
		t.Errorf("%s has codeDescription.href %q, want %q", d.Code, d.CodeDescription.Href, want)
	}
}

// severityName is the wire severity as problem.Severity names it, one the
// table gives the code: the usual one, or one its SeverityVaries names
// (docs/diagnostics.md, "Severity:").
func severityName(t *testing.T, d wireDiagnostic) string {
	t.Helper()
	info, ok := d.Code.Info()
	if !ok {
		t.Errorf("%q is no code of problem.Codes", d.Code)
	}
	for _, s := range []problem.Severity{problem.Error, problem.Warning, problem.Info} {
		if severity(s) != d.Severity {
			continue
		}
		if ok && s != info.Severity && !strings.Contains(info.SeverityVaries, s.String()) {
			t.Errorf("%s has severity %s; problem.Codes gives %s %q", d.Code, s, info.Severity, info.SeverityVaries)
		}
		return s.String()
	}
	t.Errorf("%s has severity %d, which no problem.Severity maps to", d.Code, d.Severity)
	return fmt.Sprintf("severity(%d)", d.Severity)
}

// renderPublications writes the publications as the want section has
// them (testdata/golden/README.md): per file, one line per diagnostic
// `PATH:SPAN: CODE SEVERITY: MESSAGE`, its related information indented
// below it, or `PATH: no diagnostics`.
func renderPublications(t *testing.T, publications []wirePublication) string {
	t.Helper()
	var b strings.Builder
	line := func(indent, text string) {
		if strings.Contains(text, "\n") {
			// A second line would read as a line of its own.
			t.Errorf("the want format keeps a message on one line: %q", text)
		}
		b.WriteString(indent + text + "\n")
	}
	for _, p := range publications {
		path := fixturePath(p.URI)
		if len(p.Diagnostics) == 0 {
			line("", path+": no diagnostics")
		}
		for _, d := range p.Diagnostics {
			line("", fmt.Sprintf("%s:%s: %s %s: %s", path, spanText(d.Range), d.Code, severityName(t, d), d.Message))
			for _, r := range d.RelatedInformation {
				line("  ", fmt.Sprintf("related %s:%s: %s", fixturePath(r.Location.URI), spanText(r.Location.Range), r.Message))
			}
		}
	}
	return b.String()
}

// fixturePath is a URI under the temp dir as the archive names the file
// (home/..., ws/...); any other URI stays whole.
func fixturePath(u string) string {
	if rel, ok := strings.CutPrefix(u, "file://$TMP/"); ok {
		return rel
	}
	return u
}

// spanText is a range in 1-based lines and columns (UTF-16 units, as the
// server's positions are), the end exclusive, as gopls writes a span:
// L:C for an empty range, L:C-C2 on one line, L:C-L2:C2 across lines.
func spanText(r protocol.Range) string {
	start := fmt.Sprintf("%d:%d", r.Start.Line+1, r.Start.Character+1)
	switch {
	case r.Start == r.End:
		return start
	case r.Start.Line == r.End.Line:
		return fmt.Sprintf("%s-%d", start, r.End.Character+1)
	}
	return fmt.Sprintf("%s-%d:%d", start, r.End.Line+1, r.End.Character+1)
}

func runGolden(t *testing.T, comment string, files []txtarFile) []wirePublication {
	w := newWorld(t)
	edits := map[string]string{}
	for _, f := range files {
		if rel, ok := strings.CutPrefix(f.name, "edited/"); ok {
			edits[rel] = strings.ReplaceAll(string(f.data), "$TMP", w.tmp)
		}
	}
	writeArchive(t, w, slices.DeleteFunc(slices.Clone(files), func(f txtarFile) bool {
		return f.name == wantSection || strings.HasPrefix(f.name, "edited/")
	}))
	s := newSession(t, w, Options{CodewhaleVersion: pinnedRelease(comment)})
	s.initialize(editor)
	opened := map[string]int32{}
	for _, rel := range commentArgs(comment, "open") {
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
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(bytes.ReplaceAll(b, []byte(w.tmp), []byte("$TMP"))))
	dec.DisallowUnknownFields()
	var publications []wirePublication
	if err := dec.Decode(&publications); err != nil {
		t.Fatalf("publications the want format cannot show: %v\n%s", err, b)
	}
	return publications
}

// writeArchive writes an archive's files under w's temp dir ($TMP in
// their text; home/ is $HOME, ws/ the workspace). Without a
// home/.codewhale/config.toml it writes one that keeps the load away from
// the machine's managed config; an archive that has one must set those
// keys itself.
func writeArchive(t *testing.T, w *world, files []txtarFile) {
	t.Helper()
	hasConfig := false
	for _, f := range files {
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
}

// commentArgs are the arguments of every line `verb ARGS` of an archive's
// comment, in order.
func commentArgs(comment, verb string) []string {
	var args []string
	for _, line := range strings.Split(comment, "\n") {
		if arg, ok := strings.CutPrefix(strings.TrimSpace(line), verb+" "); ok {
			args = append(args, arg)
		}
	}
	return args
}

// pinnedRelease is the release a line `codewhale VERSION` of the comment
// pins, else "" (the newest, as with no codewhale on PATH).
func pinnedRelease(comment string) string {
	versions := commentArgs(comment, "codewhale")
	if len(versions) == 0 {
		return ""
	}
	return versions[len(versions)-1]
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
