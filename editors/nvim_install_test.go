//go:build unix

package editors_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The Neovim plugin installed the ways docs/editors.md gives (issue 27,
// point 6), each then used with no setup{}: Neovim 0.11+'s
// vim.lsp.enable('codewhale_ls') alone must find lsp/codewhale_ls.lua on
// 'runtimepath', attach codewhale-ls to a broken permissions.toml and
// show its diagnostic. In real Neovim 0.12 (the sid root), by
// testdata/nvim/install.lua.

// installSeen is what install.lua saw.
type installSeen struct {
	Command     int // exists(':Codewhale'): 2 for a user command
	Version     string
	LSPFiles    []string `json:"lsp_files"`
	Help        []string
	Clients     []struct{ Name, Root string }
	Diagnostics []struct {
		Code, Source string
		Lnum         int
	}
}

// runInstall runs install.lua as the user's init.lua with CWLS_CASE=kind;
// the Codewhale home's permissions.toml is broken (newNvimWorld).
func (w *nvimWorld) runInstall(t *testing.T, kind string, extraEnv []string) installSeen {
	t.Helper()
	var res installSeen
	w.runArgs(t, []string{"--headless", "-u", w.guest(filepath.Join(w.dir, "scripts", "install.lua"))}, "install.lua", kind, extraEnv, &res)
	return res
}

// check judges what install.lua saw; the plugin's lsp/codewhale_ls.lua
// must be the one under pluginDir (as the editor sees it).
func (res installSeen) check(t *testing.T, w *nvimWorld, pluginDir string) {
	t.Helper()
	if res.Command != 2 {
		t.Errorf(":Codewhale does not exist (exists() = %d): plugin/codewhale.lua was not loaded", res.Command)
	}
	if !regexp.MustCompile(`^\d+\.\d+\.\d+`).MatchString(res.Version) {
		t.Errorf("require('codewhale').version: %q", res.Version)
	}
	if len(res.LSPFiles) != 1 || !strings.HasPrefix(res.LSPFiles[0], pluginDir+"/") {
		t.Errorf("lsp/codewhale_ls.lua on 'runtimepath': %q, want one, under %s", res.LSPFiles, pluginDir)
	}
	if len(res.Help) != 1 {
		t.Errorf("doc/codewhale.txt on 'runtimepath': %q, want one", res.Help)
	}
	// The home's workspace is the home itself: it is in no git repository.
	home := w.guest(filepath.Join(w.dir, "home", ".codewhale"))
	if len(res.Clients) != 1 || res.Clients[0].Name != "codewhale_ls" || res.Clients[0].Root != home {
		t.Errorf("clients attached to permissions.toml: %+v, want codewhale_ls for %s", res.Clients, home)
	}
	found := false
	for _, d := range res.Diagnostics {
		found = found || (d.Code == "CW208" && d.Lnum == 2 && d.Source == "codewhale")
	}
	if !found {
		t.Errorf("no CW208 on line 2 of the broken permissions.toml: %+v", res.Diagnostics)
	}
}

func TestNeovimInstall(t *testing.T) {
	nv := sidNeovim(t)
	t.Run("on the runtimepath", func(t *testing.T) {
		w := newNvimWorld(t, nv)
		w.runInstall(t, "plain", nil).check(t, w, w.guest(filepath.Join(w.dir, "plugin")))
	})
	t.Run("the rock, as rocks.nvim installs it", func(t *testing.T) {
		luarocks := requireTool(t, "luarocks", ".ci/setup-nvim.sh (apt-get install luarocks)")
		w := newNvimWorld(t, nv)
		// rocks.nvim's tree: stdpath('data')/rocks, built for Lua 5.1.
		rocks := filepath.Join(w.dir, "data", "nvim", "rocks")
		specs, err := filepath.Glob(filepath.Join("nvim", "*.rockspec"))
		if err != nil || len(specs) != 1 {
			t.Fatalf("editors/nvim holds rockspecs %q, want one", specs)
		}
		cmd := exec.Command(luarocks, "--lua-version=5.1", "make", "--tree", rocks, filepath.Base(specs[0]))
		cmd.Dir = "nvim"
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("luarocks make: %v\n%s", err, out)
		}
		// The builtin build found every module of lua/.
		modules, err := filepath.Glob(filepath.Join("nvim", "lua", "codewhale", "*.lua"))
		if err != nil || len(modules) == 0 {
			t.Fatalf("the plugin's modules: %q, %v", modules, err)
		}
		for _, m := range modules {
			if _, err := os.Stat(filepath.Join(rocks, "share", "lua", "5.1", "codewhale", filepath.Base(m))); err != nil {
				t.Errorf("the rock lacks the module %s: %v", m, err)
			}
		}
		res := w.runInstall(t, "rock", []string{"CWLS_ROCKS=" + w.guest(rocks)})
		res.check(t, w, w.guest(filepath.Join(rocks, "lib", "luarocks", "rocks-5.1", "codewhale.nvim")))
	})
	t.Run("lazy.nvim, the branch nvim", func(t *testing.T) {
		lazy := os.Getenv("CODEWHALE_LAZY_NVIM")
		if lazy == "" {
			// Not a failure under CODEWHALE_E2E=1: CI cannot fetch
			// lazy.nvim (no GitHub there), and it is not vendored.
			t.Skip("CODEWHALE_LAZY_NVIM names no lazy.nvim (a checkout's tree, with lua/lazy/init.lua)")
		}
		if _, err := os.Stat(filepath.Join(lazy, "lua", "lazy", "init.lua")); err != nil {
			t.Fatalf("CODEWHALE_LAZY_NVIM: %v", err)
		}
		git := requireTool(t, "git", "apt-get install git")
		if _, err := os.Stat(filepath.Join(nv.chroot, "usr", "bin", "git")); err != nil {
			skipOrFail(t, "lazy.nvim clones with git, which the Neovim's root lacks (%v)", err)
		}
		w := newNvimWorld(t, nv)
		// A repository of this tree's plugin and script, mirrored by the
		// script into a bare repository, the remote lazy.nvim clones.
		src := filepath.Join(w.dir, "src")
		copyTree(t, "nvim", filepath.Join(src, "editors", "nvim"))
		copyFile(t, filepath.Join("..", "tools", "nvim-mirror.sh"), filepath.Join(src, "tools", "nvim-mirror.sh"), 0o755)
		mirror := filepath.Join(w.dir, "mirror.git")
		runGit := func(dir string, args ...string) string {
			t.Helper()
			cmd := exec.Command(git, append([]string{"-c", "user.name=codewhale test", "-c", "user.email=test@codewhale.invalid", "-c", "init.defaultBranch=main"}, args...)...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("git %q: %v\n%s", args, err, out)
			}
			return strings.TrimSpace(string(out))
		}
		runGit(w.dir, "init", "--quiet", src)
		runGit(src, "add", ".")
		runGit(src, "commit", "--quiet", "-m", "the plugin")
		runGit(w.dir, "init", "--quiet", "--bare", mirror)
		cmd := exec.Command(filepath.Join(src, "tools", "nvim-mirror.sh"), "--push", mirror)
		cmd.Dir = src
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("tools/nvim-mirror.sh --push: %v\n%s", err, out)
		}
		split := strings.TrimSpace(string(out))
		if branch := runGit(mirror, "rev-parse", "refs/heads/nvim"); branch != split {
			t.Errorf("the branch nvim is %s, the split %s", branch, split)
		}
		tags := runGit(mirror, "tag", "--points-at", split)
		if !regexp.MustCompile(`^nvim-v\d+\.\d+\.\d+$`).MatchString(tags) {
			t.Errorf("tags of the split: %q, want nvim-vVERSION", tags)
		}
		if tree := strings.Split(runGit(mirror, "ls-tree", "--name-only", split), "\n"); !slices.Contains(tree, "lsp") || !slices.Contains(tree, "plugin") || !slices.Contains(tree, "lua") {
			t.Errorf("the branch nvim's root: %q, want the plugin's tree", tree)
		}
		copyTree(t, lazy, filepath.Join(w.dir, "lazy.nvim"))
		res := w.runInstall(t, "lazy", []string{"CWLS_LAZY=" + w.guest(filepath.Join(w.dir, "lazy.nvim")), "CWLS_MIRROR=" + w.guest(mirror)})
		res.check(t, w, w.guest(filepath.Join(w.dir, "data", "nvim", "lazy", "codewhale-ls")))
	})
}
