;;; eglot-watch.el --- pp-lsp.el watches the memex for pp-lsp  -*- lexical-binding: t; -*-

;; Run by TestEmacsWatchesTheMemex (watch_e2e_test.go).  pp-lsp's own
;; rescan is made hourly, so only the watcher can tell it of a change:
;; a note saved by renaming a new file over it, a folder made with a note
;; in it (and a note added there later), the folder moved out of the
;; memex and back in.  The server must know of each within seconds.  One
;; line per check, then "E2E OK".

;;; Code:

(load (expand-file-name "e2e-common.el" (file-name-directory (or load-file-name buffer-file-name))) nil t)

(setq pp-lsp-initialization-options '(:rescanInterval 3600))

(defun e2e-knows (server heading)
  "Whether SERVER's memex holds a headline HEADING, and in which file."
  (let ((found (jsonrpc-request server :workspace/symbol (list :query heading))))
    (seq-some (lambda (s) (and (equal (plist-get s :name) heading)
                               (file-name-nondirectory
                                (directory-file-name
                                 (file-name-directory (eglot--uri-to-path (plist-get (plist-get s :location) :uri)))))))
              found)))

(defun e2e-until (server heading want)
  "Wait, as the command loop waits for keys, until SERVER's knowing HEADING is WANT."
  (let ((deadline (+ (float-time) 10)) now)
    (while (and (not (equal (setq now (e2e-knows server heading)) want)) (< (float-time) deadline))
      (read-event nil nil 0.2))
    (equal now want)))

(defun e2e-write (rel text)
  (make-directory (file-name-directory (e2e-file rel)) t)
  (let ((tmp (concat (e2e-file rel) ".tmp~")))
    (with-temp-file tmp (insert text))
    (rename-file tmp (e2e-file rel) t)))

(defun e2e-run ()
  (let* ((server (e2e-visit "inbox.org"))
         (outside (make-temp-file "outside" t)))
    (e2e-wait "indexing" (lambda () (e2e-knows server "Ship the outline parser")) 30)
    ;; A note saved as most programs save: a new file renamed over it.
    (e2e-write "reading-list.org" (concat (e2e-disk "reading-list.org") "\n* Watched heading\n"))
    (e2e-say "RENAMED OVER seen: %s" (e2e-bool (e2e-until server "Watched heading" "memex")))
    ;; A folder made, with a note; then a note added in it.
    (e2e-write "fresh/first.org" "* Fresh heading\n")
    (e2e-say "NEW FOLDER seen: %s" (e2e-bool (e2e-until server "Fresh heading" "fresh")))
    (e2e-write "fresh/second.org" "* Second heading\n")
    (e2e-say "IN NEW FOLDER seen: %s" (e2e-bool (e2e-until server "Second heading" "fresh")))
    ;; The folder moved out of the memex, then back in under another name.
    (rename-file (e2e-file "fresh") (expand-file-name "fresh" outside))
    (e2e-say "MOVED OUT gone: %s" (e2e-bool (e2e-until server "Fresh heading" nil)))
    (rename-file (expand-file-name "fresh" outside) (e2e-file "back"))
    (e2e-say "MOVED IN seen: %s" (e2e-bool (e2e-until server "Fresh heading" "back")))
    ;; A note removed.
    (delete-file (e2e-file "back/second.org"))
    (e2e-say "REMOVED gone: %s" (e2e-bool (e2e-until server "Second heading" nil)))
    (e2e-shutdown server)))

(e2e-main)

;;; eglot-watch.el ends here
