#!/bin/sh
# regen.sh: write NAME.json beside every NAME.org here: the blocks, drawers
# and named elements Emacs 28.2 / Org 9.5.5 reads in it (../org-blocks.el).
# TestBlockFixtures compares orgast's File.Blocks and File.Names with these.
set -eu
cd "$(dirname "$0")"
for f in *.org; do
	emacs --batch -Q -l ../org-blocks.el "$f" > "${f%.org}.json" 2>/dev/null
done
