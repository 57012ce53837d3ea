;;; eglot-e2e.el --- drive pp-lsp from Emacs's eglot, in batch  -*- lexical-binding: t; -*-

;; Run by TestEmacsEglot (e2e_test.go):
;;   emacs --batch -Q -l eglot-e2e.el
;; with PP_LSP_PROGRAM (the binary built from this repository),
;; PP_LSP_EL (editors/emacs/pp-lsp.el) and PP_LSP_MEMEX (a copy of
;; examples/memex).  It prints one line per check ("OUTLINE …",
;; "DEFINITION …", …), then "E2E OK"; on failure "E2E FAIL …" and the
;; eglot events log, and exits 1.

;;; Code:

(load (expand-file-name "e2e-common.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)
(require 'xref)

(defun e2e-rel (file)
  (file-relative-name file e2e-memex))

(defun e2e-line ()
  (line-number-at-pos))

(defun e2e-run ()
  (let ((server (e2e-visit "projects/pp-lsp.org")))
    (e2e-say "SERVER %s" (plist-get (eglot--server-info server) :name))

    ;; The outline, as imenu sees it in a buffer eglot manages: Org's
    ;; own, the same titles as in a plain Org buffer of the file.
    (cl-labels ((titles (items)
                  (let (out)
                    (dolist (it items)
                      (push (car it) out)
                      (when (imenu--subalist-p it)
                        (setq out (append (reverse (titles (cdr it))) out))))
                    (nreverse (delete-dups out)))))
      (let ((managed (titles (funcall imenu-create-index-function)))
            (org (let ((file buffer-file-name))
                   (with-temp-buffer
                     (insert-file-contents file)
                     (org-mode)
                     (titles (org-imenu-get-tree))))))
        (dolist (title managed) (e2e-say "OUTLINE %s" title))
        (e2e-say "IMENU equals Org's own: %s" (e2e-bool (and org (equal managed org))))
        (unless (equal managed org) (e2e-say "IMENU org's: %S" org))
        (e2e-say "IMENU eglot stays out: %s" (e2e-bool (memq 'imenu eglot-stay-out-of)))))

    ;; Jump to an id link's target.
    (goto-char (point-min))
    (search-forward "[[id:399e95ab")
    (xref-find-definitions (xref-backend-identifier-at-point (xref-find-backend)))
    (e2e-say "DEFINITION %s:%d %s" (e2e-rel buffer-file-name) (e2e-line)
             (buffer-substring-no-properties (line-beginning-position) (line-end-position)))

    ;; Backlinks of that node (the file's own ID, cursor on its title).
    (e2e-visit "notes/embedding-search.org")
    (goto-char (point-min))
    (search-forward "#+title:")
    (dolist (item (xref-backend-references 'eglot (xref-backend-identifier-at-point 'eglot)))
      (let ((loc (xref-item-location item)))
        (e2e-say "REFERENCE %s:%d" (e2e-rel (xref-location-group loc)) (xref-location-line loc))))

    ;; The code lens above the file, drawn by pp-lsp.el.
    (e2e-wait "the code lenses" (lambda () pp-lsp--lens-overlays))
    (let ((first (car (last (sort (copy-sequence pp-lsp--lens-overlays)
                                  (lambda (a b) (> (overlay-start a) (overlay-start b))))))))
      (e2e-say "LENS %s" (string-trim (overlay-get first 'before-string))))

    ;; The backlinks window of the file's node, then of the headline point
    ;; moves to (it follows point).
    (goto-char (point-min))
    (search-forward "#+title:")
    (let ((answer (pp-lsp-backlinks)))
      (e2e-say "BACKLINKS %d" (length (plist-get answer :backlinks))))
    (with-current-buffer pp-lsp-backlinks-buffer
      (goto-char (point-min))
      (e2e-say "VIEW %s" (buffer-substring-no-properties (point) (line-end-position)))
      (e2e-say "VIEW shows pp-lsp.org: %s" (e2e-bool (string-match-p "pp-lsp\\.org:9" (buffer-string))))
      (e2e-say "VIEW side window: %s" (e2e-bool (window-parameter (get-buffer-window (current-buffer)) 'window-side))))
    (search-forward "* Cosine similarity")
    (pp-lsp--backlinks-follow)
    (when (timerp pp-lsp--follow-timer) (timer-event-handler pp-lsp--follow-timer))
    (with-current-buffer pp-lsp-backlinks-buffer
      (goto-char (point-min))
      (e2e-say "FOLLOWED %s" (buffer-substring-no-properties (point) (line-end-position))))
    ;; RET on an entry visits it.
    (with-current-buffer pp-lsp-backlinks-buffer
      (pp-lsp-backlinks-refresh))
    (e2e-visit "notes/embedding-search.org")
    (goto-char (point-min))
    (search-forward "#+title:")
    (pp-lsp-backlinks)
    (with-selected-window (get-buffer-window pp-lsp-backlinks-buffer)
      (goto-char (point-min))
      (search-forward "pp-lsp.org:9")
      (beginning-of-line)
      (pp-lsp-backlinks-visit)
      (e2e-say "VISITED %s:%d" (e2e-rel buffer-file-name) (e2e-line)))
    (delete-other-windows)

    ;; Today's daily note, made when missing.
    (let ((file (pp-lsp-daily "2026-11-21")))
      (e2e-say "DAILY %s %s" (e2e-rel file)
               (save-excursion (goto-char (point-min)) (re-search-forward "^#\\+title: \\(.*\\)$") (match-string 1))))

    ;; A file renamed: the file: link to it in index.org follows.
    (e2e-visit "areas/health.org")
    ;; (eglot asks before it edits files no buffer visits: the user says y.)
    (cl-letf (((symbol-function 'y-or-n-p) (lambda (&rest _) t)))
      (pp-lsp-rename-file (expand-file-name "areas/wellbeing.org" e2e-memex)))
    (with-temp-buffer
      (insert-file-contents (expand-file-name "index.org" e2e-memex))
      (e2e-say "RENAMED index.org links areas/wellbeing.org: %s old file gone: %s"
               (e2e-bool (string-match-p "\\[\\[file:areas/wellbeing\\.org\\]" (buffer-string)))
               (e2e-bool (not (file-exists-p (expand-file-name "areas/health.org" e2e-memex))))))

    ;; Complete an ID by title: the completion inserts the ID.
    (e2e-visit "inbox.org")
    (goto-char (point-max))
    (insert "\nSee [[id:Headline scan")
    (let* ((capf (eglot-completion-at-point))
           (table (nth 2 capf))
           (exit (plist-get (nthcdr 3 capf) :exit-function))
           (cands (all-completions "" table))
           (pick (cl-find "Headline scanner" cands :test #'string=)))
      (dolist (c cands) (e2e-say "CANDIDATE %s" c))
      (unless pick (error "No completion for the headline"))
      (delete-region (nth 0 capf) (nth 1 capf))
      (insert pick)
      (funcall exit pick 'finished)
      (e2e-say "COMPLETED %s" (buffer-substring-no-properties (line-beginning-position) (line-end-position))))

    ;; What the model would see from a place.
    (e2e-visit "projects/pp-lsp.org")
    (goto-char (point-min))
    (search-forward "Gate every proposal")
    (let ((view (pp-lsp-context)))
      (e2e-say "CONTEXT foveal=%s tokens<=budget=%s"
               (plist-get (plist-get view :foveal) :title)
               (e2e-bool (<= (plist-get view :tokens) (plist-get view :budget))))
      (with-current-buffer "*Passepartout context*"
        (e2e-say "CONTEXT buffer shows the node: %s"
                 (e2e-bool (string-match-p "Gate every proposal" (buffer-string))))
        (e2e-say "CONTEXT point on the node: %s"
                 (e2e-bool (and (equal (org-get-heading t t t t) "Gate every proposal")
                                (= (window-point (get-buffer-window (current-buffer))) (point)))))))

    ;; A question answered by the replay model, the answer streamed.
    (pp-lsp-ask "What is left to do here?")
    (e2e-wait "the answer" (lambda () pp-lsp--last-result))
    (e2e-say "ASK %s" (plist-get pp-lsp--last-result :outcome))
    (with-current-buffer "*Passepartout*"
      (e2e-say "STREAMED %s" (e2e-bool (string-match-p "Two things are open" (buffer-string))))
      (e2e-say "ANSWER mode %s org-derived: %s" major-mode (e2e-bool (derived-mode-p 'org-mode)))
      (e2e-say "ANSWER keys %s %s %s" (key-binding (kbd "q")) (key-binding (kbd "C-c C-k")) (key-binding (kbd "C-c C-c")))
      (e2e-say "ANSWER says answered by the model: %s"
               (e2e-bool (string-match-p "validator\\.\n\nAnswered by replay:.*demo-replay\\.jsonl\\.\n\\'" (buffer-string))))
      (e2e-say "ANSWER window at its end: %s" (e2e-bool (= (window-point (get-buffer-window (current-buffer))) (point-max)))))
    (e2e-say "ANSWER eglot manages it: %s" (e2e-bool (buffer-local-value 'eglot--managed-mode (get-buffer "*Passepartout*"))))
    (e2e-say "SERVERS %d" (length (apply #'append (hash-table-values eglot--servers-by-project))))

    ;; A follow-up from the answer buffer (C-c C-c), asked from the
    ;; same place; then a question cancelled (C-c C-k): the answer says so
    ;; and eglot's mode line shows no error once the server has replied.
    (setq pp-lsp--last-result nil)
    ;; (The answer went into the node as an edit; batch Emacs runs no idle
    ;; timer, so eglot's didChange is sent here.)
    (with-current-buffer (find-buffer-visiting (expand-file-name "projects/pp-lsp.org" e2e-memex))
      (eglot--signal-textDocument/didChange))
    (with-current-buffer "*Passepartout*"
      (funcall (key-binding (kbd "C-c C-c")) "What is left to do here?"))
    (e2e-wait "the follow-up" (lambda () pp-lsp--last-result))
    (e2e-say "FOLLOW-UP %s" (plist-get pp-lsp--last-result :outcome))
    (with-current-buffer "*Passepartout*"
      (pp-lsp-follow-up "What is left to do here?")
      (call-interactively (key-binding (kbd "C-c C-k")))
      (e2e-wait "the server's reply" (lambda () (zerop (hash-table-count (jsonrpc--request-continuations server)))))
      (e2e-say "CANCEL mark %s" (e2e-bool (string-suffix-p "\n\nCancelled.\n" (buffer-string))))
      (e2e-say "CANCEL eglot error: %s" (jsonrpc-last-error server)))

    ;; A request the gates file as a Flight Plan; approved from Emacs.
    (setq pp-lsp--last-result nil)
    (e2e-visit "inbox.org")
    (goto-char (point-min))
    (pp-lsp-ask "Make a dated copy of my inbox")
    (e2e-wait "the plan" (lambda () pp-lsp--last-result) 60)
    (let ((plan (plist-get pp-lsp--last-result :planId)))
      (e2e-say "PLANNED %s %s" (plist-get pp-lsp--last-result :outcome) (e2e-bool plan))
      (with-current-buffer "*Passepartout*"
        (goto-char (point-max))
        (e2e-say "ANSWER says %s" (if (re-search-backward "^Plan filed — RET to open it$" nil t) (match-string 0) "nothing"))
        (push-button (point)))
      (with-current-buffer (window-buffer (selected-window))
        (e2e-say "PLAN OPENED %s on its plan: %s" (file-name-nondirectory buffer-file-name)
                 (e2e-bool (equal (org-entry-get nil "ID") plan)))
        (e2e-say "PLAN OPENED at the window top: %s"
                 (e2e-bool (= (window-start) (line-beginning-position))))
        (kill-buffer))
      (let ((run (pp-lsp-approve plan)))
        (e2e-say "APPROVED %s" (plist-get run :state))))
    (e2e-say "RAN %s" (e2e-bool (file-exists-p (expand-file-name "notes/archive/inbox-2026-11-21.org" e2e-memex))))
    (with-temp-buffer
      (insert-file-contents (expand-file-name "flightplans.org" e2e-memex))
      (e2e-say "PLANS FILE says DONE: %s" (e2e-bool (string-match-p "^\\* DONE " (buffer-string)))))

    ;; The journal has entries now (the proposals above); completion never
    ;; offers them.
    (e2e-visit "inbox.org")
    (goto-char (point-max))
    (insert "\nx [[id:proposal shell")
    (let* ((capf (eglot-completion-at-point))
           (cands (all-completions "" (nth 2 capf))))
      (e2e-say "JOURNAL written: %s offered: %d"
               (e2e-bool (file-exists-p (expand-file-name "journal.org" e2e-memex)))
               (cl-count-if (lambda (c) (string-match-p "\\`\\[[0-9]" c)) cands)))
    (set-buffer-modified-p nil)
    ;; The skills, in the order they apply, and the Gardener run now.
    (e2e-say "SKILLS %s" (mapconcat (lambda (k) (plist-get k :title)) (pp-lsp-skills) ", "))
    (e2e-say "RAN SKILL %s" (plist-get (pp-lsp-run-skill "Gardener") :status))

    ;; A clean end: shutdown, exit, status 0.
    (e2e-shutdown server)))

(e2e-main)

;;; eglot-e2e.el ends here
