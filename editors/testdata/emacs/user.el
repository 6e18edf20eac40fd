;;; user.el --- a person's init.el for editors/emacs_test.go's Emacs in tmux  -*- lexical-binding: t; -*-

;; As the README says: the package from its folder, codewhale-ls where
;; the person installed it; nothing else.

(add-to-list 'load-path (getenv "CWLS_PLUGIN"))
(require 'codewhale)
(setq codewhale-program (getenv "CWLS_BIN"))
;; No native compilation in the background: its processes would outlive
;; the test.
(setq native-comp-jit-compilation nil)
;; No backup files beside the person's permissions.toml.
(setq make-backup-files nil)
;;; user.el ends here
