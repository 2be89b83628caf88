// Command demo runs podcloud end to end on a real API server. The API server is envtest's kube-apiserver and etcd, with
// the real kube-scheduler and KWOK playing the kubelets of three fake nodes in three zones; the demo prints the objects
// as they change, like kubectl get -w: the cluster's Service and ServiceAccount, each machine's Secret and Pod. After
// provisioning it deletes one worker's Pod behind podcloud's back, which the PodMachine reports and never creates
// again; then it deletes the cluster and checks that nothing is left and nothing was created twice.
//
//	make demo-pods
//	go run ./examples/podcloud/cmd/demo [--machines 1+3] [--delete-pod=true] [--timeout 60s]
package main
