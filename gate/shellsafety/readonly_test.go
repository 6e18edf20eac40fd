package shellsafety

import "testing"

// The strict read-only classifier (docs/codewhale/pipeline.md §4.2 bash row, §6.2 Shell
// risk). The spec names no vectors beyond the ones in the task brief; the
// rest are our own edges of the rules documented on ReadOnly.
func TestReadOnly(t *testing.T) {
	tests := []struct {
		command string
		want    bool
	}{
		// Required by the brief.
		{"ls", true},
		{"git status --porcelain", true},
		{"codewhale --version", true},
		{"cargo test", false},
		{"rm -rf /", false},
		{"git push origin main", false},
		{"ls > f", false},
		{"cat $(x)", false},
		{"git branch -D x", false},
		{"sudo ls", false},

		// Plain read-only programs and pipelines.
		{"  ls -la src  ", true},
		{"cat README.md | head -n 5", true},
		{"grep -rn TODO . | sort | uniq -c | wc -l", true},
		{"rg --files", true},
		{"find . -name '*.go' -type f", true},
		{"ls *.go", true},
		{"echo 'a;b && c > d'", true},
		{`echo "quoted | pipe"`, true},
		{"env", true},
		{"date +%Y-%m-%d", true},
		{"tree -L 2", true},
		{"sort -r -k2 names.txt", true},
		{"uniq -f 1 names.txt", true},
		{"python3 -V", true},
		{"make --help", true},
		{"cat ~/.ssh/id_rsa", true}, // reading is read-only; exfiltration needs another program

		// Chaining, redirection, substitution, expansion, control bytes.
		{"ls; rm x", false},
		{"ls && pwd", false},
		{"ls || pwd", false},
		{"ls &", false},
		{"ls |& cat", false},
		{"cat < f", false},
		{"cat <(ls)", false},
		{"ls 2>/dev/null", false},
		{"echo `id`", false},
		{"echo $HOME", false},
		{`echo "$HOME"`, false},
		{"echo '$HOME'", true},
		{"ls\npwd", false},
		{"ls\r", false},
		{"ls\x00", false},
		{"(ls)", false},
		{"ls |", false},
		{"| ls", false},
		{"", false},
		{"   ", false},
		{"echo 'open", false},

		// Wrappers and unknown programs.
		{"env FOO=1 ls", false},
		{"FOO=1 ls", false},
		{"/bin/ls", false},
		{"./ls", false},
		{"xargs ls", false},
		{"tee out.txt", false},
		{"sed -i s/a/b/ f", false},
		{"awk '{print}' f", false},
		{"less f", false},
		{"./tool --version", false},
		{"codewhale --version --help", false},
		{"rm --version", true},

		// Dangerous options of otherwise read-only programs.
		{"find . -delete", false},
		{"find . -exec rm {} ;", false},
		{"find . -execdir cat {} +", false},
		{"find . -ok rm {} +", false},
		{"find . -fprint out", false},
		{"find . -fls out", false},
		{"find . -name *.go", false}, // glob could expand into -delete
		{"sort -o out f", false},
		{"sort -ro out f", false},
		{"sort --output=out f", false},
		{"sort --out=out f", false}, // GNU abbreviation
		{"sort --compress-program=sh f", false},
		{"uniq in out", false},
		{"tree -o out", false},
		{"tree -R", false},
		{"file -C -m magic", false},
		{"date -s tomorrow", false},
		{"date --set=tomorrow", false},
		{"date 010112002030", false},
		{"date -d tomorrow +%F", true},
		{"rg --pre cat x", false},
		{"rg --pre=cat x", false},
		{"ag --pager less x", false},
		{"env -i ls", false},
		{"cat f | sh", false},

		// git.
		{"git status", true},
		{"git diff HEAD~1", true},
		{"git diff --output=patch.txt", false},
		{"git diff --ext-diff", false},
		{"git log --oneline -5", true},
		{"git log --out=f", false},
		{"git show HEAD:go.mod", true},
		{"git blame main.go", true},
		{"git rev-parse --show-toplevel", true},
		{"git ls-files -m", true},
		{"git describe --tags --dirty", true},
		{"git remote", true},
		{"git remote -v", true},
		{"git remote add x y", false},
		{"git remote show origin", false},
		{"git tag", true},
		{"git tag --list 'v0.8.65'", true},
		{"git tag -l v1", true},
		{"git tag v1", false},
		{"git tag -d v1", false},
		{"git branch", true},
		{"git branch -a -vv", true},
		{"git branch --show-current", true},
		{"git branch --list 'feat*'", true},
		{"git branch --merged main", true},
		{"git branch --contains=HEAD", true},
		{"git branch new-branch", false},
		{"git branch -d x", false},
		{"git branch -m a b", false},
		{"git branch -M b", false},
		{"git branch -c a b", false},
		{"git branch -C b", false},
		{"git branch --delete x", false},
		{"git branch --del x", false},
		{"git branch --move a b", false},
		{"git branch --copy a b", false},
		{"git branch --set-upstream-to=origin/x", false},
		{"git branch -u origin/x", false},
		{"git branch --unset-upstream", false},
		{"git branch -f x HEAD", false},
		{"git branch --force x", false},
		{"git branch --edit-description", false},
		{"git -c core.pager=sh log", false},
		{"git -C /repo status", false},
		{"git commit -m x", false},
		{"git checkout main", false},
		{"git", false},
		{"git --version", true},
	}
	for _, tt := range tests {
		if got := Parse(tt.command).ReadOnly(); got != tt.want {
			t.Errorf("Parse(%q).ReadOnly() = %v, want %v", tt.command, got, tt.want)
		}
	}
}
