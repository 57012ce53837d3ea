;;;; sbcl-read.lisp --- Common Lisp's side of the plist conformance test.
;;;;
;;;; Usage: sbcl --script sbcl-read.lisp IN OUT
;;;;
;;;; IN holds records framed as on the wire (6 hex digits of UTF-8 length, then
;;;; the text). Each is read with the standard reader (*read-eval* nil, floats
;;;; as double-floats) into a fresh package, and described in OUT, framed the
;;;; same way: "O" and the value written in a syntax the Go reader reads
;;;; without doubt (every symbol character escaped), or "E" and the error.

(defpackage :pp-test-read (:use :common-lisp))

(defun utf8 (octets)
  (sb-ext:octets-to-string octets :external-format :utf-8))

(defun records (file)
  (with-open-file (in file :element-type '(unsigned-byte 8))
    (let ((data (make-array (file-length in) :element-type '(unsigned-byte 8))))
      (read-sequence data in)
      (loop with pos = 0
            while (< pos (length data))
            collect (let ((len (parse-integer (map 'string #'code-char (subseq data pos (+ pos 6)))
                                              :radix 16)))
                      (prog1 (utf8 (subseq data (+ pos 6) (+ pos 6 len)))
                        (incf pos (+ 6 len))))))))

(defun escaped (name)
  (with-output-to-string (s)
    (loop for c across name do (write-char #\\ s) (write-char c s))))

(defun describe-value (v)
  (cond ((null v) "nil")
        ((eq v t) "t")
        ((keywordp v) (concatenate 'string ":" (escaped (symbol-name v))))
        ((symbolp v) (escaped (symbol-name v)))
        ((stringp v) (prin1-to-string v))
        ((integerp v) (format nil "~D" v))
        ((typep v 'double-float) (let ((*read-default-float-format* 'double-float)) (prin1-to-string v)))
        ((and (consp v) (null (cdr (last v))))
         (format nil "(~{~A~^ ~})" (mapcar #'describe-value v)))
        (t (format nil "#<not a wire value: ~A>" (type-of v)))))

(defun blank-p (text start)
  (every (lambda (c) (member c '(#\Space #\Tab #\Newline #\Return #\Page))) (subseq text start)))

(let* ((args (rest sb-ext:*posix-argv*))
       (out-file (second args))
       (results
         (loop for text in (records (first args))
               collect (handler-case
                           (let ((*read-eval* nil)
                                 (*read-default-float-format* 'double-float)
                                 (*package* (find-package :pp-test-read)))
                             (multiple-value-bind (v end) (read-from-string text)
                               (if (blank-p text end)
                                   (concatenate 'string "O" (describe-value v))
                                   "Etrailing text")))
                         (error (e) (concatenate 'string "E" (princ-to-string e)))))))
  (with-open-file (out out-file :direction :output :if-exists :supersede
                                :element-type '(unsigned-byte 8))
    (dolist (r results)
      (let ((bytes (sb-ext:string-to-octets r :external-format :utf-8)))
        (write-sequence (map 'vector #'char-code (format nil "~6,'0X" (length bytes))) out)
        (write-sequence bytes out)))))
