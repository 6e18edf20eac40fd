-- Neovim 0.11+: vim.lsp.enable('codewhale_ls') reads this file. It
-- attaches only to Codewhale's files (root_dir calls on_dir for them
-- alone) and answers the server's approval prompts.
return require('codewhale').client_config()
