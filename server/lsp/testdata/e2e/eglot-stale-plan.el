;;; eglot-stale-plan.el --- a plan view that no longer matches flightplans.org  -*- lexical-binding: t; -*-

;; Run by TestEmacsStalePlanView (approve_e2e_test.go), as
;; nvim-stale-plan.lua: the plan is shown (d in the plans list);
;; elsewhere, its command is changed in flightplans.org on disk; a in the
;; plan view must approve nothing and show the plan again, changed; a
;; then approves what it shows.  One line per check, then "E2E OK".

;;; Code:

(load (expand-file-name "e2e-common.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)

(defun e2e-shown ()
  (with-current-buffer "*Passepartout plan*" (buffer-string)))

(defun e2e-key-in-view (key)
  "Press KEY in the plan view; return the user error it said, or nil."
  (with-current-buffer "*Passepartout plan*"
    (condition-case err
        (progn (setq e2e-run (e2e-decide (lambda () (call-interactively (key-binding (kbd key)))))) nil)
      (user-error (error-message-string err)))))

(defvar e2e-run nil)

(defun e2e-run ()
  (let ((server (e2e-visit "inbox.org")))
    (e2e-say "FILED %s" (plist-get (e2e-ask "count it") :outcome))
    (pp-lsp-plans)
    (with-current-buffer pp-lsp-plans-buffer
      (goto-char (point-min))
      (pp-lsp-plans-diff))
    (e2e-say "VIEW shows make count: %s" (e2e-bool (string-match-p "\"cmd\": \"make count\"" (e2e-shown))))
;; Elsewhere (another editor, a sync): the plan's command changes on
    ;; disk, saved as many programs save, a new file renamed over the old.
    (let ((text (e2e-disk "flightplans.org"))
          (tmp (e2e-file ".flightplans.org.tmp")))
      (with-temp-file tmp
        (insert (replace-regexp-in-string "\"cmd\": \"make count\"" "\"cmd\": \"make count; touch out/pwned.txt\"" text t t)))
      (rename-file tmp (e2e-file "flightplans.org") t))
    ;; The server learns of it: its description of the plan (the hover
    ;; the plan view shows) says the action was edited.  eglot 1.9's file
    ;; watcher drops renames; pp-lsp.el's own does not.
    (e2e-say "SERVER sees the edit: %s"
             (e2e-bool (condition-case nil
                           (progn
                             (e2e-wait "the server to see the edit"
                                       (lambda ()
                                         (let* ((p (pp-lsp--plan-now (plist-get (with-current-buffer pp-lsp-plans-buffer
                                                                                 (get-text-property (point-min) 'pp-lsp-plan))
                                                                               :id)))
                                                (h (pp-lsp--plans-request
                                                    :textDocument/hover
                                                    (list :textDocument (list :uri (plist-get p :uri))
                                                          :position (list :line (1- (plist-get p :line)) :character 0)))))
                                           (string-match-p "edited" (format "%s" h))))
                                       20)
                             t)
                         (error nil))))
    (setq e2e-run nil)
    (let ((said (e2e-key-in-view "a")))
      (e2e-say "STALE approved: %s" (e2e-bool e2e-run))
      (e2e-say "STALE said: %s" (e2e-bool (and said (string-match-p "Not done: the plan changed since you saw it" said)))))
    (e2e-say "STALE shown again with the change: %s"
             (e2e-bool (and (string-match-p "touch out/pwned.txt" (e2e-shown))
                            (string-match-p "Shown again" (e2e-shown)))))
    (let ((deadline (+ (float-time) 1)))
      (while (< (float-time) deadline) (accept-process-output nil 0.05)))
    (e2e-say "STALE ran: %s" (e2e-bool (or (file-exists-p (e2e-file "out/pwned.txt"))
                                           (file-exists-p (e2e-file "out/count.txt")))))
    ;; a again: what is shown is approved — edited, so filed afresh; a runs it.
    (e2e-key-in-view "a")
    (e2e-say "APPROVED as shown: %s" (plist-get e2e-run :state))
    (e2e-key-in-view "a")
    (e2e-say "APPROVED again: %s" (plist-get e2e-run :state))
    (e2e-say "RAN what was shown: %s" (e2e-bool (file-exists-p (e2e-file "out/pwned.txt"))))
    ;; The view is shown again when the answer came, while Emacs is free.
    (e2e-say "VIEW follows: %s"
             (e2e-bool (ignore-errors
                         (e2e-wait "the view to follow" (lambda () (string-match-p "DONE" (e2e-shown))) 10)
                         t)))
    (e2e-raced)
    (e2e-diff-raced)
    (e2e-shutdown server)))

(defun e2e-race-refile (command arguments &rest _)
  "Before COMMAND reaches the server, if an approval: the plan is edited
and filed afresh by another process, after the client's own check.
ARGUMENTS are the command's."
  (when (equal command "passepartout.approve")
    (e2e-say "RACED sent its hash: %s" (e2e-bool (string-prefix-p "sha256:" (or (plist-get arguments :hash) ""))))
    (let ((text (e2e-disk "flightplans.org")))
      (with-temp-file (e2e-file "flightplans.org")
        (insert (replace-regexp-in-string
                 "^\\* PLAN " "* APPROVED "
                 (replace-regexp-in-string "\"cmd\": \"make count\"" "\"cmd\": \"touch out/raced.txt\"" text t t)
                 t t))))
    (setq e2e-refiled
          (eql 0 (call-process pp-lsp-program nil nil nil "plans" "--root" e2e-memex "--run-approved")))))

(defvar e2e-refiled nil)

(defun e2e-raced ()
  "A second plan, approved from the plans list while another process files
it afresh between the client's check and the server's run: the approval
carries the hash shown, and the server refuses it."
  (e2e-say "RACED filed %s" (plist-get (e2e-ask "count it") :outcome))
  (pp-lsp-plans)
  (with-current-buffer pp-lsp-plans-buffer
    (goto-char (point-min))
    (re-search-forward "^PLAN ")
    (advice-add 'pp-lsp--plans-command-async :before #'e2e-race-refile)
    (let ((said (unwind-protect
                    (condition-case err (progn (e2e-decide #'pp-lsp-plans-approve) nil)
                      (error (error-message-string err)))
                  (advice-remove 'pp-lsp--plans-command-async #'e2e-race-refile))))
      (e2e-say "RACED filed afresh elsewhere: %s"
               (e2e-bool (and e2e-refiled (string-match-p "^\\* PLAN Run `touch out/raced.txt`" (e2e-disk "flightplans.org")))))
      (e2e-say "RACED refused by the server: %s"
               (e2e-bool (and said (string-match-p "was not approved: the plan changed since you saw it: look again" said))))
      (unless said (e2e-say "RACED answer: approved")))
    (let ((deadline (+ (float-time) 1)))
      (while (< (float-time) deadline) (accept-process-output nil 0.05)))
    (e2e-say "RACED ran: %s" (e2e-bool (file-exists-p (e2e-file "out/raced.txt"))))))

(defconst e2e-edited "milk\neggs: the user's own line\n"
  "What the user makes of list.conf after seeing the plan's diff.")

(defun e2e-race-file-change (command arguments &rest _)
  "Before COMMAND reaches the server, if an approval: list.conf is edited
and the plan filed afresh by another process (the same action, a new
diff), after the client's own check.  ARGUMENTS are the command's."
  (when (equal command "passepartout.approve")
    (e2e-say "DIFF sent its revision: %s" (e2e-bool (string-prefix-p "hmac-sha256:" (or (plist-get arguments :revision) ""))))
    (with-temp-file (e2e-file "list.conf") (insert e2e-edited))
    (let ((text (e2e-disk "flightplans.org")))
      (with-temp-file (e2e-file "flightplans.org")
        (insert (replace-regexp-in-string "^\\* PLAN Write" "* APPROVED Write" text t t))))
    (setq e2e-refiled
          (eql 0 (call-process pp-lsp-program nil nil nil "plans" "--root" e2e-memex "--run-approved")))))

(defun e2e-diff-raced ()
  "A file plan approved from the plans list while list.conf is edited and
the plan filed afresh elsewhere: the approval carries the revision shown
beside the diff, and the server writes nothing over the edit."
  (setq e2e-refiled nil)
  (e2e-say "DIFF filed %s" (plist-get (e2e-ask "rewrite the list") :outcome))
  (pp-lsp-plans)
  (with-current-buffer pp-lsp-plans-buffer
    (goto-char (point-min))
    (re-search-forward "^PLAN .*list\\.conf")
    (advice-add 'pp-lsp--plans-command-async :before #'e2e-race-file-change)
    (let ((said (unwind-protect
                    (condition-case err (progn (e2e-decide #'pp-lsp-plans-approve) nil)
                      (error (error-message-string err)))
                  (advice-remove 'pp-lsp--plans-command-async #'e2e-race-file-change))))
      (e2e-say "DIFF filed afresh elsewhere: %s"
               (e2e-bool (and e2e-refiled (string-match-p "the file changed since the plan was filed" (e2e-disk "flightplans.org")))))
      (e2e-say "DIFF refused by the server: %s"
               (e2e-bool (and said (string-match-p "was not approved: the plan changed since you saw it: look again" said))))
      (unless said (e2e-say "DIFF answer: approved")))
    (let ((deadline (+ (float-time) 1)))
      (while (< (float-time) deadline) (accept-process-output nil 0.05)))
    (e2e-say "DIFF the file kept the edit: %s" (e2e-bool (equal (e2e-disk "list.conf") e2e-edited)))))

(e2e-main)

;;; eglot-stale-plan.el ends here
