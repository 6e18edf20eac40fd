package secrets

import (
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/secrets/secretstest"
)

// The corpus and its alphabets (gate/secrets/secretstest).
const (
	alnum     = secretstest.Alnum
	base64url = secretstest.Base64URL
)

var (
	fake   = secretstest.Fake
	tokens = secretstest.Tokens
)

func TestMaskRealisticCommands(t *testing.T) {
	ghp := "ghp_" + fake(1, alnum, 36)
	awsSecret := fake(2, alnum+"/+", 40)
	pem := fake(3, alnum, 64) + "\n" + fake(4, alnum, 30)
	jwt := "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjM0In0." + fake(5, base64url, 43)
	cases := []struct {
		command, want string
		found         int
	}{
		{`curl -H "Authorization: token ` + ghp + `" https://api.github.com/user`,
			`curl -H "Authorization: token ⟪secret: github token⟫" https://api.github.com/user`, 1},
		{`AWS_SECRET_ACCESS_KEY=` + awsSecret + ` aws s3 ls s3://bucket`,
			`AWS_SECRET_ACCESS_KEY=⟪secret: aws secret access key⟫ aws s3 ls s3://bucket`, 1},
		{`mysql -uroot -phunter2 db`, `mysql -uroot -p⟪secret: mysql password⟫ db`, 1},
		{`mysqldump --user=root --password=hunter2 db > db.sql`, `mysqldump --user=root --password=⟪secret: password⟫ db > db.sql`, 1},
		{`git clone https://u:p4ss@host.example/r.git`, `git clone https://u:⟪secret: url password⟫@host.example/r.git`, 1},
		{"echo \"-----BEGIN OPENSSH PRIVATE KEY-----\n" + pem + "\n-----END OPENSSH PRIVATE KEY-----\" > ~/.ssh/id", `echo "⟪secret: private key⟫" > ~/.ssh/id`, 1},
		{"cat <<EOF\n-----BEGIN RSA PRIVATE KEY-----\n" + pem, "cat <<EOF\n⟪secret: private key⟫", 1},
		{`curl -H 'Authorization: Bearer ` + jwt + `' https://api.example.com`, `curl -H 'Authorization: Bearer ⟪secret: jwt⟫' https://api.example.com`, 1},
		{`GITHUB_TOKEN=abc123def npm publish`, `GITHUB_TOKEN=⟪secret: token⟫ npm publish`, 1},
		{`curl "https://api.example.com/v1?api_key=k3y&page=2"`, `curl "https://api.example.com/v1?api_key=⟪secret: api key⟫&page=2"`, 1},
		{`DB_PASSWORD='s3cr3t pass' ./run.sh`, `DB_PASSWORD=⟪secret: password⟫ ./run.sh`, 1},
		{`psql "postgres://app:pw@db:5432/app?sslmode=require"`, `psql "postgres://app:⟪secret: url password⟫@db:5432/app?sslmode=require"`, 1},
	}
	for _, c := range cases {
		got, found := Mask(c.command)
		if got != c.want || found != c.found {
			t.Errorf("Mask(%q)\n = %q, %d\nwant %q, %d", c.command, got, found, c.want, c.found)
		}
	}
}

func TestMaskEveryShape(t *testing.T) {
	for _, tok := range tokens(42) {
		command := "run --flag " + tok.Text + " && echo done"
		got, found := Mask(command)
		if strings.Contains(got, tok.Secret) || found == 0 {
			t.Errorf("%s not masked (%d found): %q", tok.Kind, found, got)
		}
		if !strings.Contains(got, Placeholder(tok.Kind)) {
			t.Errorf("%s: no %q in %q", tok.Kind, Placeholder(tok.Kind), got)
		}
		if !strings.HasPrefix(got, "run --flag ") || !strings.HasSuffix(got, " && echo done") {
			t.Errorf("%s: the rest of the command was not kept: %q", tok.Kind, got)
		}
	}
}

// TestMaskKeepsOrdinaryCommands: commands holding no secret pass
// unchanged, hashes and UUIDs included.
func TestMaskKeepsOrdinaryCommands(t *testing.T) {
	for _, command := range []string{
		"git log --oneline -20 --format=%H",
		"git checkout 6cfb3d5e8f7a9b0c1d2e3f4a5b6c7d8e9f0a1b2c",
		"git show 88242a3e00c2a3f1b2c3d4e5f60718293a4b5c6d:README.md",
		"git push origin HEAD:refs/heads/feature --force-with-lease",
		"git clone git@github.com:codewhale-ls/codewhale-ls.git",
		"git clone https://github.com/codewhale-ls/codewhale-ls.git",
		"cargo build --release --features tokio/full",
		"cargo test -p my-crate -- --nocapture",
		"npm install --save-dev typescript@5.4.2",
		"npm run build -- --token-file=./ci/token.txt",
		"make -j4 CC=clang PREFIX=/usr/local",
		"ls -la --color=auto /home/user/.config",
		"mkdir -p build/out && cp -pr src build/out",
		"ssh -p 2222 user@host.example.com",
		"docker run --rm -e TOKEN_FILE=/run/secrets/token -v $PWD:/src image:1.2",
		"export PATH=$HOME/bin:$PATH PWD=/tmp OLDPWD=/home",
		"curl -H \"Authorization: Bearer $TOKEN\" https://api.example.com",
		"kubectl get secret my-secret -o yaml",
		"echo 550e8400-e29b-41d4-a716-446655440000",
		"sha256sum dist/app.tar.gz # e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"go test -race ./gate/secrets -run TestMask",
		"python3 -m pytest tests/test_password_reset.py -k token",
		"grep -rn 'password' src/ | head",
		"curl http://localhost:8080/health",
		"curl http://localhost:8080/users/@me",
		"git clone ssh://git@github.com:22/org/repo.git",
		"npm install git+https://github.com/a/b.git#v1 @scope/pkg@1.2.3",
		"TOKEN=$(cat ~/.token) ./deploy.sh",
		"mysql -u root -p db",
	} {
		if got, found := Mask(command); got != command || found != 0 {
			t.Errorf("Mask(%q) = %q, %d; want it unchanged", command, got, found)
		}
	}
}

// FuzzMask embeds a generated token of every shape in fuzzed text: the
// token's secret part never survives, and masking twice is masking once.
func FuzzMask(f *testing.F) {
	f.Add("curl -H", "https://api.github.com", uint64(1))
	f.Add("password=", "@host", uint64(2))
	f.Add("Authorization: Bearer", "'", uint64(3))
	f.Add("mysql -p", "-----BEGIN RSA PRIVATE KEY-----", uint64(4))
	f.Add("https://u:", "⟪secret: x⟫", uint64(5))
	f.Fuzz(func(t *testing.T, before, after string, seed uint64) {
		for _, tok := range tokens(seed) {
			if strings.Contains(before, tok.Secret) || strings.Contains(after, tok.Secret) {
				continue
			}
			text := before + " " + tok.Text + " " + after
			masked, _ := Mask(text)
			if strings.Contains(masked, tok.Secret) {
				t.Fatalf("%s survived: Mask(%q) = %q", tok.Kind, text, masked)
			}
			if again, n := Mask(masked); again != masked || n != 0 {
				t.Fatalf("not idempotent (%d more): Mask(%q) = %q", n, masked, again)
			}
		}
		masked, _ := Mask(before + after)
		if again, _ := Mask(masked); again != masked {
			t.Fatalf("not idempotent: Mask(%q) = %q", masked, again)
		}
	})
}

// BenchmarkMask1MiB masks one 1 MiB line of ordinary shell words holding
// secrets and the literal of every shape, so that every pattern scans it
// all: the worst cost of a command a card can show.
func BenchmarkMask1MiB(b *testing.B) {
	var line strings.Builder
	words := []string{"git", "log", "--format=%H", "6cfb3d5e8f7a9b0c1d2e3f4a5b6c7d8e9f0a1b2c", "cargo", "build", "-p", "x", "password=p", "https://h/x?token=t"}
	for _, tok := range tokens(7) {
		words = append(words, strings.ReplaceAll(tok.Text, "\n", " "))
	}
	for i := 0; line.Len() < 1<<20; i++ {
		line.WriteString(words[i%len(words)])
		line.WriteByte(' ')
	}
	text := line.String()
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		Mask(text)
	}
}

// BenchmarkMaskCommand masks a command of ordinary length holding a
// token: what the decision log adds to a decision a person answered.
func BenchmarkMaskCommand(b *testing.B) {
	command := `curl -H "Authorization: token ghp_` + fake(9, alnum, 36) + `" https://api.github.com/repos/o/r/pulls?state=open`
	for b.Loop() {
		Mask(command)
	}
}
