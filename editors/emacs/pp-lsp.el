;;; pp-lsp.el --- Passepartout for Org, through eglot  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (eglot "1.9"))
;; Keywords: outlines, tools, convenience

;;; Commentary:

;; pp-lsp serves your Org files as a language server: the outline, links
;; followed across the memex (`xref-find-definitions', M-.), backlinks
;; (`xref-find-references', M-?), completion of [[id: links by title,
;; of tags and TODO keywords, diagnostics (duplicate IDs, broken links,
;; malformed drawers), folding, renaming an ID everywhere
;; (`eglot-rename'), code actions (an :ID: for the headline at point;
;; Approve and Reject on a Flight Plan).  This file registers it with
;; eglot for `org-mode' and adds the commands eglot has no name for:
;;
;;   `pp-lsp-context'   what the model would see from point, in a buffer
;;   `pp-lsp-ask'       a question to the model, the answer streamed into
;;                      an Org buffer (`pp-lsp-answer-mode': q hides it);
;;                      one that outlasts `pp-lsp-ask-timeout' is stopped on
;;                      the server too; if pp-lsp stops meanwhile the buffer
;;                      says so, and asking again from a note starts it again;
;;                      asked before eglot runs, it starts pp-lsp for the
;;                      note's memex (asking first outside
;;                      `pp-lsp-memex-roots') and the question goes once
;;                      it connects: Emacs never waits for it
;;   `pp-lsp-follow-up' (C-c C-c there) a question from the same place
;;   `pp-lsp-cancel'    (C-c C-k there) stop the question being answered
;;   `pp-lsp-approve'   approve the Flight Plan at point (runs it)
;;   `pp-lsp-reject'    reject the Flight Plan at point
;;   `pp-lsp-approve-always' approve it and allow similar actions from now on
;;   `pp-lsp-undo'      undo the latest change an action made (again: redo it)
;;                      (these four return at once and say how it ended
;;                      when the server answers: a plan may run minutes)
;;   `pp-lsp-plans'     list the Flight Plans; keys act on the plan of the line:
;;   `pp-lsp-plans-open'          (RET) visit it in flightplans.org
;;   `pp-lsp-plans-diff'          (d) its verdict, gate trace and action
;;   `pp-lsp-plans-approve'       (a) approve it: it runs
;;   `pp-lsp-plans-approve-always' (A) approve it, and allow similar actions
;;   `pp-lsp-plans-reject'        (r) reject it
;;   `pp-lsp-plans-undo'          (u) undo what it changed
;;   `pp-lsp-plans-refresh'       (g) list again
;;   `pp-lsp-chats'     the conversations, the latest first: pick one to visit
;;   `pp-lsp-skills'    list the skills, in the order they apply, and why one is not used
;;   `pp-lsp-run-skill' run a skill now
;;   `pp-lsp-add-id'    give the headline at point an :ID:
;;   `pp-lsp-insert-answer' the last answer, below the line of point
;;   `pp-lsp-backlinks' the backlinks and unlinked references of the node
;;                      at point, in a side window that follows point
;;   `pp-lsp-daily'     today's daily note (with a prefix, another day's)
;;   `pp-lsp-create-node' make the file an unresolved [[file:…]] link names
;;   `pp-lsp-rename-file' rename the visited file, fixing the file: links to it
;;   `pp-lsp-backlinks-visit'   (RET in the backlinks window) visit the entry
;;   `pp-lsp-backlinks-refresh' (g in the backlinks window) ask again
;;   `pp-lsp-backlinks-at-mouse' (a click on a code lens) its backlinks
;;
;; imenu stays Org's own: eglot stays out of it in Org buffers (set
;; `pp-lsp-org-imenu' to nil for the server's symbols instead).
;;
;; Headlines and files with an :ID: show "N backlinks" above them (a code
;; lens; click it for the backlinks window), unless
;; `pp-lsp-code-lenses' is nil.
;;
;; Set-up:
;;
;;   (require 'pp-lsp)
;;   (setq pp-lsp-memex-roots '("~/org"))
;;   (add-hook 'org-mode-hook #'eglot-ensure)
;;
;; `pp-lsp-memex-roots' makes every Org file under those folders one
;; eglot project, served by one pp-lsp whose memex is all of them;
;; without it, eglot's project (a version-controlled folder, else the
;; file's folder) is the memex.
;;
;; Settings go in `pp-lsp-initialization-options' (read when the server
;; starts), or per project in `eglot-workspace-configuration' under
;; :passepartout (read again whenever it changes).  A project's settings
;; may come from a .dir-locals.el anyone could have written, so pp-lsp
;; takes :roots :dataDir :configFile :providers and the embedder only from
;; `pp-lsp-initialization-options', and a project's :privacyTags only add
;; to the tags in force; the keys it ignores are named in the echo area
;; (and *Messages*) once the memex is indexed.  The keys are those of pp-lsp's settings schema,
;; e.g.
;;
;;   (setq pp-lsp-initialization-options
;;         '(:privacyTags ["@personal" "private"] :budget 4000))
;;
;; It works with the eglot 1.9 of Debian's elpa-eglot on Emacs 28.2 and
;; with the eglot built into later Emacsen.  Nothing here evaluates what
;; the server sends.

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'filenotify)
(require 'jsonrpc)
(require 'org)
(require 'seq)

(defgroup pp-lsp nil
  "Passepartout for Org, through eglot."
  :group 'tools
  :prefix "pp-lsp-")

(defcustom pp-lsp-program "pp-lsp"
  "The pp-lsp executable."
  :type 'string)

(defcustom pp-lsp-program-args '("--stdio")
  "Arguments of `pp-lsp-program'.
Add \"--tcp\" \"127.0.0.1:7655\" to serve the framed-TCP bridge (for
passepartout-bridge.el) from the same process and memex."
  :type '(repeat string))

(defcustom pp-lsp-initialization-options nil
  "A plist sent as the server's initializationOptions.
Keys: :roots :privacyTags :budget :semanticThreshold :dataDir
:configFile :providers :embeddingProvider :embeddingModel
:embeddingBaseUrl :assistant :heartbeatInterval :rescanInterval
:maxSymbols :noteTemplate :applyEditTimeout.
Vectors for lists, e.g. (:privacyTags [\"private\"])."
  :type '(plist :key-type symbol :value-type sexp))

(defcustom pp-lsp-memex-roots nil
  "The folders of your memex, or nil to let eglot's project decide.
When set, an Org file under one of them belongs to the eglot project
of that folder, and the server is told all of them as its roots."
  :type '(repeat directory))

(defcustom pp-lsp-code-lenses t
  "Whether headlines and files with an :ID: show \"N backlinks\" above them."
  :type 'boolean)

(defcustom pp-lsp-backlinks-window-width 0.33
  "The width of the backlinks side window (a fraction of the frame)."
  :type 'number)

(defcustom pp-lsp-ask-timeout 600
  "Seconds a question may take before Emacs stops waiting for it.
The server is then told to stop it, and so its call to the model."
  :type 'integer)

(defclass pp-lsp-server (eglot-lsp-server) ()
  "A pp-lsp language server.")

(defun pp-lsp--initialization-options ()
  "The initializationOptions: `pp-lsp-initialization-options', with the roots."
  (let ((opts (copy-sequence pp-lsp-initialization-options)))
    (when (and pp-lsp-memex-roots (not (plist-member opts :roots)))
      (setq opts (plist-put opts :roots
                            (vconcat (mapcar #'expand-file-name pp-lsp-memex-roots)))))
    (or opts eglot--{})))

(defun pp-lsp--contact (_interactive)
  "The eglot contact of pp-lsp."
  `(pp-lsp-server . (,pp-lsp-program ,@pp-lsp-program-args
                                      :initializationOptions
                                      ,(pp-lsp--initialization-options))))

(add-to-list 'eglot-server-programs '(org-mode . pp-lsp--contact))

(defun pp-lsp--project (dir)
  "The memex root holding DIR as a project, when eglot asks."
  (when (bound-and-true-p eglot-lsp-context)
    (when-let ((root (seq-find (lambda (r) (file-in-directory-p dir r))
                               pp-lsp-memex-roots)))
      (cons 'transient (file-name-as-directory (expand-file-name root))))))

(add-hook 'project-find-functions #'pp-lsp--project)

(cl-defmethod eglot-client-capabilities ((_server pp-lsp-server))
  "Tell the server this client displays work done progress (indexing, answers)."
  (let ((caps (cl-call-next-method)))
    (plist-put caps :window (list :workDoneProgress t))))

(defvar pp-lsp--plans-running)

(cl-defmethod eglot-handle-request :around
  ((_server pp-lsp-server) (_method (eql workspace/applyEdit)) &rest _)
  "Apply, without asking, an edit made while a key's plan command is running.
Approving, rejecting or undoing from the plans list is the change you
asked for (the plan's new state, what an undo takes back): as when
Emacs waited for the answer, it is no prompt."
  (let ((eglot-confirm-server-initiated-edits
         (and (zerop (hash-table-count pp-lsp--plans-running))
              eglot-confirm-server-initiated-edits)))
    (cl-call-next-method)))

(cl-defmethod eglot-handle-request
  ((_server pp-lsp-server) (_method (eql window/workDoneProgress/create)) &key _token)
  "Accept the server's progress tokens."
  nil)

;;; The memex's files, watched: pp-lsp need not read the disk again and again.

(defcustom pp-lsp-watch-max-folders 2000
  "The most folders of a memex pp-lsp.el watches for changed files.
A memex of more folders is not watched: pp-lsp reads the disk again
every `rescanInterval' seconds instead (10,000 files cost about 0.1 s
of CPU each time).  Each folder watched holds one inotify watch, of
the system's `fs.inotify.max_user_watches'."
  :type 'integer)

(cl-defmethod eglot-register-capability
  ((server pp-lsp-server) (method (eql workspace/didChangeWatchedFiles)) id &rest _)
  "Watch the memex's folders for SERVER, as its registration ID asks (METHOD).
eglot 1.9's own watcher drops every rename (its handler quotes the
event it makes of one), and most programs save a file by renaming a
new one over it; and it never watches a folder made later.  This one
reports a rename as the file gone and the file made, watches new
folders, and tells pp-lsp of a folder made, moved or removed (it reads
the disk again then).  A memex it cannot watch whole (no file
notifications, more than `pp-lsp-watch-max-folders' folders) is
declined, and pp-lsp reads the disk again every few seconds instead."
  (eglot-unregister-capability server method id)
  (condition-case err
      (let ((dirs (pp-lsp--memex-folders server)))
        (when (> (length dirs) pp-lsp-watch-max-folders)
          (error "More than %d folders (pp-lsp-watch-max-folders)"
                 pp-lsp-watch-max-folders))
        (dolist (dir dirs) (pp-lsp--watch-folder server id dir))
        nil)
    (error
     (eglot-unregister-capability server method id)
     (jsonrpc-error :code -32603
                    :message (format "pp-lsp.el does not watch the memex: %s"
                                     (error-message-string err))))))

(defun pp-lsp--memex-roots-of (server)
  "The folders SERVER's memex is made of, as it was told them."
  (let ((roots (plist-get (plist-get (eglot--saved-initargs server) :initializationOptions) :roots)))
    (if (seq-empty-p roots)
        (list (expand-file-name (project-root (eglot--project server))))
      (mapcar #'expand-file-name roots))))

(defun pp-lsp--memex-folders (server &optional under)
  "The folders of SERVER's memex (or of UNDER only), hidden ones left out.
A symbolic link to a folder is followed when it stays inside a root,
as pp-lsp follows it; each real folder counts once."
  (let ((roots (pp-lsp--memex-roots-of server))
        (seen (make-hash-table :test #'equal))
        (dirs nil)
        (todo (if under (list under) (pp-lsp--memex-roots-of server))))
    (while todo
      (let* ((dir (file-name-as-directory (pop todo)))
             (real (file-truename dir)))
        (when (and (not (gethash real seen))
                   (file-directory-p dir)
                   (seq-some (lambda (r) (file-in-directory-p real (file-truename r))) roots))
          (puthash real t seen)
          (push dir dirs)
          (when (> (length dirs) pp-lsp-watch-max-folders)
            (setq todo nil))
          ;; A note is taken for a file unlooked-at: 10,000 of them
          ;; cost no time here (each looked at, 0.8 s).
          (dolist (path (ignore-errors (directory-files dir t "\\`[^.]" t)))
            (unless (string-suffix-p ".org" path t)
              (when (file-directory-p path)
                (push path todo)))))))
    (nreverse dirs)))

(defun pp-lsp--watch-folder (server id dir)
  "Watch DIR for SERVER's registration ID; the watch is kept under ID."
  (let ((watch (file-notify-add-watch
                dir '(change)
                (lambda (event)
                  (with-demoted-errors "pp-lsp: watching the memex: %S"
                    (pp-lsp--watched-event server id event))))))
    (push watch (gethash id (eglot--file-watches server)))
    (puthash (directory-file-name (expand-file-name dir)) watch
             (pp-lsp--watched-folders server))))

(defvar pp-lsp--watched-folders-of (make-hash-table :test #'eq :weakness 'key)
  "Servers to their folders watched (a hash table of name to watch).")

(defun pp-lsp--watched-folders (server)
  "The folders watched for SERVER, a hash table of name to watch."
  (or (gethash server pp-lsp--watched-folders-of)
      (puthash server (make-hash-table :test #'equal) pp-lsp--watched-folders-of)))

(defvar pp-lsp--watch-pending (make-hash-table :test #'eq :weakness 'key)
  "Servers to the changes not yet sent, newest first: (URI . TYPE).")

(defvar pp-lsp--watch-timer nil
  "The timer that sends the pending changes.")

(defun pp-lsp--watch-note (server path type)
  "Tell SERVER in a moment of PATH, with TYPE: 1 made, 2 changed, 3 gone.
Changes come together: a checkout's thousands are one notification."
  (push (cons (eglot--path-to-uri path) type) (gethash server pp-lsp--watch-pending))
  (unless (timerp pp-lsp--watch-timer)
    (setq pp-lsp--watch-timer (run-with-timer 0.1 nil #'pp-lsp--watch-send))))

(defun pp-lsp--watch-send ()
  "Notify each server of its pending news, in one message."
  (setq pp-lsp--watch-timer nil)
  (maphash (lambda (server changes)
             (when (and changes (jsonrpc-running-p server))
               (jsonrpc-notify server :workspace/didChangeWatchedFiles
                               (list :changes
                                     (vconcat (mapcar (lambda (c) (list :uri (car c) :type (cdr c)))
                                                      (reverse changes)))))))
           pp-lsp--watch-pending)
  (clrhash pp-lsp--watch-pending))

(defun pp-lsp--watched-event (server id event)
  "Tell SERVER, of registration ID, what the file notification EVENT changed."
  (pcase-let ((`(,_desc ,action ,file ,file1) event))
    (pcase action
      ('renamed
       (pp-lsp--watched-event server id (list nil 'deleted file))
       (pp-lsp--watched-event server id (list nil 'created file1)))
      ((or 'created 'changed 'deleted)
       (let* ((name (file-name-nondirectory file))
              (folders (pp-lsp--watched-folders server))
              (key (directory-file-name (expand-file-name file))))
         (cond
          ((string-prefix-p "." name))  ; hidden: not the memex's
          ((and (eq action 'created) (file-directory-p file))
           ;; A folder made, or moved in: watched, and read by pp-lsp.
           (dolist (dir (pp-lsp--memex-folders server file))
             (unless (gethash (directory-file-name (expand-file-name dir)) folders)
               (ignore-errors (pp-lsp--watch-folder server id dir))))
           (pp-lsp--watch-note server file 1))
          ((and (eq action 'deleted) (gethash key folders))
           ;; A folder gone, or moved out: pp-lsp reads the disk again.
           ;; Its watch stops by itself (removed here, Emacs 28 would
           ;; call a nil callback for the events still queued for it).
           (remhash key folders)
           (pp-lsp--watch-note server file 3))
          ((string-suffix-p ".org" name t)
           (pp-lsp--watch-note server file (pcase action ('created 1) ('changed 2) (_ 3))))))))))

(defvar pp-lsp--streams (make-hash-table :test #'equal)
  "Progress tokens of running questions, to the buffers their answers go to.")

(cl-defmethod eglot-handle-notification
  ((_server pp-lsp-server) (_method (eql $/progress)) &key token value)
  "Stream the VALUE of progress TOKEN: an answer into its buffer.
Indexing goes to the echo area."
  (let ((buffer (gethash token pp-lsp--streams))
        (kind (plist-get value :kind))
        (message (plist-get value :message)))
    (cond
     ((and buffer (buffer-live-p buffer))
      (when (and (equal kind "report") (stringp message))
        (pp-lsp--append buffer message)))
     ((equal kind "begin")
      (message "pp-lsp: %s…" (plist-get value :title)))
     ((equal kind "end")
      (when (stringp message) (message "pp-lsp: %s" message))))))

(cl-defmethod eglot-handle-notification
  ((_server pp-lsp-server) (_method (eql passepartout/reload)) &key uri)
  "Read the file at URI again: the server wrote it while its buffer was unmodified.
pp-lsp writes flightplans.org on disk (a plan filed, a plan's new
state) only when the buffer holds what the disk holds; a buffer
modified since is left alone."
  (when-let ((buffer (find-buffer-visiting (eglot--uri-to-path uri))))
    (with-current-buffer buffer
      (unless (buffer-modified-p)
        (revert-buffer t t t))))
  (when (and (equal (file-name-nondirectory (eglot--uri-to-path uri)) "flightplans.org")
             (pp-lsp--plan-buffers))
    (pp-lsp--plans-changed-soon)))

(defvar-local pp-lsp--origin-server nil
  "In a buffer of pp-lsp's own (an answer, a context): the server it came from.")

(defun pp-lsp--server ()
  "The pp-lsp server of the current buffer, or an error.
In a buffer of pp-lsp's own, the server it came from; in another buffer
outside every memex, the one pp-lsp server running."
  (let ((server (eglot-current-server)))
    (unless (and server (cl-typep server 'pp-lsp-server))
      (setq server
            (or (and (bound-and-true-p pp-lsp--origin-server)
                     (jsonrpc-running-p pp-lsp--origin-server)
                     pp-lsp--origin-server)
                (let ((all (seq-filter (lambda (s) (and (cl-typep s 'pp-lsp-server)
                                                        (jsonrpc-running-p s)))
                                       (apply #'append (hash-table-values eglot--servers-by-project)))))
                  (and all (null (cdr (delete-dups all))) (car all))))))
    (unless server
      (user-error "No pp-lsp is running here: open a note of your memex (and M-x eglot there, unless it starts by itself)"))
    server))

(defun pp-lsp--served-p ()
  "Return non-nil if the current buffer is a document of a pp-lsp server."
  (and (eglot-managed-p)
       (cl-typep (eglot-current-server) 'pp-lsp-server)))

(defun pp-lsp--place ()
  "The current buffer and point as {uri, position}."
  (let ((params (eglot--TextDocumentPositionParams)))
    (list :uri (plist-get (plist-get params :textDocument) :uri)
          :position (plist-get params :position))))

(defun pp-lsp--flush (server)
  "Send SERVER what its buffers hold back (eglot waits for idle time).
The server must know which buffers are modified before it writes:
it writes flightplans.org on disk only under an unmodified buffer."
  (dolist (buffer (eglot--managed-buffers server))
    (when (buffer-live-p buffer)
      (with-current-buffer buffer
        (eglot--signal-textDocument/didChange)))))

(defun pp-lsp--command (command arguments)
  "Run COMMAND on the server with one object of ARGUMENTS; return its answer.
The server's refusal is a user error in its words (\"pp-lsp: there is
no change to undo\"), not jsonrpc's request id and codes."
  (let ((server (pp-lsp--server)))
    (pp-lsp--flush server)
    (condition-case err
        (jsonrpc-request server :workspace/executeCommand
                         (list :command command :arguments (vector arguments)))
      (jsonrpc-error
       (user-error "pp-lsp: %s" (or (alist-get 'jsonrpc-error-message (cdr err))
                                     (error-message-string err)))))))

;;;###autoload
(defun pp-lsp-context (&optional budget)
  "Show what the model would see from point: the foveal-peripheral context.
With a prefix argument, ask for the token BUDGET."
  (interactive (list (and current-prefix-arg
                          (read-number "Token budget: " 4000))))
  (let* ((server (pp-lsp--server))
         (args (append (pp-lsp--place) (and budget (list :budget budget))))
         (view (pp-lsp--command "passepartout.context" args))
         (text (plist-get view :text))
         (nodes (plist-get view :nodes))
         (buffer (get-buffer-create "*Passepartout context*")))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert text)
        (org-mode)
        (pp-lsp-bidi-shown-mode 1)
        (setq pp-lsp--origin-server server)
        (goto-char (point-min))
        (pp-lsp--goto-foveal (plist-get (plist-get view :foveal) :title))
        (setq header-line-format
              (format "%s tokens of %s (the whole memex: %s) · %s in full, %s outline, %s titles, %s folded, %s private"
                      (plist-get view :tokens) (plist-get view :budget)
                      (plist-get view :full_tokens)
                      (plist-get nodes :full) (plist-get nodes :outline)
                      (plist-get nodes :title_only) (plist-get nodes :folded)
                      (plist-get nodes :private)))
        (setq buffer-read-only t)))
    (let ((window (display-buffer buffer)))
      (when window
        (set-window-point window (with-current-buffer buffer (point)))
        (with-selected-window window (recenter 0))))
    view))

(defun pp-lsp--goto-foveal (title)
  "Move point to the foveal node, the heading with :FOVEAL: t in its drawer.
Failing that, the first heading whose title is TITLE."
  (let ((found (save-excursion
                 (goto-char (point-min))
                 (if (re-search-forward "^[ \t]*:FOVEAL:[ \t]+t[ \t]*$" nil t)
                     (progn (org-back-to-heading t) (point))
                   (catch 'found
                     (while (re-search-forward org-heading-regexp nil t)
                       (when (equal (org-get-heading t t t t) title)
                         (throw 'found (line-beginning-position)))))))))
    (when found (goto-char found))))

(defvar pp-lsp--last-token nil
  "The progress token of the latest question.")

(defvar pp-lsp--last-result nil
  "The answer of the latest question (a plist), once it came.")

(defvar pp-lsp--token-count 0
  "How many questions this Emacs asked: makes tokens unique.")

(defvar pp-lsp--cancelled (make-hash-table :test #'equal)
  "Progress tokens of the questions cancelled: their late answers are dropped.")

(defvar pp-lsp-answer-buffer "*Passepartout*"
  "The name of the buffer answers stream into.")

(defvar-local pp-lsp--origin-place nil
  "In the answer buffer: the {uri, position} the last question was asked from.")

(defconst pp-lsp--bidi-controls "[\u202a-\u202e\u2066-\u2069]"
  "The bidirectional embedding, override and isolate controls.
Emacs obeys them, so a model's answer holding one could show text in
an order other than it was written (\"live\" for \"evil\").  Text
written right to left needs none of them: its letters order themselves.")

(defconst pp-lsp--invisible-marks "[​⁠﻿‪-‮⁦-⁩]"
  "The bidirectional controls, and the zero-width spaces.
pp-lsp breaks the file-local settings (\"Local Variables:\", \"vim:\")
and code-running links a model or a command wrote with a U+200B, which
Emacs shows as nothing or a blank: where pp-lsp shows what it wrote
\(flightplans.org, a plan, the plans list, the answers, a chat file),
each is shown, so that the text is seen to have been changed.")

(defvar-local pp-lsp--shown-marks pp-lsp--bidi-controls
  "What `pp-lsp-bidi-shown-mode' shows as <U+XXXX> in this buffer.")

(defun pp-lsp--show-zero-width ()
  "Show the zero-width spaces too in this buffer, with the bidi controls.
Called after the buffer's major mode, which forgets it."
  (setq pp-lsp--shown-marks pp-lsp--invisible-marks)
  (pp-lsp-bidi-shown-mode 1))

(defvar pp-lsp-answer-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "q") #'quit-window)
    (define-key map (kbd "C-c C-k") #'pp-lsp-cancel)
    (define-key map (kbd "C-c C-c") #'pp-lsp-follow-up)
    map)
  "Keys of `pp-lsp-answer-mode'.")

(define-derived-mode pp-lsp-answer-mode org-mode "Passepartout"
  "Passepartout's answers: each question a heading, the answer below it.
The answer streams in as the model writes it; the line under it says
what happened (\"Plan filed — RET to open it\") and which model
answered.  \\<pp-lsp-answer-mode-map>\\[pp-lsp-follow-up] asks a follow-up from the same place, \\[pp-lsp-cancel] stops the
answer being written, \\[quit-window] hides the buffer.
\\{pp-lsp-answer-mode-map}"
  (setq buffer-read-only t)
  (setq-local org-startup-folded nil)
  (setq pp-lsp--shown-marks pp-lsp--invisible-marks)
  ;; A model writes this text: its elisp: and shell: links run nothing,
  ;; even for a person who turned Org's confirmation of them off.
  (setq-local org-link-elisp-confirm-function #'pp-lsp--refuse-link)
  (setq-local org-link-shell-confirm-function #'pp-lsp--refuse-link)
  (pp-lsp--show-link-targets)
  (visual-line-mode 1)
  (setq header-line-format
        (substitute-command-keys
         "Passepartout  \\<pp-lsp-answer-mode-map>\\[pp-lsp-follow-up] follow-up  \\[pp-lsp-cancel] cancel  \\[quit-window] quit")))

(defun pp-lsp--show-link-targets ()
  "Show every Org link of this buffer whole, its target with its words.
A model writes this text: [[https://x.example/?q=…][the docs]] shown as
\"the docs\" would hide where a click goes, and what it carries there."
  (setq-local org-link-descriptive nil)
  (remove-from-invisibility-spec '(org-link))
  (when font-lock-mode (font-lock-flush)))

(defun pp-lsp--refuse-link (prompt)
  "Refuse to follow a link of an answer that would run code; PROMPT is Org's."
  (message "pp-lsp: a link in an answer runs nothing here (%s)"
           (string-trim-right (string-trim-left prompt "Execute ") "\\? *$"))
  nil)

(defun pp-lsp--answer-buffer ()
  "The answer buffer, in `pp-lsp-answer-mode'."
  (let ((buffer (get-buffer-create pp-lsp-answer-buffer)))
    (with-current-buffer buffer
      (unless (derived-mode-p 'pp-lsp-answer-mode)
        (pp-lsp-answer-mode)))
    buffer))

(defun pp-lsp--shown (text)
  "TEXT with each bidirectional control shown as <U+XXXX>, not obeyed.
In a buffer that shows them, the zero-width spaces too."
  (if (stringp text)
      (replace-regexp-in-string pp-lsp--shown-marks
                                (lambda (c) (format "<U+%04X>" (aref c 0)))
                                text t t)
    text))

(defun pp-lsp--show-bidi-controls (start end)
  "Show each bidirectional control between START and END as <U+XXXX>.
The text is unchanged: a `display' string covers the control, and
Emacs's reordering takes a character so covered as one neutral
character, so the control orders nothing.  A character that is no
longer a control loses the string."
  (save-excursion
    (save-match-data
      (with-silent-modifications
        (let ((pos start))
          (while (and (< pos end)
                      (setq pos (text-property-any pos end 'pp-lsp-bidi t)))
            (unless (string-match-p pp-lsp--shown-marks (string (char-after pos)))
              (remove-list-of-text-properties pos (1+ pos) '(display pp-lsp-bidi)))
            (setq pos (1+ pos))))
        (goto-char start)
        (while (re-search-forward pp-lsp--shown-marks end t)
          (put-text-property (match-beginning 0) (match-end 0)
                             'display (format "<U+%04X>" (char-before)))
          (put-text-property (match-beginning 0) (match-end 0) 'pp-lsp-bidi t))))))

(defun pp-lsp--bidi-after-change (beg end _len)
  "Show the bidirectional controls of the lines BEG to END changed."
  (pp-lsp--show-bidi-controls
   (save-excursion (goto-char beg) (line-beginning-position))
   (save-excursion (goto-char end) (line-end-position))))

(define-minor-mode pp-lsp-bidi-shown-mode
  "Show bidirectional controls (U+202A-E, U+2066-9) as <U+XXXX>.
Emacs obeys them, so a note, a chat file or a plan holding a model's
U+202E would show its text in an order other than it was written
\(\"live\" for \"evil\").  pp-lsp turns this on in every buffer it
serves; the text itself is not changed.  Where pp-lsp shows what it
wrote (flightplans.org, a plan, the plans list, the answers, a chat
file) the zero-width spaces U+200B, U+2060 and U+FEFF are shown too:
pp-lsp breaks a model's \"Local Variables:\" or \"vim:\" with a U+200B,
which would otherwise show as nothing."
  :lighter nil
  (save-restriction
    (widen)
    (if pp-lsp-bidi-shown-mode
        (progn
          (setq-local text-property-default-nonsticky
                      (append '((display . t) (pp-lsp-bidi . t)) text-property-default-nonsticky))
          (add-hook 'after-change-functions #'pp-lsp--bidi-after-change nil t)
          (pp-lsp--show-bidi-controls (point-min) (point-max)))
      (remove-hook 'after-change-functions #'pp-lsp--bidi-after-change t)
      (with-silent-modifications
        (let ((pos (point-min)))
          (while (setq pos (text-property-any pos (point-max) 'pp-lsp-bidi t))
            (remove-list-of-text-properties pos (1+ pos) '(display pp-lsp-bidi))
            (setq pos (1+ pos))))))))

(defvar-local pp-lsp--waiting nil
  "The overlay that says a question waits for the model's first word.")

(defun pp-lsp--wait (buffer)
  "Say at the end of BUFFER that the question waits for the model.
The next text appended replaces it."
  (with-current-buffer buffer
    (when (overlayp pp-lsp--waiting) (delete-overlay pp-lsp--waiting))
    (setq pp-lsp--waiting (make-overlay (point-max) (point-max)))
    (overlay-put pp-lsp--waiting 'after-string
                 (propertize
                  (substitute-command-keys
                   "Waiting for the model…  \\<pp-lsp-answer-mode-map>\\[pp-lsp-cancel] cancels\n")
                  'face 'shadow))))

(defun pp-lsp--append (buffer &rest texts)
  "Insert TEXTS at the end of BUFFER; its windows at the end follow them.
Bidirectional controls in them are shown, not obeyed (`pp-lsp--shown').
They replace the waiting line (`pp-lsp--wait')."
  (when (buffer-live-p buffer)
    (with-current-buffer buffer
      (when (overlayp pp-lsp--waiting)
        (delete-overlay pp-lsp--waiting)
        (setq pp-lsp--waiting nil))
      (let* ((inhibit-read-only t)
             (end (point-max))
             (follow (seq-filter (lambda (w) (>= (window-point w) end))
                                 (get-buffer-window-list buffer nil t))))
        (save-excursion
          (goto-char end)
          (apply #'insert (mapcar #'pp-lsp--shown texts)))
        (when (>= (point) end) (goto-char (point-max)))
        (dolist (w follow) (set-window-point w (point-max)))))))

;;;###autoload
(defvar pp-lsp--stream-servers (make-hash-table :test #'equal)
  "Progress tokens of running questions, to the servers asked.")

(defun pp-lsp--stopped-words (proc)
  "Return why PROC, a pp-lsp that stopped, ended, in the answer buffer's words."
  (format "pp-lsp stopped before answering (%s); ask again from a note to start it."
          (if (eq (process-status proc) 'signal)
              (format "signal %s" (process-exit-status proc))
            (format "exit code %s" (process-exit-status proc)))))

(defvar pp-lsp--stopped nil
  "The project roots whose pp-lsp stopped while a question waited.")

(defun pp-lsp--process-changed (proc _change)
  "End the questions of PROC's server when PROC is gone, saying so.
Run before jsonrpc's own sentinel, which calls the requests' error
handlers one after the other: one of eglot's that signals stops it
before it reaches a question's, whose answer buffer would wait forever;
and its words would be a bare \"Server died\"."
  (unless (process-live-p proc)
    (let ((server (process-get proc 'jsonrpc-connection))
          (why (pp-lsp--stopped-words proc)))
      (when-let ((root (ignore-errors (project-root (eglot--project server)))))
        (cl-pushnew root pp-lsp--stopped :test #'equal))
      (maphash (lambda (token s)
                 (when (eq s server)
                   (let ((buffer (gethash token pp-lsp--streams)))
                     (remhash token pp-lsp--streams)
                     (remhash token pp-lsp--stream-servers)
                     ;; jsonrpc's error handler, if it gets there, says nothing more.
                     (puthash token t pp-lsp--cancelled)
                     (when buffer
                       (setq pp-lsp--last-result (list :outcome "error" :error why))
                       (pp-lsp--say buffer (format "Failed: %s" why) nil)))))
               (copy-hash-table pp-lsp--stream-servers)))))

(defun pp-lsp--stopped-by-server (token buffer server err)
  "End the question TOKEN in BUFFER that SERVER stopped with ERR, if still open."
  (when (gethash token pp-lsp--stream-servers)
    (remhash token pp-lsp--streams)
    (remhash token pp-lsp--stream-servers)
    (let* ((proc (jsonrpc--process server))
           (why (cond ((not (process-live-p proc)) (pp-lsp--stopped-words proc))
                      ((eql (plist-get err :code) -32800) "pp-lsp stopped the question; ask again.")
                      (t (plist-get err :message)))))
      (setq pp-lsp--last-result (list :outcome "error" :error why))
      (pp-lsp--say buffer (format "Failed: %s" why) nil))))

(defun pp-lsp--watch (server)
  "Make sure the questions to SERVER end, saying so, if its process stops."
  (let ((proc (jsonrpc--process server)))
    (when (process-live-p proc)
      (add-function :before (process-sentinel proc) #'pp-lsp--process-changed))))

(defun pp-lsp--server-or-start ()
  "The current buffer's pp-lsp server, or a user error saying how to start one.
In a note, `pp-lsp-ask' starts a pp-lsp that is not running (one that
stopped, too) without waiting for it: `pp-lsp--start-for'."
  (pp-lsp--server))

;;; The first question: pp-lsp starts for it.

(defvar pp-lsp--starting (make-hash-table :test #'equal)
  "Project roots whose pp-lsp eglot is connecting, to its server.")

(defvar pp-lsp--queued nil
  "Questions waiting for their pp-lsp to connect: (ROOT QUESTION MARKER TIMER).")

(defun pp-lsp--server-created (server)
  "Note SERVER as starting, if it is a pp-lsp (before it connects)."
  (when (cl-typep server 'pp-lsp-server)
    (when-let ((root (ignore-errors (project-root (eglot--project server)))))
      (puthash root server pp-lsp--starting))))

(defun pp-lsp--server-connected (server)
  "Ask the questions that waited for SERVER, a pp-lsp that just connected."
  (when (cl-typep server 'pp-lsp-server)
    (when-let ((root (ignore-errors (project-root (eglot--project server)))))
      (remhash root pp-lsp--starting)
      (dolist (q (reverse pp-lsp--queued))
        (when (equal (nth 0 q) root)
          (setq pp-lsp--queued (delq q pp-lsp--queued))
          (cancel-timer (nth 3 q))
          (pp-lsp--ask-queued (nth 1 q) (nth 2 q) server))))))

(add-hook 'eglot-server-initialized-hook #'pp-lsp--server-created)
(add-hook 'eglot-connect-hook #'pp-lsp--server-connected)

(defun pp-lsp--ask-queued (question marker server)
  "Ask QUESTION from MARKER, once SERVER serves its buffer."
  (let ((buffer (marker-buffer marker)))
    (if (buffer-live-p buffer)
        (with-current-buffer buffer
          (save-excursion
            (goto-char marker)
            (pp-lsp-ask question nil (and (not (pp-lsp--served-p)) server))))
      (pp-lsp-ask question nil server))
    (set-marker marker nil)))

(defun pp-lsp--in-memex-roots-p (file)
  "Return non-nil if FILE is under one of `pp-lsp-memex-roots'."
  (seq-some (lambda (r) (file-in-directory-p file r)) pp-lsp-memex-roots))

(defun pp-lsp--start-for (question)
  "Start pp-lsp for the current note and ask QUESTION once it connects.
Return non-nil if QUESTION waits so; nil when a pp-lsp can answer now,
or none is to start here (the caller then says why).  In a note of
`pp-lsp-memex-roots' it starts as eglot would start it there; in
another Org file you are asked first, the memex being its project
\(which may be a large folder of another's making).  Emacs does not
wait: the answer buffer says pp-lsp is starting."
  (when (and buffer-file-name (derived-mode-p 'org-mode)
             (not (eglot-current-server))
             (not (ignore-errors (pp-lsp--server))))
    (let* ((project (eglot--current-project))
           (root (project-root project))
           (starting (gethash root pp-lsp--starting)))
      (when (or (and starting (jsonrpc-running-p starting))
                (pp-lsp--in-memex-roots-p buffer-file-name)
                ;; It ran here, and stopped while a question waited.
                (member root pp-lsp--stopped)
                (and (called-interactively-p 'any)
                     (y-or-n-p (format "Start pp-lsp, with %s as the memex? "
                                       (abbreviate-file-name root)))))
        (unless (and starting (jsonrpc-running-p starting))
          (setq pp-lsp--stopped (delete root pp-lsp--stopped))
          (let ((eglot-sync-connect nil))
            (condition-case err
                (apply #'eglot (eglot--guess-contact))
              (error (user-error "Could not start pp-lsp: %s" (error-message-string err))))))
        (let* ((marker (point-marker))
               (entry (list root question marker nil))
               (buffer (pp-lsp--answer-buffer)))
          (setf (nth 3 entry)
                (run-with-timer (+ 5 (or eglot-connect-timeout 30)) nil
                                #'pp-lsp--start-failed entry buffer))
          (push entry pp-lsp--queued)
          (with-current-buffer buffer
            (when (overlayp pp-lsp--waiting) (delete-overlay pp-lsp--waiting))
            (setq pp-lsp--waiting (make-overlay (point-max) (point-max)))
            (overlay-put pp-lsp--waiting 'after-string
                         (propertize (format "Starting pp-lsp in %s; the question goes when it is ready…\n"
                                             (abbreviate-file-name root))
                                     'face 'shadow)))
          (unless (get-buffer-window buffer) (display-buffer buffer))
          (message "pp-lsp: starting in %s…" (abbreviate-file-name root))
          entry)))))

(defun pp-lsp--start-failed (entry buffer)
  "Say in BUFFER that the pp-lsp ENTRY's question waited for never connected."
  (when (memq entry pp-lsp--queued)
    (setq pp-lsp--queued (delq entry pp-lsp--queued))
    (set-marker (nth 2 entry) nil)
    (let ((why (format "pp-lsp did not start in %s (M-x eglot-events-buffer says why)"
                       (abbreviate-file-name (nth 0 entry)))))
      (setq pp-lsp--last-result (list :outcome "error" :error why))
      (pp-lsp--append buffer (if (= (with-current-buffer buffer (point-min))
                                    (with-current-buffer buffer (point-max)))
                                 "" "\n")
                      "* " (nth 1 entry) "\n")
      (pp-lsp--say buffer (format "Failed: %s." why) nil))))

(defun pp-lsp-ask (question &optional place server)
  "Ask the model QUESTION from point; the answer streams into a buffer.
The question goes into a conversation, an Org file under chats/: asked
from a chat file, it continues that one (the model gets its earlier
turns), otherwise it starts one; see `pp-lsp-chats'.
PLACE ({uri, position}) and SERVER default to point's.  Asked from a
buffer pp-lsp does not serve (no Org note of the memex), the question
goes without a place: the model sees the memex's outline and no note at
the fovea, and the answer says so.  An action the
gates want you to approve becomes a Flight Plan in flightplans.org: the
answer says so, and RET there opens it; approve it with
`pp-lsp-approve' (or by switching PLAN to APPROVED and saving the file)."
  (interactive "sAsk Passepartout: ")
  (unless (and (not server) (not place)
               (if (called-interactively-p 'any)
                   (funcall-interactively #'pp-lsp--start-for question)
                 (pp-lsp--start-for question)))
    (let* ((server (or server (pp-lsp--server-or-start)))
           (served (and buffer-file-name (pp-lsp--served-p)))
           (aside (and (not place) (not served)
                       (format "(%s is not a note of the memex: asked without the context at point)\n"
                               (if buffer-file-name
                                   (file-name-nondirectory buffer-file-name)
				 "this buffer"))))
           (place (or place (and served (pp-lsp--place))))
           (token (format "pp-lsp-ask-%d-%d" (emacs-pid) (cl-incf pp-lsp--token-count)))
           (buffer (pp-lsp--answer-buffer))
           (args (append place (list :text question))))
      (with-current-buffer buffer
	(setq pp-lsp--origin-server server
              pp-lsp--origin-place place)
	(pp-lsp--append buffer (if (= (point-min) (point-max)) "" "\n")
			"* " question "\n" (or aside "")))
      (puthash token buffer pp-lsp--streams)
      (puthash token server pp-lsp--stream-servers)
      (pp-lsp--watch server)
      (pp-lsp--wait buffer)
      (setq pp-lsp--last-token token
            pp-lsp--last-result nil)
      (unless (get-buffer-window buffer)
	(display-buffer buffer))
      (pp-lsp--flush server)
      (jsonrpc-async-request
       server :workspace/executeCommand
       (list :command "passepartout.ask" :arguments (vector args) :workDoneToken token)
       :timeout pp-lsp-ask-timeout
       :success-fn (lambda (result)
                     (remhash token pp-lsp--streams)
                     (remhash token pp-lsp--stream-servers)
                     (unless (gethash token pp-lsp--cancelled)
                       (pp-lsp--answered buffer result)))
       :error-fn (lambda (err)
                   (cond
                    ((gethash token pp-lsp--cancelled)
                     (remhash token pp-lsp--streams)
                     (remhash token pp-lsp--stream-servers)
                     ;; A question stopped on purpose is no error of the
                     ;; server's: eglot's mode line stays clean.
                     (when (eql (plist-get err :code) -32800)
                       (setf (jsonrpc-last-error server) nil)))
                    ((memql (plist-get err :code) '(-32800 -32600 -1))
                     ;; Stopped by the server, not by you: it may be going
                     ;; down (a signal, a crash), and then its process's end
                     ;; says so (`pp-lsp--process-changed'); if it is not,
                     ;; its words are said in a moment.
                     (run-with-timer 1 nil #'pp-lsp--stopped-by-server token buffer server err))
                    (t
                     (remhash token pp-lsp--streams)
                     (remhash token pp-lsp--stream-servers)
                     (setq pp-lsp--last-result
                           (list :outcome "error" :error (plist-get err :message)))
                     (pp-lsp--say buffer (format "Failed: %s" (plist-get err :message)) nil))))
       :timeout-fn (lambda ()
                     (remhash token pp-lsp--streams)
                     (remhash token pp-lsp--stream-servers)
                     ;; Emacs stops waiting; the server must stop too, or
                     ;; the model call goes on (and costs) for nobody.
                     (puthash token t pp-lsp--cancelled)
                     (when (jsonrpc-running-p server)
                       (jsonrpc-notify server :window/workDoneProgress/cancel (list :token token)))
                     (let ((why (format "no answer after %s seconds (pp-lsp-ask-timeout)" pp-lsp-ask-timeout)))
                       (setq pp-lsp--last-result (list :outcome "error" :error why))
                       (pp-lsp--say buffer (format "Failed: %s" why) nil))))
      token)))

(defun pp-lsp-follow-up (question)
  "Ask QUESTION from the place the last question was asked from.
It continues the last question's conversation."
  (interactive "sFollow-up: ")
  (let* ((buffer (pp-lsp--answer-buffer))
         (place (buffer-local-value 'pp-lsp--origin-place buffer))
         (chat (plist-get pp-lsp--last-result :chat)))
    (when chat
      (setq place (append (list :chat chat)
                          (cl-loop for (k v) on place by #'cddr
                                   unless (eq k :chat) append (list k v)))))
    (pp-lsp-ask question place
                (or (buffer-local-value 'pp-lsp--origin-server buffer)
                    (pp-lsp--server)))))

(defun pp-lsp--open-plan (uri id)
  "Visit flightplans.org at URI, on the plan ID."
  (find-file-other-window (eglot--uri-to-path uri))
  (goto-char (point-min))
  (when (re-search-forward (concat "^[ \t]*:ID:[ \t]+" (regexp-quote id) "[ \t]*$") nil t)
    (org-back-to-heading t)
    (org-show-context)
    ;; The plan at the window's top: its action and diff below it show,
    ;; not the plans before it.
    (recenter 0)))

(defun pp-lsp--say (buffer words result)
  "End the answer in BUFFER with WORDS, and the model of RESULT.
A filed plan's WORDS are a button that opens it."
  (let* ((model (plist-get result :model))
         (model (and model (not (string-empty-p model)) model))
         (plan (plist-get result :planId))
         (uri (plist-get result :planUri))
         (line (cond
                ((and plan uri)
                 (with-temp-buffer
                   (insert-text-button words
                                       'action (lambda (_) (pp-lsp--open-plan uri plan))
                                       'follow-link t
                                       'help-echo "RET: open the plan in flightplans.org")
                   (buffer-string)))
                ((and model (equal (plist-get result :outcome) "answered"))
                 (propertize (format "Answered by %s." model) 'face 'italic))
                (t (propertize words 'face 'italic)))))
    (pp-lsp--append buffer "\n\n" line "\n"
                    (if (and model (not (equal (plist-get result :outcome) "answered")))
                        (propertize (format "Model: %s.\n" model) 'face 'shadow)
                      ""))))

(defun pp-lsp--outcome-words (result)
  "Return in words how a question ended, from its RESULT."
  (let ((tool (let ((tool (plist-get result :tool)))
                (if (seq-empty-p tool) "the action" tool)))
        (gate (plist-get result :gate))
        (reason (plist-get result :reason))
        (summary (plist-get result :summary)))
    (pcase (plist-get result :outcome)
      ("answered" "Answered.")
      ("ran" (format "Ran %s%s." tool (if (seq-empty-p summary) "" (concat ": " summary))))
      ("filed" (if (plist-get result :planUri)
                   "Plan filed — RET to open it"
                 (format "Plan filed in flightplans.org: %s" (plist-get result :planId))))
      ("denied" (format "Refused: %s was denied by the %s gate%s." tool gate
                        (if (seq-empty-p reason) "" (concat " (" reason ")"))))
      ("cancelled" "Cancelled.")
      (outcome (format "%s%s." (capitalize (or outcome "ended"))
                       (if (seq-empty-p summary) "" (concat ": " summary)))))))

(defun pp-lsp--answered (buffer result)
  "Say in BUFFER how the question ended, from the command's RESULT."
  (pp-lsp--say buffer (pp-lsp--outcome-words result) result)
  (let ((figures (pp-lsp--figures result)))
    (when (and figures (buffer-live-p buffer))
      ;; Shown after the line that names the model, not part of the text.
      (with-current-buffer buffer
        (let ((end (max (point-min) (1- (point-max)))))
          (overlay-put (make-overlay end end) 'after-string
                       (propertize (concat " " figures) 'face 'shadow))))))
  (when (plist-get result :planId)
    (message "pp-lsp: a Flight Plan waits for your approval in flightplans.org"))
  (setq pp-lsp--last-result result))

(defun pp-lsp--figures (result)
  "What RESULT cost in tokens and its conversation, in one line.
The line under it names the model."
  (let ((model (plist-get result :model))
        (usage (plist-get result :usage))
        (chat (plist-get result :chat)))
    (when (or model chat)
      (concat "— "
              (and model (format "%s tokens in, %s out%s"
                                 (plist-get usage :prompt) (plist-get usage :completion)
                                 (if (eq (plist-get usage :estimated) t) " (estimated)" "")))
              (and model chat "; ")
              (and chat (format "chat: %s" (abbreviate-file-name (eglot--uri-to-path chat))))))))

;;;###autoload
(defun pp-lsp-cancel ()
  "Stop the latest question; its answer ends with \"Cancelled.\"."
  (interactive)
  (if (not (and pp-lsp--last-token (gethash pp-lsp--last-token pp-lsp--streams)))
      (message "pp-lsp: no question is being answered")
    (let* ((token pp-lsp--last-token)
           (buffer (gethash token pp-lsp--streams))
           (server (or (and (buffer-live-p buffer)
                            (buffer-local-value 'pp-lsp--origin-server buffer))
                       (pp-lsp--server))))
      (jsonrpc-notify server :window/workDoneProgress/cancel (list :token token))
      ;; Said at once: the server's answer to a cancelled question (its
      ;; RequestCancelled, or the answer that was on its way) is dropped.
      (puthash token t pp-lsp--cancelled)
      (remhash token pp-lsp--streams)
      (remhash token pp-lsp--stream-servers)
      (setq pp-lsp--last-result (list :outcome "cancelled"))
      (pp-lsp--say buffer "Cancelled." nil))))

(defun pp-lsp--run-words (run)
  "Say how the plan RUN ended: its summary, led by its state if it lacks it."
  (let ((state (or (plist-get run :state) ""))
        (summary (or (plist-get run :summary) "")))
    (cond ((string-empty-p summary) state)
          ((string-prefix-p state summary) summary)
          (t (format "%s — %s" state summary)))))

(defun pp-lsp--decide (command id)
  "Run COMMAND (approve or reject) on the plan ID, or the plan at point.
Emacs waits for the answer and returns it (for Lisp programs); the
commands, called by you, run asynchronously: `pp-lsp--decide-async'."
  (let* ((args (if id (list :id id) (pp-lsp--place)))
         (eglot-confirm-server-initiated-edits nil) ; you asked for the change
         (run (pp-lsp--command command args)))
    (message "pp-lsp: %s" (pp-lsp--decided-words run))
    run))

(defun pp-lsp--decided-words (run)
  "Say how the plan RUN ended, and the rule it added if any."
  (format "%s%s" (pp-lsp--run-words run)
          (if (plist-get run :rule)
              (format " (from now on %s is allowed)" (plist-get run :rule))
            "")))

(defun pp-lsp--point-plan-id ()
  "The :ID: of the Flight Plan headline point is in, or nil."
  (when (and (derived-mode-p 'org-mode) (fboundp 'org-entry-get))
    (save-excursion
      (end-of-line)
      (and (re-search-backward "^\\* " nil t)
           (org-entry-get nil "ID")))))

(defun pp-lsp--decide-async (command id)
  "Run COMMAND on the plan ID, or the plan at point; return at once.
The arguments sent are those `pp-lsp--decide' (and `pp-lsp-undo') send:
{id} or the place of point.  As a key of the plans list, Emacs is free
while the plan runs: \"Running …\" is said at once, and how it ended
when the server answers (the list and view, if shown, are filled
anew).  A second command on a plan still running does nothing and says
so; so does a second undo while one runs."
  (let* ((undo (equal command "passepartout.undo"))
         (args (cond (id (list :id id))
                     (undo eglot--{})
                     (t (pp-lsp--place))))
         ;; Always a key: while one runs, the server's edits (the plan's
         ;; new state) are applied without a prompt, as when Emacs waited.
         (key (or id (if undo "undo" (or (pp-lsp--point-plan-id) args))))
         (running (gethash key pp-lsp--plans-running))
         (words (pp-lsp--command-words command))
         (title (cond (id id) (undo "the latest change") (t "the plan at point")))
         (server (pp-lsp--server)))
    (when running
      (user-error "Not done: %s of this plan is still running" running))
    (puthash key words pp-lsp--plans-running)
    (condition-case err
        (pp-lsp--plans-command-async
         command args
         (lambda (run refusal)
           (remhash key pp-lsp--plans-running)
           (if refusal
               (message "pp-lsp: %s of %s: %s" words title refusal)
             (message "pp-lsp: %s" (if undo
                                         (or (plist-get run :summary) "done")
                                       (pp-lsp--decided-words run))))
           (let ((plan-id (or id (and (not undo) (stringp key) key))))
             (pp-lsp--show-decided
              server plan-id
              (lambda ()
                (run-hook-with-args 'pp-lsp-plan-decided-functions
                                    (and plan-id (list :id plan-id)) command run refusal))))))
      (error (remhash key pp-lsp--plans-running)
             (signal (car err) (cdr err))))
    (message "pp-lsp: Running %s of %s… (Emacs is free meanwhile)" words title)
    nil))

;;;###autoload
(defun pp-lsp-approve (&optional id async)
  "Approve the Flight Plan at point (or the one with ID), and so run it.
Called by you (ASYNC), it returns at once and says how the plan ended
when it has; from Lisp, it waits and returns the server's answer."
  (interactive (list nil t))
  (if async
      (pp-lsp--decide-async "passepartout.approve" id)
    (pp-lsp--decide "passepartout.approve" id)))

;;;###autoload
(defun pp-lsp-reject (&optional id async)
  "Reject the Flight Plan at point (or the one with ID).
Called by you (ASYNC), it returns at once; see `pp-lsp-approve'."
  (interactive (list nil t))
  (if async
      (pp-lsp--decide-async "passepartout.reject" id)
    (pp-lsp--decide "passepartout.reject" id)))

;;; The Flight Plans list: keys that act on the plan of the line.

(defvar pp-lsp-plans-buffer "*Passepartout plans*"
  "The name of the Flight Plans list.")

(defvar pp-lsp-plan-view-buffer "*Passepartout plan*"
  "The name of the buffer `pp-lsp-plans-diff' shows a plan in.")

(defvar-local pp-lsp--refreshed-at nil
  "When this plans list or plan view last changed by itself, or nil.")

(defvar pp-lsp-plans-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "RET") #'pp-lsp-plans-open)
    (define-key map (kbd "d") #'pp-lsp-plans-diff)
    (define-key map (kbd "a") #'pp-lsp-plans-approve)
    (define-key map (kbd "A") #'pp-lsp-plans-approve-always)
    (define-key map (kbd "r") #'pp-lsp-plans-reject)
    (define-key map (kbd "u") #'pp-lsp-plans-undo)
    (define-key map (kbd "n") #'next-line)
    (define-key map (kbd "p") #'previous-line)
    map)
  "Keys of the Flight Plans list.")

(define-derived-mode pp-lsp-plans-mode special-mode "pp-lsp-plans"
  "The Flight Plans, one a line, with keys that act on the plan of the line.
RET visits it in flightplans.org, d shows its verdict, gate trace and
action, a approves it (it runs), A approves it and allows similar
actions from now on, r rejects it, u undoes what it did, g lists
again, q quits.
\\{pp-lsp-plans-mode-map}"
  (setq-local revert-buffer-function (lambda (&rest _) (pp-lsp-plans-refresh)))
  (setq truncate-lines t)
  (pp-lsp--show-zero-width))

(defcustom pp-lsp-list-timeout 10
  "Seconds Emacs waits for the plans, or a plan's description, to be listed.
Listing is quick; a server that does not answer in time is said so,
and Emacs is free again.  Approving, rejecting and undoing never wait:
they run while you work, and say how they ended."
  :type 'number)

(defun pp-lsp--plans-request (method params)
  "Send METHOD with PARAMS to the plans list's server; its error as a user error.
Emacs waits for the answer at most `pp-lsp-list-timeout' seconds."
  (let ((server (pp-lsp--server))
        ;; The user asked for this: the plan's new state is no prompt.
        (eglot-confirm-server-initiated-edits nil))
    (pp-lsp--flush server)
    (condition-case err
        (jsonrpc-request server method params :timeout pp-lsp-list-timeout)
      (jsonrpc-error
       (let ((why (alist-get 'jsonrpc-error-message (cdr err))))
         (if (equal why "Timed out")
             (user-error "pp-lsp: The server did not answer in %s seconds: try again (g)"
                         pp-lsp-list-timeout)
           (user-error "pp-lsp: %s" (or why (error-message-string err)))))))))

(defun pp-lsp--plans-command (command arguments)
  "Run COMMAND with ARGUMENTS on the plans list's server."
  (pp-lsp--plans-request :workspace/executeCommand
                         (list :command command :arguments (vector arguments))))

(defun pp-lsp--plan-line (p)
  "Return the line of the plans list for the plan P."
  (format "%-9s %-10s %s%s"
          (plist-get p :state) (plist-get p :tool) (plist-get p :title)
          (if (plist-get p :problem) (format "  [%s]" (plist-get p :problem)) "")))

(defun pp-lsp--render-plans (plans)
  "Fill the current buffer with PLANS, one a line."
  (let ((inhibit-read-only t)
        (line (line-number-at-pos)))
    (erase-buffer)
    (if (seq-empty-p plans)
        (insert "No Flight Plans.\n")
      (seq-doseq (p plans)
        (insert (propertize (concat (pp-lsp--plan-line p) "\n") 'pp-lsp-plan p))))
    (goto-char (point-min))
    (forward-line (1- line))))

;;;###autoload
(defun pp-lsp-undo (&optional id async)
  "Undo the latest change an action made (or the one with ID).
Every file it changed gets back what it held before, when each still
holds what the change wrote; undoing an undo redoes.  Called by you
\(ASYNC), it returns at once; see `pp-lsp-approve'."
  (interactive (list nil t))
  (if async
      (pp-lsp--decide-async "passepartout.undo" id)
    (pp-lsp--undo-wait id)))

(defun pp-lsp--undo-wait (id)
  "Undo the latest change (or the one with ID); wait, and return the answer."
  (let ((res (pp-lsp--command "passepartout.undo" (if id (list :id id) eglot--{}))))
    (message "pp-lsp: %s" (plist-get res :summary))
    res))

;;;###autoload
(defun pp-lsp-approve-always (&optional id async)
  "Approve the Flight Plan at point (or ID) and allow similar actions.
The plan runs, and the narrowest permission rule that would have
allowed it goes into your configuration file.  Called by you (ASYNC),
it returns at once; see `pp-lsp-approve'."
  (interactive (list nil t))
  (if async
      (pp-lsp--decide-async "passepartout.approveAlways" id)
    (pp-lsp--decide "passepartout.approveAlways" id)))

;;;###autoload
(defun pp-lsp-plans ()
  "List the Flight Plans in a buffer whose keys act on them.
RET visits the plan, d shows it, a approves, A approves and allows
similar actions, r rejects, u undoes, g lists again.  A key acts only
on the plan you saw: one flightplans.org changed since (approved, run
or rejected elsewhere, its text edited) is shown again, and nothing is
done."
  (interactive)
  (let* ((server (pp-lsp--server))
         (plans (pp-lsp--plans-command "passepartout.plans" eglot--{}))
         (buffer (get-buffer-create pp-lsp-plans-buffer)))
    (with-current-buffer buffer
      (unless (derived-mode-p 'pp-lsp-plans-mode) (pp-lsp-plans-mode))
      (setq pp-lsp--origin-server server
            pp-lsp--refreshed-at nil
            header-line-format nil)
      (pp-lsp--render-plans plans))
    (seq-doseq (p plans) (pp-lsp--follow-plans-file p))
    ;; Asked for, the list is where you are: its keys act at once.
    (if (called-interactively-p 'any)
        (pop-to-buffer buffer)
      (display-buffer buffer))
    plans))

(defun pp-lsp-plans-refresh ()
  "List the Flight Plans again."
  (interactive)
  (with-current-buffer (get-buffer-create pp-lsp-plans-buffer)
    (pp-lsp-plans)))

(defvar-local pp-lsp--viewed-hover nil
  "The server's description of the plan `pp-lsp-plans-diff' shows, as shown.")

(defvar-local pp-lsp--viewed-plan nil
  "The plan `pp-lsp-plans-diff' shows in this buffer.")

(defun pp-lsp--plan-here ()
  "The plan of the current line of the plans list, or the one shown here.
Otherwise a user error."
  (or (get-text-property (line-beginning-position) 'pp-lsp-plan)
      pp-lsp--viewed-plan
      (user-error "No Flight Plan on this line")))

(defvar pp-lsp-plan-view-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "RET") #'pp-lsp-plans-open)
    (define-key map (kbd "a") #'pp-lsp-plans-approve)
    (define-key map (kbd "A") #'pp-lsp-plans-approve-always)
    (define-key map (kbd "r") #'pp-lsp-plans-reject)
    (define-key map (kbd "g") #'pp-lsp-plans-diff)
    map)
  "Keys of the plan `pp-lsp-plans-diff' shows.")

(define-derived-mode pp-lsp-plan-view-mode special-mode "pp-lsp-plan"
  "A Flight Plan as `pp-lsp-plans-diff' shows it; the keys act on it.
Its verdict, gate trace and action are shown.
\\{pp-lsp-plan-view-mode-map}"
  (setq header-line-format
        (substitute-command-keys
         "Flight Plan  \\<pp-lsp-plan-view-mode-map>\\[pp-lsp-plans-approve] approve  \\[pp-lsp-plans-approve-always] approve and allow similar  \\[pp-lsp-plans-reject] reject  \\[pp-lsp-plans-open] visit  \\[quit-window] quit")))

(defvar-local pp-lsp--viewed-text nil
  "The text of the plan `pp-lsp-plans-diff' shows, as it was shown.")

(defun pp-lsp--plan-now (id)
  "The plan ID as the server lists it now, or nil when it is gone."
  (seq-find (lambda (p) (equal (plist-get p :id) id))
            (pp-lsp--plans-command "passepartout.plans" eglot--{})))

(defun pp-lsp--plan-changed (shown now text)
  "Say how the plan SHOWN changed into NOW, or nil if it did not.
TEXT, the plan's text as it was shown (a plan view), is compared too;
nil (the list) compares the line the list shows."
  (cond
   ((null now) "it is gone from flightplans.org")
   ((pp-lsp--settling) "it was shown again by itself a moment ago")
   ((not (equal (plist-get now :state) (plist-get shown :state)))
    (format "it is %s now" (plist-get now :state)))
   ((and text (not (equal text (pp-lsp--plan-text now)))) "its text changed")
   ((and (not text) (not (equal (pp-lsp--plan-line now) (pp-lsp--plan-line shown))))
    "its line changed")))

(defvar pp-lsp--plans-running (make-hash-table :test #'equal)
  "The plans a key of the plans list or view runs now: id to the command's words.")

(defvar pp-lsp-plan-decided-functions nil
  "Called when a key of the plans list or view on a plan has its answer.
Each gets the plan, the command, the server's answer (nil if refused)
and the refusal's words (nil if answered).")

(defun pp-lsp--command-words (command)
  "Return the words of COMMAND, as in \"Running approve\"."
  (pcase command
    ("passepartout.approve" "approve")
    ("passepartout.approveAlways" "approve and allow similar")
    ("passepartout.reject" "reject")
    ("passepartout.undo" "undo")
    (_ command)))

(defun pp-lsp--plans-decide (command)
  "Run COMMAND on the plan of the line; say how it ended, and list again.
It acts only on the plan you saw: one that flightplans.org changed
since (approved, run or rejected elsewhere, its text edited) is shown
again and nothing is done.  The command runs while you work (a plan's
command may take minutes): the key returns at once, saying it is
running; the answer, when it comes, is said and the plans shown again,
where you are.  A key on a plan still running does nothing."
  (let* ((plan (pp-lsp--plan-here))
         (id (plist-get plan :id))
         (running (gethash id pp-lsp--plans-running)))
    (when running
      (user-error "Not done: %s of this plan is still running" running))
    (let* ((in-view (derived-mode-p 'pp-lsp-plan-view-mode))
           (now (pp-lsp--plan-now id))
           (why (and (not (equal command "passepartout.undo"))
                     (pp-lsp--plan-changed plan now (and in-view pp-lsp--viewed-text)))))
      (when why
        (pp-lsp-plans-refresh)
        (when (and in-view now)
          (pp-lsp--show-plan now (format "Shown again: the plan changed since you saw it (%s)." why)))
        (user-error "Not done: the plan changed since you saw it (%s): look again" why))
      (when (and (member command '("passepartout.approve" "passepartout.approveAlways"))
                 (not (stringp (plist-get plan :hash)))
                 (or (eq (plist-get plan :edited) t) (plist-get plan :problem)))
        (user-error "Not done: the plan holds no action to approve (its block is not one): reject it, or fix it in flightplans.org"))
      (let ((words (pp-lsp--command-words command))
            (title (or (plist-get plan :title) id))
            (server (pp-lsp--server)))
        (puthash id words pp-lsp--plans-running)
        (condition-case err
            (pp-lsp--plans-command-async
             command
             ;; An approval names the action shown by its hash, and a
             ;; plan with a diff the filing that diff was made for by
             ;; its revision: the server runs the plan only if it still
             ;; holds that action and is still that filing.
             (append (list :id id)
                     (and (member command '("passepartout.approve" "passepartout.approveAlways"))
                          (append
                           (and (stringp (plist-get plan :hash))
                                (list :hash (plist-get plan :hash)))
                           (and (stringp (plist-get plan :revision))
                                (list :revision (plist-get plan :revision))))))
             (lambda (run refusal)
               (remhash id pp-lsp--plans-running)
               (if refusal
                   (message "pp-lsp: %s of %s: %s" words title refusal)
                 (message "pp-lsp: %s" (or (plist-get run :summary) (plist-get run :state) "done")))
               (pp-lsp--show-decided
                server id
                (lambda ()
                  (run-hook-with-args 'pp-lsp-plan-decided-functions plan command run refusal)))))
          (error (remhash id pp-lsp--plans-running)
                 (signal (car err) (cdr err))))
        (message "pp-lsp: Running %s of %s… (Emacs is free meanwhile)" words title)
        nil))))

(defun pp-lsp--show-decided (server id done)
  "Show the plans of SERVER again after a key of yours on the plan ID; then DONE.
As the key once did before it returned, but Emacs waits for nothing:
the list, and the view if it shows ID, are filled anew where they
are, each window keeping its place and the selected window selected."
  (let ((list (get-buffer pp-lsp-plans-buffer))
        (view (get-buffer pp-lsp-plan-view-buffer))
        (finish (lambda (&rest _) (funcall done))))
    (if (not (jsonrpc-running-p server))
        (funcall done)
      (jsonrpc-async-request
       server :workspace/executeCommand
       (list :command "passepartout.plans" :arguments (vector eglot--{}))
       :timeout pp-lsp-list-timeout :error-fn finish :timeout-fn finish
       :success-fn
       (lambda (plans)
         (when (buffer-live-p list)
           (pp-lsp--keeping-places
            list (lambda ()
                   (setq pp-lsp--refreshed-at nil header-line-format nil)
                   (pp-lsp--render-plans plans))))
         (let ((after (seq-find (lambda (p) (equal (plist-get p :id) id)) plans)))
           (if (not (and after (buffer-live-p view)
                         (equal (plist-get (buffer-local-value 'pp-lsp--viewed-plan view) :id) id)))
               (funcall done)
             (jsonrpc-async-request
              server :textDocument/hover (pp-lsp--plan-hover-params after)
              :timeout pp-lsp-list-timeout :error-fn finish :timeout-fn finish
              :success-fn
              (lambda (hover)
                (when (buffer-live-p view)
                  (let ((text (pp-lsp--hover-text hover))
                        (plan-text (pp-lsp--plan-text after)))
                    (pp-lsp--keeping-places
                     view (lambda () (pp-lsp--render-plan-view after text plan-text server)))))
                (funcall done))))))))))

(defun pp-lsp--plans-command-async (command arguments done)
  "Send COMMAND with ARGUMENTS to the plans list's server; return at once.
DONE is called with the answer and nil, or nil and the server's
refusal in its words.  No time limit: a plan's command may run long,
and its end is what is said."
  (let ((server (pp-lsp--server)))
    (pp-lsp--flush server)
    (jsonrpc-async-request
     server :workspace/executeCommand
     (list :command command :arguments (vector arguments))
     :success-fn (lambda (run)
                   ;; The user asked for this: the plan's new state is no prompt.
                   (let ((eglot-confirm-server-initiated-edits nil))
                     (funcall done run nil)))
     :error-fn (lambda (err)
                 (funcall done nil (or (plist-get err :message) (format "%S" err))))
     ;; No deadline: jsonrpc's would say "Timed out" of a plan still
     ;; running, and the user would believe it failed.
     :timeout nil)))

(defun pp-lsp-plans-approve ()
  "Approve the plan of the line and run it."
  (interactive)
  (pp-lsp--plans-decide "passepartout.approve"))

(defun pp-lsp-plans-approve-always ()
  "Approve the plan of the line and allow similar actions from now on."
  (interactive)
  (pp-lsp--plans-decide "passepartout.approveAlways"))

(defun pp-lsp-plans-reject ()
  "Reject the plan of the line."
  (interactive)
  (pp-lsp--plans-decide "passepartout.reject"))

(defun pp-lsp-plans-undo ()
  "Undo what the plan of the line changed."
  (interactive)
  (pp-lsp--plans-decide "passepartout.undo"))

(defun pp-lsp-plans-open ()
  "Visit the plan of the line in flightplans.org."
  (interactive)
  (let ((plan (pp-lsp--plan-here)))
    (find-file-other-window (eglot--uri-to-path (plist-get plan :uri)))
    (goto-char (point-min))
    (forward-line (1- (plist-get plan :line)))
    (when (derived-mode-p 'org-mode) (org-show-context))))

(defun pp-lsp--plan-text (plan)
  "Return the subtree of PLAN in flightplans.org, as the server has it.
That is a buffer visiting it when modified, else the disk (which an
unmodified buffer may not have caught up with); the plan is found by
its :ID:, else at its line."
  (let ((file (eglot--uri-to-path (plist-get plan :uri))))
    (with-temp-buffer
      (let ((b (find-buffer-visiting file)))
        (if (and b (buffer-modified-p b))
            (insert-buffer-substring b)
          (when (file-readable-p file) (insert-file-contents file))))
      (goto-char (point-min))
      (if (re-search-forward (concat "^[ \t]*:ID:[ \t]+" (regexp-quote (or (plist-get plan :id) "")) "[ \t]*$") nil t)
          (unless (re-search-backward "^\\* " nil t) (goto-char (point-min)))
        (goto-char (point-min))
        (forward-line (1- (plist-get plan :line))))
      (let ((start (point)))
        (forward-line 1)
        (if (re-search-forward "^\\* " nil t)
            (goto-char (match-beginning 0))
          (goto-char (point-max)))
        (buffer-substring-no-properties start (point))))))

(defun pp-lsp-plans-diff ()
  "Show the plan of the line: its verdict and gate trace, then the plan itself."
  (interactive)
  (pp-lsp--show-plan (pp-lsp--plan-here)))

(defun pp-lsp--hover-text (hover)
  "Return the text of the HOVER the server answered."
  (let ((contents (plist-get hover :contents)))
    (if (stringp contents) contents (or (plist-get contents :value) ""))))

(defun pp-lsp--plan-hover-params (plan)
  "Return the hover request's params for PLAN's headline."
  (list :textDocument (list :uri (plist-get plan :uri))
        :position (list :line (1- (plist-get plan :line)) :character 0)))

(defun pp-lsp--show-plan (plan &optional note)
  "Show PLAN in the plan view, with NOTE above it; return the buffer."
  (let* ((text (pp-lsp--hover-text
                (pp-lsp--plans-request :textDocument/hover (pp-lsp--plan-hover-params plan))))
         (plan-text (pp-lsp--plan-text plan))
         (server (pp-lsp--server))
         (buffer (get-buffer-create pp-lsp-plan-view-buffer)))
    (with-current-buffer buffer
      (let ((line (and (eq (current-buffer) (window-buffer)) (line-number-at-pos))))
        (pp-lsp--render-plan-view plan text plan-text server note)
        (when (and line (not note)) (forward-line (1- line)))))
    (display-buffer buffer)
    (pp-lsp--follow-plans-file plan)
    buffer))

(defun pp-lsp--render-plan-view (plan text plan-text server &optional note)
  "Fill the plan view with PLAN: its hover TEXT, then PLAN-TEXT; NOTE above.
SERVER is the one the plan came from.  Point goes to the top."
  (let ((inhibit-read-only t))
    (erase-buffer)
    (when note (insert (propertize note 'face 'warning) "\n\n"))
    (insert text "\n\n" plan-text)
    (goto-char (point-min))
    (pp-lsp-plan-view-mode)
    (setq pp-lsp--viewed-plan plan
          pp-lsp--viewed-text plan-text
          pp-lsp--viewed-hover text
          pp-lsp--origin-server server)
    (pp-lsp--show-zero-width)
    (pp-lsp--show-json-escapes (point-min) (point-max))))

;;; The plans shown follow flightplans.org.

(defcustom pp-lsp-plan-settle-seconds 1.5
  "Seconds a plan shown again by itself must stay shown before a key acts.
When flightplans.org changes, the plans list and the plan view show it
as it is now; a key pressed within these seconds of that (before you
could have read it) does nothing and says so."
  :type 'number)

(defface pp-lsp-decoded-escape '((t :inherit font-lock-constant-face :underline t))
  "A JSON escape of a plan's action, shown as the character it stands for.")

(defun pp-lsp--show-json-escapes (start end)
  "Show each \\uXXXX of the JSON blocks between START and END as its character.
pp-lsp writes a marker that would run code when the file is opened
\(\"Local Variables:\", \"elisp:\") inside a plan's JSON with one
character escaped (\"Local Variables\\u003a\"): it decodes the same, so
the action approved is the one filed.  Shown, the escape reads as the
character, underlined, and says what is written (`help-echo'); the text
is unchanged.  Only a printable ASCII character other than \" and \\ is
shown so: one that could hide the JSON's own quoting, or a control or
invisible character, stays as it is written."
  (save-excursion
    (save-match-data
      (with-silent-modifications
        (goto-char start)
        (while (re-search-forward "^[ \t]*\\(?:#\\+begin_src[ \t]+json\\|```json\\)[ \t]*$" end t)
          (let ((block-end (save-excursion
                             (if (re-search-forward "^[ \t]*\\(?:#\\+end_src\\|```\\)[ \t]*$" end t)
                                 (match-beginning 0)
                               end))))
            (while (re-search-forward "\\(\\\\+\\)u\\([0-9a-fA-F]\\{4\\}\\)" block-end t)
              (let ((code (string-to-number (match-string 2) 16))
                    (escape (- (match-end 1) 1)))
                ;; An odd run of backslashes ends in an escape; an even
                ;; one is backslashes written, then a plain "u".
                (when (and (cl-oddp (- (match-end 1) (match-beginning 1)))
                           (<= #x20 code #x7e) (not (memq code '(?\" ?\\))))
                  (put-text-property escape (match-end 0) 'display
                                     (propertize (string code) 'face 'pp-lsp-decoded-escape))
                  (put-text-property escape (match-end 0) 'help-echo
                                     (format "written %s (JSON decodes it as %c)"
                                             (buffer-substring-no-properties escape (match-end 0))
                                             code)))))
            (goto-char block-end)))))))

(defvar pp-lsp--plans-file-watches (make-hash-table :test #'equal)
  "Folders of flightplans.org watched for the plans shown, to their watches.")

(defvar pp-lsp--plans-refresh-timers nil
  "The timers that will show the plans again after flightplans.org changed.")

(defun pp-lsp--plan-buffers ()
  "Return the live plans list and plan view."
  (seq-filter #'buffer-live-p
              (list (get-buffer pp-lsp-plans-buffer) (get-buffer pp-lsp-plan-view-buffer))))

(defun pp-lsp--follow-plans-file (plan)
  "Watch the flightplans.org of PLAN, so the plans shown follow it.
Another editor, a sync or pp-lsp itself may rewrite it (most programs
save by renaming a new file over the old); then the plans list and the
plan view show it as it is now.  Without file notifications (a remote
folder), the server's own writes still do (`passepartout/reload')."
  (when-let* ((uri (plist-get plan :uri))
              (file (eglot--uri-to-path uri))
              (dir (file-name-directory file)))
    (unless (gethash dir pp-lsp--plans-file-watches)
      (when-let ((watch (ignore-errors
                          (file-notify-add-watch
                           dir '(change)
                           (lambda (event) (pp-lsp--plans-file-event file event))))))
        (puthash dir watch pp-lsp--plans-file-watches)))))

(defun pp-lsp--plans-file-event (file event)
  "Show the plans again if EVENT, in FILE's folder, changed FILE."
  (pcase-let ((`(,_desc ,action ,f ,f1) event))
    (cond
     ((null (pp-lsp--plan-buffers))
      ;; Nothing shows a plan any more: the watches go.
      (maphash (lambda (_ w) (ignore-errors (file-notify-rm-watch w))) pp-lsp--plans-file-watches)
      (clrhash pp-lsp--plans-file-watches))
     ((and (memq action '(created changed deleted renamed))
           ;; The watch is on FILE's folder: its name is enough.
           (member (file-name-nondirectory file)
                   (list (and (stringp f) (file-name-nondirectory f))
                         (and (stringp f1) (file-name-nondirectory f1)))))
      ;; Told now, the server reads it at once, not at its next rescan.
      (cl-dolist (b (pp-lsp--plan-buffers))
        (let ((server (buffer-local-value 'pp-lsp--origin-server b)))
          (when (and server (jsonrpc-running-p server))
            (jsonrpc-notify server :workspace/didChangeWatchedFiles
                            (list :changes (vector (list :uri (eglot--path-to-uri file)
                                                         :type (if (file-exists-p file) 2 3)))))
            (cl-return))))
      (pp-lsp--plans-changed-soon)))))

(defun pp-lsp--plans-changed-soon ()
  "Show the plans again in a moment, and once more a little later.
The second look catches a server that read the file late."
  (mapc #'cancel-timer pp-lsp--plans-refresh-timers)
  (setq pp-lsp--plans-refresh-timers
        (list (run-with-timer 0.3 nil #'pp-lsp--refresh-plan-buffers)
              (run-with-timer 2 nil #'pp-lsp--refresh-plan-buffers))))

(defun pp-lsp--refresh-plan-buffers ()
  "Ask the server for the plans, and show them as they are now.
Asynchronous: Emacs never waits for it.  The list and the view keep
their windows, their points and which window is selected."
  (dolist (b (pp-lsp--plan-buffers))
    (let ((server (buffer-local-value 'pp-lsp--origin-server b)))
      (when (and server (jsonrpc-running-p server))
        (jsonrpc-async-request
         server :workspace/executeCommand
         (list :command "passepartout.plans" :arguments (vector eglot--{}))
         :success-fn (lambda (plans) (pp-lsp--plans-arrived b server plans))
         :error-fn #'ignore
         :timeout-fn #'ignore
         :timeout 10)))))

(defun pp-lsp--keeping-places (buffer fill)
  "Call FILL in BUFFER, which fills it anew; its windows keep their places.
Each window showing BUFFER keeps the line and column of its point and
the line at its top; so does the buffer's own point."
  (let* ((where (lambda (pos)
                  (save-excursion (goto-char pos) (cons (line-number-at-pos) (current-column)))))
         (places (with-current-buffer buffer
                   (mapcar (lambda (w) (list w (funcall where (window-point w))
                                             (line-number-at-pos (window-start w))))
                           (get-buffer-window-list buffer nil t))))
         (here (with-current-buffer buffer (funcall where (point))))
         (back (lambda (place)
                 (goto-char (point-min))
                 (forward-line (1- (car place)))
                 (move-to-column (cdr place))
                 (point))))
    (with-current-buffer buffer
      (funcall fill)
      (funcall back here)
      (dolist (p places)
        (let ((w (nth 0 p)))
          (set-window-start w (save-excursion (goto-char (point-min))
                                              (forward-line (1- (nth 2 p)))
                                              (point))
                            t)
          (set-window-point w (save-excursion (funcall back (nth 1 p)))))))))

(defun pp-lsp--plans-arrived (buffer server plans)
  "Show PLANS, from SERVER, in BUFFER (the list or the view) if they changed."
  (when (buffer-live-p buffer)
    (with-current-buffer buffer
      (cond
       ((derived-mode-p 'pp-lsp-plans-mode)
        (let ((now (with-temp-buffer
                     (pp-lsp--render-plans plans)
                     (buffer-string))))
          (if (equal now (buffer-substring-no-properties (point-min) (point-max)))
              ;; The lines read the same (a plan may have moved down the
              ;; file): the plans behind them are the server's now.
              (pp-lsp--keeping-places buffer (lambda () (pp-lsp--render-plans plans)))
            (pp-lsp--keeping-places buffer (lambda () (pp-lsp--render-plans plans)))
            (pp-lsp--changed-by-itself))))
       ((derived-mode-p 'pp-lsp-plan-view-mode)
        (let* ((id (plist-get pp-lsp--viewed-plan :id))
               (plan (seq-find (lambda (p) (equal (plist-get p :id) id)) plans)))
          (if (null plan)
              (unless (equal (plist-get pp-lsp--viewed-plan :state) "GONE")
                (setq pp-lsp--viewed-plan (plist-put (copy-sequence pp-lsp--viewed-plan) :state "GONE"))
                (pp-lsp--changed-by-itself "it is gone from flightplans.org"))
            (jsonrpc-async-request
             server :textDocument/hover (pp-lsp--plan-hover-params plan)
             :success-fn (lambda (hover) (pp-lsp--plan-view-arrived buffer server plan hover))
             :error-fn #'ignore
             :timeout-fn #'ignore
             :timeout 10))))))))

(defun pp-lsp--plan-view-arrived (buffer server plan hover)
  "Show PLAN, from SERVER, with its HOVER in the plan view BUFFER if it changed."
  (when (buffer-live-p buffer)
    (with-current-buffer buffer
      (when (equal (plist-get plan :id) (plist-get pp-lsp--viewed-plan :id))
        (let ((text (pp-lsp--hover-text hover))
              (plan-text (pp-lsp--plan-text plan)))
          (if (and (equal plan-text pp-lsp--viewed-text) (equal text pp-lsp--viewed-hover))
              ;; What is shown is still so (the plan may have moved down
              ;; the file): nothing to look at again.
              (setq pp-lsp--viewed-plan plan)
            (pp-lsp--keeping-places
             buffer (lambda () (pp-lsp--render-plan-view plan text plan-text server)))
            (pp-lsp--changed-by-itself)))))))

(defun pp-lsp--changed-by-itself (&optional why)
  "Note that the current plans buffer changed by itself, saying WHY if given.
Its header line says when; its keys wait `pp-lsp-plan-settle-seconds'."
  (setq pp-lsp--refreshed-at (float-time))
  (let ((words (format "%s %s: shown as it is now"
                       (if why (concat "flightplans.org changed (" why ")") "flightplans.org changed")
                       (format-time-string "%H:%M:%S"))))
    (if (derived-mode-p 'pp-lsp-plan-view-mode)
        (setq header-line-format
              (concat (propertize words 'face 'warning) "  "
                      (substitute-command-keys
                       "\\<pp-lsp-plan-view-mode-map>\\[pp-lsp-plans-approve] approve  \\[pp-lsp-plans-reject] reject  \\[quit-window] quit")))
      (setq header-line-format (propertize words 'face 'warning))))
  (force-mode-line-update))

(defun pp-lsp--settling ()
  "Return non-nil if this plans buffer changed by itself too recently to act."
  (and pp-lsp--refreshed-at
       (< (- (float-time) pp-lsp--refreshed-at) pp-lsp-plan-settle-seconds)))

;;;###autoload
(defun pp-lsp-skills ()
  "List the skills of the memex, in the order they apply.
The skills not used follow, each with why."
  (interactive)
  (let ((skills (pp-lsp--command "passepartout.skills" eglot--{}))
        (buffer (get-buffer-create "*Passepartout skills*")))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (erase-buffer)
        (if (seq-empty-p skills)
            (insert "No skills: tag a headline :skill: to write one.\n")
          (seq-doseq (k skills)
            (insert (format "%-5s %4s  %s  (%s; trigger %s)\n"
                            (plist-get k :state) (plist-get k :priority) (plist-get k :title)
                            (if (eq (plist-get k :builtin) t) "built in"
                              (format "%s:%s" (plist-get k :file) (plist-get k :line)))
                            (plist-get k :trigger)))
            (let ((problem (plist-get k :problem)))
              (unless (or (null problem) (equal problem ""))
                (insert (format "      %s\n" problem))))))
        (pp-lsp-bidi-shown-mode 1)
        (setq buffer-read-only t)))
    (display-buffer buffer)
    skills))

;;;###autoload
(defun pp-lsp-run-skill (name)
  "Run the skill NAME (its title or ID) now, as its schedule would.
Its writes wait as Flight Plans; its SCHEDULED: stays as it is."
  (interactive
   (list (completing-read "Run skill: "
                          (seq-map (lambda (k) (plist-get k :title))
                                   (pp-lsp--command "passepartout.skills" eglot--{}))
                          nil t)))
  (let ((answer (pp-lsp--command "passepartout.runSkill" (list :name name))))
    (message "pp-lsp: %s: %s" (plist-get answer :skill) (plist-get answer :summary))
    answer))

;;;###autoload
(defun pp-lsp-chats ()
  "List the conversations, the latest asked first, and visit the one picked.
Asking with `pp-lsp-ask' from inside it continues it."
  (interactive)
  (let* ((chats (pp-lsp--command "passepartout.chats" eglot--{}))
         (choices (mapcar (lambda (c)
                            (cons (format "%s  (%s turns, %s%s)" (plist-get c :title)
                                          (plist-get c :turns) (or (plist-get c :last) "none")
                                          (if (eq (plist-get c :private) t) ", private" ""))
                                  (eglot--uri-to-path (plist-get c :uri))))
                          chats)))
    (if (null choices)
        (message "pp-lsp: no conversations yet; `pp-lsp-ask' starts one")
      (when (called-interactively-p 'any)
        (find-file (cdr (assoc (completing-read "Conversation: " choices nil t) choices)))))
    chats))

;;;###autoload
(defun pp-lsp-add-id ()
  "Give the headline at point (or the file, before the first headline) an :ID:."
  (interactive)
  (let ((answer (pp-lsp--command "passepartout.addId" (pp-lsp--place))))
    (message "pp-lsp: :ID: %s" (plist-get answer :id))
    (plist-get answer :id)))

;;; Notes: backlinks, unlinked references, daily notes, code lenses.

(defvar pp-lsp-backlinks-buffer "*pp-lsp backlinks*"
  "The name of the backlinks buffer.")

(defvar-local pp-lsp--backlinks-source nil
  "In the backlinks buffer: (BUFFER . POSITION) of the node it shows.")

(defvar pp-lsp-backlinks-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "RET") #'pp-lsp-backlinks-visit)
    (define-key map (kbd "n") #'forward-button)
    (define-key map (kbd "p") #'backward-button)
    (define-key map (kbd "g") #'pp-lsp-backlinks-refresh)
    map)
  "Keys of the backlinks buffer.")

(define-derived-mode pp-lsp-backlinks-mode special-mode "pp-lsp-backlinks"
  "The backlinks and unlinked references of a node, as org-roam shows them.
To link an unlinked reference, visit it (RET) and run
`eglot-code-actions' there (\"Link this mention\").
\\{pp-lsp-backlinks-mode-map}"
  (visual-line-mode 1))

(defun pp-lsp--visit-location (uri range)
  "Visit URI at the start of the LSP RANGE."
  (let ((file (eglot--uri-to-path uri)))
    (select-window (or (get-buffer-window (find-buffer-visiting file))
                       (let ((w (window-in-direction 'left)))
                         (and w (not (window-dedicated-p w)) w))
                       (get-mru-window nil nil t)
                       (selected-window)))
    (find-file file)
    (goto-char (eglot--lsp-position-to-point (plist-get range :start)))
    (when (derived-mode-p 'org-mode) (org-show-context))))

(defun pp-lsp-backlinks-visit ()
  "Visit the link or mention at point in the backlinks buffer."
  (interactive)
  (let ((button (button-at (point))))
    (unless button (user-error "No link here"))
    (button-activate button)))

(defun pp-lsp--node-place ()
  "Return where the node at point begins: its headline, or the file's start."
  (save-excursion
    (if (org-before-first-heading-p) (point-min) (org-back-to-heading t) (point))))

(defun pp-lsp--node-title ()
  "Return the title of the node at point, for the backlinks header."
  (save-excursion
    (if (org-before-first-heading-p)
        (or (cadr (assoc "TITLE" (org-collect-keywords '("TITLE"))))
            (file-name-base (or buffer-file-name (buffer-name))))
      (org-back-to-heading t)
      (org-get-heading t t t t))))

(defun pp-lsp--insert-entry (uri range label context)
  "Insert one entry: LABEL, a button to URI at RANGE, and its CONTEXT."
  (insert-text-button label
                      'action (lambda (_) (pp-lsp--visit-location uri range))
                      'follow-link t
                      'help-echo "RET: visit")
  (insert (format "  %s:%d\n"
                  (file-name-nondirectory (eglot--uri-to-path uri))
                  (1+ (plist-get (plist-get range :start) :line))))
  (insert "    " (propertize context 'face 'shadow) "\n"))

(defun pp-lsp--render-backlinks (title backlinks unlinked)
  "Fill the backlinks buffer: TITLE's BACKLINKS, then its UNLINKED mentions."
  (let ((inhibit-read-only t))
    (erase-buffer)
    (insert (propertize (format "%s\n\n" title) 'face 'bold))
    (insert (propertize (format "Backlinks (%d)\n" (length backlinks)) 'face 'org-level-1))
    (if (seq-empty-p backlinks)
        (insert "  none\n")
      (seq-doseq (b backlinks)
        (pp-lsp--insert-entry (plist-get b :uri) (plist-get b :range)
                              (plist-get b :title) (plist-get b :context))))
    (insert "\n" (propertize (format "Unlinked references (%d)\n" (length unlinked)) 'face 'org-level-1))
    (if (seq-empty-p unlinked)
        (insert "  none\n")
      (seq-doseq (m unlinked)
        (pp-lsp--insert-entry (plist-get m :uri) (plist-get m :range)
                              (or (plist-get m :title) "mention") (plist-get m :context))))
    (goto-char (point-min))))

;;;###autoload
(defun pp-lsp-backlinks ()
  "Show the backlinks and unlinked references of the node at point.
The side window follows point from node to node, as org-roam's buffer
does; RET on an entry visits it."
  (interactive)
  (let* ((args (pp-lsp--place))
         (backlinks (pp-lsp--command "passepartout.backlinks" args))
         (unlinked (pp-lsp--command "passepartout.unlinked" args))
         (title (pp-lsp--node-title))
         (source (cons (current-buffer) (pp-lsp--node-place)))
         (buffer (get-buffer-create pp-lsp-backlinks-buffer)))
    (with-current-buffer buffer
      (pp-lsp-backlinks-mode)
      (pp-lsp-bidi-shown-mode 1)
      (setq pp-lsp--backlinks-source source)
      (pp-lsp--render-backlinks title backlinks unlinked))
    (add-hook 'post-command-hook #'pp-lsp--backlinks-follow)
    (display-buffer buffer `(display-buffer-in-side-window
                             (side . right)
                             (window-width . ,pp-lsp-backlinks-window-width)))
    (list :backlinks backlinks :unlinked unlinked)))

(defun pp-lsp-backlinks-refresh ()
  "Ask again for the backlinks of the node this buffer is about."
  (interactive)
  (let ((source pp-lsp--backlinks-source))
    (when (and source (buffer-live-p (car source)))
      (with-current-buffer (car source)
        (save-excursion
          (goto-char (cdr source))
          (pp-lsp-backlinks))))))

(defvar pp-lsp--follow-timer nil
  "The idle timer that refreshes the backlinks window after point moved.")

(defun pp-lsp--backlinks-follow ()
  "After a command: refresh the backlinks window if point is on another node."
  (when (and (get-buffer-window pp-lsp-backlinks-buffer)
             (derived-mode-p 'org-mode)
             (ignore-errors (pp-lsp--server)))
    (let ((source (buffer-local-value 'pp-lsp--backlinks-source
                                      (get-buffer pp-lsp-backlinks-buffer)))
          (here (cons (current-buffer) (pp-lsp--node-place))))
      (unless (equal source here)
        (when (timerp pp-lsp--follow-timer) (cancel-timer pp-lsp--follow-timer))
        (setq pp-lsp--follow-timer
              (run-with-idle-timer
               0.3 nil
               (lambda (buffer)
                 (when (and (buffer-live-p buffer) (eq buffer (window-buffer (selected-window))))
                   (with-current-buffer buffer
                     (ignore-errors (pp-lsp-backlinks)))))
               (current-buffer)))))))

;;;###autoload
(defun pp-lsp-daily (&optional date)
  "Visit the daily note of DATE (YYYY-MM-DD; today when nil).
It is daily/DATE.org under the first memex root, made when missing with
a #+title: and an :ID:.  With a prefix argument, ask for the day."
  (interactive (list (and current-prefix-arg
                          (read-string "Day (YYYY-MM-DD, yesterday, tomorrow): "))))
  (let* ((answer (pp-lsp--command "passepartout.daily"
                                  (if date (list :date date) eglot--{})))
         (file (eglot--uri-to-path (plist-get answer :uri))))
    (find-file file)
    file))

;;;###autoload
(defun pp-lsp-create-node ()
  "Make the Org file the [[file:…]] link at point names, and visit it.
Never over a file that exists."
  (interactive)
  (let* ((answer (pp-lsp--command "passepartout.createNode" (pp-lsp--place)))
         (file (eglot--uri-to-path (plist-get answer :uri))))
    (find-file file)
    file))

(defvar-local pp-lsp--lens-overlays nil
  "The code lens overlays of this buffer.")

(defvar-local pp-lsp--lens-timer nil
  "The idle timer that asks for code lenses again after a change.")

(defun pp-lsp--clear-lenses ()
  "Remove the code lenses of this buffer."
  (mapc #'delete-overlay pp-lsp--lens-overlays)
  (setq pp-lsp--lens-overlays nil))

(defun pp-lsp-backlinks-at-mouse (event)
  "Show the backlinks of the node whose code lens EVENT clicked."
  (interactive "e")
  (mouse-set-point event)
  (pp-lsp-backlinks))

(defvar pp-lsp--lens-map
  (let ((map (make-sparse-keymap)))
    (define-key map [mouse-1] #'pp-lsp-backlinks-at-mouse)
    map)
  "The keys of a code lens.")

(defun pp-lsp--lens-string (lens)
  "Return the text of LENS: a line, clickable to open the backlinks."
  (concat (propertize (plist-get (plist-get lens :command) :title)
                      'face 'shadow 'mouse-face 'highlight 'keymap pp-lsp--lens-map
                      'help-echo "mouse-1: the backlinks")
          "\n"))

(defun pp-lsp-show-code-lenses ()
  "Ask the server for this buffer's code lenses and show them."
  (when (and pp-lsp-code-lenses (ignore-errors (pp-lsp--server)))
    (let ((buffer (current-buffer)))
      (jsonrpc-async-request
       (pp-lsp--server) :textDocument/codeLens
       (list :textDocument (eglot--TextDocumentIdentifier))
       :success-fn
       (lambda (lenses)
         (when (buffer-live-p buffer)
           (with-current-buffer buffer
             (pp-lsp--clear-lenses)
             (seq-doseq (lens lenses)
               (let* ((pos (eglot--lsp-position-to-point
                            (plist-get (plist-get lens :range) :start)))
                      (ov (make-overlay pos pos nil t nil)))
                 (overlay-put ov 'pp-lsp-lens t)
                 (overlay-put ov 'before-string (pp-lsp--lens-string lens))
                 (push ov pp-lsp--lens-overlays))))))
       :error-fn #'ignore
       :deferred :textDocument/codeLens))))

(defun pp-lsp--lenses-after-change (&rest _)
  "Ask for the code lenses again once typing pauses."
  (when (timerp pp-lsp--lens-timer) (cancel-timer pp-lsp--lens-timer))
  (setq pp-lsp--lens-timer
        (run-with-idle-timer 0.7 nil
                             (lambda (buffer)
                               (when (buffer-live-p buffer)
                                 (with-current-buffer buffer (pp-lsp-show-code-lenses))))
                             (current-buffer))))

(defun pp-lsp--managed ()
  "Set up an Org buffer pp-lsp manages: code lenses, bidi controls shown."
  (if (and (bound-and-true-p eglot--managed-mode)
           (cl-typep (eglot-current-server) 'pp-lsp-server))
      (progn
        (add-hook 'after-change-functions #'pp-lsp--lenses-after-change nil t)
        ;; What pp-lsp wrote: the plans, the conversations.
        (when (and buffer-file-name
                   (or (equal (file-name-nondirectory buffer-file-name) "flightplans.org")
                       (equal (file-name-nondirectory (directory-file-name (file-name-directory buffer-file-name)))
                              "chats")))
          (setq pp-lsp--shown-marks pp-lsp--invisible-marks)
          (pp-lsp--show-link-targets))
        (pp-lsp-bidi-shown-mode 1)
        (pp-lsp-show-code-lenses))
    (remove-hook 'after-change-functions #'pp-lsp--lenses-after-change t)
    (pp-lsp-bidi-shown-mode -1)
    (pp-lsp--clear-lenses)))

(add-hook 'eglot-managed-mode-hook #'pp-lsp--managed)

;;; Org's own imenu.

(defcustom pp-lsp-org-imenu t
  "Whether Org buffers keep Org's own imenu, the outline as Org reads it.
When nil, eglot's imenu (the server's document symbols, by LSP kind)
replaces it."
  :type 'boolean)

(defun pp-lsp--keep-org-imenu ()
  "Keep Org's own imenu in an Org buffer: eglot stays out of it."
  (when (and pp-lsp-org-imenu (derived-mode-p 'org-mode))
    (unless (memq 'imenu eglot-stay-out-of)
      (setq-local eglot-stay-out-of (cons 'imenu eglot-stay-out-of)))
    (when (bound-and-true-p eglot--managed-mode)
      (remove-function (local 'imenu-create-index-function) #'eglot-imenu))))

(add-hook 'org-mode-hook #'pp-lsp--keep-org-imenu)
(add-hook 'eglot-managed-mode-hook #'pp-lsp--keep-org-imenu)

;;;###autoload
(defun pp-lsp-rename-file (new-name)
  "Rename the visited Org file to NEW-NAME, keeping every file: link working.
The server answers the edits of the links to it (and of its own relative
links) as it does an editor's workspace/willRenameFiles; they are
applied and saved, then the file is renamed."
  (interactive (list (read-file-name "Rename to: " nil buffer-file-name)))
  (let* ((old (or buffer-file-name (user-error "This buffer visits no file")))
         (new (expand-file-name new-name))
         (server (pp-lsp--server)))
    (when (file-directory-p new)
      (setq new (expand-file-name (file-name-nondirectory old) new)))
    (when (file-exists-p new) (user-error "%s exists already" new))
    (let ((edit (jsonrpc-request server :workspace/willRenameFiles
                                 (list :files (vector (list :oldUri (eglot--path-to-uri old)
                                                            :newUri (eglot--path-to-uri new)))))))
      (when edit
        (eglot--apply-workspace-edit edit)
        ;; The edited files are saved: the rename must not leave links
        ;; fixed only in buffers.
        (dolist (b (buffer-list))
          (with-current-buffer b
            (when (and buffer-file-name (buffer-modified-p)
                       (string-suffix-p ".org" buffer-file-name))
              (save-buffer))))))
    (make-directory (file-name-directory new) t)
    (rename-file old new)
    (set-visited-file-name new t t)
    new))

;;; Answers: they stay in the answer buffer; inserted only where asked.

;;;###autoload
(defun pp-lsp-insert-answer ()
  "Insert the last answer below the line of point, as a quote block.
An answer is never written into a note otherwise: it stays in the
*Passepartout* buffer until you put it where you want it."
  (interactive)
  (let* ((eglot-confirm-server-initiated-edits nil) ; you asked for this edit
         (answer (pp-lsp--command "passepartout.insertAnswer" (pp-lsp--place))))
    (message "pp-lsp: the answer is on lines %d-%d"
             (1+ (plist-get answer :line)) (1+ (plist-get answer :endLine)))
    answer))

(provide 'pp-lsp)
;;; pp-lsp.el ends here
