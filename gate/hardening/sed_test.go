package hardening

import (
	"slices"
	"testing"
)

// sedHostile are sed scripts whose e command runs `git push`, in many
// spellings (issue 23, points 10 and 12).
var sedHostile = []string{
	`sed -n '1e git push' x`,
	`sed -n --expression='1e git push' f`,
	`sed -n --expression '1e git push' f`,
	`sed --exp='1e git push' f`,
	`sed -e'1e git push' f`,
	`sed -ne '1e git push' f`,
	`sed -n -e 's/a/b/' -e '1e git push' f`,
	`sed '1,1e git push' f`,
	`sed '1 e git push' f`,
	`sed '$e git push' f`,
	`sed '/x/e git push' f`,
	`sed '/[/]/e git push' f`,
	`sed '\,a,e git push' f`,
	`sed '0,/re/e git push' f`,
	`sed '1~2e git push' f`,
	`sed '2,+3e git push' f`,
	`sed '/a/!e git push' f`,
	`sed '/a/ ! e git push' f`,
	`sed 's/a/b/;e git push' f`,
	`sed 's|a|b|g
e git push' f`,
	`sed '1{e git push
}' f`,
	`sed -s -n -E -z '1e git push' f`,
	`sed -i.bak '1e git push' f`,
	`sed -i '1e git push' f`,
	`sed f -e '1e git push'`,
	`sed -n f --expression='1e git push'`,
	`sed 'y/e/E/;1e git push' f`,
	`sed '1a\
text
1e git push' f`,
	`sed 'b end;e git push
:end' f`,
	`gsed '1e git push' f`,
	`echo '1e git push' > x.sed; sed -f x.sed f`,
	`echo '1e git push' > x.sed; sed --file=x.sed f`,
	`sed -f - f <<< '1e git push'`,
	`echo 1e git push | sed -f /dev/stdin f`,
	`sed -f <(echo 1e git push) f`,
	`sed -n -f <(printf '1e git push\n') f`,
}

// sedUnseeable are sed scripts that run what nobody can read: the
// pattern space, or a command built when the line runs.
var sedUnseeable = []string{
	`sed 's/x/git push/e' f`,
	`sed 's/^/git /e' list`,
	`sed 's/a/b/gie' f`,
	`sed 's/a/b/e w out' f`,
	`sed 's/a/b/ e' f`,
	`sed 's/a/b/3e' f`,
	`sed 'e' f`,
	`sed 's/a/b/;e' f`,
	`sed -n '1{e
}' f`,
	`sed "1e $CMD" f`,
	`sed "$SCRIPT" f`,
	`sed -e "$SCRIPT" f`,
	`sed "$a$b" f`,
	`sed "1$cmd" f`,
	`sed "/x/$cmd" f`,
	`sed "1,${n}d; $more" f`,
	`sed "${n}e" f`,
	`sed "s/a/b/$flags" f`,
	`cat script | sed -f - f`,
	`sed -f "$F" f`,
	`sed -n 's/a/b/;1q;s/x/y/e' f`,
	`echo 'git status' > x.sh; sed -i 's/status/push/' x.sh; sh x.sh`,
	`sed -n 'w x.sh' f; sh x.sh`,
	`sed 's/a/b/w x.sh' f; bash x.sh`,
}

// sedOrdinary are everyday sed lines: they run nothing and hold nothing.
var sedOrdinary = []string{
	`sed -n '1,20p' main.go`,
	`sed -i 's/foo/bar/g' config.toml`,
	`sed -n 's/[/]/e/p' f`,
	`sed 's/[/]/e/g' f`,
	`sed 's/a/b/w /dev/stdout' f`,
	`sed 's|/usr/local|/opt|g' f`,
	`sed 's#http://#https://#g' urls.txt`,
	`sed -E 's/(foo|bar)+/x/g' f`,
	`sed -r 's/^[[:space:]]+//' f`,
	`sed 's/[[:upper:]/]/e/g' f`,
	`sed '/^#/d;/^$/d' f`,
	`sed -n '/start/,/end/p' log.txt`,
	`sed -n '$p' f`,
	`sed '1d' f.csv`,
	`sed '$d' f`,
	`sed -n '/error/p' app.log`,
	`sed 'y/abcdefghij/ABCDEFGHIJ/' f`,
	`sed 'y/e/E/' f`,
	`sed '1a\
hello e world' f`,
	`sed '1i\
execute this' f`,
	`sed '$a end of file' f`,
	`sed '/pattern/a new line here' f`,
	`sed '2i\    indented text' f`,
	`sed '/x/c replaced entirely' f`,
	`sed -n 'w out.txt' f`,
	`sed 's/a/b/w changes.log' f`,
	`sed -i.bak 's/version = ".*"/version = "1.2.3"/' Cargo.toml`,
	`sed -i '' 's/old/new/g' f`,
	`sed ':a;N;$!ba;s/\n/ /g' f`,
	`sed -e :a -e '$!N;s/\n//;ta' f`,
	`sed 's/\(.*\)e/\1E/' f`,
	`sed 's/e\/e/x/' f`,
	`sed 's/ee/e/g;s/e$//' f`,
	`sed -n '10,$p' f`,
	`sed '0~3d' f`,
	`sed -n '1~2p' f`,
	`sed '/begin/,+2d' f`,
	`sed 's/\s\+$//' f`,
	`sed -z 's/\n/,/g' f`,
	`sed --regexp-extended 's/a{2}/b/' f`,
	`sed -n 'l' f`,
	`sed = f`,
	`sed 'n;d' f`,
	`sed '/^$/N;/\n$/D' f`,
	`sed -e 's/a/b/' -e 's/c/d/' f`,
	`sed '5q' f`,
	`sed 's/x/y/2' f`,
	`sed 's/e/E/Ig' f`,
	`sed '/start/{n;d}' f`,
	`sed '1!G;h;$!d' f`,
	`sed -n '/re/{p;q}' f`,
	`sed "s/foo/$BAR/g" f`,
	`sed -i "s|^version=.*|version=$V|" f`,
	`sed 's/a/b/' "$file"`,
	`sed "${n}d" f`,
	`sed -n "${start},${end}p" f`,
	`sed -i "${LINE}s/a/b/" f`,
	`sed "${n}q" f`,
	`sed -n "/$pat/p" f`,
	`sed 's/#.*//' f`,
	`sed 's/e/f/ # not the e flag' f`,
	`sed --sandbox '1e git push' f`,
}

func TestSedHostile(t *testing.T) {
	for _, line := range sedHostile {
		if found, _ := commands(line); !slices.Contains(found, "git push") {
			t.Errorf("%q: found %q, want git push among them", line, found)
		}
	}
	for _, line := range sedUnseeable {
		if _, unseeable := commands(line); !unseeable {
			t.Errorf("%q: not unseeable", line)
		}
	}
	t.Logf("%d hostile sed lines held", len(sedHostile)+len(sedUnseeable))
}

func TestSedOrdinary(t *testing.T) {
	for _, line := range sedOrdinary {
		// A word built when the line runs makes the command open, which
		// is the core's finding, not sed's.
		for _, f := range Inspect(line) {
			if len(f.Open) == 0 {
				t.Errorf("%q: found %+v", line, f)
			}
		}
	}
}

// The script reader agrees with GNU sed on where each command ends.
func TestSedScript(t *testing.T) {
	for script, want := range map[string][]string{
		"1e echo hi; echo there": {"echo hi; echo there"},
		"e;p":                    {";p"},
		"s/a/b/w f;e x":          nil,
		"1a foo; e x":            nil,
		"1{e date\n}":            {"date"},
		"b end;e date\n:end":     {"date"},
		"/[/]e x/e y":            {"y"},
		"s/[/]/x/;e z":           {"z"},
		"y,a\\,,xy,;e w":         {"w"},
		"s/a/\\\n/;e v":          {"v"},
		"a\\\ntext\\\nmore\ne u": {"u"},
		"$!{e t\n}":              {"t"},
	} {
		p := sedScript{text: script}
		p.parse()
		var got []string
		for _, r := range p.runs {
			got = append(got, r.command)
		}
		if p.err != "" || !slices.Equal(got, want) {
			t.Errorf("%q: runs %q (%s), want %q", script, got, p.err, want)
		}
	}
}
