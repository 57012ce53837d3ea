;;; eglot-plans-follow.el --- the plans shown follow flightplans.org  -*- lexical-binding: t; -*-

;; Run by TestEmacsPlansFollowTheFile (plans_follow_e2e_test.go).  A plan
;; is filed, the plans list and the plan view are shown, each window at a
;; place of its own, the list's selected.  Elsewhere flightplans.org is
;; rewritten (a new file renamed over it, as most programs save).  With
;; no command run, Emacs only waiting for input as it does between keys:
;; the view and the list show the plan as it is now, every window where
;; it was and the list's still selected; a key pressed at once acts on
;; nothing; a moment later it acts.  The view shows the JSON's \u003a
;; escapes as the characters they decode to, the text unchanged.  One
;; line per check, then "E2E OK".

;;; Code:

(load (expand-file-name "e2e-common.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)

(defun e2e-idle (seconds &optional pred)
  "Wait SECONDS as the command loop waits for a key, or until PRED holds.
File notifications and the server's messages are served meanwhile;
nothing of pp-lsp's is called.  Return whether PRED held."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (< (float-time) deadline) (not (and pred (funcall pred))))
      (read-event nil nil 0.05))
    (and pred (funcall pred))))

(defun e2e-text (buffer)
  (with-current-buffer buffer (buffer-substring-no-properties (point-min) (point-max))))

(defun e2e-place (window)
  "WINDOW's point as (line . column), and the line at its top."
  (with-current-buffer (window-buffer window)
    (save-excursion
      (goto-char (window-point window))
      (list (line-number-at-pos) (current-column) (line-number-at-pos (window-start window))))))

(defun e2e-key (buffer key)
  "Press KEY in BUFFER; return the user error it said, or nil."
  (with-current-buffer buffer
    (condition-case err
        (progn (setq e2e-run (e2e-decide (lambda () (call-interactively (key-binding (kbd key)))))) nil)
      (user-error (error-message-string err)))))

(defvar e2e-run nil)

(defun e2e-run ()
  (let ((server (e2e-visit "inbox.org")))
    (e2e-say "FILED %s" (plist-get (e2e-ask "count it") :outcome))
    (delete-other-windows)
    (let* ((list-window (selected-window))
           (view-window (split-window list-window nil 'below))
           view)
      (set-window-buffer list-window (get-buffer-create pp-lsp-plans-buffer))
      (pp-lsp-plans)
      (with-current-buffer pp-lsp-plans-buffer
        (goto-char (point-min))
        (setq view (pp-lsp-plans-diff)))
      (set-window-buffer view-window view)
      (select-window list-window)
      (set-window-point list-window (with-current-buffer pp-lsp-plans-buffer
                                      (goto-char (point-min)) (forward-char 4) (point)))
      (with-current-buffer view
        (goto-char (point-min))
        (re-search-forward "\"cmd\"")
        (set-window-point view-window (point)))
      ;; The JSON's escapes read as what they decode to; the text is as written.
      (with-current-buffer view
        (goto-char (point-min))
        (let ((at (search-forward "\\u003a" nil t)))
          (e2e-say "ESCAPE written: %s" (e2e-bool at))
          (e2e-say "ESCAPE shown as the colon: %s"
                   (e2e-bool (and at (equal (substring-no-properties
                                              (or (get-text-property (- at 6) 'display) ""))
                                             ":"))))))
      ;; Only an escape of a printable character that does not quote:
      ;; a backslash written before a "u", an escaped quote or backslash,
      ;; a control character, or text outside a JSON block, stays as written.
      (with-temp-buffer
        (insert "\\u0041 outside\n#+begin_src json\n{\"a\": \"\\\\u0041 \\u0022 \\u005c \\u202e \\u0007\", \"b\": \"\\u0041\"}\n#+end_src\n\\u0041 after\n")
        (pp-lsp--show-json-escapes (point-min) (point-max))
        (let (shown)
          (goto-char (point-min))
          (while (search-forward "u00" nil t)
            (when (get-text-property (point) 'display) (push (point) shown)))
          (goto-char (point-min))
          (while (search-forward "u20" nil t)
            (when (get-text-property (point) 'display) (push (point) shown)))
          (e2e-say "ESCAPES shown: %d of 8 (only the plain one in JSON)" (length shown))))
      (let ((list-before (e2e-place list-window))
            (view-before (e2e-place view-window)))
        ;; Elsewhere (another editor, a sync): the plan's command changes.
        (let ((text (e2e-disk "flightplans.org"))
              (tmp (e2e-file ".flightplans.org.tmp")))
          (with-temp-file tmp
            (insert (replace-regexp-in-string "make count" "make count; touch out/pwned.txt" text t t)))
          (rename-file tmp (e2e-file "flightplans.org") t))
        (e2e-say "VIEW follows by itself: %s"
                 (e2e-bool (e2e-idle 15 (lambda () (string-match-p "touch out/pwned.txt" (e2e-text view))))))
        (e2e-say "LIST follows by itself: %s"
                 (e2e-bool (e2e-idle 15 (lambda () (string-match-p "touch out/pwned" (e2e-text pp-lsp-plans-buffer))))))
        (e2e-say "SELECTED window kept: %s" (e2e-bool (eq (selected-window) list-window)))
        (e2e-say "LIST window kept its place: %s" (e2e-bool (equal (e2e-place list-window) list-before)))
        (e2e-say "VIEW window kept its place: %s" (e2e-bool (equal (e2e-place view-window) view-before)))
        (e2e-say "VIEW says it changed: %s"
                 (e2e-bool (string-match-p "flightplans.org changed"
                                           (format "%s" (buffer-local-value 'header-line-format view))))))
      ;; A key at once, before the change could be read: nothing is done.
      (setq e2e-run nil)
      (let ((said (e2e-key view "a")))
        (e2e-say "AT ONCE approved: %s" (e2e-bool e2e-run))
        (e2e-say "AT ONCE said: %s" (e2e-bool (and said (string-match-p "Not done" said)))))
      (e2e-idle 1)
      (e2e-say "AT ONCE ran: %s" (e2e-bool (file-exists-p (e2e-file "out/pwned.txt"))))
      ;; Read, it acts: approved as shown (edited, so filed afresh), then run.
      (e2e-idle 3)
      (e2e-key view "a")
      (e2e-say "LATER approved as shown: %s" (plist-get e2e-run :state))
      (e2e-idle 3)
      (e2e-key view "a")
      (e2e-say "LATER ran: %s" (e2e-bool (file-exists-p (e2e-file "out/pwned.txt")))))
    (e2e-shutdown server)))

(e2e-main)

;;; eglot-plans-follow.el ends here
