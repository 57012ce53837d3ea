package gates

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Resource abuse: a command that fills the disk (an endless stream written
// to a file, a multi-gigabyte allocation) is refused; fork bombs and
// endless loops are refused by the shell analysis itself. The sandbox
// bounds CPU time, file size and process count as well; the gates refuse
// what would only ever hit those bounds.

// maxWriteBytes is the most one command may set out to write to a file.
const maxWriteBytes = 1 << 30

// endlessDevices produce bytes forever.
var endlessDevices = map[string]bool{"/dev/zero": true, "/dev/urandom": true, "/dev/random": true, "/dev/full": true}

// unboundedOutput says whether a command writes an endless (or huge)
// stream to its standard output, and what it is. in is what its standard
// input is: a filter of an endless stream is endless too, unless it stops
// early (head, sed q…).
func unboundedOutput(argv []string, in stdinSrc) (string, bool) {
	argv, _ = unwrap(argv)
	if len(argv) == 0 {
		return "", false
	}
	verb := verbName(argv)
	args := argv[1:]
	switch verb {
	case "yes":
		return "yes prints forever", true
	case "head":
		if n, ok := headLimit(args); ok {
			return "head of more than a gigabyte", n > maxWriteBytes
		}
		return "", false
	case "dd":
		return "", false // judged by dd itself
	case "seq":
		if n, ok := seqCount(args); ok && n > 1e8 {
			return "seq of more than a hundred million numbers", true
		}
	case "openssl":
		if len(args) >= 2 && args[0] == "rand" {
			if n, ok := parseSize(args[len(args)-1]); ok && n > maxWriteBytes {
				return "openssl rand of more than a gigabyte", true
			}
		}
	}
	for _, a := range args {
		if endlessDevices[a] || endlessDevices[strings.TrimPrefix(a, "if=")] {
			return verb + " of " + a + ", which never ends", true
		}
	}
	if in.unbounded {
		return in.what, true
	}
	return "", false
}

// headLimit returns how many bytes (or lines, counted as bytes: at least
// one each) head passes on, when it is given a count.
func headLimit(args []string) (float64, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := ""
		switch {
		case a == "-c" || a == "-n" || a == "--bytes" || a == "--lines":
			if i+1 < len(args) {
				v = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--bytes=") || strings.HasPrefix(a, "--lines="):
			v, _ = optValue(a)
		case strings.HasPrefix(a, "-c") || strings.HasPrefix(a, "-n"):
			v = a[2:]
		case isNumericOption(a):
			v = a[1:]
		default:
			continue
		}
		if strings.HasPrefix(v, "-") {
			return 0, false // all but the last N: as long as the input
		}
		if n, ok := parseSize(v); ok {
			return n, true
		}
	}
	return 10, true // head's default: ten lines
}

// seqCount returns how many numbers seq prints.
func seqCount(args []string) (float64, bool) {
	var nums []float64
	for _, a := range args {
		if strings.HasPrefix(a, "-") && len(a) > 1 && (a[1] < '0' || a[1] > '9') && a[1] != '.' {
			continue
		}
		f, err := strconv.ParseFloat(a, 64)
		if err != nil {
			if strings.EqualFold(strings.TrimLeft(a, "+-"), "inf") || strings.EqualFold(strings.TrimLeft(a, "+-"), "infinity") {
				return math.Inf(1), true
			}
			continue
		}
		nums = append(nums, f)
	}
	first, step, last := 1.0, 1.0, 0.0
	switch len(nums) {
	case 1:
		last = nums[0]
	case 2:
		first, last = nums[0], nums[1]
	case 3:
		first, step, last = nums[0], nums[1], nums[2]
	default:
		return 0, false
	}
	if step == 0 {
		return math.Inf(1), true
	}
	return math.Max(0, (last-first)/step+1), true
}

// parseSize reads a size as coreutils do: a number with an optional
// suffix (K M G T P E, powers of 1024; KB MB GB…, powers of 1000; KiB…).
func parseSize(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' || s[i] == '+' || i == 0 && s[i] == '-') {
		i++
	}
	n, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, false
	}
	suffix := strings.ToUpper(s[i:])
	if suffix == "" {
		return n, true
	}
	mult := 1024.0
	switch {
	case strings.HasSuffix(suffix, "IB"):
		suffix = strings.TrimSuffix(suffix, "IB")
	case strings.HasSuffix(suffix, "B") && len(suffix) == 2:
		mult = 1000
		suffix = suffix[:1]
	case suffix == "B":
		return n * 512, true // dd and du: 512-byte blocks
	case suffix == "C" || suffix == "W":
		return n, true
	}
	exp := strings.Index("KMGTPEZY", suffix)
	if exp < 0 || len(suffix) != 1 {
		return 0, false
	}
	return n * math.Pow(mult, float64(exp+1)), true
}

// sizedWrite judges fallocate and truncate: a file of more than a
// gigabyte fills the disk.
func (s *shellAnalyzer) sizedWrite(verb string, args []string) {
	size := ""
	var files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-l" || a == "--length" || a == "-s" || a == "--size":
			if i+1 < len(args) {
				size = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--length=") || strings.HasPrefix(a, "--size="):
			size, _ = optValue(a)
		case (strings.HasPrefix(a, "-l") || strings.HasPrefix(a, "-s")) && len(a) > 2:
			size = a[2:]
		case a == "-o" || a == "--offset" || a == "-r" || a == "--reference":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			files = append(files, a)
		}
	}
	if n, ok := parseSize(strings.TrimLeft(size, "+<>/%")); ok && n > maxWriteBytes {
		s.deny("%s makes a file of %s: it fills the disk", verb, humanBytes(n))
	}
	for _, f := range files {
		s.touch(f, opWrite, verb+" changes")
		s.wrote = true
	}
}

func humanBytes(n float64) string {
	switch {
	case n >= 1<<40:
		return fmt.Sprintf("%.0f TiB", n/(1<<40))
	case n >= 1<<30:
		return fmt.Sprintf("%.0f GiB", n/(1<<30))
	}
	return fmt.Sprintf("%.0f bytes", n)
}
