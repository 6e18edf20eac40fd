;;; vc.el --- the package installed as the README says  -*- lexical-binding: t; -*-

;; With package-vc-install or use-package's :vc ($CWLS_CASE), from
;; $CWLS_DIR/repo, a git clone of the repository's layout (the
;; package in editors/emacs), into a package directory of the world's
;; own: then a policy file opens in its mode and starts codewhale-ls with
;; no `require' (the package's autoloads), and no other file does.

(load (expand-file-name "lib.el" (file-name-directory load-file-name)) nil t)
(require 'package)

(defun cw-vc-case ()
  "Install as $CWLS_CASE says, then open a policy file."
  ;; A person's Emacs has its directory (project.el remembers projects there).
  (make-directory user-emacs-directory t)
  (setq package-user-dir (expand-file-name "elpa" (getenv "CWLS_DIR"))
        package-archives nil)
  (package-initialize)
  (let ((url (expand-file-name "repo" (getenv "CWLS_DIR"))))
    (pcase (getenv "CWLS_CASE")
      ("package-vc-install"
       (package-vc-install `(codewhale :url ,url :lisp-dir "editors/emacs")))
      ("use-package"
       (eval `(use-package codewhale
                :vc (:url ,url :lisp-dir "editors/emacs" :rev :newest))
             t))))
  (cw-set "installed" (if (package-installed-p 'codewhale) t :false))
  (cw-set "loaded_before_visit" (if (featurep 'codewhale) t :false))
  (let ((perm (find-file-noselect (expand-file-name "permissions.toml" (getenv "CODEWHALE_HOME")))))
    (with-current-buffer perm
      (cw-set "mode" (symbol-name major-mode))
      (setq codewhale-program (getenv "CWLS_BIN"))
      ;; The command that opened the file ends: eglot-ensure connects.
      (run-hooks 'post-command-hook)
      (cw-set "server" (if (cw-wait 30 (lambda () (eglot-current-server))) t :false))))
  (cw-set "foo" (with-current-buffer (find-file-noselect (expand-file-name "foo.toml" (getenv "CWLS_DIR")))
                  (symbol-name major-mode)))
  (eglot-shutdown-all))

(cw-main #'cw-vc-case)
;;; vc.el ends here
