;;; eglot-chat.el --- a conversation held from Emacs's eglot, in batch  -*- lexical-binding: t; -*-

;; Run by TestEmacsChat (e2e_chat_test.go):
;;   emacs --batch -Q -l eglot-chat.el
;; with the environment of TestEmacsEglot and a replay model that answers
;; the two questions.  A question from a note starts a conversation; the
;; same command asked from the chat file continues it, and the new turn
;; lands in the open buffer; `pp-lsp-chats' lists it.  One line per
;; check, then "E2E OK"; on failure "E2E FAIL …" and exit 1.

;;; Code:

(when (file-directory-p "/usr/share/emacs/site-lisp/elpa")
  (dolist (d (directory-files "/usr/share/emacs/site-lisp/elpa" t "^[a-z]"))
    (when (file-directory-p d) (add-to-list 'load-path d))))
(require 'eglot)
(require 'cl-lib)
(load (getenv "PP_LSP_EL") nil t)

(defvar e2e-memex (file-name-as-directory (getenv "PP_LSP_MEMEX")))
(setq pp-lsp-program (getenv "PP_LSP_PROGRAM")
      pp-lsp-memex-roots (list e2e-memex)
      eglot-confirm-server-initiated-edits nil
      eglot-sync-connect 30
      eglot-connect-timeout 30
      eglot-autoreconnect nil
      eglot-send-changes-idle-time 0.1
      org-startup-folded nil
      make-backup-files nil
      create-lockfiles nil)

(defun e2e-say (fmt &rest args)
  (princ (concat (apply #'format fmt args) "\n")))

(defun e2e-wait (what pred &optional seconds)
  (let ((deadline (+ (float-time) (or seconds 30))))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (funcall pred) (error "Timed out waiting for %s" what))))

(defun e2e-ask (question)
  "Ask QUESTION from point and wait for the answer."
  (setq pp-lsp--last-result nil)
  (pp-lsp-ask question)
  (e2e-wait "the answer" (lambda () pp-lsp--last-result) 60)
  pp-lsp--last-result)

(defun e2e-run ()
  (find-file (expand-file-name "projects/pp-lsp.org" e2e-memex))
  (apply #'eglot (eglot--guess-contact))
  (let ((server (eglot-current-server)))
    (goto-char (point-min))
    (search-forward "Gate every proposal")
    (let* ((first (e2e-ask "What does the first question ask?"))
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
        (e2e-say "CHATS %d, turns %s" (length chats) (plist-get (aref chats 0) :turns))))
    (let ((proc (jsonrpc--process server)))
      (jsonrpc-request server :shutdown nil)
      (jsonrpc-notify server :exit nil)
      (e2e-wait "the server to exit" (lambda () (not (process-live-p proc))) 10)
      (e2e-say "EXIT %s" (process-exit-status proc)))))

(condition-case err
    (progn (e2e-run) (e2e-say "E2E OK") (kill-emacs 0))
  (error
   (e2e-say "E2E FAIL %S" err)
   (let ((server (ignore-errors (eglot-current-server))))
     (when server
       (with-current-buffer (jsonrpc-events-buffer server)
         (e2e-say "--- eglot events\n%s" (buffer-string)))))
   (kill-emacs 1)))

;;; eglot-chat.el ends here
