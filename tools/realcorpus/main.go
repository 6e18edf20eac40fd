// Command realcorpus extracts the real-command corpus of issue 23
// (gate/testdata/hardening/real/SOURCE.txt) from public one-liner
// collections nobody here wrote. It is a one-off: run it by hand when a
// source is refreshed, never from a test.
//
//	git clone https://github.com/tldr-pages/tldr /tmp/tldr
//	git clone https://github.com/TellinaTool/nl2bash /tmp/nl2bash
//	git clone https://github.com/cheat/cheatsheets /tmp/cheatsheets
//	go run ./tools/realcorpus -source tldr -git /tmp/tldr/.git > gate/testdata/hardening/real/tldr.txt
//	go run ./tools/realcorpus -source nl2bash -git /tmp/nl2bash/.git > gate/testdata/hardening/real/nl2bash.txt
//	go run ./tools/realcorpus -source cheat -git /tmp/cheatsheets/.git > gate/testdata/hardening/real/cheat.txt
//
// It reads the repository's HEAD through git (a bare mirror will do), so
// what it writes names the commit it came from.
//
//   - tldr: every example command (a line in backquotes) of the English
//     pages in pages/common and pages/linux, but for keys pressed in an
//     interactive program (`<Ctrl c>`, `<Esc><:>wq<Enter>`). A
//     placeholder `{{…}}` is filled
//     with a plain value: its first alternative where it offers several
//     (`{{[-v|--verbose]}}` is `-v`, `{{file[.gz|.xz]}}` is `file.gz`), else
//     its own text with every character a shell would read specially
//     replaced by `_`.
//   - nl2bash: data/bash/all.cm, one command a line.
//   - cheat: the cheatsheets of cheat/cheatsheets (one file per program at
//     the top of the repository): each line, lines ending in `\` joined,
//     that is no comment or front matter and starts with the name of a
//     program that has a sheet (with or without `sudo`), so keystrokes
//     and prose are left out. A placeholder `<name>` becomes `name`, as
//     tldr's.
//
// Commands are deduplicated in first-seen order; a command that spans
// lines or starts with `#` is left out.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
)

func main() {
	source := flag.String("source", "", "tldr, nl2bash or cheat")
	gitDir := flag.String("git", "", "the source repository's git directory")
	flag.Parse()
	if *gitDir == "" {
		fail(fmt.Errorf("-git is required"))
	}
	commit := strings.TrimSpace(git(*gitDir, "rev-parse", "HEAD"))
	var cmds []string
	var header string
	switch *source {
	case "tldr":
		cmds = tldr(*gitDir)
		header = tldrHeader
	case "nl2bash":
		cmds = lines(git(*gitDir, "show", "HEAD:data/bash/all.cm"))
		header = nl2bashHeader
	case "cheat":
		cmds = cheat(*gitDir)
		header = cheatHeader
	default:
		fail(fmt.Errorf("-source must be tldr, nl2bash or cheat"))
	}
	cmds = dedupe(cmds)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	fmt.Fprintf(w, strings.TrimLeft(header, "\n"), commit, len(cmds))
	for _, c := range cmds {
		fmt.Fprintln(w, c)
	}
}

const tldrHeader = `
# The example commands of tldr-pages (https://github.com/tldr-pages/tldr),
# commit %s: pages/common/*.md and pages/linux/*.md, English,
# but for examples of keys pressed in an interactive program (<Ctrl c>).
# Copyright © 2014—present the tldr-pages team and contributors
# (https://github.com/tldr-pages/tldr/graphs/contributors).
# Licensed under the Creative Commons Attribution 4.0 International License
# (CC-BY-4.0, https://creativecommons.org/licenses/by/4.0/).
# Changed: each {{placeholder}} is filled with a plain value, the commands
# are deduplicated and one is written a line (tools/realcorpus).
# %d commands.
`

const nl2bashHeader = `
# The commands of the NL2Bash corpus (https://github.com/TellinaTool/nl2bash),
# commit %s: data/bash/all.cm. The dataset is licensed apart from the
# project's code, under the MIT License (data/bash/LICENSE):
#
# MIT License
#
# Copyright (c) 2020 NL2Bash dataset
#
# Permission is hereby granted, free of charge, to any person obtaining a copy
# of this software and associated documentation files (the "Software"), to deal
# in the Software without restriction, including without limitation the rights
# to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
# copies of the Software, and to permit persons to whom the Software is
# furnished to do so, subject to the following conditions:
#
# The above copyright notice and this permission notice shall be included in all
# copies or substantial portions of the Software.
#
# THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
# IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
# FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
# AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
# LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
# OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
# SOFTWARE.
#
# Changed: deduplicated (tools/realcorpus). %d commands.
`

const cheatHeader = `
# The commands of cheat/cheatsheets (https://github.com/cheat/cheatsheets),
# commit %s: each top-level sheet's lines that start with a program
# having a sheet. Dedicated to the public domain under CC0 1.0 Universal
# (https://creativecommons.org/publicdomain/zero/1.0/legalcode); credit to
# the cheat/cheatsheets contributors all the same.
# Changed: each <placeholder> is filled with a plain value, continued lines
# are joined, the commands are deduplicated (tools/realcorpus).
# %d commands.
`

func git(dir string, args ...string) string {
	out, err := exec.Command("git", append([]string{"--git-dir=" + dir}, args...)...).Output()
	if err != nil {
		fail(fmt.Errorf("git %v: %v", args, err))
	}
	return string(out)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "realcorpus:", err)
	os.Exit(1)
}

func lines(s string) []string {
	var out []string
	for l := range strings.SplitSeq(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

func dedupe(cmds []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cmds {
		if !seen[c] && !strings.ContainsAny(c, "\r\n") && !strings.HasPrefix(c, "#") {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// example is a tldr example line: a command in backquotes.
var example = regexp.MustCompile("^`(.+)`$")

// keystrokes is tldr's notation for keys pressed in an interactive
// program (`<Ctrl c>`, `<Esc><:>wq<Enter>`, `<q>`): such an example is no
// shell command.
var keystrokes = regexp.MustCompile(`<(Ctrl|Alt|Shift|Super|Cmd|Meta|Esc|Enter|Return|Tab|Space|Backspace|Delete|Del|Insert|Home|End|Page ?Up|Page ?Down|PageUp|PageDown|Arrow[A-Za-z]*|RightShift|LeftShift|F[0-9]+|[^<>\s])( [^<>]*)?>`)

func tldr(dir string) []string {
	var paths []string
	for _, d := range []string{"pages/common/", "pages/linux/"} {
		for p := range strings.SplitSeq(strings.TrimSpace(git(dir, "ls-tree", "--name-only", "HEAD", d)), "\n") {
			if strings.HasSuffix(p, ".md") {
				paths = append(paths, p)
			}
		}
	}
	sort.Strings(paths)
	var cmds []string
	for _, body := range blobs(dir, paths) {
		for l := range strings.SplitSeq(body, "\n") {
			if m := example.FindStringSubmatch(strings.TrimSpace(l)); m != nil && !keystrokes.MatchString(m[1]) {
				if c := strings.TrimSpace(fill(m[1])); c != "" {
					cmds = append(cmds, c)
				}
			}
		}
	}
	return cmds
}

var cheatPlaceholder = regexp.MustCompile(`<([A-Za-z][A-Za-z0-9_ ./:@-]*)>`)

func cheat(dir string) []string {
	var paths []string
	sheets := map[string]bool{}
	for l := range strings.SplitSeq(strings.TrimSpace(git(dir, "ls-tree", "HEAD")), "\n") {
		// "<mode> <type> <hash>\t<name>"
		meta, name, _ := strings.Cut(l, "\t")
		if strings.Contains(meta, " blob ") && !strings.HasPrefix(name, ".") {
			paths = append(paths, name)
			sheets[name] = true
		}
	}
	sort.Strings(paths)
	var cmds []string
	for _, body := range blobs(dir, paths) {
		front := false
		var cont string
		for i, l := range strings.Split(body, "\n") {
			if i == 0 && l == "---" {
				front = true
				continue
			}
			if front {
				front = l != "---"
				continue
			}
			l = strings.TrimRight(l, " \t")
			if cont != "" {
				l = cont + " " + strings.TrimSpace(l)
				cont = ""
			}
			if strings.HasSuffix(l, "\\") {
				cont = strings.TrimSuffix(l, "\\")
				continue
			}
			l = strings.TrimSpace(l)
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			first := strings.Fields(strings.TrimPrefix(l, "sudo "))
			if len(first) == 0 || !sheets[first[0]] {
				continue
			}
			l = cheatPlaceholder.ReplaceAllStringFunc(l, func(p string) string {
				return special.ReplaceAllString(strings.ReplaceAll(p[1:len(p)-1], " ", "_"), "_")
			})
			cmds = append(cmds, l)
		}
	}
	return cmds
}

// blobs are the files at HEAD of paths, read with one `git cat-file
// --batch`.
func blobs(dir string, paths []string) []string {
	var in bytes.Buffer
	for _, p := range paths {
		fmt.Fprintf(&in, "HEAD:%s\n", p)
	}
	cmd := exec.Command("git", "--git-dir="+dir, "cat-file", "--batch")
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		fail(err)
	}
	var bodies []string
	r := bufio.NewReader(bytes.NewReader(out))
	for range paths {
		head, err := r.ReadString('\n')
		if err != nil {
			fail(err)
		}
		var name, kind string
		var size int
		if _, err := fmt.Sscanf(head, "%s %s %d", &name, &kind, &size); err != nil {
			fail(fmt.Errorf("cat-file: %q: %v", head, err))
		}
		body := make([]byte, size+1)
		if _, err := io.ReadFull(r, body); err != nil {
			fail(err)
		}
		bodies = append(bodies, string(body[:size]))
	}
	return bodies
}

var (
	placeholder = regexp.MustCompile(`\{\{(.*?)\}\}`)
	// optional is an inner choice, `[.gz|.bz2]`, or a choice of flags,
	// `[-v|--verbose]`.
	optional = regexp.MustCompile(`\[([^\[\]|]*)(\|[^\[\]]*)?\]`)
	special  = regexp.MustCompile(`[^A-Za-z0-9 _./:@=,+%~^*-]`)
)

// fill gives each placeholder of a tldr example a plain value.
func fill(s string) string {
	return placeholder.ReplaceAllStringFunc(s, func(p string) string {
		v := p[2 : len(p)-2]
		v = optional.ReplaceAllStringFunc(v, func(o string) string {
			if !strings.Contains(o, "|") {
				return o // a character class, kept as text
			}
			return optional.FindStringSubmatch(o)[1]
		})
		if first, _, ok := strings.Cut(v, "|"); ok {
			v = first
		}
		return special.ReplaceAllString(v, "_")
	})
}
