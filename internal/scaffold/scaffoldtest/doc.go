// Package scaffoldtest runs what a generated provider's CI runs, for the tests that generate one. Those are capkit
// init's (internal/scaffold) and the Kubebuilder plugin's (internal/kbplugin). A change of capkit that breaks a
// generated provider fails both.
package scaffoldtest
