package scaffold

import (
	"embed"
	"fmt"
	"go/format"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"sigs.k8s.io/yaml"
)

// template is the provider Init writes, with the placeholders of the template* constants (see doc.go).
//
//go:embed all:template
var template embed.FS

// The placeholders of the template tree: each is replaced, in a single pass, by the value of the options.
const (
	templateRoot     = "template"
	templateModule   = "github.com/capkit/capkit/internal/scaffold/template"
	templateDomain   = "sample.capkit.io"
	templateDashed   = "sample-capkit-io" // the domain in webhook paths
	templateKind     = "Quux"             // the provider's name starting a Go identifier or a kind
	templateName     = "quux"             // the provider's name, lower case
	templateUpper    = "QUUX"             // the provider's name in environment variables
	templateVersion  = "v0.0.0-capkit-version"
	templateSuffix   = ".tmpl" // a file the go tool must not see as what it is (go.mod)
	templateGoModRel = "go.mod"
)

// accessorsFile is the file of `capkit generate accessors`, whose receivers are named after the kind.
const accessorsFile = "zz_generated.accessors.go"

// receiverRE matches the receiver of the accessors of the template's kinds.
var receiverRE = regexp.MustCompile(`\b` + templateName[:1] + `\b`)

// replacer returns the substitution of the placeholders for r.
func (r resolved) replacer() *strings.Replacer {
	return strings.NewReplacer(
		templateModule, r.Module,
		templateDomain, r.Domain,
		templateDashed, strings.ReplaceAll(r.Domain, ".", "-"),
		templateVersion, r.CapkitVersion,
		templateKind, r.kind,
		templateName, r.Provider,
		templateUpper, strings.ToUpper(r.Provider),
	)
}

// render substitutes the placeholders of the files of fsys under root for r, renames the files that carry
// templateSuffix and formats Go source.
func render(fsys fs.FS, root string, r resolved) (Files, error) {
	rep := r.replacer()
	out := Files{}
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(p, root+"/"), templateSuffix)
		text := string(data)
		if path.Base(rel) == accessorsFile {
			// capkit generate accessors names the receiver after the kind's first letter.
			text = receiverRE.ReplaceAllString(text, r.Provider[:1])
		}
		rel = rep.Replace(rel)
		text = rep.Replace(text)
		if path.Ext(rel) == ".yaml" && strings.HasPrefix(rel, "config/") && !strings.HasPrefix(rel, "config/templates/") && rel != "config/metadata.yaml" {
			// controller-gen and components wrap long descriptions by length: names longer or shorter than the
			// placeholders wrap elsewhere, so the YAML is written again as they write it.
			if text, err = rewrap(text); err != nil {
				return fmt.Errorf("cannot render %q: %w", rel, err)
			}
		}
		if path.Ext(rel) == ".go" {
			src, err := format.Source([]byte(text))
			if err != nil {
				return fmt.Errorf("cannot format %q: %w", rel, err)
			}
			text = string(src)
		}
		out[rel] = []byte(text)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cannot render the scaffold: %w", err)
	}
	return out, nil
}

// rewrap marshals each document of a generated YAML file again with sigs.k8s.io/yaml, as controller-gen and
// release/components write them, keeping the comment lines that precede the first document.
func rewrap(text string) (string, error) {
	var out strings.Builder
	for i, doc := range strings.Split(text, "---\n") {
		if i == 0 {
			out.WriteString(doc) // the header comment, if any
			continue
		}
		var v any
		if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
			return "", err
		}
		b, err := yaml.Marshal(v)
		if err != nil {
			return "", err
		}
		out.WriteString("---\n")
		out.Write(b)
	}
	return out.String(), nil
}

// goMod returns the go.mod of the template rendered for r, with the replace directive of r.CapkitReplace.
func goMod(rendered []byte, r resolved) []byte {
	if r.CapkitReplace == "" {
		return rendered
	}
	return fmt.Appendf(rendered, "\nreplace %s => %s\n", CapkitModule, goModToken(r.CapkitReplace))
}

// goModToken returns s as a go.mod token: as it is, or as a Go string literal when go.mod would read it otherwise
// (a space or a quote ends a bare token, "//" and "/*" start comments), as golang.org/x/mod/modfile.AutoQuote does.
func goModToken(s string) string {
	if s == "" || strings.Contains(s, "//") || strings.Contains(s, "/*") {
		return strconv.Quote(s)
	}
	for _, c := range s {
		switch {
		case c == ' ' || c == '"' || c == '\'' || c == '`' || !unicode.IsPrint(c):
			return strconv.Quote(s)
		case strings.ContainsRune("()[]{},", c) && len(s) > 1:
			return strconv.Quote(s)
		}
	}
	return s
}

func initFiles(o Options) (Files, error) {
	r, err := resolve(o)
	if err != nil {
		return nil, err
	}
	files, err := render(template, templateRoot, r)
	if err != nil {
		return nil, err
	}
	files[templateGoModRel] = goMod(files[templateGoModRel], r)
	return files, nil
}
