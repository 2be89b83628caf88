// Package services holds podcloud's services: the steps of the PodCluster and PodMachine reconcilers. Each
// keeps objects of the target cluster (the Kubernetes cluster the machines run in) with capkit's
// ensure.Exists, through package reconcile/kubeobjects, so that the ownership tags become labels and an
// object is never created twice:
//
//   - ServiceAccount: the ServiceAccount the cluster's Pods run as (no API token is mounted);
//   - Endpoint: the Service in front of the control plane Pods, whose address becomes the PodCluster's
//     spec.controlPlaneEndpoint; kept up to date in place (selector, ports) when changed behind podcloud's back;
//   - FailureDomains: the zones of the target cluster's nodes, as the PodCluster's status.failureDomains;
//   - Bootstrap: a Secret with the Machine's bootstrap script (its cloud-config rendered to bash by package
//     cloudinit) and the Pod's entrypoint;
//   - Pod: the machine's Pod, recorded in spec.providerID, with the PodMachine's spec.resources as the node
//     container's requests and limits. A Pod is created once per machine (ensure.CreateOnce): a Pod deleted
//     behind podcloud's back, or one that failed, is reported with a terminal condition and never created
//     again, so that a MachineHealthCheck replaces the Machine.
//
// TemplateCapacity is the capacity of a PodMachineTemplate's machines (its resources), which capkit's
// capacity.Reconciler (package reconcile/capacity) writes to the template's status for the cluster
// autoscaler's scale from zero.
package services
