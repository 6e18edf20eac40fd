package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The man page has a section for every command, its help as --help
// prints it, and roff reads it without a warning.
func TestManPage(t *testing.T) {
	page := generated(t, "man")
	for cmd := range commandHelp {
		if !strings.Contains(page, "\n.SS "+strings.ReplaceAll(cmd, "-", `\-`)+"\n") {
			t.Errorf("no section for %s", cmd)
		}
	}
	for _, section := range []string{"NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "FILES", "ENVIRONMENT", "EXIT STATUS", "SEE ALSO"} {
		if !strings.Contains(page, "\n.SH "+section+"\n") {
			t.Errorf("no %s section", section)
		}
	}
	groff, err := exec.LookPath("groff")
	if err != nil {
		if os.Getenv("CODEWHALE_E2E") == "1" {
			t.Fatal("CODEWHALE_E2E=1 but groff is not installed (apt-get install groff-base)")
		}
		t.Skip("groff is not installed (apt-get install groff-base); set CODEWHALE_E2E=1 to make that a failure")
	}
	cmd := exec.Command(groff, "-man", "-Tutf8", "-ww", "-z")
	cmd.Stdin = strings.NewReader(page)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Errorf("groff -man -ww: %v\n%s", err, stderr.String())
	}
	cmd = exec.Command(groff, "-man", "-Tutf8")
	cmd.Stdin = strings.NewReader(page)
	text, err := cmd.Output()
	// The formatted page, without groff's bold and underline overstrikes.
	plain := regexp.MustCompile(".\b").ReplaceAllString(string(text), "")
	if err != nil || !strings.Contains(plain, "codewhale-ls check [flags] [FILE...]") || !strings.Contains(plain, "--format text|json|sarif|github") {
		t.Errorf("groff -man: %v\n%s", err, plain)
	}
}

// Every environment variable the program reads (a literal name in a
// source file of the binary that reads the environment) is in the man
// page's ENVIRONMENT.
func TestManEnvironment(t *testing.T) {
	page := generated(t, "man")
	env := page[strings.Index(page, "\n.SH ENVIRONMENT\n"):]
	env = strings.ReplaceAll(env[:1+strings.Index(env[1:], "\n.SH ")], `\-`, "-")
	out, err := exec.Command("go", "list", "-deps", "-f", `{{if not .Standard}}{{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{end}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	literal := regexp.MustCompile(`"([A-Z][A-Z0-9_]+)"`)
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || !strings.HasPrefix(fields[0], root+string(filepath.Separator)) {
			continue // another module's
		}
		for _, f := range fields[1:] {
			path := filepath.Join(fields[0], f)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(src, []byte("Getenv(")) && !bytes.Contains(src, []byte("getenv(")) {
				continue
			}
			for _, m := range literal.FindAllSubmatch(src, -1) {
				names[string(m[1])] = path
			}
		}
	}
	if len(names) < 10 {
		t.Fatalf("found only %d environment variables: %v", len(names), names)
	}
	for name, where := range names {
		if !regexp.MustCompile(`\b` + name + `\b`).MatchString(env) {
			t.Errorf("%s (read in %s) is not in the man page's ENVIRONMENT", name, where)
		}
	}
}
