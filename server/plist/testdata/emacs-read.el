;;; emacs-read.el --- Emacs's side of the plist conformance tests  -*- lexical-binding: t -*-

;; Usage: emacs --batch -Q -l emacs-read.el IN OUT
;;
;; IN holds records framed as on the wire (6 hex digits of UTF-8 length,
;; then the text). For each record Emacs `read's the text and writes one
;; framed record to OUT: "O" followed by `prin1' of what it read when the
;; text is exactly one value (only whitespace or comments after it), or "E"
;; followed by the error. The print variables are bound so that `prin1'
;; writes what Emacs itself would send over the wire.

(defun pp-test--records (file)
  "Return the framed records of FILE as decoded strings."
  (with-temp-buffer
    (set-buffer-multibyte nil)
    (insert-file-contents-literally file)
    (let ((pos 1) (end (point-max)) (out nil))
      (while (< pos end)
        (let ((len (string-to-number (buffer-substring pos (+ pos 6)) 16)))
          (push (decode-coding-string
                 (buffer-substring (+ pos 6) (+ pos 6 len)) 'utf-8-unix t)
                out)
          (setq pos (+ pos 6 len))))
      (nreverse out))))

(defun pp-test--only-blank-after (text end)
  "Non-nil when TEXT holds only whitespace and comments after position END.
Whitespace is what Emacs's reader skips: every character up to space,
and the no-break space."
  (string-match-p "\\`\\(?:[\0-\s\u00a0]\\|;[^\n]*\\)*\\'"
                  (substring text end)))

(let ((in (nth 0 command-line-args-left))
      (out (nth 1 command-line-args-left))
      (print-escape-newlines nil)
      (print-escape-control-characters nil)
      (print-escape-nonascii nil)
      (print-escape-multibyte nil)
      (print-length nil)
      (print-level nil)
      (print-circle nil)
      (print-quoted nil)
      (float-output-format nil)
      (results nil))
  (setq command-line-args-left nil)
  (dolist (text (pp-test--records in))
    (push (condition-case err
              (let ((r (read-from-string text)))
                (if (pp-test--only-blank-after text (cdr r))
                    (concat "O" (prin1-to-string (car r)))
                  "Etrailing text"))
            (error (concat "E" (prin1-to-string err))))
          results))
  (with-temp-buffer
    (set-buffer-multibyte nil)
    (dolist (r (nreverse results))
      (let ((bytes (encode-coding-string r 'utf-8-unix t)))
        (insert (format "%06X" (length bytes)) bytes)))
    (let ((coding-system-for-write 'no-conversion))
      (write-region nil nil out nil 'silent))))
