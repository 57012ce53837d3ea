;;; words.el --- print what Emacs's regexp word boundaries depend on  -*- lexical-binding: t -*-
;;
;; \< matches between two word characters when word_boundary_p says so:
;; when their scripts (char-script-table) differ, unless a pair of
;; word-combining-categories joins them, and when their scripts agree, if
;; a pair of word-separating-categories splits them.  Output: the rules as
;; "COMBINE c1 c2" and "SEPARATE c1 c2" lines (0 for nil), then one line
;; "FIRST-CHAR SCRIPT-ID CATEGORY-BITS" each time either changes; bit i is
;; the i-th category named by the rules.
(let* ((cats nil) (scripts nil) (prev nil))
  (dolist (rule word-combining-categories)
    (princ (format "COMBINE %d %d\n" (or (car rule) 0) (or (cdr rule) 0))))
  (dolist (rule word-separating-categories)
    (princ (format "SEPARATE %d %d\n" (or (car rule) 0) (or (cdr rule) 0))))
  (dolist (rule (append word-combining-categories word-separating-categories))
    (dolist (c (list (car rule) (cdr rule)))
      (when (and c (not (memq c cats))) (setq cats (append cats (list c))))))
  (princ (format "CATEGORIES %s\n" (mapconcat #'number-to-string cats " ")))
  (dolist (range '((0 . #x10FFFF) (#x3FFF80 . #x3FFFFF)))
    (let ((c (car range)))
      (setq prev nil)
      (while (<= c (cdr range))
        (let* ((script (aref char-script-table c))
               (sid (or (cdr (assq script scripts))
                        (let ((n (1+ (length scripts))))
                          (push (cons script n) scripts)
                          n)))
               (set (char-category-set c))
               (bits 0) (i 0))
          (dolist (cat cats)
            (when (aref set cat) (setq bits (logior bits (ash 1 i))))
            (setq i (1+ i)))
          (let ((f (cons (if script sid 0) bits)))
            (unless (equal f prev)
              (princ (format "%d %d %d\n" c (car f) (cdr f)))
              (setq prev f))))
        (setq c (1+ c))))))
