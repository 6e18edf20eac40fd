module github.com/codewhale-ls/codewhale-ls

go 1.26

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/pelletier/go-toml/v2 v2.4.3
)
