// Package jsonvalue holds what package contract and package contract/lint both need to know about JSON values in
// unstructured objects. It gives the JSON (OpenAPI) type a Go type encodes to, the JSON type of a decoded value, and a
// lookup by path that does not copy. It is internal so that package contract exports only its accessors and package
// contract/lint, which providers do not link into their managers, needs no copy of it.
package jsonvalue
