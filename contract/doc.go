// Package contract is the Cluster API provider contract as data: contract versions, typed field accessors on
// unstructured objects, embeddable API types, contract-version discovery and checkers.
package contract
