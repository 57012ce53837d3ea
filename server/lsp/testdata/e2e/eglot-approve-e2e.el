;;; eglot-approve-e2e.el --- approvals and edits through eglot, in batch  -*- lexical-binding: t; -*-

;; Run by TestEmacsApprovals (approve_e2e_test.go):
;;   emacs --batch -Q -l eglot-approve-e2e.el
;; with PP_LSP_PROGRAM, PP_LSP_EL and PP_LSP_MEMEX as for eglot-e2e.el,
;; and a model that proposes `make count' (out/count.txt gets a line a
;; run) and answers "what is left".  eglot asks before every server edit
;; (`eglot-confirm-server-initiated-edits' as shipped).  It prints one line
;; per check, then "E2E OK"; on failure "E2E FAIL …" and the logs.

;;; Code:

(load (expand-file-name "e2e-common.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)
(setq pp-lsp-initialization-options '(:applyEditTimeout 3))
;; eglot asks before every server edit, as shipped.
(custom-reevaluate-setting 'eglot-confirm-server-initiated-edits)

(defvar e2e-asked 0
  "How many times eglot asked whether to apply a server edit.")

(defun e2e-serve (seconds)
  "Serve the server for SECONDS."
  (let ((end (+ (float-time) seconds)))
    (while (< (float-time) end)
      (accept-process-output nil 0.05))))

(defun e2e-command-loop (filter &rest args)
  "Run FILTER with ARGS as the command loop does: a quit is said, not fatal."
  (condition-case nil
      (apply filter args)
    (quit (e2e-say "QUIT at the prompt"))))

(defun e2e-run ()
  (e2e-visit "inbox.org")
  (let ((inbox (current-buffer)))
    ;; A plan filed while no buffer has flightplans.org: on disk.
    (let ((res (e2e-ask "count it")))
      (e2e-say "FILED %s" (plist-get res :outcome)))
    (e2e-visit "flightplans.org")
    (let ((plans (current-buffer)))
      ;; The buffer is unmodified: the next plan goes to disk and the
      ;; buffer is reloaded; eglot asks nothing.
      (with-current-buffer inbox
        (cl-letf (((symbol-function 'y-or-n-p) (lambda (&rest _) (cl-incf e2e-asked) t)))
          (e2e-ask "count it again")))
      (e2e-wait "the buffer to reload"
                (lambda () (with-current-buffer plans
                             (= 2 (how-many "^\\* PLAN " (point-min) (point-max))))))
      (e2e-say "UNMODIFIED filed without a prompt: %s, reloaded: %s"
               (e2e-bool (= e2e-asked 0))
               (e2e-bool (not (buffer-modified-p plans))))

      ;; A modified buffer: the plan comes as an edit eglot asks about.
      ;; C-g at the prompt: eglot answers nothing; the server gives up
      ;; after applyEditTimeout, and the next ask works.
      (with-current-buffer plans
        (goto-char (point-max))
        (insert "\n# my own note\n"))
      (with-current-buffer inbox
        (let ((res nil))
          ;; C-g at the prompt signals quit from inside eglot's process
          ;; filter; interactive Emacs's command loop then says "Quit"
          ;; and goes on (batch Emacs would exit): the advice stands in
          ;; for that loop.  Nothing answers the server's request.
          (cl-letf (((symbol-function 'y-or-n-p)
                     (lambda (&rest _) (cl-incf e2e-asked) (signal 'quit nil))))
            (advice-add 'jsonrpc--process-filter :around #'e2e-command-loop)
            (setq pp-lsp--last-result nil)
            (pp-lsp-ask "count a third time")
            (e2e-wait "the answer" (lambda () pp-lsp--last-result) 60)
            (advice-remove 'jsonrpc--process-filter #'e2e-command-loop))
          (e2e-wait "the answer after the quit" (lambda () pp-lsp--last-result) 60)
          (setq res pp-lsp--last-result)
          (e2e-say "AFTER QUIT %s" (plist-get res :outcome)))
        (cl-letf (((symbol-function 'y-or-n-p) (lambda (&rest _) (cl-incf e2e-asked) t)))
          (let ((res (e2e-ask "count a fourth time")))
            (e2e-say "NEXT ASK %s" (plist-get res :outcome)))))
      (with-current-buffer plans
        (e2e-say "BUFFER has the plan: %s"
                 (e2e-bool (= 3 (how-many "^\\* PLAN " (point-min) (point-max)))))
        (save-buffer))

      ;; APPROVED typed into the buffer, unsaved: nothing runs for 3 s.
      (with-current-buffer plans
        (goto-char (point-min))
        ;; C-c C-t a, as a user does.
        (re-search-forward "^\\* PLAN ")
        (org-todo "APPROVED"))
      (e2e-serve 3)
      (e2e-say "UNSAVED ran: %s" (e2e-bool (file-exists-p (e2e-file "out/count.txt"))))
      ;; Saved: it runs once, DONE on disk, the buffer reloaded.
      (with-current-buffer plans (save-buffer))
      (e2e-wait "DONE on disk" (lambda () (string-match-p "^\\* DONE " (e2e-disk "flightplans.org"))) 30)
      (e2e-wait "the buffer to reload"
                (lambda () (with-current-buffer plans
                             (save-excursion (goto-char (point-min))
                                             (re-search-forward "^\\* DONE " nil t)))))
      (e2e-serve 1)
      (e2e-say "SAVED ran %s" (string-trim (e2e-disk "out/count.txt")))
      (e2e-say "DONE on disk: %s, buffer unmodified: %s"
               (e2e-bool (string-match-p "^\\* DONE " (e2e-disk "flightplans.org")))
               (e2e-bool (not (buffer-modified-p plans))))

      ;; The plans list: a approves the plan of the line.
      (with-current-buffer plans
        (pp-lsp-plans))
      (with-current-buffer pp-lsp-plans-buffer
        (goto-char (point-min))
        (e2e-say "LIST %s" (buffer-substring-no-properties (point) (line-end-position)))
        (re-search-forward "^PLAN ")
        (beginning-of-line)
        ;; d shows the plan; a there approves what it shows.
        (with-current-buffer (pp-lsp-plans-diff)
          (let ((run (e2e-decide (lambda () (call-interactively (key-binding "a"))))))
            (e2e-say "VIEW APPROVED %s" (plist-get run :state))))
        (e2e-say "LIST shows DONE: %s" (e2e-bool (= 2 (how-many "^DONE " (point-min) (point-max)))))
        (goto-char (point-min))
        (let ((shown (pp-lsp-plans-diff)))
          (with-current-buffer shown
            (e2e-say "DIFF shows the trace and the action: %s"
                     (e2e-bool (and (string-match-p "Verdict" (buffer-string))
                                    (string-match-p "make count" (buffer-string)))))
            (goto-char (point-min))
            (e2e-say "DIFF shows the bidi control: %s"
                     (e2e-bool (and (search-forward "\u202e" nil t)
                                    (equal (get-text-property (1- (point)) 'display) "<U+202E>"))))
            (goto-char (point-min))
            (e2e-say "DIFF shows the zero-width space: %s"
                     (e2e-bool (and (search-forward "vim\u200b" nil t)
                                    (equal (get-text-property (1- (point)) 'display) "<U+200B>"))))))
        (with-current-buffer plans
          (goto-char (point-min))
          (e2e-say "PLANS FILE shows the zero-width space: %s"
                   (e2e-bool (and (search-forward "vim\u200b" nil t)
                                  (equal (get-text-property (1- (point)) 'display) "<U+200B>")))))
        ;; u asks the server to undo; whatever it answers is said plainly.
        (goto-char (point-min))
        (let ((said (condition-case err (progn (e2e-decide #'pp-lsp-plans-undo) "done")
                      (user-error (error-message-string err)))))
          (e2e-say "UNDO answered: %s" (e2e-bool (and (stringp said) (> (length said) 0))))
          (e2e-say "UNDO said %s" said)))
      (e2e-say "RAN twice in all: %s" (e2e-bool (equal (e2e-disk "out/count.txt") "ran\nran\n")))

      ;; An answer stays in *Passepartout*; inserted only where asked.
      (with-current-buffer inbox
        (goto-char (point-min))
        (re-search-forward "^\\* NEXT Email Grace")
        (let ((before (buffer-string)))
          (e2e-ask "what is left")
          (e2e-say "ANSWER left the note alone: %s" (e2e-bool (equal before (buffer-string))))
          (let ((at (pp-lsp-insert-answer)))
            (e2e-say "INSERTED at line %d: %s" (1+ (plist-get at :line))
                     (e2e-bool (string-match-p "#\\+begin_quote\nTwo things: the report and the slides\\.\n#\\+end_quote"
                                               (buffer-string)))))))

      (let* ((server (eglot-current-server))
             (proc (jsonrpc--process server)))
        (jsonrpc-request server :shutdown nil)
        (jsonrpc-notify server :exit nil)
        (e2e-wait "the server to exit" (lambda () (not (process-live-p proc))) 10)
        (e2e-say "EXIT %s" (process-exit-status proc))))))

(e2e-main)

;;; eglot-approve-e2e.el ends here
