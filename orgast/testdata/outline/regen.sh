#!/bin/sh
# regen.sh: write NAME.json beside every NAME.org here: the outline Emacs
# 28.2 / Org 9.5.5 prints for it (../../../../shared/tools/org-outline.el).
# TestOutlineFixtures compares orgast's output with these byte for byte.
set -eu
cd "$(dirname "$0")"
tool=${ORG_OUTLINE_EL:-../../../../shared/tools/org-outline.el}
for f in *.org; do
	emacs --batch -Q -l "$tool" "$f" > "${f%.org}.json" 2>/dev/null
done
