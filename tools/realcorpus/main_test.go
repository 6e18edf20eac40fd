package main

import "testing"

func TestFill(t *testing.T) {
	for in, want := range map[string]string{
		"tar xf {{path/to/source.tar[.gz|.bz2|.xz]}} {{[-C|--directory]}} {{path/to/directory}}": "tar xf path/to/source.tar.gz -C path/to/directory",
		"grep {{--context|--before-context|--after-context}} 3 \"{{search_pattern}}\"":           "grep --context 3 \"search_pattern\"",
		"cp {{path/to/file1 path/to/file2 ...}} {{path/to/dir}}":                                 "cp path/to/file1 path/to/file2 ... path/to/dir",
		"echo {{$(whoami) > x; `id`}}":                                                           "echo __whoami_ _ x_ _id_",
		"ls {{[-la|--all --long]}}":                                                              "ls -la",
		"grep -E {{[a-z]+}} file":                                                                "grep -E _a-z_+ file",
	} {
		if got := fill(in); got != want {
			t.Errorf("fill(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDedupe(t *testing.T) {
	got := dedupe([]string{"ls", "pwd", "ls", "a\nb", "pwd"})
	if len(got) != 2 || got[0] != "ls" || got[1] != "pwd" {
		t.Errorf("dedupe = %q", got)
	}
}

func TestKeystrokes(t *testing.T) {
	for s, want := range map[string]bool{
		"<Ctrl c>":                        true,
		"<Esc><:>wq<Enter>":               true,
		"<q>":                             true,
		"{{<Space>}}":                     true,
		"cat < in.txt > out.txt":          false,
		"sort <file.txt":                  false,
		"grep -c x <<< 'a b'":             false,
		"diff <(sort a) <(sort b)":        false,
		"echo {{<html>}} > index.html":    false,
		"tmux attach -t {{session_name}}": false,
	} {
		if got := keystrokes.MatchString(s); got != want {
			t.Errorf("keystrokes(%q) = %v, want %v", s, got, want)
		}
	}
}
