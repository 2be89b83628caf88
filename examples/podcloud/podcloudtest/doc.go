// Package podcloudtest runs podcloud on a real API server for tests and the demo. It gives the Environment's options
// (podcloud's CRDs and webhooks, capkit's minimal Cluster API CRDs), fake nodes on which the real kube-scheduler places
// the Pods and KWOK runs them (StartNodes), podcloud's manager in-process (StartProvider), and the lifecycle.Spec and
// LeakChecker of providertest's lifecycle driver: a podcloud cluster leaks when a Pod, Secret, Service or
// ServiceAccount of it is left after its delete, and has a duplicate when two objects carry the same owner and resource
// key.
package podcloudtest
