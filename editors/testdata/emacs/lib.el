;;; lib.el --- shared by the scripts of editors/emacs_test.go  -*- lexical-binding: t; -*-

;; A script records what it saw with `cw-set' and its failures with
;; `cw-fail'; `cw-main' writes them to $CWLS_OUT as JSON (the form
;; internal/nvimtest.ReadResults reads: "errors" fails the Go test) and
;; quits.  Waits run Emacs's own loop (`accept-process-output'), so the
;; server's messages, timers and process sentinels run as they would for
;; a person.

(require 'cl-lib)

(defvar cw-results (make-hash-table :test #'equal)
  "What the script saw, by name.")

(defvar cw-errors nil
  "The script's failures, newest first.")

(defun cw-set (key value)
  "Record VALUE under KEY."
  (puthash key value cw-results))

(defun cw-fail (format-string &rest args)
  "Record a failure: FORMAT-STRING with ARGS."
  (push (apply #'format format-string args) cw-errors))

(defun cw-ms-since (start)
  "Milliseconds since START (a `float-time')."
  (* 1000 (- (float-time) start)))

(defun cw-wait (seconds pred)
  "Run Emacs's loop until PRED holds or SECONDS pass; return PRED's value."
  (let ((give (+ (float-time) seconds))
        (held nil))
    (while (and (not (setq held (ignore-errors (funcall pred))))
                (< (float-time) give))
      (accept-process-output nil 0.05))
    held))

(defun cw-must (seconds what pred)
  "As `cw-wait', an error naming WHAT when PRED never held in SECONDS."
  (or (cw-wait seconds pred)
      (error "Timed out waiting for %s" what)))

(defun cw-buffer-text (name)
  "The text of buffer NAME, or nil."
  (when-let* ((b (get-buffer name)))
    (with-current-buffer b (buffer-substring-no-properties (point-min) (point-max)))))

(defun cw-lines (text)
  "TEXT as a JSON array of lines."
  (vconcat (split-string (or text "") "\n")))

(defun cw-write ()
  "Write the results to $CWLS_OUT."
  (puthash "errors" (vconcat (reverse cw-errors)) cw-results)
  (let ((coding-system-for-write 'utf-8-unix))
    (with-temp-file (getenv "CWLS_OUT")
      (insert (json-serialize cw-results :null-object :null :false-object :false)))))

(defun cw-main (body)
  "Run BODY, write the results and quit, whatever BODY did."
  (condition-case err
      (funcall body)
    (error (cw-fail "%s" (error-message-string err))))
  (cw-write)
  (kill-emacs 0))

(defun cw-debian-elpa ()
  "Put Debian's elpa-* packages (package-lint, lsp-mode) on `load-path'.
Emacs -Q skips debian-startup, which would."
  (dolist (dir (file-expand-wildcards "/usr/share/emacs/site-lisp/elpa/*"))
    (add-to-list 'load-path dir))
  (dolist (autoloads (file-expand-wildcards "/usr/share/emacs/site-lisp/elpa/*/*-autoloads.el"))
    (load autoloads nil t)))

(defun cw-load-package ()
  "Load the package from $CWLS_PLUGIN as `(require \\='codewhale)' from its folder.
The server is $CWLS_BIN."
  (add-to-list 'load-path (getenv "CWLS_PLUGIN"))
  (require 'codewhale)
  (setq codewhale-program (getenv "CWLS_BIN")))

(provide 'cw-lib)
;;; lib.el ends here
