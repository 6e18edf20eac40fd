package config

import (
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// FileState is what a load saw of one file.
type FileState string

const (
	Loaded  FileState = "loaded"
	Missing FileState = "missing"
	Invalid FileState = "invalid"
)

// File is one policy file as loaded: its bytes, its state and every problem
// found in it.
type File struct {
	Kind     Kind
	Path     string
	State    FileState
	Src      []byte
	Problems []problem.Problem
	// Doc is the TOML tree of Src, nil when the file is missing, not TOML
	// or not a TOML file: linters read it instead of parsing again.
	Doc *tomldoc.Doc
}

// Kind names which Codewhale file a path is.
type Kind string

const (
	KindUserConfig   Kind = "config"
	KindPermissions  Kind = "permissions"
	KindOverlay      Kind = "overlay"
	KindProjectHooks Kind = "hooks"
	KindConstitution Kind = "constitution"
	KindSettings     Kind = "settings"
	KindManaged      Kind = "managed"
	KindRequirements Kind = "requirements"
)

func (f *File) add(code problem.Code, sev problem.Severity, span problem.Span, msg string) {
	f.Problems = append(f.Problems, problem.Problem{File: f.Path, Code: code, Severity: sev, Span: span, Message: msg})
}

// parseTOML reads and parses one TOML file into File.Doc, recording a
// syntax error.
func parseTOML(b Buffers, kind Kind, path string) *File {
	f := &File{Kind: kind, Path: path, State: Missing}
	src, present, err := b.read(path)
	if !present {
		return f
	}
	f.Src = src
	if err != nil {
		f.State = Invalid
		f.add(problem.FileRejected, problem.Error, problem.Span{}, path+" "+err.Error())
		return f
	}
	doc, serr := tomldoc.Parse(src)
	if serr != nil {
		f.State = Invalid
		f.add(problem.SyntaxError, problem.Error, serr.Span, "TOML syntax error: "+serr.Message)
		return f
	}
	f.State, f.Doc = Loaded, doc
	return f
}

// Setting is one scalar value and where it came from.
type Setting struct {
	Value  string
	Set    bool
	Source string // "config.toml", "CODEWHALE_APPROVAL_POLICY", "managed config", "project config", ...
	File   string
	Span   problem.Span
}

// BoolSetting is one boolean value and where it came from.
type BoolSetting struct {
	Value  bool
	Set    bool
	Source string
}

// IntSetting is one integer value and where it came from.
type IntSetting struct {
	Value  int64
	Set    bool
	Source string
}

// ListSetting is one list of strings, as written, and where it came from.
type ListSetting struct {
	Value  []string
	Set    bool
	Source string
}
