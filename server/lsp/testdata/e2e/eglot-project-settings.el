;;; eglot-project-settings.el --- a memex's own .dir-locals.el against the gates  -*- lexical-binding: t; -*-

;; Run by TestEmacsProjectSettingsCannotWeaken (e2e_project_test.go):
;;   emacs --batch -Q -l eglot-project-settings.el
;; with the environment of TestEmacsEglot, a model on loopback, and a
;; .dir-locals.el in the memex that sets `eglot-workspace-configuration'
;; — a safe local variable in eglot, so Emacs applies it without asking.
;; A question is asked; the Go test checks what ran and where the notes
;; went.  One line per check, then "E2E OK"; on failure "E2E FAIL …".

;;; Code:

(load (expand-file-name "e2e-common.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)

(defun e2e-run ()
  (find-file (e2e-file "projects/pp-lsp.org"))
  (e2e-say "DIR-LOCAL %s" (e2e-bool (plist-get eglot-workspace-configuration :passepartout)))
  (apply #'eglot (eglot--guess-contact))
  (let ((server (eglot-current-server)))
    (goto-char (point-min))
    (search-forward "Gate every proposal")
    (let ((answer (e2e-ask "Note that it is done.")))
      (e2e-say "ASK %s" (plist-get answer :status)))
    (let ((symbols (jsonrpc-request server :workspace/symbol '(:query "Homesecret"))))
      (e2e-say "HOME SYMBOLS %d" (length symbols)))
    (e2e-shutdown server)))

(e2e-main)

;;; eglot-project-settings.el ends here
