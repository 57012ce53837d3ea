;;; bridge-test.el --- passepartout-bridge.el against the real daemon  -*- lexical-binding: t -*-

;; Run by emacs_test.go: emacs --batch -Q -l passepartout-bridge.el
;; -l bridge-test.el -f ert-run-tests-batch-and-exit, with the daemon
;; listening on PP_TEST_PORT, its token under XDG_RUNTIME_DIR, and
;; PP_TEST_ORG_FILE an Org file to ask from.

(require 'ert)
(require 'passepartout-bridge)

(setq passepartout-bridge-port (string-to-number (getenv "PP_TEST_PORT"))
      passepartout-bridge-timeout 20)

(defun pp-test--wait-for (pred)
  "Let the bridge run until PRED holds (at most 20 seconds)."
  (let ((deadline (+ (float-time) 20)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (should (funcall pred))))

(defun pp-test--answer-text ()
  (with-current-buffer "*passepartout-answer*" (buffer-string)))

(defmacro pp-test--in-org-file (line &rest body)
  "Run BODY with point on LINE of the test Org file."
  (declare (indent 1))
  `(with-current-buffer (find-file-noselect (getenv "PP_TEST_ORG_FILE"))
     (goto-char (point-min))
     (forward-line (1- ,line))
     ,@body))

(ert-deftest pp-bridge-handshake ()
  (passepartout-bridge-connect)
  (should (passepartout-bridge-connected-p))
  (should (equal passepartout-bridge--server-version "1.2.3"))
  (should (stringp passepartout-bridge--session)))

(ert-deftest pp-bridge-status-and-ping ()
  (let ((status (passepartout-status)))
    (should (eq (plist-get status :STATUS) :OK))
    (should (equal (plist-get status :VERSION) "1.2.3"))
    (should (>= (plist-get status :CONNECTIONS) 1))
    (should (equal (plist-get (plist-get status :MEMEX) :HEADLINES) 42)))
  (should (numberp (passepartout-ping))))

(ert-deftest pp-bridge-ask-streams-into-a-buffer ()
  (let ((pieces 0))
    (advice-add 'passepartout--append :after (lambda (&rest _) (cl-incf pieces))
                '((name . pp-test-count)))
    (unwind-protect
        (pp-test--in-org-file 3
          (passepartout-ask "alpha beta gamma delta")
          (pp-test--wait-for (lambda () (string-match-p "\\[done\\]" (pp-test--answer-text)))))
      (advice-remove 'passepartout--append 'pp-test-count))
    (should (equal (pp-test--answer-text)
                   "Q: alpha beta gamma delta\n\nalpha beta gamma delta \n\n[done]\n"))
    (should (>= pieces 5))))

(ert-deftest pp-bridge-ask-in-a-chat-shows-the-figures ()
  (passepartout-ask "in a chat")
  (pp-test--wait-for (lambda () (string-match-p "\\[done" (pp-test--answer-text))))
  (should (equal (pp-test--answer-text)
                 "Q: in a chat\n\nanswered\n\n[done; ollama:qwen3: 12 tokens in, 3 out (estimated); chat: /memex/chats/c.org]\n")))

(ert-deftest pp-bridge-ask-multibyte ()
  (passepartout-ask "héllo wörld 😀 中文")
  (pp-test--wait-for (lambda () (string-match-p "\\[done\\]" (pp-test--answer-text))))
  (should (string-match-p "\n\nhéllo wörld 😀 中文 \n\n\\[done\\]" (pp-test--answer-text))))

(ert-deftest pp-bridge-ask-shows-bidi-controls ()
  ;; The answer (the test daemon says the question's words back) holds a
  ;; right-to-left override: it stays in the text, shown as <U+202E>, and
  ;; orders nothing.
  (let ((buffer (passepartout-ask "read \u202eevil")))
    (pp-test--wait-for (lambda () (string-match-p "\\[done\\]" (pp-test--answer-text))))
    (with-current-buffer buffer
      (goto-char (point-min))
      (while (search-forward "\u202e" nil t)
        (should (equal (get-text-property (1- (point)) 'display) "<U+202E>"))))
    (should (= 2 (cl-count ?\u202e (pp-test--answer-text))))))

(ert-deftest pp-bridge-ask-large-answer ()
  ;; 300000 bytes of é: several chunk frames, many reads, lengths in bytes.
  (passepartout-ask "big 300000")
  (pp-test--wait-for (lambda () (string-match-p "\\[done\\]" (pp-test--answer-text))))
  (should (string-suffix-p (concat "\n\n" (make-string 150000 ?é) "\n\n[done]\n")
                           (pp-test--answer-text))))

(ert-deftest pp-bridge-cancel ()
  (let ((buffer (passepartout-ask "slow one two three four five six seven eight")))
    ;; Mid-stream: the answer's second word is in (the question above it
    ;; holds the same words).
    (pp-test--wait-for (lambda () (string-match-p "\n\nslow one " (pp-test--answer-text))))
    (let ((answer (with-current-buffer buffer (passepartout-cancel))))
      (should (eq (plist-get answer :STATUS) :OK))
      (should (eq (plist-get answer :CANCELLED) t)))
    (pp-test--wait-for (lambda () (string-match-p "\\[cancelled\\]" (pp-test--answer-text))))
    (should-not (string-match-p "eight \n" (pp-test--answer-text)))
    ;; Cancelling a finished answer is harmless.
    (should (eq (plist-get (passepartout-cancel) :CANCELLED) nil))))

(ert-deftest pp-bridge-context ()
  (let ((buffer (pp-test--in-org-file 3 (passepartout-context))))
    (with-current-buffer buffer
      (should (equal (buffer-string)
                     (format "* %s\n** line 3\n"
                             (expand-file-name (getenv "PP_TEST_ORG_FILE")))))
      (should buffer-read-only))))

(ert-deftest pp-bridge-plans-approve-reject ()
  (with-current-buffer (passepartout-plans)
    (should (string-match-p "p-1" (buffer-string)))
    (should (string-match-p "Run `make test` in project/" (buffer-string)))
    (goto-char (point-min))
    (should (equal (tabulated-list-get-id) "p-1")))
  (should (equal (plist-get (passepartout-approve "p-1") :STATE) "APPROVED"))
  (should (equal (plist-get (passepartout-reject "p-2") :STATE) "REJECTED"))
  (let ((err (should-error (passepartout-approve "missing")
                           :type 'passepartout-bridge-error)))
    (should (equal (cadr err) "no Flight Plan has the id missing"))))

(ert-deftest pp-bridge-approve-always-and-undo ()
  (let ((answer (passepartout-approve-always "p-3")))
    (should (equal (plist-get answer :STATE) "DONE"))
    (should (equal (plist-get answer :RULE) "shell(make test)")))
  (should (equal (plist-get (passepartout-undo) :SUMMARY)
                 "undo of Write `a.org`: restored a.org"))
  (should (equal (plist-get (passepartout-undo "c-1") :SUMMARY)
                 "undo of Write `a.org`: restored a.org")))

(ert-deftest pp-bridge-unknown-action-keeps-the-connection ()
  (let ((answer (passepartout-bridge-request-sync :FROBNICATE nil)))
    (should (eq (plist-get answer :STATUS) :ERROR))
    (should (string-match-p "unknown action :FROBNICATE" (plist-get answer :TEXT))))
  (should (passepartout-bridge-connected-p)))

(ert-deftest pp-bridge-frames-reassemble ()
  ;; The filter's reassembly, fed by hand: several frames in one read,
  ;; one frame byte by byte, multibyte text counted in bytes.
  (let ((seen nil)
        (frames (mapconcat
                 #'passepartout-bridge--frame
                 (list '(:TYPE :LOG :PAYLOAD (:TEXT "a"))
                       '(:TYPE :LOG :PAYLOAD (:TEXT "é😀 two\nlines"))
                       '(:TYPE :LOG :PAYLOAD (:TEXT "#s(not syntax) \"quoted\"")))
                 "")))
    (cl-letf (((symbol-function 'passepartout-bridge--dispatch)
               (lambda (msg) (push (plist-get (plist-get msg :PAYLOAD) :TEXT) seen))))
      (with-temp-buffer
        (set-buffer-multibyte nil)
        (insert frames)
        (passepartout-bridge--drain nil)
        (should (equal (nreverse seen) '("a" "é😀 two\nlines" "#s(not syntax) \"quoted\"")))
        (should (= (buffer-size) 0))
        (setq seen nil)
        (dotimes (i (length frames))
          (goto-char (point-max))
          (insert (substring frames i (1+ i)))
          (passepartout-bridge--drain nil))
        (should (equal (nreverse seen) '("a" "é😀 two\nlines" "#s(not syntax) \"quoted\"")))))))

(ert-deftest pp-bridge-reader-refuses-hash-syntax ()
  (should (equal (passepartout-bridge--read "(:A \"#s(x)\" :B \"\\\"#\")")
                 '(:A "#s(x)" :B "\"#")))
  (should (equal (passepartout-bridge--read "(:A ; #comment\n 1)") '(:A 1)))
  (should (equal (passepartout-bridge--read "(:A a\\#b)") (list :A (intern "a#b"))))
  (should-error (passepartout-bridge--read "(:A #s(hash-table data (a 1)))")
                :type 'passepartout-bridge-error)
  (should-error (passepartout-bridge--read "(:A #1=(1 . #1#))")
                :type 'passepartout-bridge-error)
  (should-error (passepartout-bridge--read "(:A 1) extra")
                :type 'passepartout-bridge-error))

(ert-deftest pp-bridge-printer-is-wire-clean ()
  (should (equal (passepartout-bridge--print
                  (list :TEXT (propertize "bold" 'face 'bold)
                        :RAW (string ?a #x3fffe9 ?b)
                        :Q (list 'quote 'x)))
                 "(:TEXT \"bold\" :RAW \"a\uFFFDb\" :Q (quote x))")))

(ert-deftest pp-bridge-zz-missing-token ()
  ;; Last: it closes the connection.
  (let ((passepartout-bridge-token-file "/nonexistent/token"))
    (let ((err (should-error (passepartout-bridge-connect) :type 'passepartout-bridge-error)))
      (should (equal (cadr err)
                     (format "There is no token file at /nonexistent/token: start the daemon (`pp-lsp serve --tcp %s:%s'), which makes it"
                             passepartout-bridge-host passepartout-bridge-port)))))
  (should-not (passepartout-bridge-connected-p)))

;;; bridge-test.el ends here
