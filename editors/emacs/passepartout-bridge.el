;;; passepartout-bridge.el --- Talk to the Passepartout daemon over its framed-TCP bridge  -*- lexical-binding: t -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1"))
;; Keywords: outlines, tools, convenience

;;; Commentary:

;; The client side of wire 1 of pp-lsp's framed-TCP protocol (DESIGN §9).
;; Start the daemon with
;;
;;     pp-lsp serve --tcp 127.0.0.1:7655 --root ~/notes
;;
;; (or `pp-lsp --stdio --tcp 127.0.0.1:7655' beside the language server),
;; then use the commands:
;;
;;   `passepartout-ask'      ask a question; the answer streams into a buffer
;;   `passepartout-cancel'   cancel the running answer (C-c C-k there)
;;   `passepartout-context'  show the context the model would see from point
;;   `passepartout-plans'    list the Flight Plans; a approves, A approves and
;;                           allows similar actions, r rejects, u undoes
;;   `passepartout-approve', `passepartout-reject'   by plan id
;;   `passepartout-approve-always'   approve and allow similar from now on
;;   `passepartout-undo'     undo the latest change an action made (again: redo)
;;   `passepartout-status', `passepartout-ping'
;;   `passepartout-bridge-connect', `passepartout-bridge-disconnect'
;;
;; Commands connect on first use.  The daemon authenticates the client
;; with the token it keeps in $XDG_RUNTIME_DIR/passepartout/token (or
;; $XDG_CACHE_HOME/passepartout/token, else ~/.cache/passepartout/token);
;; this file reads it from the same place.  The token is sent only once
;; the daemon's handshake has proved the daemon knows it, for this very
;; connection: a program squatting the port gets nothing.
;;
;; A frame is six hex digits, the payload's length in UTF-8 bytes, then the
;; payload: one property list.  Frames from the daemon are read with `read'
;; on the payload alone, after checking that it holds no `#' syntax outside
;; strings, so nothing in a frame can build an unexpected object.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'tabulated-list)

(declare-function org-mode "org" ())

(defgroup passepartout-bridge nil
  "Passepartout's framed-TCP bridge."
  :group 'tools
  :prefix "passepartout-")

(defcustom passepartout-bridge-host "127.0.0.1"
  "Host the Passepartout daemon listens on."
  :type 'string
  :group 'passepartout-bridge)

(defcustom passepartout-bridge-port 7655
  "Port the Passepartout daemon listens on (its --tcp ADDR)."
  :type 'natnum
  :group 'passepartout-bridge)

(defcustom passepartout-bridge-token-file nil
  "File holding the daemon's token, or nil for the daemon's own place.
That is $XDG_RUNTIME_DIR/passepartout/token, or else
$XDG_CACHE_HOME/passepartout/token, or else
~/.cache/passepartout/token."
  :type '(choice (const :tag "Where the daemon keeps it" nil) file)
  :group 'passepartout-bridge)

(defcustom passepartout-bridge-timeout 10
  "Seconds to wait for the daemon when a command needs its answer."
  :type 'number
  :group 'passepartout-bridge)

(defcustom passepartout-bridge-max-frame #xFFFFFF
  "Largest frame payload accepted from the daemon, in bytes."
  :type 'natnum
  :group 'passepartout-bridge)

(define-error 'passepartout-bridge-error "Passepartout bridge")

;;;; State

(defvar passepartout-bridge--process nil
  "The connection to the daemon, or nil.")

(defvar passepartout-bridge--token-sent nil
  "Non-nil once the token went to a daemon that proved it knows it.
Only then is an acknowledgement of the handshake believed.")

(defvar passepartout-bridge--authenticated nil
  "Non-nil once the daemon accepted the token.")

(defvar passepartout-bridge--session nil
  "The session id the daemon gave this connection.")

(defvar passepartout-bridge--server-version nil
  "The daemon's version, from its handshake.")

(defvar passepartout-bridge--last-log nil
  "The text of the last :LOG frame from the daemon.")

(defvar passepartout-bridge--refusal nil
  "Why this end closed the connection, said as it is.
A token it will not use, a frame it cannot take: one sentence.")

(defvar passepartout-bridge--requests (make-hash-table :test 'equal)
  "Requests waiting for an answer, by request id.
Each value is a plist (:action A :on-chunk F :on-response G).")

(defvar passepartout-bridge--next-id 0
  "Counter for request ids.")

(defvar passepartout-bridge--last-ask nil
  "The request id of the most recent `passepartout-ask'.")

(defvar passepartout-bridge--plans nil
  "The Flight Plans of the last listing, as plists.")

;;;; The token

(defun passepartout-bridge--absolute-env (name)
  "Return environment variable NAME if it is an absolute directory."
  (let ((v (getenv name)))
    (and v (string-prefix-p "/" v) v)))

(defun passepartout-bridge-token-file ()
  "Return the name of the daemon's token file."
  (or passepartout-bridge-token-file
      (let ((runtime (passepartout-bridge--absolute-env "XDG_RUNTIME_DIR"))
            (cache (passepartout-bridge--absolute-env "XDG_CACHE_HOME"))
            (home (passepartout-bridge--absolute-env "HOME")))
        (cond (runtime (expand-file-name "passepartout/token" runtime))
              (cache (expand-file-name "passepartout/token" cache))
              (home (expand-file-name ".cache/passepartout/token" home))
              (t (signal 'passepartout-bridge-error
                         '("No token location: set XDG_RUNTIME_DIR or HOME")))))))

(defun passepartout-bridge--read-token ()
  "Return the daemon's token from its file.
A file that is not a regular file of this user's, readable by no one
else, as the daemon makes it, is refused: someone else may have
planted it (to pass for the daemon) or read it."
  (let* ((file (passepartout-bridge-token-file))
         (attrs (file-attributes file 'integer)))
    (unless (file-readable-p file)
      (signal 'passepartout-bridge-error
              (list (format "There is no token file at %s: start the daemon (`pp-lsp serve --tcp %s:%s'), which makes it"
                            file passepartout-bridge-host passepartout-bridge-port))))
    (let ((why (cond ((null attrs) "cannot be read")
                     ((file-attribute-type attrs) "is not a regular file")
                     ((not (eql (file-attribute-user-id attrs) (user-uid)))
                      "belongs to another user")
                     ((not (string-match-p "\\`-...------\\'" (file-attribute-modes attrs)))
                      (format "can be read or written by others (%s)" (file-attribute-modes attrs))))))
      (when why
        (signal 'passepartout-bridge-error
                (list (format "The token file %s %s, so it was not used: restart the daemon (`pp-lsp serve'), which replaces it with one only you can read"
                              file why)))))
    (with-temp-buffer
      (insert-file-contents file)
      (string-trim (buffer-string)))))

;;;; The daemon's proof

;; Before the token leaves Emacs, the daemon proves it knows it: its
;; handshake carries :NONCE and :PROOF, the HMAC-SHA256 keyed with the
;; token's SHA-256 of a label, the nonce and both ends of this very
;; connection.  A program that only listens on the port (the daemon not
;; running, or on another port) cannot make it, nor can one that relays
;; the daemon's handshake to its own connection.

(defun passepartout-bridge--hmac-sha256 (key message)
  "Return the HMAC-SHA256 of MESSAGE under KEY, unibyte strings, in hex."
  (let* ((key (if (> (length key) 64) (secure-hash 'sha256 key nil nil t) key))
         (key (concat key (make-string (- 64 (length key)) 0)))
         (pad (lambda (byte)
                (apply #'unibyte-string
                       (mapcar (lambda (c) (logxor c byte)) key)))))
    (secure-hash 'sha256
                 (concat (funcall pad #x5c)
                         (secure-hash 'sha256
                                      (concat (funcall pad #x36) message)
                                      nil nil t)))))

(defun passepartout-bridge--address-key (address)
  "Return ADDRESS, a vector from `process-contact', as the proof names it.
That is the IP's bytes in hex (4 for IPv4, 16 for IPv6), a colon
and the port in decimal."
  (let* ((n (length address))
         (ip (if (= n 5)
                 (mapconcat (lambda (i) (format "%02x" (aref address i)))
                            '(0 1 2 3) "")
               (mapconcat (lambda (i) (format "%04x" (aref address i)))
                          (number-sequence 0 (- n 2)) ""))))
    (format "%s:%d" ip (aref address (1- n)))))

(defun passepartout-bridge--daemon-proven-p (proc payload)
  "Return non-nil if PAYLOAD, PROC's handshake, proves it is the daemon's."
  (let ((nonce (plist-get payload :NONCE))
        (proof (plist-get payload :PROOF))
        (local (and proc (process-contact proc :local)))
        (remote (and proc (process-contact proc :remote))))
    (and (stringp nonce) (stringp proof)
         (vectorp local) (vectorp remote)
         (string=
          (downcase proof)
          (passepartout-bridge--hmac-sha256
           (secure-hash 'sha256 (passepartout-bridge--read-token) nil nil t)
           (encode-coding-string
            (mapconcat (lambda (part) (concat part (string 0)))
                       (list "pp-lsp bridge daemon proof" nonce
                             (passepartout-bridge--address-key local)
                             (passepartout-bridge--address-key remote))
                       "")
            'utf-8))))))

;;;; Printing and reading plists

(defun passepartout-bridge--clean (value)
  "Return VALUE ready for printing on the wire.
Strings lose their text properties (which `prin1' would print as
#(...) syntax) and raw bytes become U+FFFD, since the wire carries
UTF-8 text only."
  (cond ((stringp value)
         (let ((s (substring-no-properties value)))
           (when (and (not (multibyte-string-p s))
                      (string-match-p "[\200-\377]" s))
             (setq s (decode-coding-string s 'utf-8-unix t)))
           (if (string-match-p "[\200-\377]" s)
               (replace-regexp-in-string "[\200-\377]" "\uFFFD" s t t)
             s)))
        ((consp value)
         (cons (passepartout-bridge--clean (car value))
               (passepartout-bridge--clean (cdr value))))
        (t value)))

(defun passepartout-bridge--print (value)
  "Return VALUE printed for the daemon, with nothing abbreviated."
  (let ((print-escape-newlines nil)
        (print-escape-control-characters nil)
        (print-escape-nonascii nil)
        (print-escape-multibyte nil)
        (print-length nil)
        (print-level nil)
        (print-circle nil)
        (print-quoted nil)
        (print-gensym nil)
        (print-integers-as-characters nil)
        (float-output-format nil))
    (prin1-to-string (passepartout-bridge--clean value))))

(defun passepartout-bridge--check-syntax (text)
  "Signal an error if TEXT has `#' syntax outside its strings.
`read' would build special objects from it (#s records, #N=
circular structure); the protocol never uses it."
  (let ((pos 0) (in-string nil) (len (length text)))
    (while (and pos (< pos len))
      (if in-string
          (if (string-match "[\"\\]" text pos)
              (let ((at (match-beginning 0)))
                (if (eq (aref text at) ?\\)
                    (setq pos (+ at 2))
                  (setq in-string nil pos (1+ at))))
            (setq pos nil))
        (if (string-match "[\"\\;#]" text pos)
            (let ((at (match-beginning 0)))
              (pcase (aref text at)
                (?\" (setq in-string t pos (1+ at)))
                (?\\ (setq pos (+ at 2)))
                (?\; (setq pos (and (string-match "\n" text at) (match-end 0))))
                (_ (signal 'passepartout-bridge-error
                           (list (format "#-syntax at character %d of a frame" at))))))
          (setq pos nil))))))

(defun passepartout-bridge--read (text)
  "Return the one plist in TEXT, a frame's decoded payload."
  (passepartout-bridge--check-syntax text)
  (let* ((r (read-from-string text))
         (value (car r)))
    (unless (string-match-p "\\`[[:space:]\n]*\\'" (substring text (cdr r)))
      (signal 'passepartout-bridge-error '("Trailing text in a frame")))
    (unless (and (consp value) (keywordp (car value)))
      (signal 'passepartout-bridge-error '("A frame that is not a plist")))
    value))

(defun passepartout-bridge--frame (message)
  "Return MESSAGE framed for the wire, as a unibyte string."
  (let* ((payload (encode-coding-string (passepartout-bridge--print message)
                                        'utf-8-unix t))
         (n (length payload)))
    (when (> n #xFFFFFF)
      (signal 'passepartout-bridge-error
              (list (format "A message of %d bytes is too large for a frame" n))))
    (concat (encode-coding-string (format "%06X" n) 'us-ascii) payload)))

;;;; The connection

(defmacro passepartout--saying-errors (&rest body)
  "Run BODY, a command's; say its bridge error as one plain sentence.
Called interactively, a `passepartout-bridge-error' becomes a
`user-error' (Emacs would print the error's text in quotes after
\"Passepartout bridge:\"); called from Lisp, it is raised as it was."
  (declare (indent 0) (debug t))
  `(condition-case err
       (progn ,@body)
     (passepartout-bridge-error
      (if (called-interactively-p 'any)
          (user-error "Passepartout: %s" (cadr err))
        (signal (car err) (cdr err))))))

(defun passepartout-bridge-connected-p ()
  "Non-nil when the bridge is connected and authenticated."
  (and passepartout-bridge--authenticated
       (process-live-p passepartout-bridge--process)))

(defun passepartout-bridge--send (message)
  "Send MESSAGE (a plist) to the daemon."
  (unless (process-live-p passepartout-bridge--process)
    (signal 'passepartout-bridge-error '("Not connected to the daemon")))
  (process-send-string passepartout-bridge--process
                       (passepartout-bridge--frame message)))

(defun passepartout-bridge--filter (proc output)
  "Collect OUTPUT from PROC and handle every complete frame in it."
  (let ((buf (process-buffer proc)))
    (when (buffer-live-p buf)
      (with-current-buffer buf
        (goto-char (point-max))
        (insert output)
        (passepartout-bridge--drain proc)))))

(defun passepartout-bridge--drain (proc)
  "Handle the complete frames at the start of the current buffer.
The buffer, PROC's, is unibyte: lengths count bytes, and a frame may
arrive in pieces or several in one read.  Handling stops when PROC
dies or its buffer is killed (a frame's handler may close it)."
  (let ((buf (current-buffer))
        (more t))
    (while (and more (buffer-live-p buf) (or (null proc) (process-live-p proc)))
      (setq more nil)
      (with-current-buffer buf
        (when (>= (buffer-size) 6)
          (let ((header (buffer-substring-no-properties 1 7)))
            (if (not (string-match-p "\\`[0-9A-Fa-f]\\{6\\}\\'" header))
                (passepartout-bridge--abort
                 proc "the daemon sent a frame header that is not 6 hex digits")
              (let ((len (string-to-number header 16)))
                (cond
                 ((> len passepartout-bridge-max-frame)
                  (passepartout-bridge--abort
                   proc (format "the daemon sent a frame of %d bytes" len)))
                 ((>= (buffer-size) (+ 6 len))
                  (let ((payload (decode-coding-string
                                  (buffer-substring-no-properties 7 (+ 7 len))
                                  'utf-8-unix t)))
                    (delete-region 1 (+ 7 len))
                    (setq more t)
                    (condition-case err
                        (passepartout-bridge--dispatch
                         (passepartout-bridge--read payload))
                      (passepartout-bridge-error
                       (passepartout-bridge--abort proc (cadr err)))
                      (error
                       (message "Passepartout: handling a frame failed: %s"
                                (error-message-string err)))))))))))))))

(defun passepartout-bridge--abort (proc why)
  "Close PROC for the reason WHY (a frame we cannot take, no token).
WHY is said once: by the connection being made, when it is, else in
the echo area."
  (unless (and (eq proc passepartout-bridge--process)
               (not passepartout-bridge--authenticated))
    (message "Passepartout: closing the bridge: %s" why))
  (setq passepartout-bridge--refusal why)
  (when proc
    (delete-process proc)))

(defun passepartout-bridge--closed-why ()
  "Why the connection closed, as one sentence."
  (or passepartout-bridge--refusal
      (format "The bridge connection closed%s"
              (if passepartout-bridge--last-log
                  (concat ": " passepartout-bridge--last-log)
                ""))))

(defun passepartout-bridge--sentinel (proc _event)
  "Clean up after PROC closed: every waiting request fails."
  (unless (process-live-p proc)
    (when (eq proc passepartout-bridge--process)
      (setq passepartout-bridge--authenticated nil
            passepartout-bridge--process nil)
      (let ((why (passepartout-bridge--closed-why))
            (waiting nil))
        (maphash (lambda (id entry) (push (cons id entry) waiting))
                 passepartout-bridge--requests)
        (clrhash passepartout-bridge--requests)
        (dolist (w waiting)
          (passepartout-bridge--deliver
           (cdr w) :on-response (list :STATUS :ERROR :TEXT why)))))
    (when (buffer-live-p (process-buffer proc))
      (kill-buffer (process-buffer proc)))))

(defun passepartout-bridge--deliver (entry hook arg)
  "Call ENTRY's HOOK with ARG, reporting (not raising) its errors."
  (let ((fn (plist-get entry hook)))
    (when fn
      (condition-case err
          (funcall fn arg)
        (error (message "Passepartout: %s" (error-message-string err)))))))

(defun passepartout-bridge--dispatch (msg)
  "Handle MSG, one plist from the daemon."
  (let* ((type (plist-get msg :TYPE))
         (payload (plist-get msg :PAYLOAD))
         (id (plist-get (plist-get msg :META) :REQUEST-ID))
         (entry (and id (gethash id passepartout-bridge--requests))))
    (pcase type
      (:EVENT
       (when (eq (plist-get payload :ACTION) :HANDSHAKE)
         (unless (passepartout-bridge--daemon-proven-p
                  passepartout-bridge--process payload)
           (signal 'passepartout-bridge-error
                   (list (format "The program at %s:%s did not prove it is the daemon (another program may hold that port), so the token was not sent"
                                 passepartout-bridge-host passepartout-bridge-port))))
         (setq passepartout-bridge--server-version (plist-get payload :VERSION))
         (passepartout-bridge--send
          (list :TYPE :EVENT
                :PAYLOAD (list :ACTION :HANDSHAKE
                               :TOKEN (passepartout-bridge--read-token)
                               :CAPABILITIES '(:STREAM :CANCEL))))
         (setq passepartout-bridge--token-sent t)))
      (:STATUS
       (when (and (eq (plist-get payload :ACTION) :HANDSHAKE)
                  (eq (plist-get payload :STATUS) :OK)
                  ;; Not before the daemon proved itself and got the token.
                  passepartout-bridge--token-sent)
         (setq passepartout-bridge--authenticated t
               passepartout-bridge--session (plist-get payload :SESSION-ID))))
      (:STREAM-CHUNK
       (when entry
         (passepartout-bridge--deliver entry :on-chunk (plist-get payload :TEXT))))
      (:RESPONSE
       (when entry
         (remhash id passepartout-bridge--requests)
         (passepartout-bridge--deliver entry :on-response payload)))
      (:LOG
       (setq passepartout-bridge--last-log (plist-get payload :TEXT))
       (message "Passepartout: %s" passepartout-bridge--last-log)))))

(defun passepartout-bridge--wait (pred what)
  "Wait until PRED is non-nil; WHAT names the wait in the timeout error."
  (let ((deadline (+ (float-time) passepartout-bridge-timeout)))
    (while (not (funcall pred))
      (unless (process-live-p passepartout-bridge--process)
        (signal 'passepartout-bridge-error
                (list (passepartout-bridge--closed-why))))
      (when (> (float-time) deadline)
        (signal 'passepartout-bridge-error
                (list (format "No %s from the daemon within %s seconds"
                              what passepartout-bridge-timeout))))
      (accept-process-output passepartout-bridge--process 0.05))))

;;;###autoload
(defun passepartout-bridge-connect ()
  "Connect to the daemon and authenticate with its token."
  (interactive)
  (passepartout--saying-errors
    (passepartout-bridge-disconnect)
    (setq passepartout-bridge--last-log nil
          passepartout-bridge--refusal nil
          passepartout-bridge--token-sent nil)
    (let ((buf (generate-new-buffer " *passepartout-bridge*")))
      (with-current-buffer buf (set-buffer-multibyte nil))
      (condition-case err
          (setq passepartout-bridge--process
                (make-network-process
                 :name "passepartout-bridge" :buffer buf
                 :host passepartout-bridge-host :service passepartout-bridge-port
                 :coding 'binary :noquery t
                 :filter #'passepartout-bridge--filter
                 :sentinel #'passepartout-bridge--sentinel))
        (file-error
         (kill-buffer buf)
         ;; ERR's data is ("make client process failed" WHY :name … the
         ;; whole process plist): only WHY says anything to the user.
         (signal 'passepartout-bridge-error
                 (list (format "Cannot reach the daemon at %s:%s: %s (is `pp-lsp serve --tcp %s:%s' running?)"
                               passepartout-bridge-host passepartout-bridge-port
                               (let ((why (nth 2 err)))
                                 (if (stringp why) why (error-message-string err)))
                               passepartout-bridge-host passepartout-bridge-port))))))
    (passepartout-bridge--wait (lambda () passepartout-bridge--authenticated) "handshake")
    (when (called-interactively-p 'interactive)
      (message "Passepartout: connected to the daemon %s" passepartout-bridge--server-version))
    passepartout-bridge--process))

(defun passepartout-bridge-disconnect ()
  "Close the connection to the daemon."
  (interactive)
  (when (process-live-p passepartout-bridge--process)
    (delete-process passepartout-bridge--process))
  (setq passepartout-bridge--process nil
        passepartout-bridge--authenticated nil
        passepartout-bridge--token-sent nil))

(defun passepartout-bridge--ensure ()
  "Connect unless connected."
  (unless (passepartout-bridge-connected-p)
    (passepartout-bridge-connect)))

(cl-defun passepartout-bridge-request (action payload &key on-chunk on-response)
  "Send request ACTION (a keyword) with PAYLOAD (a plist); return its id.
ON-CHUNK is called with each streamed text, ON-RESPONSE with the
payload of the answer (also when the connection closes first)."
  (passepartout-bridge--ensure)
  (let ((id (format "el-%d" (cl-incf passepartout-bridge--next-id))))
    (puthash id (list :action action :on-chunk on-chunk :on-response on-response)
             passepartout-bridge--requests)
    (condition-case err
        (passepartout-bridge--send
         (list :TYPE :REQUEST
               :META (list :SOURCE :EMACS :SESSION-ID passepartout-bridge--session
                           :REQUEST-ID id)
               :PAYLOAD (cons :ACTION (cons action payload))))
      (error (remhash id passepartout-bridge--requests)
             (signal (car err) (cdr err))))
    id))

(defun passepartout-bridge-request-sync (action payload)
  "Send request ACTION with PAYLOAD and return the answer's payload."
  (let* ((answer nil)
         (id (passepartout-bridge-request
              action payload :on-response (lambda (p) (setq answer (or p '(:STATUS :ERROR)))))))
    (condition-case err
        (passepartout-bridge--wait (lambda () answer) (format "answer to %s" action))
      (quit (remhash id passepartout-bridge--requests)
            (signal (car err) (cdr err))))
    answer))

(defun passepartout-bridge--ok (answer)
  "Return ANSWER if its status is :OK; else signal its error text."
  (unless (eq (plist-get answer :STATUS) :OK)
    (signal 'passepartout-bridge-error
            (list (or (plist-get answer :TEXT) "The daemon answered with an error"))))
  answer)

(defun passepartout-bridge--position ()
  "Return (:FILE f :LINE n) for point, or nil outside a file."
  (when buffer-file-name
    (list :FILE (expand-file-name buffer-file-name)
          :LINE (line-number-at-pos nil t))))

;;;; Asking

(defvar-local passepartout-answer--request nil
  "The request id whose answer this buffer shows.")

(defvar passepartout-answer-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-k") #'passepartout-cancel)
    map)
  "Keymap of `passepartout-answer-mode'.")

(define-derived-mode passepartout-answer-mode special-mode "Passepartout"
  "A Passepartout answer, streamed as it is written.
\\{passepartout-answer-mode-map}")

(defconst passepartout--bidi-controls "[\u202a-\u202e\u2066-\u2069]"
  "The bidirectional embedding, override and isolate controls.")

(defun passepartout--show-bidi (start end)
  "Show each bidirectional control between START and END as <U+XXXX>.
Emacs obeys them, so a model's answer holding U+202E would show text in
an order other than it was written (\"live\" for \"evil\"); a `display'
string covering the control makes it one neutral character to Emacs's
reordering.  The text is unchanged."
  (save-excursion
    (save-match-data
      (goto-char start)
      (while (re-search-forward passepartout--bidi-controls end t)
        (put-text-property (match-beginning 0) (match-end 0)
                           'display (format "<U+%04X>" (char-before)))))))

(defun passepartout--append (buffer text)
  "Insert TEXT at the end of BUFFER, following it in windows at the end.
Its bidirectional controls are shown, not obeyed (`passepartout--show-bidi')."
  (when (buffer-live-p buffer)
    (with-current-buffer buffer
      (let ((inhibit-read-only t)
            (end (point-max))
            (windows (get-buffer-window-list buffer nil t)))
        (save-excursion
          (goto-char end)
          (insert text)
          (passepartout--show-bidi end (point)))
        (dolist (w windows)
          (when (= (window-point w) end)
            (set-window-point w (point-max))))))))

(defun passepartout--figures (answer)
  "The model, its tokens and the conversation of ANSWER, as \"; …\" or \"\"."
  (let ((model (plist-get answer :MODEL))
        (usage (plist-get answer :USAGE))
        (chat (plist-get answer :CHAT)))
    (concat
     (if (stringp model)
         (format "; %s: %s tokens in, %s out%s" model
                 (plist-get usage :PROMPT) (plist-get usage :COMPLETION)
                 (if (plist-get usage :ESTIMATED) " (estimated)" ""))
       "")
     (if (stringp chat) (format "; chat: %s" (abbreviate-file-name chat)) ""))))

;;;###autoload
(defun passepartout-ask (question)
  "Ask Passepartout QUESTION about point; the answer streams into a buffer.
Asked from a chat file, it continues that conversation (the daemon reads
the place); any other question starts one, whose file the answer names.
Return the answer's buffer."
  (interactive (list (read-string "Ask Passepartout: ")))
  (passepartout--saying-errors
    (when (string-empty-p (string-trim question))
      (user-error "Nothing to ask"))
    (let* ((position (passepartout-bridge--position))
           (buffer (get-buffer-create "*passepartout-answer*")))
      (with-current-buffer buffer
        (passepartout-answer-mode)
        (let ((inhibit-read-only t))
          (erase-buffer)
          (insert (propertize (concat "Q: " question) 'face 'bold) "\n\n")
          (passepartout--show-bidi (point-min) (point-max))))
      (let ((id (passepartout-bridge-request
                 :ASK (append (list :TEXT question) position)
                 :on-chunk (lambda (text) (passepartout--append buffer text))
                 :on-response
                 (lambda (answer)
                   (passepartout--append buffer (passepartout--ending answer))))))
        (setq passepartout-bridge--last-ask id)
        (with-current-buffer buffer (setq passepartout-answer--request id)))
      (when (called-interactively-p 'interactive)
        (display-buffer buffer))
      buffer)))

(defun passepartout--plans-button (label)
  "Return LABEL as a button that lists the Flight Plans."
  (with-temp-buffer
    (insert-text-button label
                        'action (lambda (_) (pop-to-buffer (passepartout-plans)))
                        'follow-link t
                        'help-echo "RET: list the Flight Plans (a approves, r rejects)")
    (buffer-string)))

(defun passepartout--ending (answer)
  "Return the lines that end an answer, from the daemon's ANSWER.
A filed plan is said, with a button to the plans; what ran or was
refused, in words."
  (let ((tool (plist-get answer :TOOL))
        (summary (plist-get answer :SUMMARY)))
    (pcase (plist-get answer :STATUS)
      (:OK
       (pcase (plist-get answer :OUTCOME)
         (:FILED
          (concat "\n\n"
                  (passepartout--plans-button
                   (format "Plan filed (%s) — RET to list the Flight Plans"
                           (plist-get answer :PLAN-ID)))
                  "\n"))
         (:RAN (format "\n\nRan %s%s\n" tool (if (stringp summary) (concat ": " summary) "")))
         ((or :DENIED :FAILED :DROPPED)
          (format "\n\n%s%s\n"
                  (capitalize (substring (symbol-name (plist-get answer :OUTCOME)) 1))
                  (if (stringp summary) (concat ": " summary) "")))
         (_ (concat "\n\n[done" (passepartout--figures answer) "]\n"))))
      (:CANCELLED "\n\n[cancelled]\n")
      (_ (format "\n\n[error: %s]\n" (plist-get answer :TEXT))))))

;;;###autoload
(defun passepartout-cancel (&optional request-id)
  "Cancel REQUEST-ID: by default this buffer's answer, else the last ask."
  (interactive)
  (passepartout--saying-errors
    (let ((target (or request-id passepartout-answer--request passepartout-bridge--last-ask)))
      (unless target
        (user-error "No answer to cancel"))
      (let ((answer (passepartout-bridge--ok
                     (passepartout-bridge-request-sync :CANCEL (list :TARGET target)))))
        (when (called-interactively-p 'interactive)
          (message (if (plist-get answer :CANCELLED)
                       "Passepartout: cancelled"
                     "Passepartout: nothing to cancel (already finished)")))
        answer))))

;;;; Context

;;;###autoload
(defun passepartout-context ()
  "Show the context the model would see from point, in a buffer.
Return the buffer."
  (interactive)
  (passepartout--saying-errors
    (let ((position (or (passepartout-bridge--position)
                        (user-error "This buffer visits no file"))))
      (let* ((answer (passepartout-bridge--ok
                      (passepartout-bridge-request-sync :CONTEXT position)))
             (buffer (get-buffer-create "*passepartout-context*")))
        (with-current-buffer buffer
          (let ((inhibit-read-only t))
            (erase-buffer)
            (insert (or (plist-get answer :TEXT) ""))
            (goto-char (point-min)))
          (when (require 'org nil t)
            (delay-mode-hooks (org-mode)))
          (let ((inhibit-read-only t))
            (with-silent-modifications
              (passepartout--show-bidi (point-min) (point-max))))
          (setq buffer-read-only t))
        (when (called-interactively-p 'interactive)
          (display-buffer buffer))
        buffer))))

;;;; Flight Plans

(defvar passepartout-plans-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map "a" #'passepartout-approve)
    (define-key map "A" #'passepartout-approve-always)
    (define-key map "r" #'passepartout-reject)
    (define-key map "u" #'passepartout-undo)
    map)
  "Keymap of `passepartout-plans-mode'.")

(define-derived-mode passepartout-plans-mode tabulated-list-mode "Flight Plans"
  "The Flight Plans waiting for a decision.
\\{passepartout-plans-mode-map}"
  (setq tabulated-list-format [("State" 10 t) ("Tool" 10 t) ("Title" 50 t) ("Id" 36 t)])
  (setq tabulated-list-padding 1)
  (add-hook 'tabulated-list-revert-hook #'passepartout--plans-refresh nil t)
  (tabulated-list-init-header))

(defun passepartout--plan-field (plan key)
  "Return PLAN's KEY as a string for display."
  (let ((v (plist-get plan key)))
    (cond ((null v) "")
          ((stringp v) v)
          ((keywordp v) (substring (symbol-name v) 1))
          (t (format "%s" v)))))

(defun passepartout--plans-refresh ()
  "Fetch the Flight Plans and fill the current plans buffer."
  (let ((answer (passepartout-bridge--ok (passepartout-bridge-request-sync :PLANS nil))))
    (setq passepartout-bridge--plans (plist-get answer :PLANS))
    (setq tabulated-list-entries
          (mapcar (lambda (plan)
                    (list (plist-get plan :ID)
                          (vector (passepartout--plan-field plan :STATE)
                                  (passepartout--plan-field plan :TOOL)
                                  (passepartout--plan-field plan :TITLE)
                                  (passepartout--plan-field plan :ID))))
                  passepartout-bridge--plans))))

;;;###autoload
(defun passepartout-plans ()
  "List the Flight Plans.  Return the buffer."
  (interactive)
  (passepartout--saying-errors
    (let ((buffer (get-buffer-create "*passepartout-plans*")))
      (with-current-buffer buffer
        (passepartout-plans-mode)
        (passepartout--plans-refresh)
        (tabulated-list-print))
      (when (called-interactively-p 'interactive)
        (pop-to-buffer buffer)
        ;; Emacs 28's tabulated list shows no line at all for none.
        (unless passepartout-bridge--plans
          (message "Passepartout: no Flight Plans")))
      buffer)))

(defun passepartout--read-plan-id (verb)
  "Return the plan id at point in a plans buffer, or ask for one to VERB."
  (or (and (derived-mode-p 'passepartout-plans-mode) (tabulated-list-get-id))
      (completing-read (format "%s Flight Plan: " verb)
                       (delq nil (mapcar (lambda (p) (plist-get p :ID))
                                         passepartout-bridge--plans)))))

(defun passepartout--plan-hash (plan-id)
  "Return the :HASH of PLAN-ID in the plans last listed, or nil.
It is the hash of the action the list showed: sent with an approval,
the daemon runs the plan only if it still holds that action."
  (let ((plan (cl-find-if (lambda (p) (equal (plist-get p :ID) plan-id))
                        passepartout-bridge--plans)))
    (and (stringp (plist-get plan :HASH)) (plist-get plan :HASH))))

(defun passepartout--plan-revision (plan-id)
  "Return the :REVISION of PLAN-ID in the plans last listed, or nil.
It names, for a plan with a diff, the filing that diff was made for:
sent with an approval, the daemon runs the plan only if it is still that
filing (one filed afresh because its file changed is not)."
  (let ((plan (cl-find-if (lambda (p) (equal (plist-get p :ID) plan-id))
                        passepartout-bridge--plans)))
    (and (stringp (plist-get plan :REVISION)) (plist-get plan :REVISION))))

(defun passepartout--decide (action plan-id &optional always)
  "Send ACTION (:APPROVE or :REJECT) for PLAN-ID; return the answer.
With ALWAYS, approve and allow similar actions from now on.  An
approval carries the :HASH (and :REVISION) the plans list showed for
PLAN-ID: a plan changed since (filed afresh after an edit, or because the
file it changes changed) is refused by the daemon."
  (when (and (eq action :APPROVE)
             (not (passepartout--plan-hash plan-id))
             (eq (plist-get (cl-find-if (lambda (p) (equal (plist-get p :ID) plan-id)) passepartout-bridge--plans)
                            :EDITED)
                 t))
    (user-error "Not done: the plan holds no action to approve (its block is not one): reject it, or fix it in flightplans.org"))
  (let* ((hash (and (eq action :APPROVE) (passepartout--plan-hash plan-id)))
         (revision (and hash (passepartout--plan-revision plan-id)))
         (answer (passepartout-bridge--ok
                  (passepartout-bridge-request-sync
                   action (append (list :ID plan-id)
                                  (and hash (list :HASH hash))
                                  (and revision (list :REVISION revision))
                                  (and always (list :ALWAYS t))))))
         (plans (get-buffer "*passepartout-plans*")))
    (when (buffer-live-p plans)
      (with-current-buffer plans
        (passepartout--plans-refresh)
        (tabulated-list-print t)))
    (passepartout--revert-plans-files)
    answer))

(defun passepartout--revert-plans-files ()
  "Revert the buffers of flightplans.org the daemon changed on disk.
Only those with no unsaved change: an edited one is left alone, and
Emacs says it changed on disk when it is next edited."
  (dolist (buffer (buffer-list))
    (with-current-buffer buffer
      (when (and buffer-file-name
                 (equal (file-name-nondirectory buffer-file-name) "flightplans.org")
                 (not (buffer-modified-p))
                 (file-exists-p buffer-file-name)
                 (not (verify-visited-file-modtime buffer)))
        (revert-buffer t t t)))))

;;;###autoload
(defun passepartout-approve (plan-id)
  "Approve the Flight Plan PLAN-ID.  Return the daemon's answer."
  (interactive (list (passepartout--read-plan-id "Approve")))
  (passepartout--saying-errors
    (let ((answer (passepartout--decide :APPROVE plan-id)))
      (when (called-interactively-p 'interactive)
        (message "Passepartout: approved %s" plan-id))
      answer)))

;;;###autoload
(defun passepartout-approve-always (plan-id)
  "Approve the Flight Plan PLAN-ID and allow similar actions from now on.
The narrowest permission rule that would have allowed it goes into your
configuration file.  Return the daemon's answer."
  (interactive (list (passepartout--read-plan-id "Approve and allow similar")))
  (passepartout--saying-errors
    (let ((answer (passepartout--decide :APPROVE plan-id t)))
      (when (called-interactively-p 'interactive)
        (message "Passepartout: approved %s; from now on %s is allowed"
                 plan-id (plist-get answer :RULE)))
      answer)))

;;;###autoload
(defun passepartout-undo (&optional change-id)
  "Undo the latest change an action made, or the one with CHANGE-ID.
Each file gets back what it held before, when it still holds what the
change wrote; undoing an undo redoes.  Return the daemon's answer."
  (interactive)
  (passepartout--saying-errors
    (let ((answer (passepartout-bridge--ok
                   (passepartout-bridge-request-sync
                    :UNDO (and change-id (list :ID change-id))))))
      (when (called-interactively-p 'interactive)
        (message "Passepartout: %s" (plist-get answer :SUMMARY)))
      answer)))

;;;###autoload
(defun passepartout-reject (plan-id)
  "Reject the Flight Plan PLAN-ID.  Return the daemon's answer."
  (interactive (list (passepartout--read-plan-id "Reject")))
  (passepartout--saying-errors
    (let ((answer (passepartout--decide :REJECT plan-id)))
      (when (called-interactively-p 'interactive)
        (message "Passepartout: rejected %s" plan-id))
      answer)))

;;;; Status

;;;###autoload
(defun passepartout-status ()
  "Show the daemon's status.  Return its answer."
  (interactive)
  (passepartout--saying-errors
    (let ((answer (passepartout-bridge--ok (passepartout-bridge-request-sync :STATUS nil))))
      (when (called-interactively-p 'interactive)
        (message "%s" (passepartout-status-words answer)))
      answer)))

(defun passepartout--count (n one)
  "Return N things called ONE in words: no ONEs, 1 ONE, or N ONEs."
  (cond ((not (numberp n)) (format "? %ss" one))
        ((= n 0) (format "no %ss" one))
        ((= n 1) (format "1 %s" one))
        (t (format "%d %ss" n one))))

(defun passepartout--duration (seconds)
  "Return SECONDS in words, to the largest whole unit."
  (cond ((not (numberp seconds)) "?")
        ((< seconds 1) "less than a second")
        ((< seconds 60) (passepartout--count seconds "second"))
        ((< seconds 3600) (passepartout--count (/ seconds 60) "minute"))
        ((< seconds 86400) (passepartout--count (/ seconds 3600) "hour"))
        (t (passepartout--count (/ seconds 86400) "day"))))

(defun passepartout-status-words (answer)
  "Return the daemon's :STATUS ANSWER as a sentence."
  (let ((memex (plist-get answer :MEMEX))
        ;; :IN-FLIGHT counts the :STATUS request itself.
        (running (and (numberp (plist-get answer :IN-FLIGHT))
                      (max 0 (1- (plist-get answer :IN-FLIGHT))))))
    (concat
     (format "Passepartout %s, up %s: %s, %s"
             (plist-get answer :VERSION)
             (passepartout--duration (plist-get answer :UPTIME-SECONDS))
             (passepartout--count (plist-get answer :CONNECTIONS) "connection")
             (if (and (numberp running) (> running 0))
                 (format "%s running" (passepartout--count running "request"))
               "nothing running"))
     (cond
      (memex
       (let ((pending (plist-get memex :PLANS-PENDING)))
         (format "; the memex: %s, %s, %s"
                 (passepartout--count (plist-get memex :FILES) "file")
                 (passepartout--count (plist-get memex :HEADLINES) "headline")
                 (if (and (numberp pending) (> pending 0))
                     (format "%s waiting for you"
                             (passepartout--count pending "Flight Plan"))
                   "no Flight Plan waiting"))))
      ((plist-get answer :MEMEX-ERROR)
       (format "; the memex: %s" (plist-get answer :MEMEX-ERROR)))
      (t ""))
     ".")))

;;;###autoload
(defun passepartout-ping ()
  "Measure a round trip to the daemon.  Return it in milliseconds."
  (interactive)
  (passepartout--saying-errors
    (let* ((start (float-time))
           (_ (passepartout-bridge--ok (passepartout-bridge-request-sync :PING nil)))
           (ms (* 1000 (- (float-time) start))))
      (when (called-interactively-p 'interactive)
        (message "Passepartout: pong in %.1f ms" ms))
      ms)))

(provide 'passepartout-bridge)

;;; passepartout-bridge.el ends here
