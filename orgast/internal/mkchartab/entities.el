;;; entities.el --- print the names org-entity-get knows  -*- lexical-binding: t -*-
(require 'org-entities)
(let (names)
  (dolist (e (append org-entities-user org-entities))
    (when (consp e) (push (car e) names)))
  (dolist (n (sort (delete-dups names) #'string<))
    (princ (format "%S\n" n))))
