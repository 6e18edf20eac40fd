;;; codewhale.el --- Codewhale policy files and approvals through codewhale-ls  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 codewhale-ls contributors

;; Author: codewhale-ls contributors
;; Version: 0.1.0
;; Package-Requires: ((emacs "30.1"))
;; Keywords: languages, tools
;; URL: https://github.com/codewhale-ls/codewhale-ls
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Codewhale's policy files, edited with codewhale-ls's checks, and its
;; approval cards, in Emacs 30.
;;
;; Opening one of Codewhale's files (a .codewhale/ or .deepseek/
;; config.toml, permissions.toml, hooks.toml or constitution.json, and
;; the config.toml and permissions.toml of $CODEWHALE_HOME) chooses
;; `codewhale-toml-mode' or `codewhale-json-mode' by its path, through
;; `magic-mode-alist': other TOML and JSON files keep the user's modes.
;; `codewhale-ensure' then starts Eglot (or lsp-mode, see
;; `codewhale-client') with `codewhale-ls serve': its findings through
;; Flymake, its fixes through `eglot-code-actions', hover through
;; ElDoc and completion at point.
;;
;; Commands: `codewhale-status', `codewhale-explain', `codewhale-log'.
;;
;; Install: (package-vc-install "https://github.com/codewhale-ls/codewhale-ls"
;; ... :lisp-dir "editors/emacs"), `use-package' with :vc, or
;; (require 'codewhale) with editors/emacs on `load-path'.  The server
;; is codewhale-ls on `exec-path' (see `codewhale-program').

;;; Code:

;;;; Core: modes, eglot, status, explain, log (owned by the core part)

(require 'cl-lib)
(require 'conf-mode)
(require 'eglot)
(require 'js)
(require 'parse-time)
(require 'jsonrpc)
(require 'seq)
(require 'subr-x)
(require 'tabulated-list)

(defgroup codewhale nil
  "Codewhale's policy files and approvals through codewhale-ls."
  :group 'tools
  :prefix "codewhale-"
  :link '(url-link "https://github.com/codewhale-ls/codewhale-ls"))

(defconst codewhale-version "0.1.0"
  "This package's version: the version of the codewhale-ls it ships with.")

(defcustom codewhale-program "codewhale-ls"
  "The codewhale-ls program: an absolute file name, or a program name.
A name is looked up in the absolute folders of variable `exec-path'.
A relative file name is refused: the server would then be a
program of the workspace, which an agent may have written."
  :type 'string)

(defcustom codewhale-client 'eglot
  "The LSP client `codewhale-ensure' starts for Codewhale's files.
`eglot' (built into Emacs), `lsp-mode' (when installed), or nil
to start none."
  :type '(choice (const :tag "Eglot" eglot)
                 (const :tag "lsp-mode" lsp-mode)
                 (const :tag "None" nil)))

(defcustom codewhale-log-inputs t
  "Whether receipts of the decision log keep the calls' inputs.
Nil sends initializationOptions.logInputs false; t leaves it to
the user's settings.toml (docs/receipts.md)."
  :type 'boolean)

(defcustom codewhale-codewhale-version nil
  "The Codewhale release whose rules the server reproduces, or nil.
Nil lets codewhale-ls detect it (`codewhale --version`)."
  :type '(choice (const :tag "Detect" nil) string))

(defcustom codewhale-approval-timeout nil
  "Seconds an approval card waits before it denies, or nil (300)."
  :type '(choice (const :tag "Default" nil) natnum))

(defcustom codewhale-log-limit 200
  "How many of the newest receipts `codewhale-log' shows."
  :type 'natnum)

(defcustom codewhale-log-timeout 30
  "Seconds `codewhale-log' waits for codewhale-ls before stopping it."
  :type 'number)

(defconst codewhale--log-max-output (* 16 1024 1024)
  "The most `codewhale-log' reads of codewhale-ls's output, in bytes.")

;;; Which files are Codewhale's (editors/nvim/lua/codewhale/paths.lua)

(defconst codewhale--policy-names
  '("config.toml" "permissions.toml" "hooks.toml" "constitution.json")
  "The files Codewhale reads in a .codewhale (or legacy .deepseek) folder.")

(defun codewhale-home ()
  "The Codewhale home: $CODEWHALE_HOME when set, else ~/.codewhale."
  (let ((home (getenv "CODEWHALE_HOME")))
    (directory-file-name
     (expand-file-name (if (and home (not (string-empty-p home))) home "~/.codewhale")))))

(defun codewhale--git-root (dir)
  "The nearest directory holding .git from DIR up, or nil."
  (when-let* ((found (locate-dominating-file dir ".git")))
    (directory-file-name (expand-file-name found))))

(defun codewhale-root (file)
  "The workspace of FILE when it is one of Codewhale's files, else nil.
For the config.toml or permissions.toml of the Codewhale home
\($CODEWHALE_HOME, ~/.codewhale, legacy ~/.deepseek) its git root,
else the home itself; else the folder holding FILE's .codewhale/
\(or .deepseek/)."
  (when (and (stringp file) (file-name-absolute-p file))
    (let* ((file (expand-file-name file))
           (name (file-name-nondirectory file))
           (dir (directory-file-name (file-name-directory file))))
      (when (member name codewhale--policy-names)
        (if (and (member name '("config.toml" "permissions.toml"))
                 (member dir (list (codewhale-home)
                                   (expand-file-name "~/.deepseek"))))
            (or (codewhale--git-root dir) dir)
          (when (member (file-name-nondirectory dir) '(".codewhale" ".deepseek"))
            (directory-file-name (file-name-directory dir))))))))

;;;###autoload
(defun codewhale-file-mode-p (extension)
  "Non-nil when the current buffer visits a Codewhale file ending in EXTENSION.
EXTENSION is \"toml\" or \"json\".  For `magic-mode-alist', which
Emacs consults before `auto-mode-alist': a user's mode for other
TOML and JSON files stays theirs."
  (and buffer-file-name
       (string-suffix-p (concat "." extension) buffer-file-name)
       (codewhale-root buffer-file-name)
       t))

;; The cheap test of the name first: every file visited passes here, and
;; only one of Codewhale's file names loads the package.
;;;###autoload
(add-to-list 'magic-mode-alist
             (cons (lambda ()
                     (and buffer-file-name
                          (string-match-p "/\\(?:config\\|permissions\\|hooks\\)\\.toml\\'"
                                          buffer-file-name)
                          (codewhale-file-mode-p "toml")))
                   'codewhale-toml-mode))
;;;###autoload
(add-to-list 'magic-mode-alist
             (cons (lambda ()
                     (and buffer-file-name
                          (string-match-p "/constitution\\.json\\'" buffer-file-name)
                          (codewhale-file-mode-p "json")))
                   'codewhale-json-mode))

(defun codewhale--project (dir)
  "A transient project at the Codewhale workspace of DIR's file, or nil.
Only for a policy file outside any version-controlled project, so
its server serves the folder holding .codewhale/, not .codewhale/."
  (when-let* ((file buffer-file-name)
              ((file-in-directory-p file dir))
              (root (codewhale-root file)))
    (cons 'transient (file-name-as-directory root))))

(defun codewhale--setup-buffer ()
  "Prepare a Codewhale file's buffer: its project, then its client."
  ;; Late (depth 90): the version-controlled project, when there is one,
  ;; comes first.
  (add-hook 'project-find-functions #'codewhale--project 90 t))

;;;###autoload
(define-derived-mode codewhale-toml-mode conf-toml-mode "Codewhale-TOML"
  "Major mode for Codewhale's TOML files (config, permissions, hooks).
Derived from `conf-toml-mode', which every Emacs has: `toml-ts-mode'
needs a tree-sitter grammar that Emacs does not ship.
\\{codewhale-toml-mode-map}"
  (codewhale--setup-buffer))

;;;###autoload
(define-derived-mode codewhale-json-mode js-json-mode "Codewhale-JSON"
  "Major mode for Codewhale's constitution.json.
Derived from `js-json-mode', which every Emacs has, unlike
`json-ts-mode''s grammar.
\\{codewhale-json-mode-map}"
  (codewhale--setup-buffer))

;;; The server

(defun codewhale-program-path ()
  "Return the absolute file name of `codewhale-program'.
Signal a `user-error' saying why when there is none.
A name is looked up on the absolute folders of variable `exec-path' only,
never in the workspace."
  (let ((program codewhale-program))
    (cond
     ((or (not (stringp program)) (string-empty-p program))
      (user-error "Codewhale: `codewhale-program' is empty; set it to codewhale-ls's absolute file name"))
     ((file-name-absolute-p program)
      (if (file-executable-p program)
          program
        (user-error "Codewhale: %s is not an executable file; install codewhale-ls or fix `codewhale-program'"
                    program)))
     ((string-match-p "/" program)
      (user-error "Codewhale: `codewhale-program' %s is relative to the workspace; give an absolute file name or a name on `exec-path'"
                  program))
     ((let ((exec-path (seq-filter #'file-name-absolute-p exec-path)))
        (executable-find program)))
     (t (user-error "Codewhale: %s not found on `exec-path'; install codewhale-ls (see its README) or set `codewhale-program'"
                    program)))))

(defun codewhale-initialization-options ()
  "Return the initializationOptions every client of codewhale-ls sends.
As the other editors send them (docs/codewhale/contract.md §4):
approvals through the editor's card, answered asynchronously.
The editor's name for receipts is the client's clientInfo."
  (append (list :approvals "codewhale" :approvalsAsync t)
          (unless codewhale-log-inputs (list :logInputs :json-false))
          (when codewhale-codewhale-version
            (list :codewhaleVersion codewhale-codewhale-version))
          (when codewhale-approval-timeout
            (list :approvalTimeoutSeconds codewhale-approval-timeout))))

(defconst codewhale--lsp-notifications
  '(("codewhale/approvalRequested" . codewhale--approval-requested)
    ("codewhale/approvalWithdrawn" . codewhale--approval-withdrawn)
    ;; The decision log is read from its file (`codewhale-log').
    ("codewhale/decision" . ignore))
  "Codewhale's notifications and the functions lsp-mode hands them to.
Each function takes the lsp-mode workspace and the params, as the
approvals' Eglot methods (`eglot-handle-notification') take the
connection and the params.  A function not defined (no approvals
part) leaves the prompt unanswered: the server denies at its
deadline.")

(defclass codewhale-eglot-server (eglot-lsp-server) ()
  :documentation "An Eglot connection to codewhale-ls.")

(cl-defmethod eglot-initialization-options ((_server codewhale-eglot-server))
  "Codewhale's initializationOptions for an Eglot connection."
  (codewhale-initialization-options))

(defun codewhale--eglot-contact (_interactive _project)
  "Return the contact of codewhale-ls for Eglot: `codewhale-program' serve."
  (list 'codewhale-eglot-server (codewhale-program-path) "serve"))

(add-to-list 'eglot-server-programs
             '(((codewhale-toml-mode :language-id "toml")
                (codewhale-json-mode :language-id "json"))
               . codewhale--eglot-contact))

;;;###autoload
(defun codewhale-ensure ()
  "Start `codewhale-client' for the current buffer, one of Codewhale's files."
  (when (and buffer-file-name (codewhale-root buffer-file-name))
    (pcase codewhale-client
      ('eglot (eglot-ensure))
      ('lsp-mode
       (if (fboundp 'lsp-deferred)
           (funcall 'lsp-deferred)
         (message "Codewhale: `codewhale-client' is lsp-mode, which is not installed; M-x package-install RET lsp-mode, or use eglot"))))))

;;;###autoload
(add-hook 'codewhale-toml-mode-hook #'codewhale-ensure)
;;;###autoload
(add-hook 'codewhale-json-mode-hook #'codewhale-ensure)

;;; lsp-mode, for its users, when it is there

(declare-function lsp-register-client "ext:lsp-mode")
(declare-function make-lsp-client "ext:lsp-mode")
(declare-function lsp-stdio-connection "ext:lsp-mode")
(declare-function lsp-request-async "ext:lsp-mode")
(declare-function lsp-workspaces "ext:lsp-mode")
(declare-function lsp--workspace-client "ext:lsp-mode")
(declare-function lsp--client-server-id "ext:lsp-mode")
(defvar lsp-language-id-configuration)
(defvar lsp--session)

(defun codewhale--lsp-handlers ()
  "Codewhale's notifications as lsp-mode's :notification-handlers."
  (let ((table (make-hash-table :test #'equal)))
    (pcase-dolist (`(,method . ,handler) codewhale--lsp-notifications)
      (puthash method
               (lambda (workspace params)
                 (when (fboundp handler)
                   (funcall handler workspace params)))
               table))
    table))

(defun codewhale--lsp-register ()
  "Register codewhale-ls with lsp-mode, for Codewhale's files only."
  (add-to-list 'lsp-language-id-configuration '(codewhale-toml-mode . "toml"))
  (add-to-list 'lsp-language-id-configuration '(codewhale-json-mode . "json"))
  (lsp-register-client
   (make-lsp-client
    :new-connection (lsp-stdio-connection
                     (lambda () (list (codewhale-program-path) "serve")))
    :activation-fn (lambda (file _mode) (codewhale-root file))
    :server-id 'codewhale-ls
    :priority 1
    :add-on? t
    :initialization-options #'codewhale-initialization-options
    :notification-handlers (codewhale--lsp-handlers))))

(defun codewhale--lsp-register-when-loaded (&optional _file)
  "Register codewhale-ls with lsp-mode once lsp-mode is loaded.
In `after-load-functions' until then: lsp-mode is optional."
  (when (featurep 'lsp-mode)
    (remove-hook 'after-load-functions #'codewhale--lsp-register-when-loaded)
    (codewhale--lsp-register)))

(if (featurep 'lsp-mode)
    (codewhale--lsp-register)
  (add-hook 'after-load-functions #'codewhale--lsp-register-when-loaded))

;;; Requests of the commands, through whichever client runs

(defun codewhale--eglot-server ()
  "The Eglot connection to codewhale-ls for the current buffer, or any."
  (let ((current (ignore-errors (eglot-current-server))))
    (if (cl-typep current 'codewhale-eglot-server)
        current
      (cl-loop for servers being the hash-values of eglot--servers-by-project
               thereis (cl-find-if (lambda (s) (and (cl-typep s 'codewhale-eglot-server)
                                                    (jsonrpc-running-p s)))
                                   servers)))))

(defun codewhale--lsp-workspace ()
  "The lsp-mode workspace of codewhale-ls, or nil."
  (when (and (featurep 'lsp-mode) (boundp 'lsp--session) lsp--session)
    (cl-find-if (lambda (w) (eq (lsp--client-server-id (lsp--workspace-client w)) 'codewhale-ls))
                (ignore-errors (lsp-workspaces)))))

(defun codewhale--workspace ()
  "The workspace the commands ask about: the current file's, else the server's."
  (or (and buffer-file-name (codewhale-root buffer-file-name))
      (when-let* ((server (codewhale--eglot-server)))
        (directory-file-name (expand-file-name (project-root (eglot--project server)))))))

(defun codewhale--json-plist (value)
  "VALUE, a decoded JSON value, as plists, lists and atoms.
Eglot decodes objects as plists and arrays as vectors; lsp-mode
may decode objects as hash tables with string keys."
  (cond ((hash-table-p value)
         (let (out)
           (maphash (lambda (k v)
                      (push (if (keywordp k) k (intern (format ":%s" k))) out)
                      (push (codewhale--json-plist v) out))
                    value)
           (nreverse out)))
        ((vectorp value) (mapcar #'codewhale--json-plist value))
        ((and (consp value) (keywordp (car value)))
         (cl-loop for (k v) on value by #'cddr
                  nconc (list k (codewhale--json-plist v))))
        (t value)))

(defun codewhale--request (method params then)
  "Send METHOD with PARAMS to codewhale-ls; call THEN with the result.
The result is given as plists and lists, whichever client decoded
it.  A failure is a message saying what happened and what to do."
  (let ((fail (lambda (what)
                (message "Codewhale: %s failed: %s" method what)))
        (then (lambda (result) (funcall then (codewhale--json-plist result)))))
    (if-let* ((server (codewhale--eglot-server)))
        (jsonrpc-async-request server (intern method) params
                               :success-fn then
                               :error-fn (lambda (err) (funcall fail (plist-get err :message)))
                               :timeout-fn (lambda () (funcall fail "no answer (timed out)")))
      (if (codewhale--lsp-workspace)
          (lsp-request-async method params then
                             :error-handler (lambda (err) (funcall fail (format "%S" err))))
        (user-error "Codewhale: no codewhale-ls runs; open a permissions.toml or a .codewhale/ file first")))))

;;; Showing text as it is

(defun codewhale--one-line (value)
  "VALUE on one line, every invisible or control character made visible.
A line break is ⏎, another control, format or unusual space
character ⟪U+XXXX⟫ (docs/codewhale/contract.md; as the other
editors show them)."
  (let ((s (cond ((null value) "")
                 ((stringp value) value)
                 ((or (consp value) (vectorp value) (hash-table-p value))
                  (json-serialize value :null-object nil :false-object :json-false))
                 (t (format "%s" value)))))
    (mapconcat (lambda (c)
                 (cond ((eq c ?\n) "⏎")
                       ((memq (get-char-code-property c 'general-category)
                              '(Cc Cf Zl Zp Co Cs Cn))
                        (format "⟪U+%04X⟫" c))
                       ((and (eq (get-char-code-property c 'general-category) 'Zs) (/= c ?\s))
                        (format "⟪U+%04X⟫" c))
                       ((>= c #x3FFF80) (format "⟪0x%02X⟫" (- c #x3FFF00)))
                       (t (string c))))
               s "")))

(defun codewhale--show (name lines)
  "Show LINES in a read-only `special-mode' buffer NAME; return the buffer."
  (let ((buf (get-buffer-create name)))
    (with-current-buffer buf
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (string-join lines "\n") "\n"))
      (special-mode)
      (goto-char (point-min)))
    (display-buffer buf)
    buf))

;;; M-x codewhale-status

(defun codewhale--sandbox-text (sandbox)
  "SANDBOX (a plist from codewhale/status or a Decision) in words."
  (if (not (consp sandbox))
      (codewhale--one-line sandbox)
    (string-join
     (delq nil
           (list (codewhale--one-line (plist-get sandbox :type))
                 (let ((roots (plist-get sandbox :writableRoots)))
                   (when (and roots (> (length roots) 0))
                     (concat "writable: " (mapconcat #'codewhale--one-line roots ", "))))
                 (pcase (plist-get sandbox :networkAccess)
                   ('t "network on")
                   (:json-false "network off"))))
     "; ")))

(defun codewhale--release-text (release)
  "The Codewhale release the server decides as (status.codewhale), RELEASE."
  (if (not (consp release))
      "-"
    (let* ((source (codewhale--one-line (plist-get release :source)))
           (found (plist-get release :release))
           (note (plist-get release :note)))
      (concat (if (and (stringp found) (not (string-empty-p found)))
                  (codewhale--one-line found)
                (if (string-prefix-p "detecting:" source) "not known yet" "none found"))
              (format " (decides as %s; %s)" (codewhale--one-line (plist-get release :behaviour)) source)
              (if (and (stringp note) (not (string-empty-p note)) (not (equal note "no Codewhale found")))
                  (concat ": " (codewhale--one-line note))
                "")))))

(defun codewhale-status-lines (status)
  "Return the lines of a codewhale/status answer STATUS, for `codewhale-status'."
  (let ((field (lambda (key) (codewhale--one-line (plist-get status key)))))
    (append
     (list (format "codewhale-ls %s (this package %s)" (funcall field :version) codewhale-version)
           (concat "workspace:   " (funcall field :workspace))
           (concat "posture:     " (funcall field :posture))
           (concat "sandbox:     " (codewhale--sandbox-text (plist-get status :sandbox)))
           (concat "pending:     " (funcall field :pendingApprovals))
           (concat "codewhale:   " (codewhale--release-text (plist-get status :codewhale)))
           (concat "config:      " (funcall field :configPath))
           (concat "permissions: " (funcall field :permissionsPath))
           "files:")
     (mapcar (lambda (f)
               (format "  %-8s %s" (codewhale--one-line (plist-get f :state))
                       (codewhale--one-line (plist-get f :path))))
             (plist-get status :files)))))

;;;###autoload
(defun codewhale-status ()
  "Show what codewhale-ls serves: posture, sandbox, files, pending approvals."
  (interactive)
  (let ((workspace (codewhale--workspace)))
    (codewhale--request "codewhale/status"
                        (if workspace (list :workspace workspace) nil)
                        (lambda (status)
                          (codewhale--show "*codewhale-status*" (codewhale-status-lines status))))))

;;; M-x codewhale-explain

(defconst codewhale--layer-names
  ["posture" "admission" "hooks" "baseline" "permissions" "auto-review" "repo-law" "approval" "sandbox"]
  "The nine layers of a decision, in order (docs/codewhale/pipeline.md).")

(defconst codewhale--explain-fields
  '(("exec_shell" "command") ("bash" "command") ("Bash" "command") ("task_shell_start" "command")
    ("exec_shell_wait" "command") ("exec_shell_interact" "command")
    ("read_file" "path") ("read" "path") ("write_file" "path") ("write" "path")
    ("edit_file" "path") ("edit" "path") ("list_dir" "path") ("image_ocr" "path") ("read_media" "path")
    ("grep_files" "pattern" "path") ("file_search" "pattern" "path")
    ("fetch_url" "url") ("rlm_open" "url") ("web_search" "query"))
  "The field(s) each of Codewhale's tools names its argument in.
As the gate reads them (editors/nvim/lua/codewhale/commands.lua).")

(defun codewhale-explain-input (tool argument)
  "The input of TOOL for ARGUMENT: a JSON object as given, else the tool's fields.
A tool of two fields takes ARGUMENT's first word as the first."
  (if (string-match-p "\\`[[:space:]]*{" argument)
      (condition-case nil
          (let ((v (json-parse-string argument :object-type 'plist)))
            (if (consp v) v (user-error "Codewhale: not a JSON object: %s" argument)))
        (json-error (user-error "Codewhale: not a JSON object: %s" argument)))
    (let ((fields (or (cdr (assoc tool codewhale--explain-fields)) '("command"))))
      (if (and (cdr fields) (string-match "\\`\\([^[:space:]]+\\)[[:space:]]+\\(.+\\)\\'" argument))
          (list (intern (concat ":" (car fields))) (match-string 1 argument)
                (intern (concat ":" (cadr fields))) (match-string 2 argument))
        (list (intern (concat ":" (car fields))) argument)))))

(defun codewhale-explain-lines (request decision)
  "The nine layers of DECISION for REQUEST, the deciding one marked."
  (let ((trace (make-hash-table)))
    (mapc (lambda (e) (puthash (plist-get e :layer) e trace)) (plist-get decision :trace))
    (append
     (list (format "%s %s in %s" (codewhale--one-line (plist-get request :tool))
                   (codewhale--one-line (plist-get request :input))
                   (codewhale--one-line (plist-get request :workspace)))
           (format "=> %s at layer %s (%s): %s"
                   (codewhale--one-line (plist-get decision :decision))
                   (codewhale--one-line (plist-get decision :layer))
                   (codewhale--one-line (plist-get decision :layerName))
                   (codewhale--one-line (plist-get decision :reason))))
     (when (plist-get decision :rule)
       (list (concat "   rule: " (codewhale--one-line (plist-get decision :rule)))))
     (cl-loop for name across codewhale--layer-names
              for i from 1
              for e = (gethash i trace)
              collect (format "%s %d %-12s %s" (if (eql i (plist-get decision :layer)) "=>" "  ") i name
                              (if e
                                  (format "%-8s %s" (codewhale--one-line (plist-get e :effect))
                                          (codewhale--one-line (plist-get e :detail)))
                                "(not reached)"))))))

;;;###autoload
(defun codewhale-explain (tool argument)
  "Show how the policy judges TOOL called with ARGUMENT, never prompting.
ARGUMENT is the tool's command, path, URL or query, or a JSON object."
  (interactive
   (list (completing-read "Codewhale explain, tool: " (mapcar #'car codewhale--explain-fields))
         (read-string "Argument (command, path, URL, or a JSON object): ")))
  (let* ((input (codewhale-explain-input tool argument))
         (request (append (list :tool tool :input input)
                          (when-let* ((ws (codewhale--workspace))) (list :workspace ws)))))
    (codewhale--request "codewhale/explain" request
                        (lambda (decision)
                          (codewhale--show "*codewhale-explain*"
                                           (codewhale-explain-lines request decision))))))

;;; M-x codewhale-log (editors/nvim/lua/codewhale/logview.lua)

(defun codewhale--run (args name then)
  "Run codewhale-ls with ARGS asynchronously; call THEN with (CODE OUTPUT WHY).
NAME names the process.  The output read is at most
`codewhale--log-max-output' bytes and the run at most
`codewhale-log-timeout' seconds: past either the process is
stopped and WHY says which (`cut' or `timeout'), else WHY is nil.
Returns the process."
  (let* ((out (generate-new-buffer (format " *%s*" name) t))
         (why nil)
         (timer nil)
         (proc
          (make-process
           :name name
           :buffer out
           :command (cons (codewhale-program-path) args)
           :connection-type 'pipe
           :noquery t
           :stderr (get-buffer-create (format " *%s stderr*" name) t)
           :filter (lambda (p chunk)
                     (when (buffer-live-p out)
                       (with-current-buffer out
                         (goto-char (point-max))
                         (insert chunk)
                         (when (> (buffer-size) codewhale--log-max-output)
                           (setq why 'cut)
                           (delete-process p)))))
           :sentinel (lambda (p _event)
                       (unless (process-live-p p)
                         (when timer (cancel-timer timer))
                         (let ((text (if (buffer-live-p out)
                                         (with-current-buffer out (buffer-string))
                                       ""))
                               (err (let ((b (process-get p 'stderr)))
                                      (if (buffer-live-p b) (with-current-buffer b (buffer-string)) ""))))
                           (kill-buffer out)
                           (when (buffer-live-p (process-get p 'stderr))
                             (kill-buffer (process-get p 'stderr)))
                           (funcall then (process-exit-status p)
                                    (if (and (not why) (/= (process-exit-status p) 0))
                                        (concat text err)
                                      text)
                                    why)))))))
    (process-put proc 'stderr (get-buffer (format " *%s stderr*" name)))
    (setq timer (run-at-time codewhale-log-timeout nil
                             (lambda ()
                               (when (process-live-p proc)
                                 (setq why 'timeout)
                                 (delete-process proc)))))
    proc))

(defun codewhale--log-decided-by (r)
  "Who decided receipt R, in its own words when it has them."
  (let ((decider (plist-get r :decider))
        (approval (plist-get r :approval)))
    (cond ((and (consp decider) (plist-get decider :summary))
           (codewhale--one-line (plist-get decider :summary)))
          ((and (consp approval) (equal (plist-get approval :source) "prompt"))
           (concat "a person's answer: " (codewhale--one-line (plist-get approval :choice))))
          ((consp approval)
           (format "a session grant (%s)" (codewhale--one-line (plist-get approval :choice))))
          (t (format "layer %s (%s): %s" (codewhale--one-line (plist-get r :layer))
                     (codewhale--one-line (plist-get r :layerName))
                     (codewhale--one-line (or (plist-get r :rule) (plist-get r :reason))))))))

(defun codewhale--log-what (r)
  "The call of receipt R: its tool and its input's first field."
  (let ((input (plist-get r :input)))
    (string-trim
     (concat (codewhale--one-line (plist-get r :tool)) " "
             (cond ((and (vectorp input) (> (length input) 0))
                    (codewhale--one-line (plist-get (aref input 0) :text)))
                   ((consp input) (codewhale--one-line (cadr input)))
                   (t (codewhale--one-line (plist-get r :shown))))))))

(defun codewhale--log-time (time)
  "TIME, a receipt's RFC 3339 time, as local time to the second."
  (condition-case nil
      ;; The fraction of a second goes: Emacs parses no nanoseconds.
      (format-time-string "%Y-%m-%d %H:%M:%S"
                          (parse-iso8601-time-string
                           (replace-regexp-in-string "\\.[0-9]+" "" time)))
    (error (codewhale--one-line time))))

(defun codewhale--log-entry (r)
  "The table row of receipt R."
  (list (plist-get r :id)
        (vector (codewhale--log-time (plist-get r :time))
                ;; A receipt of the editor's own call names no agent.
                (codewhale--one-line (or (plist-get r :agent) "codewhale"))
                (let ((repo (plist-get r :repo)))
                  (if (stringp repo) (codewhale--one-line (abbreviate-file-name repo)) "-"))
                (let ((d (codewhale--one-line (plist-get r :decision))))
                  (propertize d 'face (pcase d ("deny" 'error) ("allow" 'success) (_ 'warning))))
                (codewhale--log-what r)
                (codewhale--log-decided-by r)
                (codewhale--one-line (or (plist-get r :id) "-")))))

(defvar-keymap codewhale-log-mode-map
  :doc "Keys of `codewhale-log-mode'."
  "RET" #'codewhale-log-show
  "g" #'codewhale-log-refresh)

(define-derived-mode codewhale-log-mode tabulated-list-mode "Codewhale-Log"
  "The decision log, newest last: RET explains a receipt, g reads it again.
\\{codewhale-log-mode-map}"
  (setq tabulated-list-format [("TIME" 20 nil) ("AGENT" 12 nil) ("REPO" 20 nil)
                               ("DECISION" 8 nil) ("WHAT" 30 nil) ("DECIDED BY" 36 nil) ("ID" 0 nil)])
  (setq tabulated-list-padding 1)
  (tabulated-list-init-header))

(defun codewhale--log-failure (args code output why)
  "Return the log view's text for a failed `codewhale-ls ARGS'.
CODE is its exit status, OUTPUT what it printed, WHY `timeout' or nil."
  (let ((command (mapconcat #'identity (cons "codewhale-ls" args) " ")))
    (pcase why
      ('timeout (format "codewhale-ls log did not finish within %s s and was stopped.\nWhat to do: run `%s' in a terminal to see what it waits for."
                        codewhale-log-timeout command))
      (_ (format "`%s' failed (exit %s):\n%s\nWhat to do: run it in a terminal, or fix what it says."
                 command code (codewhale--one-line (string-trim output)))))))

;;;###autoload
(defun codewhale-log ()
  "Show the decision log: who decided what, newest last.
The receipts are `codewhale-ls log --json''s, at most `codewhale-log-limit'."
  (interactive)
  (let ((buf (get-buffer-create "*codewhale-log*"))
        (args (list "log" "--json" "--limit" (number-to-string codewhale-log-limit))))
    (with-current-buffer buf
      (codewhale-log-mode)
      (setq tabulated-list-entries nil)
      (tabulated-list-print)
      (let ((inhibit-read-only t))
        (insert "Reading the decision log…\n")))
    (display-buffer buf)
    (condition-case err
        (codewhale--run
         args "codewhale-log"
         (lambda (code output why)
           (when (buffer-live-p buf)
             (with-current-buffer buf
               (if (or (eq why 'timeout) (and (not why) (/= code 0)))
                   (let ((inhibit-read-only t))
                     (erase-buffer)
                     (insert (codewhale--log-failure args code output why) "\n"))
                 (setq tabulated-list-entries
                       (delq nil
                             (mapcar (lambda (line)
                                       (ignore-errors
                                         (codewhale--log-entry
                                          (json-parse-string line :object-type 'plist :null-object nil))))
                                     (split-string output "\n" t))))
                 (tabulated-list-print)
                 (when (eq why 'cut)
                   (let ((inhibit-read-only t))
                     (goto-char (point-max))
                     (insert (format "The output passed %d MiB and was cut: lower `codewhale-log-limit'.\n"
                                     (/ codewhale--log-max-output 1024 1024))))))))))
      (user-error
       (with-current-buffer buf
         (let ((inhibit-read-only t))
           (erase-buffer)
           (insert "could not run: " (error-message-string err) "\n")))))
    buf))

(defun codewhale-log-refresh ()
  "Read the decision log again."
  (interactive)
  (codewhale-log))

(defun codewhale-log-show ()
  "Explain the receipt on this line: `codewhale-ls log show ID'."
  (interactive)
  (let ((id (tabulated-list-get-id)))
    (unless (stringp id)
      (user-error "Codewhale: put the point on a receipt's line (one with an id), then RET"))
    (let ((buf (codewhale--show (format "*codewhale-log %s*" id) (list "Reading…")))
          (args (list "log" "show" id)))
      (codewhale--run args "codewhale-log-show"
                      (lambda (code output why)
                        (when (buffer-live-p buf)
                          (with-current-buffer buf
                            (let ((inhibit-read-only t))
                              (erase-buffer)
                              (insert (if (or why (/= code 0))
                                          (codewhale--log-failure args code output why)
                                        (mapconcat #'codewhale--one-line (split-string output "\n") "\n"))
                                      "\n")
                              (goto-char (point-min))))))))))

;;;; Core ends here

;;;; Approvals: the card, serving every repository (owned by the approvals part)

;;;; Approvals end here

(provide 'codewhale)
;;; codewhale.el ends here
