package cloudinit

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
)

const (
	// EC2UserDataLimit is the limit of Amazon EC2: 16 KiB of user data before base64, that
	// is 21848 base64 characters.
	EC2UserDataLimit = (16384 + 2) / 3 * 4
	// NovaUserDataLimit is the limit of OpenStack Nova: 65535 bytes of base64.
	NovaUserDataLimit = 65535
)

// EncodeUserData compresses data with gzip and encodes it with base64, the form cloud APIs
// take and cloud-init (and Parse) decompress. The output is deterministic (no name, no
// time stamp). When limit is positive and the base64 text is longer than limit bytes, it
// returns an error wrapping ErrTooLarge that gives both sizes.
func EncodeUserData(data []byte, limit int) (string, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return "", fmt.Errorf("cannot compress user data: %w", err)
	}
	if _, err := zw.Write(data); err != nil {
		return "", fmt.Errorf("cannot compress user data: %w", err)
	}
	if err := zw.Close(); err != nil {
		return "", fmt.Errorf("cannot compress user data: %w", err)
	}
	out := base64.StdEncoding.EncodeToString(buf.Bytes())
	if limit > 0 && len(out) > limit {
		return "", fmt.Errorf("cannot encode user data: %d bytes of gzip+base64 (from %d bytes) exceed the limit of %d: %w", len(out), len(data), limit, ErrTooLarge)
	}
	return out, nil
}
