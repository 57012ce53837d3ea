;;; eglot-long-plan.el --- a plan that runs long, approved from the plans list  -*- lexical-binding: t; -*-

;; The model proposes `make slow', which sleeps 12 s (longer than
;; jsonrpc's 10 s a synchronous request waits) and then adds a line to
;; out/slow.txt.  a on its line returns at once saying it runs; a
;; timer keeps ticking and a second a says it still runs and sends
;; nothing; when the server answers, DONE is said and the list shows
;; it, where it was.  Nothing says "Timed out".

;;; Code:

(load (expand-file-name "e2e-common.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)

(defvar e2e-said nil "Every message, newest first.")

(advice-add 'message :before
            (lambda (fmt &rest args)
              (when fmt (push (apply #'format-message fmt args) e2e-said))))

(defun e2e-run ()
  (let ((server (e2e-visit "inbox.org")))
    (e2e-say "FILED %s" (plist-get (e2e-ask "take it slow") :outcome))
    (pp-lsp-plans)
    (let ((list (get-buffer pp-lsp-plans-buffer))
          (ticks 0)
          timer)
      (switch-to-buffer list)
      (goto-char (point-min))
      (re-search-forward "^PLAN .*make slow")
      (beginning-of-line)
      (let ((line (line-number-at-pos))
            (sent 0)
            (start (float-time)))
        (advice-add 'pp-lsp--plans-command-async :before
                    (lambda (&rest _) (setq sent (1+ sent))) '((name . e2e-count)))
        (setq e2e-decided nil
              timer (run-with-timer 0.5 0.5 (lambda () (setq ticks (1+ ticks)))))
        (let ((said (condition-case err
                        (progn (call-interactively (key-binding "a")) nil)
                      (error (error-message-string err)))))
          (e2e-say "KEY returned at once: %s" (e2e-bool (< (- (float-time) start) 2)))
          (e2e-say "KEY said: %s" (or said (car e2e-said))))
        (e2e-say "KEY says it runs: %s" (e2e-bool (string-match-p "^pp-lsp: Running approve" (or (car e2e-said) ""))))
        ;; A second a while it runs: said, and nothing sent.
        (let ((said (condition-case err
                        (progn (call-interactively (key-binding "a")) nil)
                      (error (error-message-string err)))))
          (e2e-say "AGAIN says still running: %s"
                   (e2e-bool (and said (string-match-p "still running" said)))))
        (e2e-wait "the plan's answer" (lambda () e2e-decided) 60)
        (cancel-timer timer)
        (advice-remove 'pp-lsp--plans-command-async 'e2e-count)
        (e2e-say "TOOK longer than 10 s: %s" (e2e-bool (> (- (float-time) start) 10)))
        (e2e-say "TICKED while it ran: %s" (e2e-bool (>= ticks 15)))
        (e2e-say "ANSWER %s" (or (plist-get (car e2e-decided) :state) (nth 1 e2e-decided)))
        (e2e-say "SAID DONE: %s" (e2e-bool (string-match-p "DONE" (or (car e2e-said) ""))))
        (e2e-say "SAID Timed out: %s"
                 (e2e-bool (seq-some (lambda (m) (string-match-p "Timed out" m)) e2e-said)))
        (e2e-say "SENT once: %s" (e2e-bool (= sent 1)))
        (e2e-say "LIST shows DONE: %s"
                 (e2e-bool (with-current-buffer list
                             (save-excursion (goto-char (point-min))
                                             (re-search-forward "^DONE .*make slow" nil t)))))
        (e2e-say "LIST kept: %s"
                 (e2e-bool (and (eq (window-buffer (selected-window)) list)
                                (= line (with-current-buffer list (line-number-at-pos))))))
        (e2e-say "RAN once: %s" (e2e-bool (equal (e2e-disk "out/slow.txt") "ran\n")))))
    ;; The same at point: M-x pp-lsp-approve in flightplans.org, on a
    ;; second `make slow' plan.
    (switch-to-buffer (find-file-noselect (e2e-file "inbox.org")))
    (let* ((plan (plist-get (e2e-ask "take it slow again") :planId))
           (ticks 0) (sent 0) timer start)
      (e2e-say "POINT filed %s" (e2e-bool plan))
      (e2e-visit "flightplans.org")
      (goto-char (point-min))
      (re-search-forward (concat "^:ID: +" (regexp-quote plan)))
      (advice-add 'pp-lsp--plans-command-async :before
                  (lambda (&rest _) (setq sent (1+ sent))) '((name . e2e-count)))
      (setq e2e-decided nil e2e-said nil
            start (float-time)
            timer (run-with-timer 0.5 0.5 (lambda () (setq ticks (1+ ticks)))))
      (let ((said (condition-case err
                      (progn (call-interactively #'pp-lsp-approve) nil)
                    (error (error-message-string err)))))
        (e2e-say "POINT returned at once: %s" (e2e-bool (< (- (float-time) start) 2)))
        (e2e-say "POINT said: %s" (or said (car e2e-said))))
      (e2e-say "POINT says it runs: %s"
               (e2e-bool (string-match-p "^pp-lsp: Running approve" (or (car e2e-said) ""))))
      (let ((said (condition-case err
                      (progn (call-interactively #'pp-lsp-approve) nil)
                    (error (error-message-string err)))))
        (e2e-say "POINT again says still running: %s"
                 (e2e-bool (and said (string-match-p "still running" said)))))
      (e2e-wait "the plan's answer" (lambda () e2e-decided) 60)
      (cancel-timer timer)
      (advice-remove 'pp-lsp--plans-command-async 'e2e-count)
      (e2e-say "POINT took longer than 10 s: %s" (e2e-bool (> (- (float-time) start) 10)))
      (e2e-say "POINT ticked while it ran: %s" (e2e-bool (>= ticks 15)))
      (e2e-say "POINT answer %s" (or (plist-get (car e2e-decided) :state) (nth 1 e2e-decided)))
      (e2e-say "POINT said DONE: %s" (e2e-bool (string-match-p "DONE" (or (car e2e-said) ""))))
      (e2e-say "POINT said Timed out: %s"
               (e2e-bool (seq-some (lambda (m) (string-match-p "Timed out" m)) e2e-said)))
      (e2e-say "POINT sent once: %s" (e2e-bool (= sent 1)))
      (e2e-say "POINT ran once more: %s" (e2e-bool (equal (e2e-disk "out/slow.txt") "ran\nran\n"))))
    (e2e-shutdown server)))

(e2e-main)

;;; eglot-long-plan.el ends here
