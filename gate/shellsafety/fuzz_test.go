package shellsafety

import (
	"strings"
	"testing"
)

var fuzzSeeds = []string{
	"ls", "git status --porcelain", "codewhale --version", "cargo test --workspace",
	"rm -rf ~/", "git push origin feature-x:main", "sudo -n mkfs.ext4 /dev/sda1",
	"sh -c 'bash -c \"rm -r $HOME\"'", "find / -exec rm {} +", "echo 'open", "echo \"a`b",
	"env -S 'dd of=/dev/sda'", "git tag --list 'v1'", "a && b || c ; d | e & f > g < h",
	"timeout", "env -S", "sudo --", "find -D", "git -C", "\\", "'", "\"", ":(){ :|:& };:",
}

func addSeeds(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
}

func FuzzReadOnly(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		if !Parse(s).ReadOnly() {
			return
		}
		if strings.ContainsAny(s, "\n\r\x00") {
			t.Errorf("Parse(%q).ReadOnly() accepted a control byte", s)
		}
		for _, tok := range lex(s).tokens {
			if tok.op != "" && tok.op != opPipe {
				t.Errorf("Parse(%q).ReadOnly() accepted operator %q", s, tok.op)
			}
		}
	})
}

func FuzzAnalyze(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		l := Parse(s).Analyze()
		if (l == Safe) != (Parse(s).ReadOnly() && !dangerous(parse(s), 0)) {
			t.Errorf("Parse(%q).Analyze() = %v disagrees with ReadOnly", s, l)
		}
		if l == WorkspaceSafe && strings.ContainsAny(s, ";&|><`$\n") {
			t.Errorf("Parse(%q).Analyze() = workspace-safe with shell syntax", s)
		}
	})
}

func FuzzPublishLike(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		_ = PublishLike(s)
	})
}

func FuzzDestructiveLike(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		if !Parse(s).DestructiveLike() && Parse(s).Analyze() == Dangerous {
			t.Errorf("Parse(%q).DestructiveLike() = false for a Dangerous command", s)
		}
	})
}

func FuzzSegments(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		for _, seg := range segmentTexts(s) {
			if seg == "" || seg != strings.TrimSpace(seg) || strings.Contains(seg, ";") {
				t.Errorf("segmentTexts(%q) produced %q", s, seg)
			}
		}
	})
}

func FuzzRoutineAutoReview(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		if Parse(s).RoutineAutoReview() && strings.ContainsAny(s, "><`") {
			t.Errorf("Parse(%q).RoutineAutoReview() accepted a redirection", s)
		}
	})
}
