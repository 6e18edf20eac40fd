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
  "The project of the Codewhale file visited from DIR: its workspace.
The workspace is `codewhale-root''s, as the other editors have it:
the folder holding .codewhale/ (not .codewhale/ itself), a nested
one's too.  Nil, leaving the project to the others of
`project-find-functions', where the version-controlled project is
that folder already: its server is then the one that serves the
repository's approvals."
  (when-let* ((file buffer-file-name)
              ((file-in-directory-p file dir))
              (root (codewhale-root file)))
    (let ((vc (project-try-vc dir)))
      (unless (and vc (file-equal-p (project-root vc) root))
        (cons 'transient (file-name-as-directory root))))))

(defun codewhale--setup-buffer ()
  "Prepare a Codewhale file's buffer: its project, then its client."
  ;; First (depth -90), before the version-controlled project.
  (add-hook 'project-find-functions #'codewhale--project -90 t))

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

(defun codewhale--approvals-text (approvals)
  "Return in words whether this Emacs is given approval cards, from APPROVALS.
APPROVALS is codewhale/status's approvals."
  (cond ((not (consp approvals)) "-")
        ((eq (plist-get approvals :served) t)
         (format "served here, as cards (%s)" (codewhale--one-line (plist-get approvals :prompt))))
        (t (concat "not served here: " (codewhale--one-line (plist-get approvals :reason))))))

(defun codewhale-status-lines (status)
  "Return the lines of a codewhale/status answer STATUS, for `codewhale-status'."
  (let ((field (lambda (key) (codewhale--one-line (plist-get status key)))))
    (append
     (list (format "codewhale-ls %s (this package %s)" (funcall field :version) codewhale-version)
           (concat "workspace:   " (funcall field :workspace))
           (concat "posture:     " (funcall field :posture))
           (concat "sandbox:     " (codewhale--sandbox-text (plist-get status :sandbox)))
           (concat "pending:     " (funcall field :pendingApprovals))
           (concat "approvals:   " (codewhale--approvals-text (plist-get status :approvals)))
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

(defconst codewhale--max-stderr (* 64 1024)
  "The most kept of codewhale-ls's error output, in bytes.")

(defun codewhale--append-bounded (buffer chunk limit)
  "Append CHUNK to BUFFER; return nil once BUFFER would pass LIMIT bytes."
  (when (buffer-live-p buffer)
    (with-current-buffer buffer
      (goto-char (point-max))
      (insert chunk)
      (<= (buffer-size) limit))))

(defun codewhale--run (args name then)
  "Run codewhale-ls with ARGS asynchronously; call THEN with (CODE OUTPUT WHY).
NAME names the process.  The output read is at most
`codewhale--log-max-output' bytes (and of the error output
`codewhale--max-stderr'), the run at most `codewhale-log-timeout'
seconds: past either the process is stopped and WHY says which
\(`cut' or `timeout'), else WHY is nil.  OUTPUT is the error output
too when CODE is not 0.  Returns the process."
  (let* ((program (codewhale-program-path))
         (out (generate-new-buffer (format " *%s*" name) t))
         (err (generate-new-buffer (format " *%s stderr*" name) t))
         (why nil)
         (timer nil)
         (stderr (make-pipe-process
                  :name (concat name " stderr")
                  :buffer err
                  :noquery t
                  :filter (lambda (p chunk)
                            ;; Past the bound the rest is not read.
                            (unless (codewhale--append-bounded err chunk codewhale--max-stderr)
                              (set-process-filter p #'ignore)))
                  :sentinel #'ignore))
         (proc
          (make-process
           :name name
           :buffer out
           :command (cons program args)
           :connection-type 'pipe
           :noquery t
           :stderr stderr
           :filter (lambda (p chunk)
                     (unless (codewhale--append-bounded out chunk codewhale--log-max-output)
                       (setq why 'cut)
                       (delete-process p)))
           :sentinel (lambda (p _event)
                       (unless (process-live-p p)
                         (when timer (cancel-timer timer))
                         (delete-process stderr)
                         (let ((code (process-exit-status p))
                               (text (if (buffer-live-p out) (with-current-buffer out (buffer-string)) ""))
                               (error-text (if (buffer-live-p err) (with-current-buffer err (buffer-string)) "")))
                           (kill-buffer out)
                           (kill-buffer err)
                           (funcall then code
                                    (if (and (not why) (/= code 0)) (concat text error-text) text)
                                    why)))))))
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
  "f" #'codewhale-log-filter
  "g" #'codewhale-log-refresh)

(defconst codewhale--log-filter-examples
  '(("since" . "2h") ("agent" . "codex") ("decision" . "deny")
    ("repo" . ".") ("tool" . "exec_shell") ("limit" . "50"))
  "The filters of `codewhale-ls log', each with an example value.")

(defun codewhale-log-parse-filters (input)
  "The filters INPUT names, as an alist of (KEY . VALUE), in the log's order.
INPUT is `agent=codex decision=deny since=2h', or the command's own
flags (`--agent codex', `--agent=codex').  A mistake is a
`user-error' saying what is wrong and how to write it."
  (let ((words (split-string (or input "") "[ \t\n]+" t))
        (filters nil))
    (while words
      (let* ((word (pop words))
             (key nil) (value nil))
        (cond ((string-match "\\`\\(?:--\\)?\\([a-z]+\\)=\\(.*\\)\\'" word)
               (setq key (match-string 1 word) value (match-string 2 word)))
              ((string-match "\\`--\\([a-z]+\\)\\'" word)
               (setq key (match-string 1 word) value (pop words))))
        (unless (assoc key codewhale--log-filter-examples)
          (user-error "Codewhale: not a filter: %s (filters: %s, as key=value, e.g. agent=codex decision=deny since=2h)"
                      (codewhale--one-line word)
                      (mapconcat (lambda (f) (concat (car f) "=")) codewhale--log-filter-examples " ")))
        (when (or (null value) (string-empty-p value))
          (user-error "Codewhale: %s= needs a value, e.g. %s=%s"
                      key key (cdr (assoc key codewhale--log-filter-examples))))
        (when (and (equal key "limit") (not (string-match-p "\\`[0-9]+\\'" value)))
          (user-error "Codewhale: limit= is a number of receipts, not %s" (codewhale--one-line value)))
        (setf (alist-get key filters nil nil #'equal) value)))
    (cl-loop for (key . _) in codewhale--log-filter-examples
             when (assoc key filters) collect it)))

(defun codewhale--log-filter-text (filters)
  "Return FILTERS as text, the way `codewhale-log-parse-filters' takes them."
  (mapconcat (lambda (f) (concat (car f) "=" (cdr f))) filters " "))

(defun codewhale--log-args (filters)
  "The arguments of `codewhale-ls log' that read the receipts FILTERS select."
  (append (list "log" "--json" "--limit"
                (or (cdr (assoc "limit" filters)) (number-to-string codewhale-log-limit)))
          (cl-loop for (key . value) in filters
                   unless (equal key "limit")
                   ;; No shell expands ~ for the command.
                   append (list (concat "--" key)
                                (if (equal key "repo") (expand-file-name value) value)))))

(defvar-local codewhale--log-filters nil
  "The filters of the log view, as `codewhale-log-parse-filters' gives them.")

(defvar-local codewhale--log-process nil
  "The run of codewhale-ls whose receipts the log view will show.")

(defun codewhale--log-stop ()
  "Stop the log view's run of codewhale-ls: the view is going."
  (when (process-live-p codewhale--log-process)
    (delete-process codewhale--log-process)))

(define-derived-mode codewhale-log-mode tabulated-list-mode "Codewhale-Log"
  "The decision log, newest last: RET explains a receipt, g reads it again.
\\{codewhale-log-mode-map}"
  (setq tabulated-list-format [("TIME" 20 nil) ("AGENT" 12 nil) ("REPO" 20 nil)
                               ("DECISION" 8 nil) ("WHAT" 30 nil) ("DECIDED BY" 36 nil) ("ID" 0 nil)])
  (setq tabulated-list-padding 1)
  (add-hook 'kill-buffer-hook #'codewhale--log-stop nil t)
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
(defun codewhale-log (&optional filters)
  "Show the decision log: who decided what, newest last.
The receipts are `codewhale-ls log --json''s, at most
`codewhale-log-limit'.  FILTERS (asked for with a prefix argument)
select them: `agent=codex decision=deny since=2h', also repo=DIR,
tool=NAME and limit=N, as `codewhale-log-parse-filters' reads them."
  (interactive (list (when current-prefix-arg
                       (read-string "Filters (since= agent= decision= repo= tool= limit=): "))))
  (let* ((filters (if (stringp filters) (codewhale-log-parse-filters filters) filters))
         (buf (get-buffer-create "*codewhale-log*"))
         (args (codewhale--log-args filters))
         (proc nil))
    (with-current-buffer buf
      ;; A run still reading for this view is superseded.
      (codewhale--log-stop)
      (codewhale-log-mode)
      ;; The entries outlive the mode (permanent-local): a view read
      ;; again starts empty.
      (setq tabulated-list-entries nil)
      (setq codewhale--log-filters filters)
      (tabulated-list-print)
      (let ((inhibit-read-only t))
        (insert "Reading the decision log…\n")))
    (display-buffer buf)
    (condition-case err
        (setq proc (codewhale--run args "codewhale-log"
                                   (lambda (code output why)
                                     (when (and (buffer-live-p buf)
                                                (eq proc (buffer-local-value 'codewhale--log-process buf)))
                                       (with-current-buffer buf
                                         (codewhale--log-draw args code output why))))))
      (user-error
       (with-current-buffer buf
         (let ((inhibit-read-only t))
           (erase-buffer)
           (insert "could not run: " (error-message-string err) "\n")))))
    (with-current-buffer buf
      (setq codewhale--log-process proc))
    buf))

(defun codewhale--log-draw (args code output why)
  "Show in the log view what `codewhale-ls ARGS' gave: CODE, OUTPUT, WHY."
  (if (or (eq why 'timeout) (and (not why) (/= code 0)))
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (codewhale--log-failure args code output why) "\n"))
    (setq tabulated-list-entries
          (delq nil (mapcar (lambda (line)
                              (ignore-errors
                                (codewhale--log-entry
                                 (json-parse-string line :object-type 'plist :null-object nil))))
                            (split-string output "\n" t))))
    (tabulated-list-print)
    (let ((inhibit-read-only t))
      (goto-char (point-min))
      (insert (format "Decision log | %s | %d receipts, newest last | RET explain  f filter  g read again  q close\n"
                      (if codewhale--log-filters
                          (concat "filters: " (codewhale--one-line (codewhale--log-filter-text codewhale--log-filters)))
                        "no filters")
                      (length tabulated-list-entries))))
    (when (eq why 'cut)
      (let ((inhibit-read-only t))
        (goto-char (point-max))
        (insert (format "The output passed %d MiB and was cut: lower `codewhale-log-limit'.\n"
                        (/ codewhale--log-max-output 1024 1024)))))))

(defun codewhale-log-refresh ()
  "Read the decision log again, with the same filters."
  (interactive)
  (codewhale-log codewhale--log-filters))

(defun codewhale-log-filter (input)
  "Read the decision log again with the filters INPUT names."
  (interactive (list (read-string "Filters (since= agent= decision= repo= tool= limit=): "
                                  (codewhale--log-filter-text codewhale--log-filters))))
  (codewhale-log (codewhale-log-parse-filters input)))

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

;; The server's approval prompts (docs/codewhale/contract.md §4,
;; "approvalsAsync") are shown one at a time on a card in a buffer of its
;; own, oldest first, as the Neovim plugin shows them
;; (editors/nvim/lua/codewhale/prompt.lua, whose reasons hold here):
;;
;;  * The card takes the keyboard only when Emacs has been idle for
;;    `codewhale--approval-quiet-seconds' and no minibuffer is in use: text
;;    typed into a buffer or a minibuffer reaches it intact.  While a
;;    minibuffer is in use the card waits, named in the mode line, and
;;    opens when the minibuffer closes (`codewhale-approval-open' brings
;;    back a card whose window was closed).
;;  * Once it has the keyboard, nothing answers it until no key has been
;;    typed for the quiet period; every key starts that period again.
;;    Approving is typing the choice's code, three letters drawn at random
;;    for each prompt; `d' denies, `q' dismisses (a deny too).  Any other
;;    key answers nothing.  So no run of ordinary typing can approve.
;;  * The text is the server's, escaped by it (gate/problem.Visible);
;;    what is left invisible, a server bug, is escaped again here, and
;;    the card's buffer reorders no right-to-left text.
;;  * Dismissing, closing the card, the deadline, the server going away
;;    and killing Emacs all deny.

(defgroup codewhale-approvals nil
  "Approving agents' calls in Emacs through codewhale-ls."
  :group 'tools
  :prefix "codewhale-")

(defcustom codewhale-serve-repositories t
  "Whether to serve every git repository of a visited file.
An agent's hook in a repository finds this Emacs only while a
codewhale-ls serves that repository (README \"Serving every
repository\"), and most repositories have no policy file to open.
So when this is non-nil, visiting any file of a git work tree starts
codewhale-ls for it, one per repository, which then lints nothing
and serves its approvals.  Setting it to nil starts no more of them;
servers already running go on until Emacs exits."
  :type 'boolean
  :group 'codewhale-approvals)

(defvar codewhale--approval-quiet-seconds 1.0
  "How long the card waits, untouched, before any key answers it.
A person needs about that long to read what the card asks; a
typist's keys come much faster, and each one starts it again.")

(defconst codewhale--approval-code-letters "bcfhmnprstvwxz"
  "Letters of the approval codes.
None of the card's other keys (d q to answer, j k g G to scroll) and
no vowel, so that a code is no English word.")

(cl-defstruct (codewhale--ask (:constructor codewhale--ask-make)
                              (:copier nil))
  "One prompt in the queue."
  id prompt server answer alive choices codes buffer
  (typed "") focused-at last-key deadline done withdrawn tick expiry)

(defvar codewhale--approvals nil
  "The prompts waiting, oldest first; only the first has a card.")

(defvar-local codewhale--approval nil
  "The prompt whose card this buffer is.")

(defvar-local codewhale--approval-top-end nil
  "Where the card's redrawn part (choices, state, time) ends.")

;;; The prompt's text

(require 'parse-time)

(defun codewhale--approval-invisible-p (char)
  "Return non-nil for a CHAR a terminal may not draw as itself.
Such a character is drawn as nothing or as a space, or changes how
its neighbours are drawn or ordered."
  (or (> char #x3FFF7F)
      (and (/= char ?\s)
           (memq (get-char-code-property char 'general-category)
                 '(Cc Cf Cs Co Cn Zl Zp Zs Mn Me)))))

(defun codewhale--approval-visible (value &optional keep-newlines)
  "Return VALUE as text in which every character is visible.
The server escapes its text already (contract §4); this second line
of defence escapes what it left invisible, between ⟪ and ⟫, so that a
server bug cannot hide what the card shows.  A newline stays one
where KEEP-NEWLINES is non-nil, else it becomes ⏎."
  (let ((text (cond ((null value) "")
                    ((stringp value) value)
                    (t (format "%s" value)))))
    (if (not (string-match-p "[^\n -~]" text))
        (if keep-newlines text (string-replace "\n" "⏎" text))
      (mapconcat
       (lambda (char)
         (cond ((eq char ?\n) (if keep-newlines "\n" "⏎"))
               ((> char #x3FFF7F) (format "⟪byte 0x%02X⟫" (- char #x3FFF00)))
               ((codewhale--approval-invisible-p char) (format "⟪U+%04X⟫" char))
               (t (string char))))
       text ""))))

(defun codewhale--approval-field (prompt key)
  "PROMPT's KEY as visible text on one line, nil when absent."
  (let ((value (plist-get prompt key)))
    (and value (not (eq value :json-false))
         (codewhale--approval-visible value))))

(defun codewhale--prompt-choices (prompt)
  "PROMPT's choices with Deny first, the rest in the server's order.
A prompt without a Deny choice still gets one: denying is always
possible."
  (let (deny rest)
    (dolist (choice (plist-get prompt :choices))
      (let ((id (and (consp choice) (plist-get choice :id))))
        (when (stringp id)
          (if (equal id "deny") (setq deny choice) (push choice rest)))))
    (cons (or deny (list :id "deny" :title "Deny")) (nreverse rest))))

(defun codewhale--approval-title (choice)
  "CHOICE's title on one line."
  (or (codewhale--approval-field choice :title) (plist-get choice :id)))

(defun codewhale--approval-random-letter ()
  "One of `codewhale--approval-code-letters', drawn at random."
  (let ((letters codewhale--approval-code-letters))
    (aref letters (random (length letters)))))

(defun codewhale--approval-draw-codes (choices)
  "A code for each of CHOICES but Deny, as an alist from id to code.
Three letters, the first different for each choice, so what was
typed so far matches one choice at most."
  (random t)
  (let (codes used)
    (dolist (choice choices)
      (let ((id (plist-get choice :id)) code)
        (unless (equal id "deny")
          (while (or (null code) (memq (aref code 0) used))
            (setq code (string (codewhale--approval-random-letter)
                               (codewhale--approval-random-letter)
                               (codewhale--approval-random-letter))))
          (push (aref code 0) used)
          (push (cons id code) codes))))
    codes))

(defun codewhale--prompt-deadline (prompt)
  "PROMPT's deadline as a float time, nil when it cannot be read.
The card then shows no countdown; the server still enforces it."
  (let ((deadline (plist-get prompt :deadline)))
    (and (stringp deadline)
         (ignore-errors (float-time (parse-iso8601-time-string deadline))))))

(defun codewhale--approval-time-left (a)
  "How long A still waits, and until when in local time."
  (let ((at (codewhale--ask-deadline a)))
    (if (not at)
        "deadline unknown"
      (let ((left (max 0 (floor (- at (float-time))))))
        (format "%d:%02d left (until %s)" (/ left 60) (% left 60)
                (format-time-string "%H:%M:%S" at))))))

(defun codewhale--approval-input-lines (input)
  "One input field of the call, INPUT, as the card's lines.
A heading counts its lines, its escapes and the bytes the server
left out; then the text, escaped by the server (⏎ ends each line)."
  (let* ((text (codewhale--approval-visible (plist-get input :text) t))
         (lines (split-string (string-remove-suffix "\n" text) "\n"))
         (escaped (or (plist-get input :escaped) 0))
         (hidden (or (plist-get input :hidden) 0))
         (facts (list (format "%d line%s" (length lines)
                              (if (= (length lines) 1) "" "s")))))
    (when (and (numberp escaped) (> escaped 0))
      (push (format "%d invisible or non-ASCII character%s shown as ⟪…⟫"
                    escaped (if (= escaped 1) "" "s"))
            facts))
    (when (and (numberp hidden) (> hidden 0))
      (push (format "%d bytes hidden in the middle" hidden) facts))
    (cons (format "%s (%s):" (or (codewhale--approval-field input :field) "input")
                  (string-join (nreverse facts) ", "))
          (mapcar (lambda (line) (concat "  " line)) lines))))

(defun codewhale--approval-body (prompt)
  "The card's fixed text for PROMPT: every input field whole, why, where."
  (let ((out nil)
        (inputs (plist-get prompt :inputs)))
    (if inputs
        (dolist (input inputs)
          (when (consp input)
            (setq out (append out (codewhale--approval-input-lines input)))))
      ;; A server older than the inputs field: its summary and detail.
      (dolist (key '(:summary :detail))
        (let ((text (plist-get prompt key)))
          (when (and (stringp text)
                     (not (and (eq key :detail)
                               (equal text (plist-get prompt :summary)))))
            (dolist (line (split-string (codewhale--approval-visible text t) "\n"))
              (setq out (append out (list (concat "  " line)))))))))
    (setq out (append out (list (concat "Reason: " (or (codewhale--approval-field prompt :reason) "")))))
    (setq out (append out (list (concat "Layer " (or (codewhale--approval-field prompt :layer) "?")
                                        (let ((rule (codewhale--approval-field prompt :rule)))
                                          (if rule (concat ", rule: " rule) ""))))))
    (dolist (pair '((:workspace . "Workspace: ") (:codewhale . "Rules of Codewhale ")))
      (let ((value (codewhale--approval-field prompt (car pair))))
        (when value (setq out (append out (list (concat (cdr pair) value)))))))
    (let ((detail (codewhale--approval-field prompt :detail)))
      (when (and detail inputs)
        (setq out (append out (list (concat "Detail: " detail))))))
    (dolist (choice (codewhale--prompt-choices prompt))
      (let ((preview (plist-get choice :preview)))
        (when (and (equal (plist-get choice :id) "always") (stringp preview))
          (setq out (append out
                            (list (format "\"%s\" appends to permissions.toml:"
                                          (codewhale--approval-title choice)))
                            (mapcar (lambda (line) (concat "    " line))
                                    (split-string (codewhale--approval-visible preview t) "\n")))))))
    out))

;;; The state of a card

(defun codewhale--approval-window (a)
  "The window showing A's card, nil when none does."
  (let ((buffer (codewhale--ask-buffer a)))
    (and (buffer-live-p buffer) (get-buffer-window buffer t))))

(defun codewhale--approval-focused-p (a)
  "Whether A's card has the keyboard: its window is selected."
  (let ((window (codewhale--approval-window a)))
    (and window (eq window (selected-window)))))

(defun codewhale--approval-ready-p (a)
  "Whether a key may answer A: focused, then untouched for the quiet period."
  (let ((since (codewhale--ask-focused-at a)))
    (and since (codewhale--approval-focused-p a)
         (>= (- (float-time) (max since (or (codewhale--ask-last-key a) 0)))
             codewhale--approval-quiet-seconds))))

(defun codewhale--approval-state (a)
  "What A's card does with keys now, in words."
  (cond ((active-minibuffer-window)
         "not reading keys: the minibuffer is in use; the card takes keys once it is closed")
        ((not (codewhale--approval-focused-p a))
         (format "not reading keys: it takes them once you have typed nothing for %g s"
                 codewhale--approval-quiet-seconds))
        ((not (codewhale--approval-ready-p a))
         (format "keys ignored until you type nothing for %g s"
                 codewhale--approval-quiet-seconds))
        (t "ready: type a code to approve, d to deny, q to dismiss")))

(defun codewhale--approval-top (a)
  "Return the redrawn part of the card of A.
Its title, its choices and how to answer each, its state, the time."
  (let* ((prompt (codewhale--ask-prompt a))
         (agent (codewhale--approval-field prompt :agent))
         (waiting (1- (length codewhale--approvals)))
         (typed (codewhale--ask-typed a))
         (lines (list (concat "Codewhale approval: "
                              (or (codewhale--approval-field prompt :tool) "?")
                              (if agent (concat " (asked by " agent ")") "")))))
    (dolist (choice (codewhale--ask-choices a))
      (let* ((code (cdr (assoc (plist-get choice :id) (codewhale--ask-codes a))))
             (how (cond ((null code) "d")
                        ((and (not (string-empty-p typed)) (string-prefix-p typed code))
                         (concat "type " (upcase typed) (substring code (length typed))))
                        (t (concat "type " code)))))
        (push (format " %-11s%s" how (codewhale--approval-title choice)) lines)))
    (push (concat " " (codewhale--approval-state a)) lines)
    (push (concat " Time: " (codewhale--approval-time-left a)
                  (if (> waiting 0) (format ", %d more waiting" waiting) ""))
          lines)
    (push (make-string 40 ?─) lines)
    (concat (string-join (nreverse lines) "\n") "\n")))

(defun codewhale--approval-render (a)
  "Redraw the changing part of A's card."
  (let ((buffer (codewhale--ask-buffer a)))
    (when (and (buffer-live-p buffer) (not (codewhale--ask-done a)))
      (with-current-buffer buffer
        (let ((inhibit-read-only t))
          (save-excursion
            (delete-region (point-min) codewhale--approval-top-end)
            (goto-char (point-min))
            (insert (codewhale--approval-top a)))))
      (force-mode-line-update t))))

;;; The card

(defvar codewhale-approval-mode-map
  (let ((map (make-keymap)))
    ;; Every key is the card's (a default binding masks every other
    ;; keymap), but C-x and ESC (M-x, in a terminal), which lead away
    ;; from it.
    (define-key map [t] #'codewhale-approval-key)
    ;; Bound to nil, a key is not masked: the other keymaps decide.
    (define-key map (vector ?\C-x) nil)
    (define-key map (vector meta-prefix-char) nil)
    map)
  "Keys of the approval card: all of them go to `codewhale-approval-key'.")

(define-derived-mode codewhale-approval-mode nil "Codewhale-Approval"
  "The card of one approval prompt of codewhale-ls.
Nothing answers it until it has had the keyboard, untouched, for a
moment; then \\`d' denies, \\`q' dismisses (a deny too) and a
choice's code, typed letter by letter, approves that choice.  \\`j'
\\`k' \\`g' \\`G' scroll.  Any other key answers nothing and restarts the
moment.  Killing the buffer denies."
  (setq buffer-read-only t
        truncate-lines nil
        word-wrap nil
        ;; The text is shown in the order it will run: no right-to-left
        ;; reordering of what the server did not escape.
        bidi-display-reordering nil
        bidi-paragraph-direction 'left-to-right
        cursor-in-non-selected-windows nil
        buffer-undo-list t
        header-line-format '(:eval (codewhale--approval-header)))
  (add-hook 'kill-buffer-hook #'codewhale--approval-buffer-killed nil t))

(defun codewhale--approval-header ()
  "The card's header line: the state and the time, never scrolled away."
  (let ((a codewhale--approval))
    (if (and a (not (codewhale--ask-done a)))
        (concat " " (codewhale--approval-time-left a) " | "
                (codewhale--approval-state a))
      "")))

(defun codewhale--approval-open-card (a)
  "Make the card of A, in a buffer not yet shown."
  (let ((buffer (generate-new-buffer "*Codewhale approval*")))
    (with-current-buffer buffer
      (codewhale-approval-mode)
      (setq codewhale--approval a)
      (let ((inhibit-read-only t))
        (insert (string-join (codewhale--approval-body (codewhale--ask-prompt a)) "\n")
                "\n"))
      (goto-char (point-min))
      (setq codewhale--approval-top-end (copy-marker (point-min) t)))
    (setf (codewhale--ask-buffer a) buffer)
    (codewhale--approval-render a)
    (setf (codewhale--ask-tick a)
          (run-at-time 0 0.25 #'codewhale--approval-tick a))))

(defun codewhale--approval-display (a)
  "Show A's card at the bottom of the frame, without selecting it."
  (let ((buffer (codewhale--ask-buffer a)))
    (or (codewhale--approval-window a)
        (let ((window (display-buffer
                       buffer
                       '((display-buffer-reuse-window display-buffer-at-bottom)
                         (window-height . 0.6)))))
          (when window
            (with-selected-window window (goto-char (point-min)))
            (set-window-start window (with-current-buffer buffer (point-min))))
          window))))

(defun codewhale--approval-may-focus-p ()
  "Whether the card may take the keyboard now.
Not while a minibuffer, a keyboard macro or a search is in use, and
only once Emacs has been idle for the quiet period: keys a person is
typing go on reaching what they type into."
  (let ((idle (current-idle-time)))
    (and idle
         (>= (float-time idle) codewhale--approval-quiet-seconds)
         (not (active-minibuffer-window))
         (not executing-kbd-macro)
         (not defining-kbd-macro)
         (not (bound-and-true-p isearch-mode))
         (not (input-pending-p)))))

(defun codewhale--approval-tick (a)
  "Keep A's card up to date: its focus, its server, its countdown.
A failure here ends the prompt as dismissed: a card that cannot be
kept up to date must not stay to be answered."
  (condition-case err
      (codewhale--approval-update a)
    (error (codewhale--approval-end
            a nil (format "the card failed (%s)" (error-message-string err))))))

(defun codewhale--approval-update (a)
  "Update A's card (see `codewhale--approval-tick')."
  (cond
   ((codewhale--ask-done a))
   ((and (codewhale--ask-alive a)
         (not (funcall (codewhale--ask-alive a))))
    (codewhale--approval-end a nil "withdrawn: its server stopped"))
   ((and (codewhale--ask-deadline a)
         (> (float-time) (+ 1 (codewhale--ask-deadline a))))
    ;; The server withdraws at its deadline; this denies even if that
    ;; notice is lost.
    (codewhale--approval-end a nil "withdrawn: its deadline passed"))
   (t
    (unless (active-minibuffer-window)
      (codewhale--approval-display a))
    (if (codewhale--approval-focused-p a)
        (unless (codewhale--ask-focused-at a)
          (codewhale--approval-focus a))
      (setf (codewhale--ask-focused-at a) nil
            (codewhale--ask-typed a) "")
      (when (codewhale--approval-may-focus-p)
        (let ((window (codewhale--approval-display a)))
          (when window
            (select-window window)
            (codewhale--approval-focus a)))))
    (codewhale--approval-render a))))

(defun codewhale--approval-focus (a)
  "Start the quiet period of A, whose card has just taken the keyboard."
  (setf (codewhale--ask-focused-at a) (float-time)
        (codewhale--ask-typed a) ""))

(defun codewhale-approval-open ()
  "Show the waiting approval card and give it the keyboard.
It answers nothing until it has been left untouched for a moment."
  (interactive)
  (let ((a (car codewhale--approvals)))
    (unless a
      (user-error "No Codewhale approval is waiting"))
    (when (active-minibuffer-window)
      (user-error "Codewhale: the minibuffer is in use; the card opens once it is closed (C-g)"))
    (let ((window (codewhale--approval-display a)))
      (when window
        (select-window window)
        (codewhale--approval-focus a)
        (codewhale--approval-render a)))))

(defconst codewhale--approval-scroll-keys
  '(("j" . scroll-up-line) ("<down>" . scroll-up-line) ("C-n" . scroll-up-line)
    ("k" . scroll-down-line) ("<up>" . scroll-down-line) ("C-p" . scroll-down-line)
    ("C-v" . scroll-up-command) ("<next>" . scroll-up-command)
    ("<prior>" . scroll-down-command)
    ("g" . beginning-of-buffer) ("G" . end-of-buffer))
  "Keys that move through the card's text and never answer it.")

(defun codewhale-approval-key ()
  "Take one key typed in the approval card.
Before the card has been untouched for the quiet period every key
only starts that period again.  After it: \\`d' denies, \\`q' or \\`C-g'
dismiss (a deny too), a code's letters typed in order approve that
choice; scrolling keys scroll; any other key drops what was typed."
  (interactive)
  (let* ((a codewhale--approval)
         (key (key-description (vector last-command-event)))
         (ready (and a (codewhale--approval-ready-p a)))
         (typed (and a (codewhale--ask-typed a)))
         (scroll (cdr (assoc key codewhale--approval-scroll-keys))))
    (when (and a (not (codewhale--ask-done a)))
      (unless (codewhale--ask-focused-at a)
        (codewhale--approval-focus a))
      (setf (codewhale--ask-last-key a) (float-time)
            (codewhale--ask-typed a) "")
      (cond
       (scroll (ignore-errors (call-interactively scroll)))
       ((and ready (string-empty-p typed) (equal key "d"))
        (codewhale--approval-end a "deny" "you chose Deny"))
       ((and ready (string-empty-p typed) (member key '("q" "C-g")))
        (codewhale--approval-end a nil "you dismissed it"))
       ((and (or ready (not (string-empty-p typed))) (= (length key) 1))
        (let ((so-far (concat typed key)))
          (pcase-dolist (`(,id . ,code) (codewhale--ask-codes a))
            (when (string-prefix-p so-far code)
              (if (equal so-far code)
                  (codewhale--approval-end
                   a id (format "you typed the code of \"%s\""
                                (codewhale--approval-title
                                 (cl-find id (codewhale--ask-choices a)
                                          :key (lambda (c) (plist-get c :id))
                                          :test #'equal))))
                ;; Typing a code is not untouched: the period starts
                ;; again, and the next letter is taken because a code
                ;; is under way.
                (setf (codewhale--ask-typed a) so-far)))))))
      (codewhale--approval-render a))))

(defun codewhale--approval-buffer-killed ()
  "The card's buffer is being killed: its prompt is dismissed, a deny."
  (let ((a codewhale--approval))
    (when (and a (not (codewhale--ask-done a)))
      (codewhale--approval-end a nil "its card was closed"))))

;;; The queue

(defun codewhale--approval-end (a choice why)
  "Answer A once with CHOICE (an id, or nil: dismissed, a deny), WHY said.
Its card closes and the next prompt's opens."
  (unless (codewhale--ask-done a)
    (setf (codewhale--ask-done a) t)
    (dolist (timer (list (codewhale--ask-tick a) (codewhale--ask-expiry a)))
      (when timer (cancel-timer timer)))
    (setq codewhale--approvals (delq a codewhale--approvals))
    (let ((buffer (codewhale--ask-buffer a)))
      (when (buffer-live-p buffer)
        (dolist (window (get-buffer-window-list buffer nil t))
          (quit-window nil window))
        (kill-buffer buffer)))
    (unless (codewhale--ask-withdrawn a)
      (condition-case err
          (funcall (codewhale--ask-answer a) (codewhale--ask-id a) choice)
        (error (message "Codewhale: the answer could not be sent (%s); the call is denied"
                        (error-message-string err)))))
    (let ((what (or (codewhale--approval-field (codewhale--ask-prompt a) :summary)
                    (codewhale--approval-field (codewhale--ask-prompt a) :tool)
                    "the call")))
      (message "Codewhale: %s, %s: %s"
               (if (and choice (not (equal choice "deny"))) "approved" "denied")
               why (truncate-string-to-width what 60 nil nil "…")))
    (force-mode-line-update t)
    (run-at-time 0 nil #'codewhale--approval-show-next)))

(defun codewhale--approval-show-next ()
  "Open the oldest prompt's card, when none is open."
  (let ((a (car codewhale--approvals)))
    (when (and a (not (codewhale--ask-buffer a)))
      (codewhale--approval-open-card a))))

(defun codewhale--approval-mode-line ()
  "The mode line's word on waiting approvals."
  (when codewhale--approvals
    (propertize (if (cdr codewhale--approvals)
                    (format " [Codewhale: %d approvals waiting]" (length codewhale--approvals))
                  " [Codewhale: approval waiting]")
                'face 'warning)))

(defvar codewhale--approval-mode-line-entry
  '(:eval (codewhale--approval-mode-line))
  "The entry of `global-mode-string' naming waiting approvals.")
(put 'codewhale--approval-mode-line-entry 'risky-local-variable t)

(declare-function lsp-request-async "ext:lsp-mode")
(declare-function lsp--workspace-status "ext:lsp-mode")
(defvar lsp--cur-workspace)

(defun codewhale--approval-answer-function (server)
  "How to send SERVER an answer: a function of the prompt's id and choice.
SERVER is an Eglot connection or an lsp-mode workspace; the answer
is the request codewhale/answerApproval, with the choice nil for a
dismissal (JSON null).  An error answer means the prompt had ended
first: its call was denied."
  (let ((too-late (lambda (&rest _)
                    (message "Codewhale: too late: that prompt had already ended, and its call was denied"))))
    (if (cl-typep server 'jsonrpc-connection)
        (lambda (id choice)
          (when (jsonrpc-running-p server)
            (jsonrpc-async-request server :codewhale/answerApproval
                                   (list :id id :choice choice)
                                   :success-fn #'ignore :error-fn too-late
                                   :timeout-fn #'ignore)))
      (lambda (id choice)
        (let ((lsp--cur-workspace server))
          (lsp-request-async "codewhale/answerApproval" (list :id id :choice choice)
                             #'ignore :mode 'detached :error-handler too-late))))))

(defun codewhale--approval-alive-function (server)
  "Return a function telling whether SERVER is still running.
SERVER is an Eglot connection or an lsp-mode workspace."
  (if (cl-typep server 'jsonrpc-connection)
      (lambda () (jsonrpc-running-p server))
    (lambda () (memq (lsp--workspace-status server) '(starting initialized)))))

(defun codewhale--approval-requested (server params)
  "Queue SERVER's prompt PARAMS (codewhale/approvalRequested).
SERVER is the Eglot connection or the lsp-mode workspace that asked,
and is answered (codewhale/answerApproval); PARAMS is the
ApprovalPrompt as its client decoded it (a plist or a hash table).
A prompt of a server gone is withdrawn, a deny."
  (let* ((prompt (codewhale--json-plist params))
         (id (plist-get prompt :id)))
    (when (and (stringp id)
               (not (cl-find id codewhale--approvals
                             :key #'codewhale--ask-id :test #'equal)))
      (let* ((choices (codewhale--prompt-choices prompt))
             (a (codewhale--ask-make
                 :id id :prompt prompt :server server :choices choices
                 :codes (codewhale--approval-draw-codes choices)
                 :deadline (codewhale--prompt-deadline prompt)
                 :answer (codewhale--approval-answer-function server)
                 :alive (codewhale--approval-alive-function server))))
        (setq codewhale--approvals (append codewhale--approvals (list a)))
        (unless (member codewhale--approval-mode-line-entry global-mode-string)
          (setq global-mode-string
                (append (if (listp global-mode-string) global-mode-string
                          (list global-mode-string))
                        (list codewhale--approval-mode-line-entry))))
        (when (active-minibuffer-window)
          ;; The minibuffer is the person's: the card waits, named in the
          ;; mode line, and the bell says something waits.
          (ding t))
        (mapc #'codewhale--approval-render codewhale--approvals)
        (force-mode-line-update t)
        (run-at-time 0 nil #'codewhale--approval-show-next)))))

(defun codewhale--approval-withdrawn (_server params)
  "End the prompt PARAMS names (codewhale/approvalWithdrawn) unanswered.
The server stopped waiting, and its call is denied."
  (let* ((id (plist-get (codewhale--json-plist params) :id))
         (a (cl-find id codewhale--approvals :key #'codewhale--ask-id :test #'equal)))
    (when a
      (setf (codewhale--ask-withdrawn a) t)
      (codewhale--approval-end
       a nil "withdrawn: the server stopped waiting (its deadline passed or the agent gave up)"))))

;; Eglot's dispatch of the two, on the connection that asked: more
;; specific than the core's method for every codewhale-ls notification,
;; which has no connection to answer.
(cl-defmethod eglot-handle-notification
  ((server codewhale-eglot-server) (_method (eql codewhale/approvalRequested)) &rest params)
  "Show SERVER's approval prompt PARAMS on a card (contract §4)."
  (codewhale--approval-requested server params))

(cl-defmethod eglot-handle-notification
  ((server codewhale-eglot-server) (_method (eql codewhale/approvalWithdrawn)) &rest params)
  "Close the card of SERVER's prompt PARAMS names: it was withdrawn."
  (codewhale--approval-withdrawn server params))

(defun codewhale--approval-kill-emacs ()
  "Emacs exits: every waiting prompt is dismissed, a deny."
  (dolist (a codewhale--approvals)
    (codewhale--approval-end a nil "Emacs exited")))

(add-hook 'kill-emacs-hook #'codewhale--approval-kill-emacs)

;;; Serving every repository

(defun codewhale--repository (file)
  "The root of FILE's git work tree; nil outside one, or for the home."
  (let ((root (and file (file-name-absolute-p file)
                   (locate-dominating-file file ".git"))))
    (when root
      (setq root (directory-file-name (expand-file-name root)))
      (unless (or (equal root "/")
                  (equal root (directory-file-name (expand-file-name "~"))))
        root))))

(defun codewhale--serve-visited-file ()
  "Serve the git repository of the file just visited."
  (when codewhale-serve-repositories
    (let ((root (codewhale--repository buffer-file-name)))
      (when root
        ;; After the visit's own hooks: starting a server is no part of
        ;; opening the file.
        (run-at-time 0 nil #'codewhale--serve-repository root)))))

(defconst codewhale--served-modes '(codewhale-toml-mode codewhale-json-mode)
  "The modes of a served repository's server, as `eglot-server-programs' has them.
The same as for a policy file, so that the one server serves both.")

(defvar codewhale--serving (make-hash-table :test #'equal)
  "When this Emacs last started a server for a repository, by its root.")

(defun codewhale--served-p (root)
  "Return non-nil when an Eglot connection to codewhale-ls serves ROOT."
  (with-temp-buffer
    (setq default-directory (file-name-as-directory root))
    ;; What `eglot-ensure' in a policy file of ROOT would find.
    (setq major-mode (car codewhale--served-modes))
    (let ((server (eglot-current-server)))
      (and server (jsonrpc-running-p server)))))

(defun codewhale--serve-repository (root)
  "Start codewhale-ls for the repository ROOT, unless one serves it.
Only with Eglot (`codewhale-client'); it is started in the
background, and a server that cannot start says why, once."
  (let ((started (gethash root codewhale--serving)))
    (when (and codewhale-serve-repositories
               (eq codewhale-client 'eglot)
               (file-directory-p root)
               (not (and started (< (- (float-time) started) eglot-connect-timeout)))
               (not (codewhale--served-p root)))
      (puthash root (float-time) codewhale--serving)
      (let* ((default-directory (file-name-as-directory root))
             (project (or (project-current nil default-directory)
                          (cons 'transient default-directory)))
             (eglot-sync-connect nil))
        (condition-case err
            (let ((contact (codewhale--eglot-contact nil project)))
              (eglot codewhale--served-modes project (car contact) (cdr contact)
                     '("toml" "json")))
          (error (message "Codewhale: %s is not served for approvals: %s; agents' hooks there find no editor (M-x customize-option codewhale-serve-repositories turns serving off)"
                          root (error-message-string err))))))))

(add-hook 'find-file-hook #'codewhale--serve-visited-file)

;;;; Approvals end here

(provide 'codewhale)
;;; codewhale.el ends here
