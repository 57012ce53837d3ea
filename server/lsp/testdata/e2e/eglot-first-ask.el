;;; eglot-first-ask.el --- the first question starts pp-lsp  -*- lexical-binding: t; -*-

;; Run by TestEmacsFirstAskStartsTheServer (first_ask_e2e_test.go).
;; No eglot runs.  Asked from an Org file outside `pp-lsp-memex-roots',
;; the question offers to start pp-lsp there, and declined starts
;; nothing.  Asked twice from a note of the memex, Emacs does not wait:
;; one pp-lsp starts for the memex, and both questions are answered.
;; One line per check, then "E2E OK".

;;; Code:

(load (expand-file-name "e2e-common.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)

(defun e2e-servers ()
  "The pp-lsp servers eglot knows of."
  (seq-filter (lambda (s) (cl-typep s 'pp-lsp-server))
              (apply #'append (hash-table-values eglot--servers-by-project))))

(defun e2e-run ()
  ;; Outside the memex: asked first, and declined, nothing starts.
  (let* ((elsewhere (make-temp-file "elsewhere" t))
         (asked nil)
         said)
    (find-file (expand-file-name "note.org" elsewhere))
    (insert "* A note elsewhere\n")
    (save-buffer)
    (cl-letf (((symbol-function 'y-or-n-p)
               (lambda (prompt) (setq asked prompt) nil)))
      (setq said (condition-case err
                     (progn (funcall-interactively #'pp-lsp-ask "what is left") nil)
                   (user-error (error-message-string err)))))
    (e2e-say "ELSEWHERE offered: %s" (e2e-bool (and asked (string-match-p "Start pp-lsp, with .*elsewhere.* as the memex\\?" asked))))
    (let ((deadline (+ (float-time) 0.5))) (while (< (float-time) deadline) (accept-process-output nil 0.05)))
    (e2e-say "ELSEWHERE declined started: %s" (e2e-bool (or (e2e-servers) (process-list))))
    (e2e-say "ELSEWHERE said: %s" (e2e-bool (and said (string-match-p "No pp-lsp is running here" said))))
    (kill-buffer))
  ;; A note of the memex: asked twice at once, Emacs goes on at once.
  (find-file (e2e-file "inbox.org"))
  (e2e-say "BEFORE served: %s" (e2e-bool (eglot-current-server)))
  (setq pp-lsp--last-result nil)
  (let ((t0 (float-time)))
    (pp-lsp-ask "what is left")
    (pp-lsp-ask "what is left")
    (e2e-say "ASK returned at once: %s" (e2e-bool (< (- (float-time) t0) 1))))
  (e2e-say "STARTING said: %s"
           (e2e-bool (with-current-buffer pp-lsp-answer-buffer
                       (and (overlayp pp-lsp--waiting)
                            (string-match-p "Starting pp-lsp in" (overlay-get pp-lsp--waiting 'after-string))))))
  (e2e-wait "both answers"
            (lambda () (with-current-buffer pp-lsp-answer-buffer
                         (>= (how-many "Answered by" (point-min) (point-max)) 2)))
            60)
  (e2e-say "ANSWERED both: true")
  (e2e-say "ANSWERED %s" (plist-get pp-lsp--last-result :outcome))
  (e2e-say "ASKED from the note: %s"
           (e2e-bool (with-current-buffer pp-lsp-answer-buffer
                       (not (string-match-p "is not a note of the memex" (buffer-string))))))
  (e2e-say "SERVERS started: %d" (length (e2e-servers)))
  (e2e-say "NOTE served: %s" (e2e-bool (cl-typep (eglot-current-server) 'pp-lsp-server)))
  ;; A model's link shows where it goes, not only its words.
  (e2e-ask "link please")
  (with-current-buffer pp-lsp-answer-buffer
    (font-lock-ensure)
    (goto-char (point-min))
    (let ((at (search-forward "example.invalid" nil t)))
      (e2e-say "LINK target shown: %s" (e2e-bool (and at (not (invisible-p (1- at))))))))
  (e2e-shutdown (eglot-current-server)))

(e2e-main)

;;; eglot-first-ask.el ends here
