package clusterctl

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Docker Hub's names, as clusterctl's image parser (github.com/distribution/reference) normalizes them.
const (
	dockerHubDomain       = "docker.io"
	dockerHubLegacyDomain = "index.docker.io"
	dockerHubOfficialRepo = "library/"
	// maxImagePath is the longest repository path, without the registry, the parser accepts.
	maxImagePath = 255
)

// The grammar of an image reference: [registry[:port]/]path[:tag][@digest].
var (
	imageDomain   = `(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?`
	imagePathPart = `[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*`
	imagePath     = imagePathPart + `(?:/` + imagePathPart + `)*`
	// imageNameRE captures a name's registry and path.
	imageNameRE = regexp.MustCompile(`^(?:(` + imageDomain + `)/)?(` + imagePath + `)$`)
	// imageRefRE captures a reference's name, tag and digest.
	imageRefRE = regexp.MustCompile(`^((?:` + imageDomain + `/)?` + imagePath + `)(?::([\w][\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[[:xdigit:]]{32,}))?$`)
	// imageIDRE matches an image ID, which is no name.
	imageIDRE = regexp.MustCompile(`^[a-f0-9]{64}$`)
	// digestHexLen are the digest algorithms clusterctl accepts, with the length of their hex encoding.
	digestHexLen = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}
	lowerHexRE   = regexp.MustCompile(`^[a-f0-9]+$`)
)

// ErrImageReference is wrapped by the errors of CanonicalImage for a string that is no image reference.
var ErrImageReference = errors.New("invalid image reference")

// CanonicalImage returns the canonical form of an image reference: the registry, the full repository path, then
// the tag and digest, as clusterctl's image parser (github.com/distribution/reference) normalizes it, e.g.
// "docker.io/capkit/memcloud:dev" for "capkit/memcloud:dev" and "docker.io/library/nginx" for "nginx".
// clusterctl init, which parses the image of every container and init container of the Deployments and DaemonSets
// of a components file, accepts a reference only when it is its own canonical form, and refuses the others
// ("repository name must be canonical"). The error, which wraps ErrImageReference, says why ref is no reference.
func CanonicalImage(ref string) (string, error) {
	if imageIDRE.MatchString(ref) {
		return "", fmt.Errorf("%w: %q is a 64-character hexadecimal image ID, not a name", ErrImageReference, ref)
	}
	domain, rest := splitImageDomain(ref)
	repo, _, _ := strings.Cut(rest, ":")
	if strings.ToLower(repo) != repo {
		return "", fmt.Errorf("%w: repository name %q must be lowercase", ErrImageReference, repo)
	}
	full := domain + "/" + rest
	m := imageRefRE.FindStringSubmatch(full)
	if m == nil {
		if imageRefRE.MatchString(strings.ToLower(full)) {
			return "", fmt.Errorf("%w: repository name of %q must be lowercase", ErrImageReference, ref)
		}
		return "", fmt.Errorf("%w: %q is not [registry/]path[:tag][@digest]", ErrImageReference, ref)
	}
	if n := imageNameRE.FindStringSubmatch(m[1]); n != nil && len(n[2]) > maxImagePath {
		return "", fmt.Errorf("%w: repository path of %q is longer than %d characters", ErrImageReference, ref, maxImagePath)
	}
	if m[3] != "" {
		algorithm, hex, _ := strings.Cut(m[3], ":")
		size, ok := digestHexLen[algorithm]
		switch {
		case !ok:
			return "", fmt.Errorf("%w: digest algorithm %q of %q is not sha256, sha384 or sha512", ErrImageReference, algorithm, ref)
		case len(hex) != size || !lowerHexRE.MatchString(hex):
			return "", fmt.Errorf("%w: digest of %q is not %d lower-case hex digits", ErrImageReference, ref, size)
		}
	}
	return full, nil
}

// splitImageDomain splits a reference into its registry and the rest, as the parser does: the first path
// component is the registry when it is "localhost", contains a "." or a ":", or has an upper-case letter;
// otherwise the registry is Docker Hub, where a one-component path is in "library/". "index.docker.io" is
// Docker Hub.
func splitImageDomain(ref string) (domain, rest string) {
	first, after, found := strings.Cut(ref, "/")
	switch {
	case !found:
		domain, rest = dockerHubDomain, ref
	case first == "localhost", strings.ContainsAny(first, ".:") && first != dockerHubLegacyDomain, strings.ToLower(first) != first:
		domain, rest = first, after
	case first == dockerHubLegacyDomain:
		domain, rest = dockerHubDomain, after
	default:
		domain, rest = dockerHubDomain, ref
	}
	if domain == dockerHubDomain && !strings.Contains(rest, "/") {
		rest = dockerHubOfficialRepo + rest
	}
	return domain, rest
}

// defaultValue returns s as clusterctl's variable substitution makes it when no variable is set: "$$" is "$",
// ${VAR:=default}, ${VAR:-default} and ${VAR=default} are their default. It returns false when s uses a variable
// without a default, or another form, whose value it cannot know.
func defaultValue(s string) (string, bool) {
	return defaultValueDepth(s, 0)
}

func defaultValueDepth(s string, depth int) (string, bool) {
	if depth > maxVariableNesting {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '{':
			end := matchingBrace(s, i+1)
			if end < 0 {
				return "", false
			}
			v, ok := variableDefault(s[i+2:end], depth)
			if !ok {
				return "", false
			}
			b.WriteString(v)
			i = end
		default:
			b.WriteByte('$')
		}
	}
	return b.String(), true
}

// matchingBrace returns the index of the "}" that closes the "{" at open, or -1.
func matchingBrace(s string, open int) int {
	depth := 0
	for j := open; j < len(s); j++ {
		switch s[j] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// variableDefault returns the default of the inside of ${…}, e.g. "capkit/memcloud:dev" for
// "MEMCLOUD_IMAGE:=capkit/memcloud:dev".
func variableDefault(inner string, depth int) (string, bool) {
	n := 0
	for n < len(inner) && isEnvsubstIdent(inner[n]) {
		n++
	}
	if n == 0 {
		return "", false
	}
	for _, op := range []string{":=", ":-", "="} {
		if def, ok := strings.CutPrefix(inner[n:], op); ok {
			return defaultValueDepth(def, depth+1)
		}
	}
	return "", false
}
