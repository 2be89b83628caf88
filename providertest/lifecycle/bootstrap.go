package lifecycle

import "fmt"

// KubeadmBootstrapData returns a Spec.BootstrapData that makes kubeadm-style cloud-config, as Cluster API's
// kubeadm bootstrap provider writes it (a jinja template): kubeadm init for the cluster's first control
// plane machine ("<cluster>-cp-0"), kubeadm join for the others, with a fake bootstrap token that contains
// marker, so that a test can assert that the token appears nowhere it must not. providerID, when not empty,
// is the kubelet's provider-id, e.g. "mycloud://{{ ds.meta_data.instance_id }}".
func KubeadmBootstrapData(cluster, marker, providerID string) func(machine string, controlPlane bool) []byte {
	return func(machine string, controlPlane bool) []byte {
		cmd, kind := "kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml", "JoinConfiguration"
		if controlPlane && machine == cluster+"-cp-0" {
			cmd, kind = "kubeadm init --config /run/kubeadm/kubeadm.yaml", "InitConfiguration"
		}
		kubelet := ""
		if providerID != "" {
			kubelet = fmt.Sprintf("\n      kubeletExtraArgs:\n      - name: provider-id\n        value: '%s'", providerID)
		}
		return fmt.Appendf(nil, `## template: jinja
#cloud-config
write_files:
- path: /run/kubeadm/kubeadm.yaml
  owner: root:root
  permissions: '0640'
  content: |
    apiVersion: kubeadm.k8s.io/v1beta4
    kind: %s
    bootstrapToken:
      token: abcdef.%s-%s
    nodeRegistration:
      name: '{{ ds.meta_data.local_hostname }}'%s
runcmd:
- '%s && echo success > /run/cluster-api/bootstrap-success.complete'
`, kind, marker, machine, kubelet, cmd)
	}
}
