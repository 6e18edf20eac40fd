// Package secrets masks well-known secret shapes in text before it is
// written or shown anywhere but the approval card (issue 26, "Secrets
// stay out"): tokens of GitHub, GitLab, AWS, Google, Slack, Stripe and
// npm, JWTs, PEM private key blocks, password/token assignments,
// Authorization headers, mysql's -p and credentials in URLs.
//
// Every pattern is a Go regexp (RE2: time linear in the input, no
// catastrophic backtracking), so a 1 MiB command costs one pass per
// pattern, and a pattern whose literal hint is absent costs nothing.
package secrets

import (
	"regexp"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// placeholderPrefix starts every mask. It uses Visible's escape marks so a
// masked value reads like the card's other escapes, and text shown by
// problem.Visible cannot forge one (Visible escapes these marks).
const placeholderPrefix = problem.EscapeOpen + "secret: "

// Placeholder is what replaces a secret of kind: it names the kind and
// keeps nothing of the value.
func Placeholder(kind string) string {
	return placeholderPrefix + kind + problem.EscapeClose
}

// shape is one kind of secret: re finds it, group is the submatch that is
// the secret itself (0: the whole match), hints are lower-case literals
// one of which any match contains (a text without them is skipped), and
// kind names it; needs is a literal every match holds besides. A shape
// with scan masks by that scanner instead.
type shape struct {
	kind  string
	re    *regexp.Regexp
	group int
	hints []string
	needs string
	scan  func(string) (string, int)
}

// value is the secret part of an assignment or mysql's -p: quoted, or a
// word. It never starts with a placeholder's mark (so Mask is idempotent)
// or a '$' (a variable reference holds no secret). valueEnd scans the
// same grammar by hand.
const value = `("[^"$` + problem.EscapeOpen + `][^"]*"|'[^'$` + problem.EscapeOpen + `][^']*'|[^\s&;|'"$` + problem.EscapeOpen + `][^\s&;|'"]*)`

// shapes are tried in order: the private key block first (it swallows
// whatever it holds), then self-describing tokens, then the contextual
// shapes, whose value may already be a token's placeholder; the header
// last, as its value is a whole word that could be another shape's start.
var shapes = []shape{
	{kind: "private key", hints: []string{"private key-----"},
		// A block cut short (a capped text) is masked to the end.
		re: regexp.MustCompile(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY-----|[\s\S]*)`)},
	{kind: "github token", hints: []string{"gh", "github_pat_"},
		re: regexp.MustCompile(`gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255}`)},
	{kind: "gitlab token", hints: []string{"glpat-"},
		re: regexp.MustCompile(`glpat-[A-Za-z0-9_-]{20,}`)},
	{kind: "aws access key id", hints: []string{"akia", "asia"},
		re: regexp.MustCompile(`(?:AKIA|ASIA)[A-Z0-9]{16}`)},
	{kind: "google api key", hints: []string{"aiza"},
		re: regexp.MustCompile(`AIza[0-9A-Za-z_-]{35}`)},
	{kind: "slack token", hints: []string{"xox"},
		re: regexp.MustCompile(`xox[baprs]-[A-Za-z0-9-]{10,}`)},
	{kind: "slack webhook", hints: []string{"hooks.slack.com"}, group: 1,
		re: regexp.MustCompile(`hooks\.slack\.com/(?:services|workflows)/([A-Za-z0-9_/-]+)`)},
	{kind: "stripe key", hints: []string{"_live_", "_test_"},
		re: regexp.MustCompile(`(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}`)},
	{kind: "npm token", hints: []string{"npm_"},
		re: regexp.MustCompile(`npm_[A-Za-z0-9]{36}`)},
	{kind: "jwt", hints: []string{"eyj"},
		re: regexp.MustCompile(`eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}`)},
	{kind: "mysql password", hints: []string{"mysql", "mariadb"}, group: 1,
		re: regexp.MustCompile(`\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^|;&\n]*?\s-p` + value)},
	{hints: []string{"pass", "pwd", "secret", "token", "key"}, scan: maskAssignments},
	{hints: []string{"://"}, needs: "@", scan: maskURLPasswords},
	{kind: "authorization", hints: []string{"authorization"}, group: 1,
		// A credential holds no ':' and ends the word, so a header's
		// name is never taken for the value of one before it.
		re: regexp.MustCompile(`(?i:authorization)\s*:\s*(?i:bearer|token|basic)\s+([^\s&;|'":$` + problem.EscapeOpen + `][^\s&;|'":]*)(?:$|[\s&;|'"])`)},
}

// assignmentKind names the secret assigned to name (password=, GITHUB_TOKEN=,
// --api_key=), or says it is none: a name ending in _FILE, _PATH, _DIR,
// _URL or _NAME names where a secret is, not the secret, and PWD/OLDPWD
// are the shell's directories.
func assignmentKind(name string) (string, bool) {
	lower := strings.ToLower(name)
	for _, notSecret := range []string{"_file", "_path", "_dir", "_url", "_name", "_id", "_type"} {
		if strings.HasSuffix(lower, notSecret) {
			return "", false
		}
	}
	switch {
	case name == "PWD" || name == "OLDPWD":
		return "", false
	case strings.Contains(lower, "aws_secret_access_key"):
		return "aws secret access key", true
	case strings.Contains(lower, "pass") || strings.Contains(lower, "pwd"):
		return "password", true
	case strings.Contains(lower, "secret"):
		return "secret", true
	case strings.Contains(lower, "token"):
		return "token", true
	}
	return "api key", true
}

// Mask replaces every well-known secret in s by a Placeholder naming its
// kind and returns the result and how many it replaced. Mask(Mask(s)) is
// Mask(s): a placeholder is never masked again.
func Mask(s string) (masked string, found int) {
	// The hints are looked for in s as given: a mask adds no hint a later
	// shape could match (a placeholder starts and ends with marks no hint
	// holds, and its own words are never masked), so none is missed.
	lower := strings.ToLower(s)
	for _, sh := range shapes {
		if !containsAny(lower, sh.hints) || !strings.Contains(lower, sh.needs) {
			continue
		}
		var n int
		if sh.scan != nil {
			s, n = sh.scan(s)
		} else {
			s, n = sh.replace(s)
		}
		found += n

	}
	return s, found
}

func containsAny(s string, hints []string) bool {
	for _, h := range hints {
		if strings.Contains(s, h) {
			return true
		}
	}
	return false
}

// replace masks sh's matches in s: the secret group of each, the rest of
// the match kept (the header's name, the assignment's name, the URL's user).
func (sh shape) replace(s string) (string, int) {
	matches := sh.re.FindAllStringSubmatchIndex(s, -1)
	if matches == nil {
		return s, 0
	}
	var b strings.Builder
	last, n := 0, 0
	for _, m := range matches {
		start, end := m[2*sh.group], m[2*sh.group+1]
		if start < 0 || strings.HasPrefix(s[start:], placeholderPrefix) {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(Placeholder(sh.kind))
		last = end
		n++
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}

// maskAssignments masks the value of every NAME=value whose name says it
// holds a secret (password=, DB_PASSWORD=, --api_key=, ?access_token=).
// A hand scanner rather than a regexp: a name may start anywhere, which
// makes Go's regexp engine crawl (130 ms a MiB); this is one pass, as
// each '=' looks back only over the word just before it.
func maskAssignments(s string) (string, int) {
	var b strings.Builder
	last, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != '=' {
			continue
		}
		nameStart := i
		for nameStart > 0 && isWordByte(s[nameStart-1]) {
			nameStart--
		}
		name := s[nameStart:i]
		if !hasSecretWord(name) {
			continue
		}
		kind, secret := assignmentKind(name)
		end := valueEnd(s, i+1)
		if !secret || end < 0 {
			continue
		}
		b.WriteString(s[last : i+1])
		b.WriteString(Placeholder(kind))
		last, n = end, n+1
		i = end - 1
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// hasSecretWord says whether an assignment's name names a secret:
// password, passwd, secret, token, api_key, apikey, access_key in any
// case, or pwd in lower case (PWD is the shell's directory).
func hasSecretWord(name string) bool {
	if strings.Contains(name, "pwd") {
		return true
	}
	lower := strings.ToLower(name)
	for _, word := range []string{"password", "passwd", "secret", "token", "api_key", "apikey", "access_key", "accesskey"} {
		if strings.Contains(lower, word) {
			return true
		}
	}
	return false
}

// valueEnd is where the value starting at s[start] ends, as the value
// pattern reads it, or -1 when there is none there.
func valueEnd(s string, start int) int {
	rest := s[start:]
	if rest == "" || rest[0] == '$' || strings.HasPrefix(rest, problem.EscapeOpen) {
		return -1
	}
	if q := rest[0]; q == '"' || q == '\'' {
		body := rest[1:]
		if body == "" || body[0] == q || body[0] == '$' || strings.HasPrefix(body, problem.EscapeOpen) {
			return -1
		}
		closing := strings.IndexByte(body, q)
		if closing < 0 {
			return -1
		}
		return start + 1 + closing + 1
	}
	end := strings.IndexAny(rest, " \t\n\f\r&;|'\"")
	if end == 0 {
		return -1
	}
	if end < 0 {
		return len(s)
	}
	return start + end
}

// maskURLPasswords masks the password of every URL with credentials
// (scheme://user:password@host). A scanner from each "://", as a regexp
// whose scheme may start anywhere crawls (90 ms a MiB): the user ends at
// the first of whitespace, ':', '/' or '@', the password at whitespace,
// '/' or '@', and only an '@' there makes them credentials.
func maskURLPasswords(s string) (string, int) {
	var b strings.Builder
	last, n := 0, 0
	for i := 0; ; {
		at := strings.Index(s[i:], "://")
		if at < 0 {
			break
		}
		user := i + at + len("://")
		i = user
		userLen := strings.IndexAny(s[user:], " \t\n\f\r:/@")
		if userLen <= 0 || s[user+userLen] != ':' {
			continue
		}
		password := s[user+userLen+1:]
		passwordLen := strings.IndexAny(password, " \t\n\f\r/@")
		if passwordLen <= 0 || password[passwordLen] != '@' || strings.HasPrefix(password, problem.EscapeOpen) {
			continue
		}
		start := user + userLen + 1
		b.WriteString(s[last:start])
		b.WriteString(Placeholder("url password"))
		last, n = start+passwordLen, n+1
		i = last
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}
