;;; chartab.el --- print the character classes org-element's regexps see  -*- lexical-binding: t -*-
;;
;; For every character (and every raw byte Emacs can hold in a buffer),
;; in an Org buffer set up as ../../../../shared/tools/org-outline.el
;; sets it up: its syntax class in Org's syntax table (bits 0-3), and
;; whether it matches [[:alnum:]] (16), [[:alpha:]] (32), the category
;; \c| "line breakable" (64) and [[:blank:]] (128).  Output: one line
;; "FIRST-CHAR FLAGS" each time the flags change.
(require 'org)
(with-temp-buffer
  (let ((org-inhibit-startup t) (enable-local-variables nil))
    (delay-mode-hooks (org-mode)))
  (dolist (range '((0 . #x10FFFF) (#x3FFF80 . #x3FFFFF)))
    (let ((c (car range)) (prev nil))
      (while (<= c (cdr range))
        (let* ((s (string c))
               (f (logior (logand (car (aref (syntax-table) c)) 15)
                          (if (string-match-p "[[:alnum:]]" s) 16 0)
                          (if (string-match-p "[[:alpha:]]" s) 32 0)
                          (if (string-match-p "\\c|" s) 64 0)
                          (if (string-match-p "[[:blank:]]" s) 128 0))))
          (unless (eq f prev)
            (princ (format "%d %d\n" c f))
            (setq prev f)))
        (setq c (1+ c))))))
