package lint

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Names, kinds, paths and file names come from the input: String and Error print them so that output is always
// one line of printable text, and an object named "x\x1b[2J\nfake.yaml:1: all good" can neither clear a terminal
// nor forge a line.

// isPrintable reports whether s is valid UTF-8 made of printable characters only (unicode.IsPrint: no control,
// format or line-breaking characters).
func isPrintable(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 || !unicode.IsPrint(r) {
			return false
		}
		i += size
	}
	return true
}

// QuoteName returns a name, kind, path or file name as it is when it is printable, else quoted with Go escapes
// (strconv.Quote).
func QuoteName(s string) string {
	if isPrintable(s) {
		return s
	}
	return strconv.Quote(s)
}

// EscapeText returns a message on one line of printable text: line breaks and the spaces around them become one
// space, and any other character that is not printable its Go escape (\x1b, \u202e, \xff for a byte that is not
// UTF-8), without quotes around the whole.
func EscapeText(s string) string {
	s = oneLine(s)
	if isPrintable(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i]), 16))
		case unicode.IsPrint(r):
			b.WriteString(s[i : i+size])
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}

// oneLine replaces line breaks so that a message always prints on one line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(strings.NewReplacer("\r", " ", "\n", " ").Replace(s)), " ")
}
