;;; bridge-agent-test.el --- passepartout-bridge.el against a real agent  -*- lexical-binding: t -*-

;; Run by TestElispBridgeWithTheAgent (emacs_agent_test.go): emacs
;; --batch -Q -l passepartout-bridge.el -l bridge-agent-test.el -f
;; ert-run-tests-batch-and-exit, with the daemon (a real agent over a
;; memex, a replay model) on PP_TEST_PORT, its token under
;; XDG_RUNTIME_DIR, PP_TEST_ORG_FILE the note to ask from and
;; PP_TEST_PLANS the memex's flightplans.org.

(require 'ert)
(require 'passepartout-bridge)

(setq passepartout-bridge-port (string-to-number (getenv "PP_TEST_PORT"))
      passepartout-bridge-timeout 60)

(defun pp-test--wait-for (pred)
  "Let the bridge run until PRED holds (at most 60 seconds)."
  (let ((deadline (+ (float-time) 60)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (should (funcall pred))))

(ert-deftest pp-bridge-agent-a-filed-plan-is-said-and-approved ()
  ;; A proposal the gates file: the answer says so, with a button to the
  ;; plans, not a bare [done].
  (let* ((answer (with-current-buffer (find-file-noselect (getenv "PP_TEST_ORG_FILE"))
                   (goto-char (point-min))
                   (forward-line 5)
                   (passepartout-ask "count it")))
         (text (lambda () (with-current-buffer answer (buffer-string)))))
    (pp-test--wait-for (lambda () (string-match-p "Plan filed" (funcall text))))
    (should-not (string-match-p "\\[done\\]" (funcall text)))
    (should (string-match "Plan filed (\\([-0-9a-f]+\\)) — RET to list the Flight Plans\n\\'" (funcall text)))
    (let ((id (match-string 1 (funcall text))))
      ;; RET on it lists the plans, the filed one among them.
      (with-current-buffer answer
        (goto-char (point-max))
        (search-backward "Plan filed")
        (push-button (point)))
      (should (equal (mapcar #'car (with-current-buffer "*passepartout-plans*" tabulated-list-entries))
                     (list id)))
      ;; flightplans.org is open, unmodified: approving (which rewrites it
      ;; on disk) reverts it, with no question asked.
      (let ((plans (find-file-noselect (getenv "PP_TEST_PLANS"))))
        (with-current-buffer plans
          (should (string-match-p "^\\* PLAN " (buffer-string))))
        (cl-letf (((symbol-function 'yes-or-no-p) (lambda (&rest _) (error "Asked")))
                  ((symbol-function 'y-or-n-p) (lambda (&rest _) (error "Asked"))))
          (should (equal (plist-get (passepartout-approve id) :STATE) "DONE")))
        (with-current-buffer plans
          (should (string-match-p "^\\* DONE " (buffer-string)))
          (should-not (buffer-modified-p))
          (should (verify-visited-file-modtime plans)))))))

(ert-deftest pp-bridge-agent-status-in-words ()
  (let ((words (passepartout-status-words (passepartout-status))))
    (should (string-match-p
             "\\`Passepartout 1\\.2\\.3, up \\(less than a second\\|[0-9]+ seconds?\\): 1 connection, nothing running; the memex: [0-9]+ files, [0-9]+ headlines, \\(no Flight Plan waiting\\|1 Flight Plan waiting for you\\)\\.\\'"
             words))
    (should-not (string-match-p "(:" words))))

(ert-deftest pp-bridge-agent-z-an-approval-carries-the-hash-shown ()
  ;; A second plan, listed; its command is then changed in flightplans.org
  ;; on disk.  Approving it by its id sends the :HASH the list showed: the
  ;; daemon refuses it, and nothing runs.  Listed again, it is approved.
  (let* ((answer (with-current-buffer (find-file-noselect (getenv "PP_TEST_ORG_FILE"))
                   (goto-char (point-min))
                   (forward-line 5)
                   (passepartout-ask "count it again")))
         (text (lambda () (with-current-buffer answer (buffer-string)))))
    (pp-test--wait-for (lambda () (string-match-p "Plan filed" (funcall text))))
    (should (string-match "Plan filed (\\([-0-9a-f]+\\))" (funcall text)))
    (let ((id (match-string 1 (funcall text)))
          (file (getenv "PP_TEST_PLANS")))
      (passepartout-plans)
      (should (string-prefix-p "sha256:" (passepartout--plan-hash id)))
      ;; Changed elsewhere (the first test's buffer of it is let go).
      (kill-buffer (get-file-buffer file))
      (with-temp-buffer
        (insert-file-contents file)
        (goto-char (point-min))
        (search-forward id)
        (search-forward "\"cmd\": \"make count\"")
        (replace-match "\"cmd\": \"touch out/raced.txt\"" t t)
        (write-region nil nil file))
      (let ((err (should-error (passepartout-approve id) :type 'passepartout-bridge-error)))
        (should (string-match-p "the plan changed since you saw it: look again" (cadr err))))
      (should-not (file-exists-p (expand-file-name "out/raced.txt" (file-name-directory file))))
      ;; Listed again, it is what is shown: approved, the edited block is
      ;; filed afresh (PLAN); listed again, it runs.
      (passepartout-plans)
      (should (equal (plist-get (passepartout-approve id) :STATE) "PLAN"))
      (passepartout-plans)
      (should (equal (plist-get (passepartout-approve id) :STATE) "DONE"))
      (should (file-exists-p (expand-file-name "out/raced.txt" (file-name-directory file)))))))

(ert-deftest pp-bridge-agent-zz-an-approval-carries-the-revision-shown ()
  ;; A file plan, listed with its :REVISION.  list.conf is edited on disk;
  ;; an approval finds it changed and the plan is filed afresh (the same
  ;; :HASH, a new diff).  Approved again from the listing shown before,
  ;; the :REVISION it sends is refused: nothing is written over the edit.
  ;; Listed again, it is approved.
  (let* ((answer (with-current-buffer (find-file-noselect (getenv "PP_TEST_ORG_FILE"))
                   (goto-char (point-min))
                   (passepartout-ask "rewrite the list")))
         (text (lambda () (with-current-buffer answer (buffer-string))))
         (file (getenv "PP_TEST_PLANS"))
         (target (expand-file-name "list.conf" (file-name-directory file)))
         (edited "milk\neggs: the user's own line\n")
         (disk (lambda () (with-temp-buffer
                            (set-buffer-multibyte nil)
                            (insert-file-contents-literally target)
                            (buffer-string)))))
    (pp-test--wait-for (lambda () (string-match-p "Plan filed" (funcall text))))
    (should (string-match "Plan filed (\\([-0-9a-f]+\\))" (funcall text)))
    (let ((id (match-string 1 (funcall text))))
      (passepartout-plans)
      (let ((hash (passepartout--plan-hash id))
            (seen (passepartout--plan-revision id)))
        (should (string-prefix-p "hmac-sha256:" seen))
        (with-temp-file target (insert edited))
        ;; The list is let go: the next approval does not list again.
        (kill-buffer "*passepartout-plans*")
        (should (equal (plist-get (passepartout-approve id) :STATE) "PLAN"))
        (should (equal (passepartout--plan-revision id) seen))
        (let ((err (should-error (passepartout-approve id) :type 'passepartout-bridge-error)))
          (should (string-match-p "the plan changed since you saw it: look again" (cadr err))))
        (should (equal (funcall disk) edited))
        (passepartout-plans)
        (should (equal (passepartout--plan-hash id) hash))
        (should-not (equal (passepartout--plan-revision id) seen))
        (should (equal (plist-get (passepartout-approve id) :STATE) "DONE"))
        (should (equal (funcall disk) "model's list\n"))))))

;;; bridge-agent-test.el ends here
