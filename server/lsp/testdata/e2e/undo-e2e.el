;;; undo-e2e.el --- undo and approve-always from Emacs's eglot, in batch  -*- lexical-binding: t; -*-

;; Run by TestEmacsUndoAndApproveAlways (e2e_undo_test.go), with the
;; environment of eglot-e2e.el and PP_LSP_CONFIG (the configuration file
;; approve-always writes).  The model (a replay transcript) rewrites the
;; open inbox.org; `pp-lsp-undo' puts the buffer back through the editor
;; and again redoes it; once the buffer changed, undo is refused naming
;; the file.  A plan for `make count' is approved with
;; `pp-lsp-approve-always', which adds its rule to the configuration file.
;; One line per check, then "E2E OK".

;;; Code:

(load (expand-file-name "e2e-common.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)

(defun e2e-sync ()
  "Send the buffer's pending changes now (batch Emacs runs eglot's idle
timer only while it waits), and let the server read them."
  (eglot--signal-textDocument/didChange)
  (accept-process-output nil 0.3))

(defun e2e-run ()
  (find-file (expand-file-name "inbox.org" e2e-memex))
  (apply #'eglot (eglot--guess-contact))
  (let ((inbox (current-buffer))
        (original (buffer-string)))
    ;; The model rewrites the open file: through the editor.
    (pp-lsp-ask "rewrite the inbox")
    (e2e-wait "the answer" (lambda () pp-lsp--last-result) 60)
    (e2e-wait "the rewrite" (lambda () (string-match-p "Rewritten by the model" (buffer-string))))
    (e2e-sync)
    (e2e-say "REWRITTEN buffer=%s disk-unchanged=%s"
             (e2e-bool (string-match-p "Rewritten by the model" (buffer-string)))
             (e2e-bool (equal (e2e-disk "inbox.org") original)))
    ;; Undo: the buffer is put back, nothing written behind it.
    (let ((res (pp-lsp-undo)))
      (e2e-say "UNDO %s" (plist-get res :summary)))
    (e2e-wait "the undo" (lambda () (equal (with-current-buffer inbox (buffer-string)) original)))
    (e2e-sync)
    (e2e-say "UNDONE buffer=%s disk-unchanged=%s"
             (e2e-bool (equal (buffer-string) original))
             (e2e-bool (equal (e2e-disk "inbox.org") original)))
    ;; Undo the undo: redone.
    (let ((res (pp-lsp-undo)))
      (e2e-say "REDO %s" (plist-get res :summary)))
    (e2e-wait "the redo" (lambda () (string-match-p "Rewritten by the model" (with-current-buffer inbox (buffer-string)))))
    (e2e-sync)
    ;; The user types: undo is refused, naming the file, the text kept.
    (goto-char (point-max))
    (insert "* Mine\n")
    (let ((typed (buffer-string)))
      (e2e-sync)
      (condition-case err
          (progn (pp-lsp-undo) (e2e-say "REFUSED false"))
        (error (e2e-say "REFUSED %s" (e2e-bool (string-match-p "undo refused: inbox.org is not what" (error-message-string err))))
               ;; In words, as a user error: not jsonrpc's request id and codes.
               (e2e-say "REFUSED said plainly: %s"
                        (e2e-bool (and (eq (car err) 'user-error)
                                       (not (string-match-p "jsonrpc\\|request id=" (error-message-string err))))))))
      (e2e-say "KEPT %s" (e2e-bool (equal (buffer-string) typed)))))

  ;; A plan only a missing permission rule held back, approved with
  ;; similar actions allowed from now on.
  (setq pp-lsp--last-result nil)
  (pp-lsp-ask "count the notes")
  (e2e-wait "the plan" (lambda () pp-lsp--last-result) 60)
  (let* ((plan (plist-get pp-lsp--last-result :planId))
         (run (pp-lsp-approve-always plan)))
    (e2e-say "ALWAYS %s %s" (plist-get run :state) (plist-get run :rule)))
  (e2e-say "CONFIG %s" (e2e-bool (string-match-p "\"shell(make count)\""
                                                (with-temp-buffer
                                                  (insert-file-contents (getenv "PP_LSP_CONFIG"))
                                                  (buffer-string)))))
  (e2e-say "COUNTED %s" (e2e-bool (file-exists-p (expand-file-name "out/count.txt" e2e-memex)))))

(e2e-main)

;;; undo-e2e.el ends here
