package lint

import (
	"slices"

	"github.com/capkit/capkit/contract"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// schemaResult says what lookupSchema found at a path of an openAPIV3Schema.
type schemaResult int

const (
	schemaFound schemaResult = iota
	schemaMissing
	schemaUntyped
)

// lookupSchema follows path through the properties of s. It returns schemaUntyped, with the path where unknown
// fields are kept, when a parent has no schema for the next field but x-kubernetes-preserve-unknown-fields.
func lookupSchema(s *apiextensionsv1.JSONSchemaProps, path contract.Path) (*apiextensionsv1.JSONSchemaProps, schemaResult, contract.Path) {
	for i, name := range path {
		if s == nil {
			return nil, schemaMissing, nil
		}
		if p, ok := s.Properties[name]; ok {
			s = &p
			continue
		}
		if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields {
			return nil, schemaUntyped, path[:i]
		}
		return nil, schemaMissing, nil
	}
	if s == nil {
		return nil, schemaMissing, nil
	}
	return s, schemaFound, nil
}

// itemSchema returns the schema of the items of an array or the values of a map.
func itemSchema(s *apiextensionsv1.JSONSchemaProps) *apiextensionsv1.JSONSchemaProps {
	switch {
	case s.Items != nil && s.Items.Schema != nil:
		return s.Items.Schema
	case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
		return s.AdditionalProperties.Schema
	}
	return nil
}

// schemaType returns the OpenAPI type of s, naming int-or-string and untyped schemas.
func schemaType(s *apiextensionsv1.JSONSchemaProps) string {
	switch {
	case s.XIntOrString:
		return "int-or-string"
	case s.Type == "" && s.XEmbeddedResource:
		return "object"
	case s.Type == "":
		return "untyped"
	}
	return s.Type
}

func hasPrefix(p, prefix contract.Path) bool {
	return len(p) >= len(prefix) && slices.Equal(p[:len(prefix)], prefix)
}
