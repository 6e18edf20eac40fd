;;; approvals.el --- approvals through lsp-mode, as editors/emacs_approvals_test.go asks  -*- lexical-binding: t; -*-

;; $CWLS_CASE "lsp-mode": codewhale-ls through Debian's lsp-mode for the
;; Codewhale home's permissions.toml; the test then runs two agents'
;; hooks there.  Both prompts queue; the first is answered Deny, the
;; second dismissed by killing its card's buffer, each answer going back
;; through lsp-mode (codewhale/answerApproval).  The script ends when
;; the test has read both hooks' answers ($CWLS_DIR/hooks-done).
;;
;; "card": the card's text without a server: what the server left
;; invisible escaped again, the server's escapes kept, Deny first, the
;; codes.
;;
;; "serve": serving every repository.  A file of r1 visited with
;; `codewhale-serve-repositories' nil, then files of r2, of the home (a
;; git work tree too) and of no work tree with it t: r2 alone is served,
;; and a policy file of r2 is managed by that same server.

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
    ;; The server ends with Emacs (`cw-main' quits): a shutdown here
    ;; raced the server's exit, and Emacs died of a write to its pipe.
    (cw-must 60 "the test reading the hooks' answers"
             (lambda () (file-exists-p (expand-file-name "hooks-done" (getenv "CWLS_DIR")))))))

(defun cw-approvals-card-case ()
  "The card's text and codes, from prompts written here."
  (cw-load-package)
  (cw-set "visible" (codewhale--approval-visible "a\u202eb\u200bc\tq\nr\x80"))
  (let ((prompt (list :id "p1" :tool "exec_shell" :agent "codex" :reason "Tool execution requires approval"
                      :layer 8 :workspace "/w"
                      :inputs (list (list :field "command" :text "touch x⏎\necho ⟪RLO U+202E⟫evil" :bytes 21 :escaped 1 :hidden 0))
                      :choices (list (list :id "once" :title "Approve once")
                                     (list :id "always" :title "Always allow in this repo"
                                           :preview "[[rules]]\ntool = \"exec_shell\"")
                                     (list :id "deny" :title "Deny")))))
    (cw-set "body" (vconcat (codewhale--approval-body prompt)))
    (cw-set "choices" (vconcat (mapcar (lambda (c) (plist-get c :id)) (codewhale--prompt-choices prompt))))
    (cw-set "no_deny" (vconcat (mapcar (lambda (c) (plist-get c :id))
                                       (codewhale--prompt-choices (list :choices (list (list :id "once"))))))))
  (let (draws)
    (dotimes (_ 200)
      (push (vconcat (mapcar #'cdr (codewhale--approval-draw-codes
                                    (list (list :id "deny") (list :id "once") (list :id "session") (list :id "always")))))
            draws))
    (cw-set "codes" (vconcat draws))))

(defun cw-codewhale-servers ()
  "The Eglot connections to codewhale-ls running."
  (cl-loop for servers being the hash-values of eglot--servers-by-project
           nconc (cl-remove-if-not (lambda (s) (cl-typep s 'codewhale-eglot-server)) servers)))

(defun cw-approvals-serve-case ()
  "Serving every repository of a visited file, and turning it off."
  (cw-load-package)
  (let ((dir (getenv "CWLS_DIR")))
    (setq codewhale-serve-repositories nil)
    (find-file-noselect (expand-file-name "r1/src/a.rs" dir))
    (setq codewhale-serve-repositories t)
    (find-file-noselect (expand-file-name "notes.txt" (getenv "HOME")))
    (find-file-noselect (expand-file-name "outside/x.txt" dir))
    (find-file-noselect (expand-file-name "r2/src/b.rs" dir))
    (find-file-noselect (expand-file-name "r2/src/c.rs" dir))
    ;; The visits' timers run in order: once r2 is served, the others
    ;; have had their turn.
    (cw-must 30 "r2 served" (lambda () (codewhale--served-p (expand-file-name "r2" dir))))
    (cw-set "r1_served" (if (codewhale--served-p (expand-file-name "r1" dir)) t :false))
    (cw-set "served" (vconcat (mapcar (lambda (s) (directory-file-name (expand-file-name (project-root (eglot--project s)))))
                                      (cw-codewhale-servers))))
    (let ((policy (find-file-noselect (expand-file-name "r2/.codewhale/config.toml" dir))))
      ;; `eglot-ensure' connects after the command that visited it.
      (with-current-buffer policy (run-hooks 'post-command-hook))
      (cw-must 30 "the policy file managed"
               (lambda () (with-current-buffer policy
                            (and (bound-and-true-p eglot--managed-mode) (eglot-current-server)))))
      (cw-set "policy_server" (directory-file-name
                               (expand-file-name (project-root (eglot--project (with-current-buffer policy (eglot-current-server))))))))
    (cw-set "servers_after_policy" (length (cw-codewhale-servers)))
    (eglot-shutdown-all)))

(cw-main (lambda ()
           (pcase (getenv "CWLS_CASE")
             ("lsp-mode" (cw-approvals-lsp-mode-case))
             ("serve" (cw-approvals-serve-case))
             ("card" (cw-approvals-card-case))
             (other (cw-fail "no case %s" other)))))
;;; approvals.el ends here
