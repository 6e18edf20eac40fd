;;; batch.el --- codewhale.el in Emacs in batch, as editors/emacs_test.go asks  -*- lexical-binding: t; -*-

;; $CWLS_CASE "main": modes by path, diagnostics through Flymake, a fix
;; through a code action, hover through ElDoc, completion at point, the
;; commands.  "missing": no codewhale-ls where `codewhale-program' says.

(load (expand-file-name "lib.el" (file-name-directory load-file-name)) nil t)

(defun cw-bool (v)
  "V as JSON true or false."
  (if v t :false))

(defun cw-diagnostics (buffer)
  "The Flymake diagnostics of BUFFER as JSON objects."
  (with-current-buffer buffer
    (vconcat
     (mapcar (lambda (d)
               (let ((beg (flymake-diagnostic-beg d))
                     (end (flymake-diagnostic-end d)))
                 (list :text (flymake-diagnostic-text d)
                       :type (format "%s" (flymake-diagnostic-type d))
                       :line (line-number-at-pos beg t)
                       :col (save-excursion (goto-char beg) (current-column))
                       :end_line (line-number-at-pos end t)
                       :end_col (save-excursion (goto-char end) (current-column)))))
             (flymake-diagnostics)))))

(defun cw-connect (buffer)
  "Let `eglot-ensure' connect BUFFER as after a command; wait for its server."
  (with-current-buffer buffer
    (run-hooks 'post-command-hook))
  (cw-must 30 (format "eglot in %s" buffer)
           (lambda () (with-current-buffer buffer
                        (and (bound-and-true-p eglot--managed-mode) (eglot-current-server))))))

(defun cw-mode-of (file)
  "The major mode FILE opens in, as a string."
  (with-current-buffer (find-file-noselect file)
    (symbol-name major-mode)))

(defun cw-log-drawn (log)
  "Whether the log view LOG shows what its run read (its first line)."
  (with-current-buffer log
    (save-excursion
      (goto-char (point-min))
      (looking-at-p "Decision log |"))))

(defun cw-main-case ()
  "Modes, diagnostics, a fix, hover, completion, status, explain, log."
  ;; The user's own mode for TOML files, which Codewhale's files must not
  ;; displace nor be displaced by.
  (define-derived-mode cw-user-toml-mode prog-mode "UserTOML")
  (add-to-list 'auto-mode-alist '("\\.toml\\'" . cw-user-toml-mode))
  (cw-load-package)
  (let* ((dir (getenv "CWLS_DIR"))
         (home (getenv "CODEWHALE_HOME"))
         (ws (expand-file-name "ws" dir))
         (start (float-time))
         (perm (find-file-noselect (expand-file-name "permissions.toml" home))))
    (cw-set "modes"
            (list :home_permissions (with-current-buffer perm (symbol-name major-mode))
                  :ws_config (cw-mode-of (expand-file-name ".codewhale/config.toml" ws))
                  :ws_hooks (cw-mode-of (expand-file-name ".codewhale/hooks.toml" ws))
                  :legacy_permissions (cw-mode-of (expand-file-name "legacy/.deepseek/permissions.toml" dir))
                  :constitution (cw-mode-of (expand-file-name ".codewhale/constitution.json" ws))
                  :plain_constitution (cw-mode-of (expand-file-name "constitution.json" ws))
                  :foo (cw-mode-of (expand-file-name "foo.toml" dir))
                  :cargo (cw-mode-of (expand-file-name "Cargo.toml" ws))
                  :plain_config (cw-mode-of (expand-file-name "config.toml" ws))))
    (cw-connect perm)
    ;; Flymake starts a buffer's checks once it is displayed; batch Emacs
    ;; displays nothing, so that start is by hand here (the tmux test,
    ;; editors/emacs_test.go, sees it happen on a screen).
    (with-current-buffer perm (flymake-start))
    ;; Diagnostics through Flymake: CW208 on "bash".
    (cw-must 60 "CW208 in Flymake"
             (lambda () (with-current-buffer perm
                          ;; Flymake starts its checks after a command:
                          ;; each wait is one, as a person's key would be.
                          (run-hooks 'post-command-hook)
                          (cl-find-if (lambda (d) (string-match-p "CW208" (flymake-diagnostic-text d)))
                                      (flymake-diagnostics)))))
    (cw-set "open_to_diagnostics_ms" (cw-ms-since start))
    (cw-set "diagnostics" (cw-diagnostics perm))
    ;; The fix, through a code action at the finding.
    (with-current-buffer perm
      (let* ((diag (cl-find-if (lambda (d) (string-match-p "CW208" (flymake-diagnostic-text d)))
                               (flymake-diagnostics)))
             (actions (eglot-code-actions (flymake-diagnostic-beg diag) (flymake-diagnostic-end diag)))
             (fix (cl-find-if (lambda (a) (string-match-p "exec_shell" (plist-get a :title))) actions)))
        (cw-set "actions" (vconcat (mapcar (lambda (a) (plist-get a :title)) actions)))
        (if (not fix)
            (cw-fail "no code action names exec_shell: %S" actions)
          (cw-set "fix_title" (plist-get fix :title))
          (eglot-execute (eglot-current-server) fix)
          (cw-must 30 "the fix applied"
                   (lambda () (string-match-p "exec_shell" (buffer-string))))
          (cw-set "fixed_text" (buffer-substring-no-properties (point-min) (point-max)))
          (cw-set "fixed_modified" (cw-bool (buffer-modified-p)))
          (save-buffer)
          ;; The finding goes once the fix is in.
          (cw-set "cleared"
                  (cw-bool (cw-wait 30 (lambda () (run-hooks 'post-command-hook)
                                         (not (cl-find-if (lambda (d) (string-match-p "CW208" (flymake-diagnostic-text d)))
                                                                  (flymake-diagnostics))))))))))
    ;; Hover through ElDoc, on the key "action", in the buffer on the
    ;; screen (Eglot answers ElDoc only for a buffer in a window).
    (switch-to-buffer perm)
    (with-current-buffer perm
      (goto-char (point-min))
      (re-search-forward "^action")
      (goto-char (match-beginning 0))
      (let (hover)
        (eglot-hover-eldoc-function (lambda (doc &rest _) (setq hover (or doc ""))))
        (cw-wait 30 (lambda () hover))
        (cw-set "hover" (format "%s" (or hover "")))))
    ;; Completion at point in the workspace's config.toml.
    (let ((config (find-file-noselect (expand-file-name ".codewhale/config.toml" ws))))
      (cw-connect config)
      (with-current-buffer config
        (goto-char (point-max))
        (insert "approval_policy = \"")
        (let* ((capf (run-hook-wrapped 'completion-at-point-functions
                                       (lambda (f) (and (functionp f) (funcall f)))))
               (beg (nth 0 capf)) (end (nth 1 capf)) (table (nth 2 capf))
               (exit (plist-get (nthcdr 3 capf) :exit-function))
               (candidates (and table (all-completions (buffer-substring-no-properties beg end) table))))
          (cw-set "completion_candidates" (vconcat candidates))
          (when-let* ((never (cl-find-if (lambda (c) (string-match-p "never" c)) candidates)))
            (delete-region beg end)
            (goto-char beg)
            (insert never)
            (when exit (funcall exit never 'finished))
            (cw-set "completion_line" (buffer-substring-no-properties (line-beginning-position) (line-end-position))))
          (cw-set "servers" (length (hash-table-keys eglot--servers-by-project))))))
    ;; The workspace of each file's server: the git root holding
    ;; .codewhale/ (its version-controlled project), the Codewhale home,
    ;; and the folder of a nested .codewhale/, not its repository's root.
    (let ((nested (find-file-noselect (expand-file-name "sub/.codewhale/config.toml" ws))))
      (cw-connect nested)
      (cw-set "projects"
              (list :ws (with-current-buffer (get-file-buffer (expand-file-name ".codewhale/config.toml" ws))
                          (let ((p (eglot--project (eglot-current-server))))
                            (format "%s %s" (car p) (directory-file-name (project-root p)))))
                    :home (with-current-buffer perm
                            (directory-file-name (project-root (eglot--project (eglot-current-server)))))
                    :nested (with-current-buffer nested
                              (let ((p (eglot--project (eglot-current-server))))
                                (format "%s %s" (car p) (directory-file-name (project-root p))))))))
    ;; No server for the other TOML files.
    (cw-set "foo_server" (cw-bool (with-current-buffer (find-file-noselect (expand-file-name "foo.toml" dir))
                                    (eglot-current-server))))
    ;; M-x codewhale-status, codewhale-explain.
    (with-current-buffer perm
      (codewhale-status)
      (cw-must 30 "*codewhale-status*" (lambda () (string-match-p "posture:" (or (cw-buffer-text "*codewhale-status*") ""))))
      (cw-set "status" (cw-lines (cw-buffer-text "*codewhale-status*")))
      (codewhale-explain "read_file" ".env")
      (cw-must 30 "*codewhale-explain*" (lambda () (string-match-p "=>" (or (cw-buffer-text "*codewhale-explain*") ""))))
      (cw-set "explain" (cw-lines (cw-buffer-text "*codewhale-explain*")))
      ;; A decision for the log: an agent's call the policy denies.
      (let (decided allowed)
        (codewhale--request "codewhale/authorize"
                            (list :tool "read_file" :input (list :path ".env") :workspace home)
                            (lambda (d) (setq decided d)))
        (cw-must 30 "codewhale/authorize" (lambda () decided))
        (cw-set "authorized" (plist-get decided :decision))
        ;; And one it allows, for the log's filters.
        (codewhale--request "codewhale/authorize"
                            (list :tool "read_file" :input (list :path "notes.md") :workspace home)
                            (lambda (d) (setq allowed d)))
        (cw-must 30 "codewhale/authorize" (lambda () allowed))
        (cw-set "allowed" (plist-get allowed :decision))))
    ;; M-x codewhale-log, then RET on the receipt.
    (let ((log (codewhale-log)))
      (cw-must 30 "the log's receipts" (lambda () (cw-log-drawn log)))
      (with-current-buffer log
        (cw-set "log" (cw-lines (buffer-substring-no-properties (point-min) (point-max))))
        (goto-char (point-min))
        (while (and (not (tabulated-list-get-id)) (not (eobp))) (forward-line 1))
        (cw-set "log_mode" (symbol-name major-mode))
        (cw-set "log_ret" (symbol-name (key-binding (kbd "RET"))))
        (let ((id (tabulated-list-get-id)))
          (cw-set "log_id" (or id ""))
          (call-interactively (key-binding (kbd "RET")))
          (cw-must 30 "log show"
                   (lambda () (let ((text (cw-buffer-text (format "*codewhale-log %s*" id))))
                                (and text (not (string-prefix-p "Reading" text))))))
          (cw-set "log_show" (cw-lines (cw-buffer-text (format "*codewhale-log %s*" id)))))))
    ;; The filters, as `f' in the view asks for them.
    (let ((log (codewhale-log "decision=deny")))
      (cw-must 30 "the filtered log" (lambda () (cw-log-drawn log)))
      (with-current-buffer log
        (cw-set "log_deny" (cw-lines (buffer-substring-no-properties (point-min) (point-max))))
        (codewhale-log-refresh)
        (cw-must 30 "the log read again" (lambda () (cw-log-drawn log)))
        (cw-set "log_deny_again" (cw-lines (buffer-substring-no-properties (point-min) (point-max))))))
    (cw-set "filter_errors"
            (vconcat (mapcar (lambda (input)
                               (condition-case err (progn (codewhale-log-parse-filters input) "")
                                 (user-error (error-message-string err))))
                             '("nope=1" "limit=x" "agent=" "--agent"))))
    (cw-set "filter_flags" (codewhale--log-filter-text
                            (codewhale-log-parse-filters "--tool exec_shell --agent=codex since=2h")))
    (eglot-shutdown-all)))

(defun cw-missing-case ()
  "No codewhale-ls: what opening a policy file and the log say."
  (cw-load-package)
  (setq codewhale-program "/not-there/codewhale-ls")
  (let ((log (codewhale-log)))
    (cw-set "log_missing" (cw-lines (with-current-buffer log (buffer-string)))))
  ;; A codewhale-ls that never finishes, and one that never stops
  ;; printing: both stopped, and said so.
  (let ((dir (getenv "CWLS_DIR")))
    (setq codewhale-program (expand-file-name "bin/slow" dir)
          codewhale-log-timeout 1)
    (let ((log (codewhale-log)))
      (cw-wait 10 (lambda () (with-current-buffer log (string-match-p "did not finish" (buffer-string)))))
      (cw-set "log_slow" (cw-lines (with-current-buffer log (buffer-string)))))
    (setq codewhale-program (expand-file-name "bin/endless" dir)
          codewhale-log-timeout 30)
    (let ((log (codewhale-log)))
      (cw-wait 30 (lambda () (with-current-buffer log (string-match-p "was cut" (buffer-string)))))
      (cw-set "log_endless" (cw-lines (with-current-buffer log (buffer-string)))))
    (cw-set "processes_left" (length (process-list))))
  ;; codewhale-explain's argument, as each tool names it.
  (cw-set "explain_inputs"
          (vconcat (mapcar (lambda (call)
                             (condition-case err
                                 (json-serialize (codewhale-explain-input (car call) (cadr call)))
                               (user-error (error-message-string err))))
                           '(("exec_shell" "git push origin main") ("read_file" ".env")
                             ("grep_files" "TODO src/lib") ("fetch_url" "https://example.com")
                             ("some_tool" "x y") ("write_file" "{\"path\": \"a\", \"content\": \"b\"}")
                             ("write_file" "{not json")))))
  (setq codewhale-program "bin/codewhale-ls")
  (cw-set "relative" (condition-case err (progn (codewhale-program-path) "")
                       (user-error (error-message-string err))))
  (setq codewhale-program "no-such-codewhale-ls")
  (cw-set "not_on_path" (condition-case err (progn (codewhale-program-path) "")
                          (user-error (error-message-string err)))))

(defun cw-lsp-mode-case ()
  "lsp-mode's users: codewhale-ls registered when lsp-mode loads; its findings."
  (cw-load-package)
  (setq codewhale-client 'lsp-mode)
  (cw-debian-elpa)
  (setq lsp-session-file (expand-file-name "lsp-session" (getenv "CWLS_DIR"))
        lsp-diagnostics-provider :flymake
        lsp-enable-file-watchers nil
        lsp-auto-guess-root nil)
  (require 'lsp-mode)
  (cw-set "registered" (cw-bool (gethash 'codewhale-ls lsp-clients)))
  (let* ((home (getenv "CODEWHALE_HOME"))
         (file (expand-file-name "permissions.toml" home)))
    ;; The workspace a person imports at lsp-mode's first question.
    (lsp-workspace-folders-add home)
    (let ((perm (find-file-noselect file))
          (start (float-time)))
      (switch-to-buffer perm)
      (with-current-buffer perm
        (cw-set "mode" (symbol-name major-mode))
        ;; lsp-deferred (from `codewhale-ensure') starts the server once
        ;; the buffer is shown; batch Emacs shows nothing, so it is
        ;; started here as lsp-deferred would.
        (unless (cw-wait 1 (lambda () (bound-and-true-p lsp-mode)))
          (lsp))
        (cw-must 30 "lsp-mode's workspace"
                 (lambda () (cl-find-if (lambda (w) (eq (lsp--client-server-id (lsp--workspace-client w)) 'codewhale-ls))
                                        (lsp-workspaces))))
        (cw-must 60 "CW208 from lsp-mode"
                 (lambda ()
                   (cl-find-if (lambda (d) (equal (lsp:diagnostic-code? d) "CW208"))
                               (gethash (lsp--fix-path-casing file) (lsp-diagnostics t)))))
        (cw-set "open_to_diagnostics_ms" (cw-ms-since start))
        (flymake-start)
        (cw-set "flymake"
                (vconcat (mapcar #'flymake-diagnostic-text
                                 (cw-wait 30 (lambda () (run-hooks 'post-command-hook) (flymake-diagnostics))))))
        (let (status)
          (codewhale-status)
          (cw-must 30 "*codewhale-status*" (lambda () (setq status (cw-buffer-text "*codewhale-status*"))
                                             (string-match-p "posture:" (or status ""))))
          (cw-set "status" (cw-lines status)))
        (cw-set "server_id" (symbol-name (lsp--client-server-id (lsp--workspace-client (car (lsp-workspaces))))))
        (lsp-workspace-shutdown (car (lsp-workspaces)))))))

(cw-main (lambda ()
           (pcase (getenv "CWLS_CASE")
             ("main" (cw-main-case))
             ("missing" (cw-missing-case))
             ("lsp-mode" (cw-lsp-mode-case))
             (other (cw-fail "no case %s" other)))))
;;; batch.el ends here
