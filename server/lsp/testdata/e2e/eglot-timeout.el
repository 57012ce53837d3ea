;;; eglot-timeout.el --- a question longer than pp-lsp-ask-timeout, in batch  -*- lexical-binding: t; -*-

;; Run by TestEmacsAskTimeout (e2e_chat_test.go) with a replay model that
;; takes seconds to say its first word and `pp-lsp-ask-timeout' shorter
;; than that: the answer buffer must end the question saying so, not
;; wait forever, and the server must be told to stop it (its model call
;; ends).  One line per check, then "E2E OK".

;;; Code:

(load (expand-file-name "e2e-common.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)

(defun e2e-run ()
  (find-file (expand-file-name "projects/pp-lsp.org" e2e-memex))
  (apply #'eglot (eglot--guess-contact))
  (let ((server (eglot-current-server))
        (pp-lsp-ask-timeout 2))
    (setq pp-lsp--last-result nil)
    (pp-lsp-ask "A slow one?")
    (e2e-wait "the question to end" (lambda () pp-lsp--last-result) 20)
    (e2e-say "ENDED %s: %s" (plist-get pp-lsp--last-result :outcome) (plist-get pp-lsp--last-result :error))
    (with-current-buffer "*Passepartout*"
      (goto-char (point-max))
      (forward-line -1)
      (e2e-say "BUFFER ends %s" (string-trim (buffer-substring-no-properties (point) (point-max))))
      (e2e-say "WAITING still said: %s"
               (e2e-bool (cl-some (lambda (o) (overlay-get o 'after-string))
                                  (overlays-in (point-min) (point-max))))))
    ;; The server was told to stop the question: its model call ends
    ;; while the server still runs (the test's model server says so by
    ;; writing E2E_MODEL_GONE).
    (let ((gone (getenv "E2E_MODEL_GONE")))
      (e2e-say "MODEL CALL STOPPED %s"
               (e2e-bool (condition-case nil
                             (progn (e2e-wait "the model call to end" (lambda () (file-exists-p gone)) 10) t)
                           (error nil)))))
    (e2e-shutdown server)))

(e2e-main)

;;; eglot-timeout.el ends here
