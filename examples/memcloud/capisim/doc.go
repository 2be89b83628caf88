// Package capisim is deprecated: its Cluster API simulation moved to providertest's lifecycle driver
// (providertest.NewLifecycle with PlayCAPI), and memcloud's test set-up to package memcloudtest. What is
// left are aliases of memcloudtest, for code not yet switched over; use memcloudtest.
package capisim
