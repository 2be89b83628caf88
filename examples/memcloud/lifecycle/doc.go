// Package lifecycle holds the lifecycle tests of memcloud's example provider; it has no code of its own.
//
// The tests start a real kube-apiserver (envtest, through testenv.Main with memcloudtest's options)
// with memcloud's CRDs and webhooks and capkit's minimal Cluster API CRDs, run memcloud's controllers
// in-process on an in-memory cloud (memcloudtest.StartProvider), and let providertest/lifecycle.Run play
// Cluster API's part for a cluster of one control plane and three worker machines. They assert that every
// object gets provisioned with every contract field set (providertest.AssertObjectConformance), that the
// bootstrap data reaches the instances and nothing else, and that deleting the cluster deletes every cloud
// resource (the LeakChecker of memcloudtest), also with faults injected: 20% of mutating cloud calls fail,
// half of them after the change is made, and tag search lags behind.
package lifecycle
