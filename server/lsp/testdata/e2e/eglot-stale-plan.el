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
        (progn (setq e2e-run (call-interactively (key-binding (kbd key)))) nil)
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
    (e2e-say "VIEW follows: %s" (e2e-bool (string-match-p "DONE" (e2e-shown))))
    (e2e-shutdown server)))

(e2e-main)

;;; eglot-stale-plan.el ends here
