;;; org-blocks.el --- print org-element's blocks, drawers and named elements as JSON  -*- lexical-binding: t -*-
;;
;; Usage: emacs --batch -Q -l org-blocks.el FILE.org... > blocks.json
;;
;; Test-only: the reference orgast's File.Blocks and File.Names are checked
;; against (blocknames_test.go).  It reads each file exactly as
;; ../../../shared/tools/org-outline.el does, then prints, for every file,
;; what org-element sees:
;;
;;   blocks: every center, comment, dynamic, example, export, quote,
;;     special, src and verse block and every drawer, in document order:
;;     type, name (the word after #+BEGIN_, :block-name, :drawer-name),
;;     language (:language), begin (:begin), line (:post-affiliated and
;;     the end of that line), contents, end (:end less :post-blank lines)
;;     and headline (the line of the enclosing headline, or null);
;;   names: every element with a :name, in document order: name, type,
;;     begin, end and headline as above.
;;
;; A position is [LINE, COLUMN]: the 1-based line and the 0-based column
;; in characters.  org-element gives lesser blocks (comment, example,
;; export, src) and empty greater ones no :contents-begin; their contents
;; are then the lines between the opening and the closing line, which is
;; where org-element takes their :value from.

(require 'org)
(require 'org-element)
(require 'json)
(require 'org-id)
(org-load-modules-maybe t)

(defconst org-blocks--types
  '(center-block comment-block dynamic-block example-block export-block
    quote-block special-block src-block verse-block drawer))

(defun org-blocks--pos (pos)
  "POS as [LINE, COLUMN]."
  (save-excursion
    (goto-char pos)
    (vector (line-number-at-pos) (- pos (line-beginning-position)))))

(defun org-blocks--before-blank (el)
  "Where EL ends without its blank lines: :end, back :post-blank lines.
`count-lines' counts a last line without a line end, hence the case.
org-element-fixed-width-parser counts :post-blank from the end of the
last line, before its line end: one line more, which the forward-line
gives back."
  (let ((end (org-element-property :end el))
        (blank (org-element-property :post-blank el)))
    (if (zerop blank)
        end
      (save-excursion
        (goto-char end)
        (forward-line (- (if (bolp) blank (1- blank))))
        (when (eq (org-element-type el) 'fixed-width)
          (forward-line))
        (point)))))

(defun org-blocks--headline (el)
  "The line of the headline holding EL, or nil."
  (let ((hl (org-element-lineage el '(headline))))
    (and hl (line-number-at-pos (org-element-property :begin hl)))))

(defun org-blocks--name (el)
  "What the opening line of block EL names."
  (pcase (org-element-type el)
    ('special-block (org-element-property :type el))
    ('dynamic-block (org-element-property :block-name el))
    ('drawer (org-element-property :drawer-name el))
    (_ (save-excursion
         (goto-char (org-element-property :post-affiliated el))
         (let ((case-fold-search t))
           (and (looking-at "[ \t]*#\\+BEGIN_\\(\\S-+\\)")
                (match-string-no-properties 1)))))))

(defun org-blocks--block (el)
  (let* ((post (org-element-property :post-affiliated el))
         (end (org-blocks--before-blank el))
         (cb (org-element-property :contents-begin el))
         (ce (org-element-property :contents-end el)))
    (unless cb
      (save-excursion
        (goto-char post)
        (forward-line)
        (setq cb (point))
        (goto-char end)
        (if (bolp) (forward-line -1) (beginning-of-line))
        (setq ce (point))))
    `((type . ,(symbol-name (org-element-type el)))
      (name . ,(org-blocks--name el))
      (language . ,(org-element-property :language el))
      (begin . ,(org-blocks--pos (org-element-property :begin el)))
      (line . ,(vector (org-blocks--pos post)
                       (org-blocks--pos (save-excursion (goto-char post) (line-end-position)))))
      (contents . ,(vector (org-blocks--pos cb) (org-blocks--pos ce)))
      (end . ,(org-blocks--pos end))
      (headline . ,(org-blocks--headline el)))))

(defun org-blocks--named (el)
  (let ((name (org-element-property :name el)))
    (when name
      `((name . ,name)
        (type . ,(symbol-name (org-element-type el)))
        (begin . ,(org-blocks--pos (org-element-property :begin el)))
        (end . ,(org-blocks--pos (org-blocks--before-blank el)))
        (headline . ,(org-blocks--headline el))))))

(defun org-blocks-file (file)
  (with-temp-buffer
    (insert-file-contents file)
    (let ((org-inhibit-startup t)
          (enable-local-variables nil))
      (delay-mode-hooks (org-mode)))
    (let ((tree (org-element-parse-buffer)))
      `((file . ,file)
        (blocks . ,(vconcat (org-element-map tree org-blocks--types #'org-blocks--block)))
        (names . ,(vconcat (org-element-map tree org-element-all-elements #'org-blocks--named)))))))

(let ((json-encoding-pretty-print nil)
      (results nil))
  (dolist (f command-line-args-left)
    (push (condition-case err
              (org-blocks-file f)
            (error `((file . ,f) (error . ,(format "%S" err)))))
          results))
  (setq command-line-args-left nil)
  (princ (json-encode (vconcat (nreverse results))))
  (terpri))
