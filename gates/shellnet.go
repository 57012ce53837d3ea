package gates

import (
	"net/url"
	"path"
	"strings"
)

// network judges a command that reaches another machine.
func (s *shellAnalyzer) network(verb string, args []string) {
	if !s.quiet {
		s.addText(logEgress, verb)
	}
	hostsSeen := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch verb {
		case "curl", "http", "https", "xh":
			switch {
			case a == "-d" || a == "--data" || a == "--data-binary" || a == "--data-raw" || a == "--data-urlencode" || a == "--json" || a == "--data-ascii":
				s.upload(dataFile(next()))
			case strings.HasPrefix(a, "--data") && strings.Contains(a, "="):
				v, _ := optValue(a)
				s.upload(dataFile(v))
			case a == "-F" || a == "--form":
				v := next()
				if _, f, ok := strings.Cut(v, "="); ok && (strings.HasPrefix(f, "@") || strings.HasPrefix(f, "<")) {
					s.upload(strings.SplitN(f[1:], ";", 2)[0])
				}
			case a == "-T" || a == "--upload-file":
				s.upload(next())
			case a == "-o" || a == "--output":
				f := next()
				if f != "-" {
					s.touch(f, opWrite, "curl writes")
					s.markDownload(f)
				}
			case a == "-K" || a == "--config":
				s.touch(next(), opRead, "curl reads its configuration from")
			case a == "-x" || a == "--proxy" || strings.HasPrefix(a, "--socks") || a == "--preproxy" || a == "--connect-to" || a == "--resolve":
				s.host(verb, next())
			case a == "-O" || a == "--remote-name":
				for _, u := range args {
					if strings.Contains(u, "://") {
						s.markDownload(path.Base(u))
					}
				}
			case a == "-u" || a == "--user" || a == "-H" || a == "--header" || a == "-A" || a == "-e" || a == "-X" || a == "--request" || a == "-w" || a == "-b" || a == "-c" || a == "--cacert" || a == "-E" || a == "--cert" || a == "--key":
				v := next()
				if a == "-b" || a == "-c" || a == "--cacert" || a == "-E" || a == "--cert" || a == "--key" {
					if pathLike(v) {
						s.touch(v, opRead, "curl reads")
					}
				}
			case strings.HasPrefix(a, "-"):
			default:
				s.url(verb, a)
				hostsSeen++
			}
		case "wget", "aria2c", "lynx", "w3m", "links":
			switch {
			case strings.HasPrefix(a, "--post-file=") || strings.HasPrefix(a, "--body-file="):
				v, _ := optValue(a)
				s.upload(v)
			case a == "--post-file" || a == "--body-file":
				s.upload(next())
			case a == "-O" || a == "--output-document":
				f := next()
				if f != "-" {
					s.touch(f, opWrite, "wget writes")
					s.markDownload(f)
				}
			case strings.HasPrefix(a, "--output-document="):
				f, _ := optValue(a)
				s.touch(f, opWrite, "wget writes")
				s.markDownload(f)
			case a == "-P" || a == "--directory-prefix":
				s.touch(next(), opWrite, "wget writes into")
			case a == "-o" || a == "-a" || a == "--output-file" || a == "-i" || a == "--input-file" || a == "-e":
				v := next()
				if a == "-e" {
					s.ask("wget -e runs a wgetrc command")
				} else if a == "-i" || a == "--input-file" {
					s.touch(v, opRead, "wget reads")
				} else {
					s.touch(v, opWrite, "wget writes")
				}
			case strings.HasPrefix(a, "-"):
			default:
				s.url(verb, a)
				s.markDownload(path.Base(a))
				hostsSeen++
			}
		case "nc", "ncat", "netcat":
			switch {
			case a == "-e" || a == "-c" || a == "--exec" || a == "--sh-exec" || a == "--lua-exec" || strings.HasPrefix(a, "--exec=") || strings.HasPrefix(a, "--sh-exec="):
				s.deny("%s %s hands a shell to the other end (a reverse shell)", verb, a)
				next()
			case a == "-l" || a == "--listen" || strings.HasPrefix(a, "-l") && !strings.HasPrefix(a, "--"):
				s.ask("%s listens for connections", verb)
			case strings.HasPrefix(a, "-"):
			default:
				if hostsSeen == 0 && !isDigits(a) {
					s.host(verb, a)
					hostsSeen++
				}
			}
		case "socat":
			up := strings.ToUpper(a)
			if strings.HasPrefix(up, "EXEC:") || strings.HasPrefix(up, "SYSTEM:") || strings.Contains(up, ",EXEC") {
				s.deny("socat %s runs a program for the other end (a reverse shell)", a)
			}
			if strings.HasPrefix(up, "TCP") || strings.HasPrefix(up, "UDP") || strings.HasPrefix(up, "OPENSSL") {
				if _, rest, ok := strings.Cut(a, ":"); ok {
					h, _, _ := strings.Cut(rest, ":")
					s.host(verb, h)
				}
			}
		case "ssh", "mosh":
			switch {
			case a == "-i" || a == "-F" || a == "-o" || a == "-p" || a == "-l" || a == "-J" || a == "-b" || a == "-c" || a == "-E" || a == "-W" || a == "-S" || a == "-m" || a == "-Q" || a == "-O" || a == "-B" || a == "-e":
				v := next()
				if a == "-o" && strings.Contains(strings.ToLower(v), "command") {
					s.ask("ssh -o %s runs a local command", v)
				}
			case a == "-R" || a == "-L" || a == "-D":
				next()
				s.ask("ssh %s opens a tunnel", a)
			case strings.HasPrefix(a, "-"):
			default:
				if hostsSeen == 0 {
					h := a
					if _, after, ok := strings.Cut(h, "@"); ok {
						h = after
					}
					s.host(verb, h)
					hostsSeen++
				} else {
					s.ask("runs a command on another machine over ssh")
					i = len(args)
				}
			}
		case "scp", "sftp", "rsync":
			if i := strings.IndexByte(a, ':'); i > 0 && !strings.HasPrefix(a, "-") {
				h := a[:i]
				if _, after, ok := strings.Cut(h, "@"); ok {
					h = after
				}
				s.host(verb, h)
			}
		case "dig", "nslookup", "host", "drill", "ping", "traceroute":
			if strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+") || strings.HasPrefix(a, "@") {
				continue
			}
			if strings.Contains(a, dynMarker) {
				s.ask("%s looks up a name built when it runs (DNS can carry data out)", verb)
			} else {
				s.host(verb, a)
			}
		default:
			if strings.Contains(a, "://") {
				s.url(verb, a)
			} else if !strings.HasPrefix(a, "-") && strings.Contains(a, ".") && !pathLike(a) {
				s.host(verb, a)
			}
		}
	}
	s.ask("%s reaches another machine", verb)
}

// dataFile returns the file of a curl @file data argument, or "".
func dataFile(v string) string {
	if strings.HasPrefix(v, "@") {
		return v[1:]
	}
	return ""
}

func (s *shellAnalyzer) upload(file string) {
	if file == "" || file == "-" {
		return
	}
	if strings.Contains(file, dynMarker) {
		s.deny("uploads a file named only when it runs; cannot prove it is not a secret")
		return
	}
	l := s.env.locateFrom(file, s.cwd)
	switch l.class {
	case pathCredential:
		s.deny("uploads %s: %s", file, l.why)
	case pathDynamic:
		s.deny("uploads %s, a file named only when it runs", file)
	case pathOutside:
		s.deny("uploads %s, a file outside the roots", file)
	default:
		s.ask("uploads %s to another machine", file)
	}
}

func (s *shellAnalyzer) markDownload(f string) {
	if f == "" || strings.Contains(f, dynMarker) {
		return
	}
	s.addDownload(s.env.locateFrom(f, s.cwd).abs)
}

// url judges one URL a network command contacts.
func (s *shellAnalyzer) url(verb, raw string) {
	if strings.Contains(raw, dynMarker) {
		s.ask("%s contacts an address known only when it runs", verb)
		return
	}
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	for _, d := range s.env.urlDenies(raw) {
		s.deny("%s: %s", verb, d)
	}
	if u, err := url.Parse(raw); err == nil {
		s.host(verb, u.Hostname())
	}
}

func (s *shellAnalyzer) host(verb, h string) {
	if h == "" {
		return
	}
	if strings.Contains(h, dynMarker) {
		s.ask("%s contacts a host known only when it runs", verb)
		return
	}
	if why, bad := badHost(h); bad {
		s.deny("%s contacts %s: %s", verb, h, why)
	}
}
