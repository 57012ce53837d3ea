;;; eglot-killed.el --- the server stops while a question waits, in batch  -*- lexical-binding: t; -*-

;; Run by TestEmacsServerStops (e2e_chat_test.go) with a replay model that
;; takes seconds to say its first word: the question is asked, the server
;; is stopped (as a crash or a kill would), and the answer buffer must end
;; the question saying what happened and what to do, as Neovim's does;
;; asked again from the note, the question starts the server again.  One
;; line per check, then "E2E OK".

;;; Code:

(load (expand-file-name "e2e-common.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)

(defun e2e-run ()
  (let* ((server (e2e-visit "projects/pp-lsp.org"))
         (proc (jsonrpc--process server))
         (note (current-buffer)))
    (setq pp-lsp--last-result nil)
    (pp-lsp-ask "A slow one?")
    (signal-process proc (quote SIGTERM))
    (e2e-wait "the question to end" (lambda () pp-lsp--last-result) 20)
    (e2e-say "ENDED %s: %s" (plist-get pp-lsp--last-result :outcome) (plist-get pp-lsp--last-result :error))
    (with-current-buffer "*Passepartout*"
      (goto-char (point-max))
      (forward-line -1)
      (e2e-say "BUFFER ends %s" (string-trim (buffer-substring-no-properties (point) (point-max)))))
    ;; Asked again from the note, the question starts the server again.
    (set-buffer note)
    (setq pp-lsp--last-result nil)
    (pp-lsp-ask "Again?")
    ;; Emacs does not wait for it: it starts, and the question goes then.
    (e2e-wait "the server to start again" (lambda () (eglot-current-server)) 30)
    (let ((again (eglot-current-server)))
      (e2e-say "RESTARTED %s" (e2e-bool (and again (not (eq again server)) (jsonrpc-running-p again))))
      (pp-lsp-cancel)
      (e2e-shutdown again))))

(e2e-main)

;;; eglot-killed.el ends here
