package writetarget

import (
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
)

var (
	sensitiveNames = []string{".git", ".codewhale", ".ssh", ".aws", ".gnupg", ".kube", ".docker",
		".netrc", ".npmrc", ".pypirc", ".git-credentials", "credentials"}
	sensitivePrefixes   = []string{".env", "credentials.", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"}
	sensitiveExtensions = []string{"pem", "key", "p12", "pfx", "jks", "keystore"}
)

// sensitive is the carve-out's name test of one path component, ASCII
// case-insensitive. The extension is what follows the last dot of a name
// that does not start with it, as Rust's Path::extension reads it: `.pem`
// has none, `a.b.pem` has pem.
func sensitive(name string) bool {
	n := ascii.Lower(name)
	if slices.Contains(sensitiveNames, n) {
		return true
	}
	if slices.ContainsFunc(sensitivePrefixes, func(p string) bool { return strings.HasPrefix(n, p) }) {
		return true
	}
	dot := strings.LastIndexByte(n, '.')
	return dot > 0 && slices.Contains(sensitiveExtensions, n[dot+1:])
}
