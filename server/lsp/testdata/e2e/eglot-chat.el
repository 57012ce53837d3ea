;;; eglot-chat.el --- a conversation held from Emacs's eglot, in batch  -*- lexical-binding: t; -*-

;; Run by TestEmacsChat (e2e_chat_test.go):
;;   emacs --batch -Q -l eglot-chat.el
;; with the environment of TestEmacsEglot and a replay model that answers
;; the two questions.  A question from a note starts a conversation; the
;; same command asked from the chat file continues it, and the new turn
;; lands in the open buffer; `pp-lsp-chats' lists it; from a file that
;; is no note of the memex the question goes without a place.  One line per
;; check, then "E2E OK"; on failure "E2E FAIL …" and exit 1.

;;; Code:

(load (expand-file-name "e2e-common.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)

(defun e2e-run ()
  (find-file (expand-file-name "projects/pp-lsp.org" e2e-memex))
  (apply #'eglot (eglot--guess-contact))
  (let ((server (eglot-current-server)))
    (goto-char (point-min))
    (search-forward "Gate every proposal")
    ;; Until the model's first word, the answer buffer says it waits.
    (setq pp-lsp--last-result nil)
    (pp-lsp-ask "What does the first question ask?")
    (let ((waiting (lambda ()
                     (with-current-buffer "*Passepartout*"
                       (cl-some (lambda (o) (let ((s (overlay-get o 'after-string)))
                                              (and s (string-match-p "^Waiting for the model…  C-c C-k cancels" s))))
                                (overlays-in (point-min) (point-max)))))))
      (e2e-say "WAITING said: %s" (e2e-bool (funcall waiting)))
      (e2e-wait "the answer" (lambda () pp-lsp--last-result) 60)
      (e2e-say "WAITING said after the answer: %s" (e2e-bool (funcall waiting))))
    (let* ((first pp-lsp--last-result)
           (chat (eglot--uri-to-path (plist-get first :chat))))
      (e2e-say "ASK1 %s" (plist-get first :status))
      (e2e-say "CHAT1 %s" (file-name-directory (file-relative-name chat e2e-memex)))
      (e2e-say "MODEL1 %s" (plist-get first :model))
      (with-current-buffer "*Passepartout*"
        (e2e-say "FIGURES shown: %s"
                 (if (cl-some (lambda (o) (let ((s (overlay-get o 'after-string)))
                                            (and s (string-match-p "tokens in, [0-9]+ out" s))))
                              (overlays-in (point-min) (point-max)))
                     "true" "false")))
      ;; From inside the chat file, the same command continues it.
      (find-file chat)
      (unless (eq (eglot-current-server) server) (error "the chat file is not managed by the server"))
      (goto-char (point-max))
      (let ((second (e2e-ask "And the second one?")))
        (e2e-say "ASK2 %s" (plist-get second :status))
        (e2e-say "SAME CHAT %s" (if (equal (eglot--uri-to-path (plist-get second :chat)) chat) "true" "false"))
        (e2e-say "ANSWER2 %s" (plist-get second :text)))
      (e2e-wait "the second turn in the buffer"
                (lambda () (with-current-buffer (get-file-buffer chat)
                             (= 2 (how-many "^\\* " (point-min) (point-max))))))
      (with-current-buffer (get-file-buffer chat)
        (e2e-say "TURNS %d" (how-many "^\\* " (point-min) (point-max)))
        (goto-char (point-min))
        (e2e-say "SECOND ANSWER in the file: %s"
                 (if (search-forward "The second answer." nil t) "true" "false")))
      ;; The server reads the open buffer, once eglot has sent the change
      ;; (an idle timer, which batch Emacs never runs: sent here).
      (with-current-buffer (get-file-buffer chat)
        (eglot--signal-textDocument/didChange))
      (e2e-wait "the list to count the second turn"
                (lambda () (equal 2 (plist-get (aref (pp-lsp-chats) 0) :turns))))
      (let ((chats (pp-lsp-chats)))
        (e2e-say "CHATS %d, turns %s" (length chats) (plist-get (aref chats 0) :turns)))
      ;; From a file that is no note of the memex: asked without a place.
      (let ((py (expand-file-name "tool.py" e2e-memex)))
        (with-temp-file py (insert "print(\"hi\")\n"))
        (find-file py)
        (let ((third (e2e-ask "A third, from elsewhere?")))
          (e2e-say "ASK3 %s: %s" (or (plist-get third :status) (plist-get third :outcome))
                   (or (plist-get third :text) (plist-get third :error))))
        ;; And from a buffer with no file at all.
        (with-current-buffer (get-buffer-create "*e2e no file*")
          (let ((fourth (e2e-ask "A fourth, from no file?")))
            (e2e-say "ASK4 %s: %s" (or (plist-get fourth :status) (plist-get fourth :outcome))
                     (or (plist-get fourth :text) (plist-get fourth :error)))))
        ;; A proposal the gates refuse, whose result names no tool: the
        ;; buffer says what was refused in words, not "nil".
        (with-current-buffer (get-buffer-create "*e2e no file*")
          (e2e-ask "A refused one, with no reason?")
          (with-current-buffer "*Passepartout*"
            (goto-char (point-max))
            (re-search-backward "^Refused: ")
            (e2e-say "REFUSED %s" (buffer-substring-no-properties (point) (line-end-position)))))
        ;; An answer with a Local Variables list: the chat file that holds
        ;; it sets nothing when Emacs opens it (fill-column is a safe
        ;; variable: Emacs would set it without asking).
        ;; Its elisp link runs nothing when followed, though this person
        ;; turned Org's confirmation of elisp links off.
        (defvar e2e-link-ran nil)
        (setq-default org-link-elisp-confirm-function nil)
        (let* ((sixth (e2e-ask "A sixth, with settings?"))
               (file (eglot--uri-to-path (plist-get sixth :chat)))
               (follow (lambda (where)
                         (setq e2e-link-ran nil)
                         (goto-char (point-max))
                         (when (search-backward "a link]]" nil t)
                           (ignore-errors (org-open-at-point)))
                         (e2e-say "LINK in %s ran: %s" where e2e-link-ran))))
          (with-current-buffer "*Passepartout*"
            (funcall follow "the answer buffer"))
          (with-current-buffer (find-file-noselect file)
            (e2e-say "SETTINGS %s" (if (= fill-column (default-value 'fill-column))
                                       "the chat file sets nothing"
                                     (format "the chat file set fill-column to %d" fill-column)))
            (funcall follow "the chat file")))
        ;; An answer with a right-to-left override: shown, not obeyed, in
        ;; the answer buffer and in its chat file, which keeps the text.
        (let ((file (eglot--uri-to-path (plist-get (e2e-ask "A fifth, with an override?") :chat))))
          (with-current-buffer (find-file-noselect file)
            (goto-char (point-min))
            (let ((at (search-forward "\u202eevil" nil t)))
              (e2e-say "BIDI in the chat file kept: %s, shown: %s" (and at t)
                       (and at (equal (get-text-property (- at 5) 'display) "<U+202E>")))
              ;; Typed next to it, text is not covered by the shown string.
              (when at
                (goto-char (- at 4))
                (insert-and-inherit "x")
                (e2e-say "BIDI typed next to it shown as typed: %s"
                         (null (get-text-property (- at 4) 'display)))))))
        (with-current-buffer "*Passepartout*"
          (goto-char (point-min))
          (while (re-search-forward "^(.*without the context" nil t)
            (e2e-say "ASIDE %s" (match-string 0)))
          (goto-char (point-min))
          (e2e-say "BIDI shown: %s, obeyed: %s"
                   (and (search-forward "<U+202E>evil" nil t) t)
                   (and (progn (goto-char (point-min)) (search-forward "\u202e" nil t)) t)))))
    (e2e-shutdown server)))

(e2e-main)

;;; eglot-chat.el ends here
