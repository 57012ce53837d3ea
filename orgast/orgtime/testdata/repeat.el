;;; repeat.el --- org-auto-repeat-maybe on the timestamps of a file, at a given now  -*- lexical-binding: t -*-
;; Usage: TZ=UTC emacs --batch -Q -l repeat.el CASES
;; CASES holds lines "NOW<TAB>TIMESTAMP" (NOW as "2026-11-26 10:00"); for each
;; it prints the SCHEDULED timestamp after marking "* TODO x / SCHEDULED: TS"
;; DONE, with the clock at NOW.
(require 'org)
(require 'cl-lib)
(setq org-log-repeat nil org-log-done nil org-todo-repeat-to-state nil)
(defun pp-repeat (now-str ts)
  (let* ((now (org-time-string-to-time now-str))
         (orig-float-time (symbol-function 'float-time))
         (orig-less (symbol-function 'time-less-p)))
    (cl-letf (((symbol-function 'org-today) (lambda () (time-to-days now)))
              ((symbol-function 'org-time-less-p)
               (lambda (a b) (funcall orig-less (or a now) (or b now))))
              ;; Past 10 shifts Org asks whether to go on: yes, as Repeat does.
              ((symbol-function 'y-or-n-p) (lambda (&rest _) t))
              ((symbol-function 'float-time)
               (lambda (&optional tm) (funcall orig-float-time (or tm now)))))
      (with-temp-buffer
        (org-mode)
        (insert "* TODO task\nSCHEDULED: " ts "\n")
        (goto-char (point-min))
        (let ((inhibit-message t)) (org-todo "DONE"))
        (goto-char (point-min))
        (org-entry-get (point) "SCHEDULED")))))
(dolist (line (split-string (with-temp-buffer
                              (insert-file-contents (car command-line-args-left))
                              (buffer-string))
                            "\n" t))
  (let ((parts (split-string line "\t")))
    (princ (format "%s\n" (or (pp-repeat (nth 0 parts) (nth 1 parts)) "nil")))))
