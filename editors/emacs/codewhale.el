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

;;;; Approvals end here

(provide 'codewhale)
;;; codewhale.el ends here
