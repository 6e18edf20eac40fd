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

;; Placeholder written by the lead so the two parts of the package can be
;; built side by side (issue 27, point 5); each part replaces its section.

;;; Code:

;;;; Core: modes, eglot, status, explain, log (owned by the core part)

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

(defun codewhale--approval-data (value)
  "VALUE, a decoded JSON value, as plists, lists and atoms.
eglot decodes objects as plists and arrays as vectors; lsp-mode may
decode objects as hash tables with string keys."
  (cond ((hash-table-p value)
         (let (out)
           (maphash (lambda (k v)
                      (push (if (keywordp k) k (intern (format ":%s" k))) out)
                      (push (codewhale--approval-data v) out))
                    value)
           (nreverse out)))
        ((vectorp value) (mapcar #'codewhale--approval-data value))
        ((and (consp value) (keywordp (car value)))
         (cl-loop for (k v) on value by #'cddr
                  nconc (list k (codewhale--approval-data v))))
        (t value)))

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
  (let* ((prompt (codewhale--approval-data params))
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
  (let* ((id (plist-get (codewhale--approval-data params) :id))
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
