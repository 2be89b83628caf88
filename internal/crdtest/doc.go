// Package crdtest waits, in tests, until a CustomResourceDefinition the test created can be used through a client.
package crdtest
