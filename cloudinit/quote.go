package cloudinit

import (
	"fmt"

	"mvdan.cc/sh/v3/syntax"
)

// quote returns s as one bash word that expands to exactly s, using the quoting of
// mvdan.cc/sh (the parser behind shfmt): single quotes, double quotes with escapes when s
// holds a single quote, or $'...' escapes for control characters and bytes that are not
// UTF-8. Words that need no quoting are single-quoted anyway, so that every value in a
// script reads as data. A NUL byte cannot be passed to a command and is an error.
func quote(s string) (string, error) {
	q, err := syntax.Quote(s, syntax.LangBash)
	if err != nil {
		return "", fmt.Errorf("value cannot be quoted for bash: %w", ErrInvalid)
	}
	if q == s {
		// syntax.Quote leaves a word bare only when it holds no shell character, and so
		// no single quote.
		return "'" + s + "'", nil
	}
	return q, nil
}
