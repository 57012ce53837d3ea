package gates

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// maxLinkScan bounds the entries looked at, in the roots, pp-lsp's own
// folders and the credential stores, to tell whether a file with another
// name is one of their files: past it, such a file is taken for a
// protected place's.
const maxLinkScan = 20000

// protLinks are the files of the protected places and credential stores
// that have another name, by device and inode, as one check found them:
// every file protectedRel names in the roots (.envrc, .git/…, .vscode/…,
// flightplans.org, journal.org, at any depth), every file of pp-lsp's own
// folders, of the home's credential stores and of the system's. A file
// whose link count is one has no other name, so only the others are kept.
type protLinks struct {
	linkScan
	files map[[2]uint64]protLink
	// inRoots counts the names in the roots of each file with another
	// name: one with fewer than its link count has a name outside them.
	inRoots map[[2]uint64]uint64
}

type protLink struct {
	class pathClass
	why   string
}

// protectedLinkOf says whether the file (dev, ino), which has nlink
// names, is a protected place's file or a credential under another name,
// or has a name outside the roots (a user's ~/.bashrc linked into the
// notes: a write through it writes there). The places are walked once
// per check, on the first such file.
func (e *Env) protectedLinkOf(dev, ino, nlink uint64) (pathClass, string, bool) {
	var links *protLinks
	if e.check != nil {
		links = &e.check.protLinks
	} else {
		links = &protLinks{}
	}
	if !links.walked {
		links.walk(e)
	}
	if f, ok := links.files[[2]uint64{dev, ino}]; ok {
		return f.class, f.why, true
	}
	if links.overflow {
		return pathProtected, "a file with another name (a hard link), in roots or credential stores too large to tell that it is not a protected file's", true
	}
	if links.inRoots[[2]uint64{dev, ino}] < nlink {
		return pathOutside, "a second name (hard link) of a file outside the roots", true
	}
	return 0, "", false
}

func (c *protLinks) walk(e *Env) {
	c.walked = true
	for _, r := range e.roots {
		c.tree(r, func(p string, de fs.DirEntry) bool {
			rel := strings.TrimPrefix(p[len(r):], "/")
			if de.IsDir() {
				// A repository's objects are content-addressed data, not
				// code or settings, and the bulk of a .git folder.
				if strings.EqualFold(de.Name(), "objects") {
					if _, ok := protectedRel(rel); ok {
						return false
					}
				}
				return true
			}
			if why, ok := protectedRel(rel); ok {
				c.add(de, pathProtected, "a second name (hard link) of "+why)
			}
			c.count(de)
			return true
		})
	}
	for _, own := range e.own {
		c.tree(strings.TrimSuffix(own, "/"), func(p string, de fs.DirEntry) bool {
			if !de.IsDir() {
				c.add(de, pathCredential, "a second name (hard link) of "+p+", one of pp-lsp's own configuration, data, vault or token files")
			}
			return true
		})
	}
	for _, sys := range systemCredentials {
		c.tree(strings.TrimSuffix(sys, "/"), func(p string, de fs.DirEntry) bool {
			if !de.IsDir() {
				c.add(de, pathCredential, "a second name (hard link) of "+p+", a system credential file")
			}
			return true
		})
	}
	for _, h := range e.homes {
		if h == "" || h == "/" {
			continue
		}
		for _, store := range homeCredentials {
			c.tree(filepath.Join(h, store), func(p string, de fs.DirEntry) bool {
				if !de.IsDir() {
					c.add(de, pathCredential, "a second name (hard link) of ~/"+strings.TrimPrefix(p[len(h):], "/")+", a credential store")
				}
				return true
			})
		}
	}
}

// linkScan is one check's walk of folders to find a file's other names:
// whether it ran, and the entries it has looked at (maxLinkScan in all,
// past which every file is taken for one of the folders').
type linkScan struct {
	walked   bool
	overflow bool // more than maxLinkScan entries
	seen     int
}

// tree walks dir (not following symlinks), handing visit each entry below
// it (and dir itself when it is a file); visit returns false to skip a
// folder. The walk stops at maxLinkScan entries in all.
func (c *linkScan) tree(dir string, visit func(p string, de fs.DirEntry) bool) {
	if c.overflow {
		return
	}
	_ = filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if c.seen++; c.seen > maxLinkScan {
			c.overflow = true
			return fs.SkipAll
		}
		if !visit(p, de) && de.IsDir() {
			return fs.SkipDir
		}
		return nil
	})
}

// count counts a name in the roots of a regular file with another name.
func (c *protLinks) count(de fs.DirEntry) {
	k, nlink, ok := regularFile(de)
	if !ok || nlink < 2 {
		return
	}
	if c.inRoots == nil {
		c.inRoots = map[[2]uint64]uint64{}
	}
	c.inRoots[k]++
}

// add keeps a regular file that has another name.
func (c *protLinks) add(de fs.DirEntry, class pathClass, why string) {
	k, nlink, ok := regularFile(de)
	if !ok || nlink < 2 {
		return
	}
	if old, ok := c.files[k]; ok && old.class >= class {
		return
	}
	if c.files == nil {
		c.files = map[[2]uint64]protLink{}
	}
	c.files[k] = protLink{class, why}
}

// protectedBelow says whether a file or folder below the folder abs (a
// canonical path) is a protected place's or a credential, by its path or
// as a second name of one: the first found and why. With follow, a
// symlink below it to a folder is followed (rsync --link-dest looks a
// file up by its path below the folder, through such a link): a link
// that leads to a protected place, a credential or out of the roots is
// one. A folder too large to look through (over maxLinkScan entries in
// all) is taken to hold one.
func (e *Env) protectedBelow(abs string, follow bool) (string, string, bool) {
	var found, why string
	seen := 0
	queue, walked := []string{abs}, map[string]bool{abs: true}
	for len(queue) > 0 && found == "" {
		top := queue[0]
		queue = queue[1:]
		_ = filepath.WalkDir(top, func(p string, de fs.DirEntry, err error) error {
			if err != nil || p == top {
				return nil
			}
			if seen++; seen > maxLinkScan {
				found, why = abs, "there are too many files below it to tell that none is a protected place's or a credential"
				return fs.SkipAll
			}
			if cls, w := e.classify(p); cls == pathProtected || cls == pathCredential {
				found, why = p, w
				return fs.SkipAll
			}
			if follow && de.Type()&fs.ModeSymlink != 0 {
				l := e.locate(p, ".")
				switch {
				case l.class == pathProtected || l.class == pathCredential:
					found, why = p, "a symlink to "+l.abs+": "+l.why
					return fs.SkipAll
				case l.class != pathInside:
					found, why = p, "a symlink out of the roots"
					return fs.SkipAll
				}
				if n := e.view().lstat(l.abs); n.err == nil && n.mode&fs.ModeDir != 0 && !walked[l.abs] {
					walked[l.abs] = true
					queue = append(queue, l.abs)
				}
				return nil
			}
			if !de.Type().IsRegular() {
				return nil
			}
			if n := e.view().lstat(p); n.err == nil && n.nlink > 1 {
				if _, w, ok := e.hardLinkOf(n.dev, n.ino, n.nlink); ok {
					found, why = p, w
					return fs.SkipAll
				}
			}
			return nil
		})
	}
	if found == "" {
		return "", "", false
	}
	if _, rel := e.rootOf(found); rel != "" && rel != "." {
		found = rel
	}
	return found, why, true
}
