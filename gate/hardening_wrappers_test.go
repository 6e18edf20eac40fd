package gate

import (
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// TestHardeningHoldsWrappersNamesAndRm: issue 23's points 6, 7 and 9,
// forms of each held under Full Access at every release (deny rules for
// git push, cargo publish and rm -rf /): wrappers with their own
// options, the program under another name, rm's option prefixes and
// operands naming /.
func TestHardeningHoldsWrappersNamesAndRm(t *testing.T) {
	forms := []string{
		"taskset -c 0 rm -fr /",
		"taskset 0x3 git push",
		"sudo nice -n 5 taskset -c 0 git push",
		"flock /tmp/lock -c 'git push'",
		"flock -n /tmp/lock git push",
		"script -qc 'git push' /dev/null",
		"unshare -r git push",
		"chroot --userspec=a:b / git push",
		"setpriv --reuid=1000 git push",
		"prlimit --nofile=10 git push",
		"runuser -u x -- git push",
		"su - root -c 'git push'",
		"strace -f -o /dev/null -e trace=all git push",
		"ltrace -o x cargo publish",
		"fakeroot -- cargo publish",
		"env --split-string='git push'",
		"env -S 'A=1 git push'",
		"valgrind --tool=none git push",
		"watch -n 1 'git push'",
		"busybox rm -fr /",
		"parallel git ::: push",
		"faketime '2020-01-01' git push",
		"bwrap --bind / / git push",
		"nsenter -t 1 -m git push",
		"ip netns exec ns git push",
		"echo git push | sudo bash",
		"git-push origin",
		"/usr/lib/git-core/git-push",
		"cargo +nightly publish",
		"rustup run nightly cargo publish",
		"/lib64/ld-linux-x86-64.so.2 /usr/bin/git push",
		"git -c alias.x=push -c alias.y=x y",
		"V=push git --config-env=alias.x=V x",
		"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0=push git x",
		"GIT_CONFIG_PARAMETERS=\"'alias.x'='push'\" git x",
		"CARGO_ALIAS_X=publish cargo x",
		"cargo --config 'alias.x=\"publish\"' x",
		"ln -s \"$(command -v git)\" g; ./g push",
		"git config alias.x push; git x",
		"printf '[alias]\\n\\tx = push\\n' > c; GIT_CONFIG_GLOBAL=./c git x",
		"printf '[alias]\\n\\tx = push\\n' > c; git -c include.path=$PWD/c x",
		"mkdir -p .cargo; printf '[alias]\\np = \"publish\"\\n' > .cargo/config.toml; cargo p",
		"cp /bin/rm ./r; ./r -rf /",
		"rm --r --f /",
		"rm --recur --forc /",
		"rm -rf //",
		"rm -rf /.",
		"rm -rf /*",
		"rm -rf /usr/..",
		"rm -rf /tmp/x /",
		"rm / -rf",
	}
	for _, version := range hardeningReleases {
		fx := load(t, files{permissions: hardeningRules, git: true, release: version}).noFatal(t)
		through := 0
		for _, cmd := range forms {
			req := withPosture(fx.call("exec_shell", map[string]any{"command": cmd}), session.FullAccess)
			if d := fx.decide(t, req, Deps{}); d.Decision == Allow {
				t.Errorf("%s: hardened, %q is allowed: %s", version, short(cmd), d.Reason)
			}
			if exact := fx.decide(t, req, Deps{Exact: true}); exact.Decision == Allow {
				through++
			}
		}
		t.Logf("Codewhale %s: %d of %d wrapper, name and rm forms get through exact", version, through, len(forms))
	}
}
