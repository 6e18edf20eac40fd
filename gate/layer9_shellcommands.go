package gate

import (
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy/shell"
)

// recursiveReader is what layer 9 knows of a program that reads
// directories recursively: a command that reads a directory recursively
// reads everything beneath it, the deny-list's paths included, so its
// directory operands are judged as if every path below them were named.
type recursiveReader struct {
	always     bool     // recursive with no option (rg, find, du)
	flags      string   // short options that make it recursive
	long       []string // long options that make it recursive
	values     string   // short options whose value is the next word
	longValues []string // long options whose value is the next word
	// patternFirst: the first operand is a search pattern, unless an
	// option in patternOpts or patternLong gives the pattern.
	patternFirst bool
	patternOpts  string
	patternLong  []string
	defaultCwd   bool // with no path operand it reads its working directory
	// reads: it reads the files' contents; false for listers (find, du,
	// ls -R, tree), which read directories (so a denied directory) but
	// only name the files in them.
	reads bool
	// leadingPaths: only the operands before the first expression are
	// paths (find).
	leadingPaths bool
}

var grepReader = recursiveReader{
	flags: "rR", long: []string{"--recursive", "--dereference-recursive", "--directories=recurse"},
	values: "efmABCdD", longValues: []string{"--regexp", "--file", "--max-count", "--context", "--after-context", "--before-context", "--directories", "--devices", "--label", "--include", "--exclude", "--exclude-dir"},
	patternFirst: true, patternOpts: "ef", patternLong: []string{"--regexp", "--file"}, defaultCwd: true, reads: true,
}

var searcherReader = recursiveReader{
	always: true, values: "efgtTmABCMjErdG", longValues: []string{"--regexp", "--file", "--glob", "--iglob", "--type", "--type-not", "--type-add", "--max-count", "--context", "--after-context", "--before-context", "--replace", "--encoding", "--max-depth", "--max-filesize", "--threads", "--sort", "--sortr", "--pre", "--pre-glob", "--colors", "--ignore-file", "--path-separator", "--engine", "--max-columns"},
	patternFirst: true, patternOpts: "ef", patternLong: []string{"--regexp", "--file", "--files", "--type-list"}, defaultCwd: true, reads: true,
}

var tarReader = recursiveReader{flags: "cru", long: []string{"--create", "--append", "--update"}, values: "fCTXbI", longValues: []string{"--file", "--directory", "--files-from", "--exclude-from"}, reads: true}

// recursiveReaders are the programs whose recursion layer 9 follows, by
// base name.
var recursiveReaders = map[string]recursiveReader{
	"grep": grepReader, "egrep": grepReader, "fgrep": grepReader, "zgrep": grepReader,
	"rgrep": withAlways(grepReader),
	"rg":    searcherReader, "ag": searcherReader, "ack": searcherReader, "ack-grep": searcherReader,
	"find":  {always: true, leadingPaths: true, defaultCwd: true},
	"du":    {always: true, values: "dBt", defaultCwd: true},
	"tree":  {always: true, values: "LPIo", defaultCwd: true},
	"ls":    {flags: "R", long: []string{"--recursive"}, defaultCwd: true},
	"cp":    {flags: "rRa", long: []string{"--recursive", "--archive"}, values: "tS", longValues: []string{"--target-directory"}, reads: true},
	"scp":   {flags: "r", values: "cFiIJloPS", reads: true},
	"rsync": {always: true, values: "e", longValues: []string{"--rsh"}, reads: true},
	"tar":   tarReader, "bsdtar": tarReader, "gtar": tarReader,
	"zip":  {flags: "r", long: []string{"--recurse-paths"}, values: "bnt", reads: true},
	"diff": {flags: "r", long: []string{"--recursive"}, reads: true},
}

func withAlways(r recursiveReader) recursiveReader { r.always = true; return r }

// programName is the base name of the program c runs, lower-cased.
func programName(c shell.Command) string {
	if c.Head >= len(c.Words) {
		return ""
	}
	w := c.Words[c.Head]
	return ascii.Lower(w[strings.LastIndexByte(w, '/')+1:])
}

// recursiveRoots are the directories c reads recursively, as patterns
// (the working directory as "."), and whether it reads their files'
// contents. A find running -exec, inside a substitution (whose output
// becomes another command's words), or in a line that feeds names to
// another command (feedsNames), reads what it finds.
func recursiveRoots(c shell.Command, namesFed bool) (roots []string, reads bool) {
	name := programName(c)
	reader, known := recursiveReaders[name]
	if !known {
		return nil, false
	}
	args, patterns := c.Words[c.Head+1:], c.Patterns[c.Head+1:]
	if name == "tar" || name == "bsdtar" || name == "gtar" {
		if len(args) > 0 && args[0] != "" && !strings.HasPrefix(args[0], "-") {
			// Old style: `tar czf out.tgz dir` is `tar -czf out.tgz dir`.
			args = append([]string{"-" + args[0]}, args[1:]...)
		}
	}
	recursive, patternGiven := reader.always, false
	var operands []string
	endOfOptions := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case endOfOptions || w == "-" || !strings.HasPrefix(w, "-"):
			if reader.leadingPaths && (w == "(" || w == "!") {
				i = len(args) // find's expression starts
				continue
			}
			operands = append(operands, patterns[i])
		case w == "--":
			endOfOptions = true
		case reader.leadingPaths:
			if w == "-H" || w == "-L" || w == "-P" || strings.HasPrefix(w, "-O") {
				continue
			}
			if w == "-D" {
				i++
				continue
			}
			// The expression starts: no more paths.
			i = len(args)
		case strings.HasPrefix(w, "--"):
			opt, _, hasValue := strings.Cut(w, "=")
			recursive = recursive || slices.Contains(reader.long, w) || slices.Contains(reader.long, opt)
			patternGiven = patternGiven || slices.Contains(reader.patternLong, opt)
			if !hasValue && slices.Contains(reader.longValues, opt) {
				if i+1 < len(args) && opt == "--directories" && args[i+1] == "recurse" {
					recursive = true
				}
				i++
			}
		default:
			for j := 1; j < len(w); j++ {
				ch := w[j]
				recursive = recursive || strings.IndexByte(reader.flags, ch) >= 0
				patternGiven = patternGiven || strings.IndexByte(reader.patternOpts, ch) >= 0
				if strings.IndexByte(reader.values, ch) < 0 {
					continue
				}
				value := w[j+1:]
				if value == "" && i+1 < len(args) {
					i++
					value = args[i]
				}
				recursive = recursive || (ch == 'd' && value == "recurse" && reader.patternFirst)
				break
			}
		}
	}
	if !recursive {
		return nil, false
	}
	if reader.patternFirst && !patternGiven && len(operands) > 0 {
		operands = operands[1:]
	}
	if len(operands) == 0 && reader.defaultCwd {
		operands = []string{"."}
	}
	reads = reader.reads
	if name == "find" {
		reads = namesFed || c.Depth > 0 || slices.ContainsFunc(args, func(w string) bool {
			return w == "-exec" || w == "-execdir" || w == "-ok" || w == "-okdir"
		})
	}
	return operands, reads
}

// workingDirWords are the directories c moves to or runs its work in,
// and cd, whether it moves the shell (`cd DIR`, `pushd DIR`; `cd` alone
// is home) rather than c alone (`-C DIR`, `--directory`, `--chdir` and
// `--work-tree` of the programs that take them). The words after them
// may be relative to that directory.
func workingDirWords(c shell.Command) (dirs []string, cd bool) {
	name := programName(c)
	args, patterns := c.Words[min(c.Head+1, len(c.Words)):], c.Patterns[min(c.Head+1, len(c.Patterns)):]
	switch name {
	case "cd", "pushd":
		for i, w := range args {
			switch {
			case w == "-":
				return []string{"$OLDPWD"}, true
			case w == "--" && i+1 < len(args):
				return []string{patterns[i+1]}, true
			case !strings.HasPrefix(w, "-"):
				return []string{patterns[i]}, true
			}
		}
		return []string{"~"}, true
	case "tar", "bsdtar", "gtar", "make", "gmake", "git", "env":
	default:
		return nil, false
	}
	for i := 0; i < len(args); i++ {
		w := args[i]
		opt, _, hasValue := strings.Cut(w, "=")
		switch {
		case opt == "--directory" || opt == "--chdir" || opt == "--work-tree":
			if hasValue {
				dirs = append(dirs, patterns[i][len(opt)+1:])
			} else if i+1 < len(args) {
				i++
				dirs = append(dirs, patterns[i])
			}
		case w == "-C" && i+1 < len(args):
			i++
			dirs = append(dirs, patterns[i])
		case strings.HasPrefix(w, "-C") && len(w) > 2 && name != "git":
			dirs = append(dirs, patterns[i][2:])
		}
	}
	return dirs, false
}

// oneCommandMoveCertain: git's, make's and env's -C come before the
// words they apply to; tar's applies only to the operands after it, so
// tar's words are read in both directories.
func oneCommandMoveCertain(c shell.Command) bool {
	switch programName(c) {
	case "git", "make", "gmake", "env":
		return true
	}
	return false
}
