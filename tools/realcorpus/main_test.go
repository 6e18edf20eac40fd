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
