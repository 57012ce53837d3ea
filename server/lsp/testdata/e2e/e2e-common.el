;;; e2e-common.el --- what every batch-Emacs end-to-end script shares  -*- lexical-binding: t; -*-

;; Loaded first by eglot-e2e.el, eglot-chat.el, eglot-approve-e2e.el and
;; undo-e2e.el, which the Go tests run as `emacs --batch -Q -l SCRIPT'
;; with PP_LSP_PROGRAM (the binary built from this repository), PP_LSP_EL
;; (editors/emacs/pp-lsp.el) and PP_LSP_MEMEX (a copy of examples/memex).
;; A script defines `e2e-run' and ends with `(e2e-main)': one line per
;; check, then "E2E OK"; on failure "E2E FAIL …" and eglot's events
;; log, and exit 1.

;;; Code:

;; Debian's elpa-eglot (Emacs 28 has no eglot of its own).
(when (file-directory-p "/usr/share/emacs/site-lisp/elpa")
  (dolist (d (directory-files "/usr/share/emacs/site-lisp/elpa" t "^[a-z]"))
    (when (file-directory-p d) (add-to-list 'load-path d))))
(require 'eglot)
(require 'cl-lib)
(load (getenv "PP_LSP_EL") nil t)

(defvar e2e-memex (file-name-as-directory (getenv "PP_LSP_MEMEX")))
(setq pp-lsp-program (getenv "PP_LSP_PROGRAM")
      pp-lsp-memex-roots (list e2e-memex)
      eglot-confirm-server-initiated-edits nil
      eglot-sync-connect 30
      eglot-connect-timeout 30
      eglot-autoreconnect nil
      eglot-send-changes-idle-time 0.1
      org-startup-folded nil
      make-backup-files nil
      create-lockfiles nil)

(defun e2e-say (fmt &rest args)
  "Print FMT with ARGS as one line."
  (princ (concat (apply #'format fmt args) "\n")))

(defun e2e-bool (x)
  "X as the scripts of both editors print a truth."
  (if x "true" "false"))

(defun e2e-wait (what pred &optional seconds)
  "Wait until PRED holds (WHAT names it), serving the server meanwhile.
As the command loop waits for a key: file notifications are served too
\(pp-lsp.el's watcher of the memex), which `accept-process-output' is not."
  (let ((deadline (+ (float-time) (or seconds 30))))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (read-event nil nil 0.05))
    (unless (funcall pred) (error "Timed out waiting for %s" what))))

(defun e2e-file (rel)
  "REL, a path in the memex, made absolute."
  (expand-file-name rel e2e-memex))

(defun e2e-disk (rel)
  "The text of REL on disk (\"\" when absent)."
  (if (file-exists-p (e2e-file rel))
      (with-temp-buffer (insert-file-contents (e2e-file rel)) (buffer-string))
    ""))

(defun e2e-visit (rel)
  "Visit REL and make sure eglot serves it."
  (find-file (e2e-file rel))
  (unless (eglot-current-server)
    (apply #'eglot (eglot--guess-contact)))
  (eglot-current-server))

(defun e2e-ask (question)
  "Ask QUESTION from the current buffer and wait for the answer."
  (setq pp-lsp--last-result nil)
  (pp-lsp-ask question)
  (e2e-wait "the answer" (lambda () pp-lsp--last-result) 60)
  pp-lsp--last-result)

(defvar e2e-decided nil
  "The last answer to a key of the plans list or view: (RUN REFUSAL).")

(add-hook 'pp-lsp-plan-decided-functions
          (lambda (_plan _command run refusal) (setq e2e-decided (list run refusal))))

(defun e2e-decide (key)
  "Press KEY (a command of the plans list or view) and wait for its answer.
The key returns at once; its answer comes later.  Return the server's
answer, or signal its refusal as the user error the key once signalled.
A key that did nothing (a user error of its own) signals that at once."
  (setq e2e-decided nil)
  (funcall key)
  (e2e-wait "the plan's answer" (lambda () e2e-decided) 60)
  (when (nth 1 e2e-decided)
    (user-error "pp-lsp: %s" (nth 1 e2e-decided)))
  (car e2e-decided))

(defun e2e-shutdown (server)
  "End SERVER cleanly (shutdown, exit) and print its exit status.
\(eglot-shutdown kills the process right after exit, so the status is
read here instead.)"
  (let ((proc (jsonrpc--process server)))
    (jsonrpc-request server :shutdown nil)
    (jsonrpc-notify server :exit nil)
    (e2e-wait "the server to exit" (lambda () (not (process-live-p proc))) 10)
    (e2e-say "EXIT %s" (process-exit-status proc))))

(defun e2e-main ()
  "Run `e2e-run', report, and exit."
  (condition-case err
      (progn (funcall 'e2e-run) (e2e-say "E2E OK") (kill-emacs 0))
    (error
     (e2e-say "E2E FAIL %S" err)
     (let ((server (ignore-errors (eglot-current-server))))
       (when server
         (with-current-buffer (jsonrpc-events-buffer server)
           (e2e-say "--- eglot events\n%s" (buffer-string)))))
     (kill-emacs 1))))

;;; e2e-common.el ends here
