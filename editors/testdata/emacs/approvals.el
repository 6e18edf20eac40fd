;;; approvals.el --- approvals through lsp-mode, as editors/emacs_approvals_test.go asks  -*- lexical-binding: t; -*-

;; $CWLS_CASE "lsp-mode": codewhale-ls through Debian's lsp-mode for the
;; Codewhale home's permissions.toml; the test then runs two agents'
;; hooks there.  Both prompts queue; the first is answered Deny, the
;; second dismissed by killing its card's buffer, each answer going back
;; through lsp-mode (codewhale/answerApproval).  The script ends when
;; the test has read both hooks' answers ($CWLS_DIR/hooks-done).

(load (expand-file-name "lib.el" (file-name-directory load-file-name)) nil t)

(defun cw-approvals-lsp-mode-case ()
  "Two prompts through lsp-mode: queued, one denied, one dismissed."
  (cw-load-package)
  (setq codewhale-client 'lsp-mode)
  (cw-debian-elpa)
  (setq lsp-session-file (expand-file-name "lsp-session" (getenv "CWLS_DIR"))
        lsp-enable-file-watchers nil
        lsp-auto-guess-root nil)
  (require 'lsp-mode)
  (let* ((home (getenv "CODEWHALE_HOME"))
         (perm (find-file-noselect (expand-file-name "permissions.toml" home))))
    (lsp-workspace-folders-add home)
    (switch-to-buffer perm)
    (with-current-buffer perm
      ;; As in batch.el's lsp-mode case: batch Emacs shows nothing, so
      ;; the server is started as lsp-deferred would.
      (unless (cw-wait 1 (lambda () (bound-and-true-p lsp-mode)))
        (lsp))
      (cw-must 30 "lsp-mode's workspace" #'lsp-workspaces))
    (cw-must 60 "two prompts queued" (lambda () (= (length codewhale--approvals) 2)))
    (cw-set "queued" (vconcat (mapcar (lambda (a) (plist-get (codewhale--ask-prompt a) :summary))
                                      codewhale--approvals)))
    (let ((first (car codewhale--approvals)))
      (cw-must 10 "the first prompt's card" (lambda () (buffer-live-p (codewhale--ask-buffer first))))
      (cw-set "first_card" (cw-lines (cw-buffer-text (buffer-name (codewhale--ask-buffer first)))))
      (codewhale--approval-end first "deny" "the test chose Deny"))
    (let ((second (car codewhale--approvals)))
      (cw-must 10 "the second prompt's card" (lambda () (buffer-live-p (codewhale--ask-buffer second))))
      (kill-buffer (codewhale--ask-buffer second)))
    (cw-set "left" (length codewhale--approvals))
    (cw-must 60 "the test reading the hooks' answers"
             (lambda () (file-exists-p (expand-file-name "hooks-done" (getenv "CWLS_DIR")))))
    (with-current-buffer perm
      (lsp-workspace-shutdown (car (lsp-workspaces))))))

(cw-main (lambda ()
           (pcase (getenv "CWLS_CASE")
             ("lsp-mode" (cw-approvals-lsp-mode-case))
             (other (cw-fail "no case %s" other)))))
;;; approvals.el ends here
