package main

import (
	"bytes"
	"fmt"
	"text/template"
)

// downloadURL is where a published asset is (the tagged workflow uploads
// every file of the release there).
const downloadURL = "https://github.com/codewhale-ls/codewhale-ls/releases/download/v%s/%s"

// formulaTargets are the archives the Homebrew formula points to.
var formulaTargets = []target{{"darwin", "arm64"}, {"darwin", "amd64"}, {"linux", "arm64"}, {"linux", "amd64"}}

var formulaTemplate = template.Must(template.New("codewhale-ls.rb").Parse(`# Homebrew formula for codewhale-ls {{.Version}}, rendered by tools/release
# from the release's archives (docs/release.md); not edited by hand.
class CodewhaleLs < Formula
  desc "Policy sidecar for the Codewhale coding agent"
  homepage "https://github.com/codewhale-ls/codewhale-ls"
  version "{{.Version}}"
  license "MIT"

  on_macos do
    on_arm do
      url "{{index .URL "darwin/arm64"}}"
      sha256 "{{index .SHA256 "darwin/arm64"}}"
    end
    on_intel do
      url "{{index .URL "darwin/amd64"}}"
      sha256 "{{index .SHA256 "darwin/amd64"}}"
    end
  end

  on_linux do
    on_arm do
      url "{{index .URL "linux/arm64"}}"
      sha256 "{{index .SHA256 "linux/arm64"}}"
    end
    on_intel do
      url "{{index .URL "linux/amd64"}}"
      sha256 "{{index .SHA256 "linux/amd64"}}"
    end
  end

  def install
    bin.install "codewhale-ls"
    bash_completion.install "completions/codewhale-ls.bash" => "codewhale-ls"
    zsh_completion.install "completions/_codewhale-ls"
    fish_completion.install "completions/codewhale-ls.fish"
    man1.install "man/codewhale-ls.1"
  end

  test do
    require "json"
    info = JSON.parse(shell_output("#{bin}/codewhale-ls version --json"))
    assert_equal version.to_s, info["version"]
  end
end
`))

// renderFormula writes the Homebrew formula for version from the sha256
// of each formula target's archive (keyed by target).
func renderFormula(version string, archives map[target]string, sums map[string]string) ([]byte, error) {
	data := struct {
		Version     string
		URL, SHA256 map[string]string
	}{version, map[string]string{}, map[string]string{}}
	for _, t := range formulaTargets {
		name, ok := archives[t]
		if !ok {
			return nil, fmt.Errorf("the Homebrew formula needs the %s archive", t)
		}
		data.URL[t.String()] = fmt.Sprintf(downloadURL, version, name)
		data.SHA256[t.String()] = sums[name]
	}
	var out bytes.Buffer
	if err := formulaTemplate.Execute(&out, data); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
