// Package inplace_test checks capkit's in-place update extension (github.com/capkit/capkit/inplace) against
// Cluster API's own hook types and catalog (sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1): requests
// as Cluster API writes them, answers as Cluster API reads them, patches as Cluster API applies them.
package inplace_test
