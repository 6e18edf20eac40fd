// Package secretstest is the corpus of secret shapes gate/secrets masks,
// for the tests that prove no token reaches an output: the masker's own
// and those that run a real process (a hook writing its receipt).
package secretstest

import "math/rand/v2"

// Alphabets the fakes are drawn from.
const (
	Alnum     = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	UpperNum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0234567"
	Base64URL = Alnum + "-_"
)

// Fake is n characters of alphabet drawn from seed: format-valid, never a
// real secret. Tokens are built at run time so no token-shaped literal
// sits in the repository.
func Fake(seed uint64, alphabet string, n int) string {
	r := rand.New(rand.NewPCG(seed, 26))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// Token is one secret of a kind, as it appears in text (whole), and the
// part of it that must never survive masking.
type Token struct {
	Kind, Text, Secret string
}

// Tokens are one fake of every shape gate/secrets masks, drawn from seed.
func Tokens(seed uint64) []Token {
	f := func(alphabet string, n int) string { seed++; return Fake(seed, alphabet, n) }
	whole := func(kind, text string) Token { return Token{kind, text, text} }
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJ" + f(Base64URL, 40) + "." + f(Base64URL, 43)
	pem := f(Alnum, 64) + "\n" + f(Alnum, 64) + "\n" + f(Alnum, 20)
	pw, awsSecret, query, hook := f(Alnum, 14), f(Alnum, 40), f(Alnum, 24), f(Alnum, 24)
	basic, urlPass, bearer := f(Alnum, 16), f(Alnum, 12), f(Base64URL, 30)
	return []Token{
		whole("github token", "ghp_"+f(Alnum, 36)),
		whole("github token", "gho_"+f(Alnum, 36)),
		whole("github token", "ghu_"+f(Alnum, 36)),
		whole("github token", "ghs_"+f(Alnum, 36)),
		whole("github token", "ghr_"+f(Alnum, 36)),
		whole("github token", "github_pat_"+f(Alnum, 22)+"_"+f(Alnum, 59)),
		whole("gitlab token", "glpat-"+f(Base64URL, 20)),
		whole("aws access key id", "AKIA"+f(UpperNum, 16)),
		whole("aws access key id", "ASIA"+f(UpperNum, 16)),
		whole("google api key", "AIza"+f(Base64URL, 35)),
		whole("slack token", "xoxb-"+f("0123456789", 12)+"-"+f("0123456789", 13)+"-"+f(Alnum, 24)),
		whole("slack token", "xoxp-"+f("0123456789", 12)+"-"+f(Alnum, 30)),
		{"slack webhook", "https://hooks.slack.com/services/T" + f(UpperNum, 8) + "/B" + f(UpperNum, 8) + "/" + hook, hook},
		whole("stripe key", "sk_live_"+f(Alnum, 24)),
		whole("stripe key", "rk_live_"+f(Alnum, 24)),
		whole("stripe key", "sk_test_"+f(Alnum, 24)),
		whole("npm token", "npm_"+f(Alnum, 36)),
		whole("jwt", jwt),
		{"private key", "-----BEGIN OPENSSH PRIVATE KEY-----\n" + pem + "\n-----END OPENSSH PRIVATE KEY-----", pem},
		{"aws secret access key", "AWS_SECRET_ACCESS_KEY=" + awsSecret, awsSecret},
		{"password", "password=" + pw, pw},
		{"token", "https://example.com/api?user=me&access_token=" + query, query},
		{"authorization", "Authorization: Basic " + basic, basic},
		{"authorization", "authorization: Bearer " + bearer, bearer},
		{"mysql password", "mysql -u root -p" + pw + "x", pw + "x"},
		{"url password", "https://deploy:" + urlPass + "@git.example.com/r.git", urlPass},
	}
}
