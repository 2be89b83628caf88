// Package yamlfile reads multi-document YAML files of Kubernetes objects as hostile input, within bounds, with the file
// and line of each object. It is the reader of release/clusterctl (which exports it as ReadYAML, ReadYAMLFile and
// their types) and of release/components (which reads the files controller-gen writes with it).
//
// Read refuses input above a bound before decoding it, with an error that wraps ErrTooLarge and names the file, the
// line where there is one, and the bound: bytes read (DefaultMaxBytes, WithMaxBytes), bytes of values after YAML
// aliases are expanded (WithMaxExpandedBytes), YAML nodes (DefaultMaxNodes, WithMaxNodes) and documents
// (DefaultMaxDocuments, WithMaxDocuments). Input that is not Kubernetes objects fails with an error that wraps
// ErrMalformed. The items of a List document are read as documents of their own.
package yamlfile
