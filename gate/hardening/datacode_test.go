package hardening

import (
	"slices"
	"testing"
)

// Data bash evaluates as code (issue 23, point 1): each form runs the
// command in its subscript, prompt or code string, and Inspect finds it;
// where the data is only known when the line runs, it is unseeable.
func TestInspectFindsDataBashRunsAsCode(t *testing.T) {
	for line, want := range map[string]string{
		`printf -v 'a[$(git push)]' x`:                        "git push",
		`printf -v "a[\$(git push)]" x`:                       "git push",
		`printf -v 'a[` + "`git push`" + `]' x`:               "git push",
		`read 'a[$(git push)]' <<< 1`:                         "git push",
		`read -a 'a[$(git push)]' <<< 1`:                      "git push",
		`declare 'a[$(git push)]=1'`:                          "git push",
		`typeset 'a[$(git push)]=1'`:                          "git push",
		`local 'a[$(git push)]'`:                              "git push",
		`export 'a[$(git push)]=1'`:                           "git push",
		`readonly 'a[$(git push)]=1'`:                         "git push",
		`test -v 'a[$(git push)]'`:                            "git push",
		`[ -v 'a[$(git push)]' ]`:                             "git push",
		`[[ -v 'a[$(git push)]' ]]`:                           "git push",
		`x='a[$(git push)]'; [[ -v $x ]]`:                     "git push",
		`x='a[$(git push)]'; [[ $x -eq 0 ]]`:                  "git push",
		`x='a[$(git push)]'; [[ 1 -lt "$x" ]]`:                "git push",
		`[[ 'a[$(git push)]' -gt 0 ]]`:                        "git push",
		`x='a[$(git push)]'; echo $((x))`:                     "git push",
		`x='a[$(git push)]'; echo $(( x + 1 ))`:               "git push",
		`x='a[$(git push)]'; (( x ))`:                         "git push",
		`x='a[$(git push)]'; let x+1`:                         "git push",
		`x='a[$(git push)]'; echo ${a[x]}`:                    "git push",
		`x='a[$(git push)]'; echo ${s:x}`:                     "git push",
		`x='a[$(git push)]'; for ((i=x;i<1;i++)); do :; done`: "git push",
		`x=y; y='a[$(git push)]'; echo $((x))`:                "git push",
		`let 'a[$(git push)]'`:                                "git push",
		`let "a[\$(git push)]=1"`:                             "git push",
		`x='$(git push)'; echo ${x@P}`:                        "git push",
		"x='`git push`'; echo ${x@P}":                         "git push",
		`PS4='$(git push)'; set -x; true`:                     "git push",
		`PS1='$(git push)'`:                                   "git push",
		`PROMPT_COMMAND='git push'`:                           "git push",
		`trap 'git push' EXIT`:                                "git push",
		`trap -- 'git push' INT TERM`:                         "git push",
		`f() { git "$@"; }; f push`:                           "git",
		`hash -p /usr/bin/git ls; ls push`:                    "/usr/bin/git push",
		`unset 'a[$(git push)]'`:                              "git push",
		`unset -v 'a[$(git push)]'`:                           "git push",
		`declare -i n; n='a[$(git push)]'`:                    "git push",
		`declare -i n='a[$(git push)]'`:                       "git push",
		`declare -n r='a[$(git push)]'`:                       "git push",
		`y='a[$(git push)]'; echo ${!y}`:                      "git push",
		`mapfile -C 'git push' -c 1 a <<< x`:                  "git push 0 ''",
		`readarray -O 'a[$(git push)]' a <<< x`:               "git push",
		`wait -p 'a[$(git push)]'`:                            "git push",
		`getopts ab 'a[$(git push)]'`:                         "git push",
		`complete -C 'git push' x`:                            "git push",
		`echo 'a[$(git push)]' | { read x; echo $((x)); }`:    "git push",
		`read x <<< 'a[$(git push)]'; echo $((x))`:            "git push",
		`printf -v x 'a[$(git push)]'; echo $((x))`:           "git push",
	} {
		if found, _ := commands(line); !slices.Contains(found, want) {
			t.Errorf("%q: found %q, want %q among them", line, found, want)
		}
	}
}

func TestInspectHoldsDataOnlyKnownWhenItRuns(t *testing.T) {
	for _, line := range []string{
		`enable -f ./x.so x`,
		`x='a[$(git push)'; echo $((x))`,
	} {
		if _, unseeable := commands(line); !unseeable {
			t.Errorf("%q: not unseeable", line)
		}
	}
}

// Ordinary arithmetic, tests and declarations find nothing to run.
func TestInspectLeavesOrdinaryArithmeticAlone(t *testing.T) {
	for _, line := range []string{
		`x=1; echo $((x+1))`, `i=0; while [[ $i -lt 3 ]]; do i=$((i+1)); done`, `declare -i n=5`,
		`printf -v now '%(%s)T' -1`, `read -r a b <<< "1 2"`, `[[ -v HOME ]]`, `test -v PATH`,
		`let i=i+1`, `export PATH=/usr/bin:$PATH`, `trap - EXIT`, `trap -p`, `unset x y`,
		`arr=(a b); echo ${arr[1]}`, `x=abc; echo ${x:1:1}`, "PS1=\"`hostname`:\\!>\"", `read -e -p "${myprompt@P}"`, `echo ${!y}`,
	} {
		found, unseeable := commands(line)
		for _, f := range found {
			if f == "git push" {
				t.Errorf("%q: found %q", line, found)
			}
		}
		if unseeable {
			t.Errorf("%q: unseeable", line)
		}
	}
}
