;;; package.el --- MELPA's checks of codewhale.el, as editors/emacs_test.go asks  -*- lexical-binding: t; -*-

;; Byte-compiling with every warning an error, checkdoc and package-lint
;; (Debian's elpa-package-lint), each on a copy of the package, as
;; MELPA's reviewers run them.

(load (expand-file-name "lib.el" (file-name-directory load-file-name)) nil t)
(require 'bytecomp)

(defun cw-package-case ()
  "Byte-compile, checkdoc and package-lint codewhale.el."
  (let* ((dir (make-temp-file "codewhale-package" t))
         (file (expand-file-name "codewhale.el" dir)))
    (copy-file (expand-file-name "codewhale.el" (getenv "CWLS_PLUGIN")) file)
    (let ((byte-compile-error-on-warn t)
          (log nil))
      (cw-set "byte_compiled" (if (byte-compile-file file) t :false))
      (when-let* ((b (get-buffer byte-compile-log-buffer)))
        (with-current-buffer b
          (dolist (line (split-string (buffer-string) "\n" t))
            (when (string-match-p "\\(?:Warning\\|Error\\)" line)
              (push line log)))))
      (cw-set "compile" (vconcat (nreverse log))))
    (require 'checkdoc)
    (let ((checkdoc-diagnostic-buffer "*cw-checkdoc*")
          (found nil))
      (with-current-buffer (find-file-noselect file)
        (checkdoc-current-buffer t))
      (when-let* ((b (get-buffer "*cw-checkdoc*")))
        (with-current-buffer b
          (dolist (line (split-string (buffer-string) "\n" t))
            (when (string-match-p "\\`codewhale\\.el:[0-9]+:" line)
              (push line found)))))
      (cw-set "checkdoc" (vconcat (nreverse found))))
    (cw-debian-elpa)
    (require 'package-lint)
    (with-current-buffer (find-file-noselect file)
      (cw-set "package_lint"
              (vconcat (mapcar (lambda (i) (format "%s:%s: %s: %s" (nth 0 i) (nth 1 i) (nth 2 i) (nth 3 i)))
                               (package-lint-buffer))))
      (goto-char (point-min))
      (cw-set "header" (if (re-search-forward "^;; Version: \\(.*\\)$" nil t) (match-string 1) "")))
    ;; The recipe as MELPA's package-build reads it: one form.
    (with-temp-buffer
      (insert-file-contents (expand-file-name "melpa-recipe" (getenv "CWLS_PLUGIN")))
      (let ((recipe (read (current-buffer))))
        (cw-set "recipe" (list :name (symbol-name (car recipe))
                               :fetcher (symbol-name (plist-get (cdr recipe) :fetcher))
                               :repo (plist-get (cdr recipe) :repo)
                               :files (vconcat (plist-get (cdr recipe) :files))
                               :rest (if (ignore-errors (read (current-buffer))) t :false)))))
    (load file nil t)
    (cw-set "version" (symbol-value 'codewhale-version))))

(cw-main #'cw-package-case)
;;; package.el ends here
