package cloud

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"unicode/utf8"
)

// Limits of names, descriptions and tags.
const (
	maxNameLen     = 255
	maxTags        = 50
	maxTagKeyLen   = 128
	maxTagValueLen = 256
)

func validName(name string) error {
	switch {
	case name == "":
		return invalid("name", name, "must not be empty")
	case len(name) > maxNameLen:
		return invalid("name", name, fmt.Sprintf("must be at most %d bytes", maxNameLen))
	case !utf8.ValidString(name) || strings.ContainsFunc(name, isControl):
		return invalid("name", name, "must be valid UTF-8 without control characters")
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

func validTags(field string, tags map[string]string) error {
	if len(tags) > maxTags {
		return invalid(field, formatTags(tags), fmt.Sprintf("has %d tags, at most %d are allowed", len(tags), maxTags))
	}
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		v := tags[k]
		switch {
		case k == "":
			return invalid(field+" key", k, "must not be empty")
		case len(k) > maxTagKeyLen:
			return invalid(field+" key", k, fmt.Sprintf("must be at most %d bytes", maxTagKeyLen))
		case len(v) > maxTagValueLen:
			return invalid(field+"["+k+"]", v, fmt.Sprintf("must be at most %d bytes", maxTagValueLen))
		}
	}
	return nil
}

// formatTags renders tags sorted by key, "k1=v1,k2=v2", for messages and fingerprints.
func formatTags(tags map[string]string) string {
	parts := make([]string, 0, len(tags))
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		parts = append(parts, k+"="+tags[k])
	}
	return strings.Join(parts, ",")
}

// checkID verifies that id looks like an ID of kind.
func checkID(field string, kind Kind, id string) error {
	switch {
	case id == "":
		return invalid(field, id, "must not be empty")
	case !strings.HasPrefix(id, kind.Prefix()):
		return invalid(field, id, fmt.Sprintf("is not %s ID (want prefix %q)", withArticle(kind.noun()), kind.Prefix()))
	}
	return nil
}

// withArticle puts "a" or "an" before a noun: "a network", "an instance".
func withArticle(noun string) string {
	if noun != "" && strings.ContainsAny(noun[:1], "aeiou") {
		return "an " + noun
	}
	return "a " + noun
}

// parseCIDR parses a canonical IPv4 prefix whose length is within [minBits, maxBits].
func parseCIDR(field, s string, minBits, maxBits int) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	switch {
	case err != nil || !p.Addr().Is4():
		return netip.Prefix{}, invalid(field, s, "is not an IPv4 CIDR such as \"10.0.0.0/16\"")
	case p.Masked() != p:
		return netip.Prefix{}, invalid(field, s, fmt.Sprintf("has host bits set (did you mean %q?)", p.Masked().String()))
	case p.Bits() < minBits || p.Bits() > maxBits:
		return netip.Prefix{}, invalid(field, s, fmt.Sprintf("must have a prefix length from /%d to /%d", minBits, maxBits))
	}
	return p, nil
}

// parseSource parses the source CIDR of a rule: any canonical IPv4 prefix.
func parseSource(field, s string) error {
	_, err := parseCIDR(field, s, 0, 32)
	return err
}

func validRules(rules []Rule) error {
	for i, r := range rules {
		field := fmt.Sprintf("ingress[%d]", i)
		switch r.Protocol {
		case "tcp", "udp":
			if r.Port < 1 || r.Port > 65535 {
				return invalid(field+".port", r.Port, "must be from 1 to 65535 for "+r.Protocol)
			}
		case "icmp", "all":
			if r.Port != 0 {
				return invalid(field+".port", r.Port, "must be 0 for "+r.Protocol)
			}
		default:
			return invalid(field+".protocol", r.Protocol, "must be one of tcp, udp, icmp, all")
		}
		if err := parseSource(field+".source", r.Source); err != nil {
			return err
		}
	}
	return nil
}

// fingerprint digests the parameters of a create request, to detect a token reused with
// different parameters.
func fingerprint(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s;", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
