package services_test

import (
	"cmp"
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/podcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/podcloud/services"
	"github.com/capkit/capkit/providertest/servicetest"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

func TestPodCases(t *testing.T) {
	e := newMachineEnv(t)
	newService := func(*testing.T) (reconcile.Service[scope.MachineScoper[*v1beta2.PodMachine]], *machineEnv) {
		return e.pod, e
	}
	// prepared returns the scope of a machine whose Pod the step created (Pending), and the Pod's ID.
	prepared := func(name string, opts ...machineOpt) (machineFake, string) {
		s := machineScope(name, opts...)
		preMachine(t, e.pod, s, nil)
		id := podID(t, s)
		require.Equal(t, e.ns+"/"+name+"/"+string(podOf(t, e.ns, s).UID), id)
		return s, id
	}
	pending, pendingID := prepared("m-pending")
	scheduled, scheduledID := prepared("m-scheduled")
	runningPod, _ := prepared("m-running")
	noIP, _ := prepared("m-noip")
	nodeZone, _ := prepared("m-nodezone", inZone(""))
	gone, goneID := prepared("m-gone")
	failed, _ := prepared("m-failed")
	succeeded, _ := prepared("m-succeeded")
	deleting, deletingID := prepared("m-deleting")
	deleteNow, _ := prepared("m-deletenow")

	noPod := func(t *testing.T, s machineFake, e *machineEnv) {
		t.Helper()
		assert.False(t, exists(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: s.Object.Name}}), "no Pod")
		list := &corev1.PodList{}
		owned(t, list, e.ns, s.OwnershipKeyValue)
		assert.Empty(t, list.Items, "no Pod of the machine")
	}
	provisioned := func(ip, zone string) func(*testing.T, machineFake, *machineEnv) {
		return func(t *testing.T, s machineFake, _ *machineEnv) {
			pm := s.Object
			assert.True(t, pm.IsProvisioned())
			assert.Equal(t, []contract.MachineAddress{{Type: contract.MachineInternalIP, Address: ip}, {Type: contract.MachineHostName, Address: pm.Name}},
				pm.Status.Addresses)
			assert.Equal(t, zone, pm.Status.FailureDomain)
			assert.Equal(t, string(corev1.PodRunning), pm.Status.PodPhase)
			assert.Equal(t, int64(1), pm.Status.ObservedGeneration)
		}
	}
	ended := func(phase corev1.PodPhase) func(*testing.T, machineFake, *machineEnv) {
		return func(t *testing.T, s machineFake, e *machineEnv) {
			setPodStatus(t, podOf(t, e.ns, s), corev1.PodStatus{Phase: phase, Reason: "Evicted", Message: "The node was low on resource: memory."})
		}
	}

	servicetest.RunMachineCases(t, newService, []servicetest.MachineCase[*v1beta2.PodMachine, *machineEnv]{
		{
			Name: "waits while the PodCluster has no service account", Scope: machineScope("m-wait", ofCluster(clusterWithoutServiceAccount)),
			Want: servicetest.Outcome{Unchanged: true, Result: step.Result{Reason: services.ReasonWaitingForPodCluster,
				Message: "the PodCluster's service account is not recorded yet"}},
			Check: noPod,
		},
		{
			Name: "no image and no Kubernetes version is terminal", Check: noPod,
			Scope: func() machineFake { s := machineScope("m-noversion"); s.MachineInfo.Version = ""; return s }(),
			Want:  servicetest.Outcome{Class: reconcile.ClassTerminal, Reason: conditions.ReasonInvalidParameters, ErrorContains: "spec.image", Unchanged: true},
		},
		{
			Name: "resources the webhook would refuse are terminal", Check: noPod,
			Scope: func() machineFake {
				s := machineScope("m-gpu")
				s.Object.Spec.Resources = corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}
				return s
			}(),
			Want: servicetest.Outcome{Class: reconcile.ClassTerminal, Reason: conditions.ReasonInvalidParameters, Unchanged: true,
				ErrorContains: `resources: Unsupported value: "nvidia.com/gpu": supported values: "cpu", "memory"`},
		},
		{
			Name: "a Pending Pod is not done", Scope: pending,
			Want: servicetest.Outcome{Result: pendingPod(pendingID, "m-pending"), Unchanged: true},
			Check: func(t *testing.T, s machineFake, _ *machineEnv) {
				assert.Equal(t, string(corev1.PodPending), s.Object.Status.PodPhase)
				assert.False(t, s.Object.IsProvisioned())
				assert.Empty(t, s.Object.Status.Addresses)
			},
		},
		{
			Name: "a Pod scheduled but not running is not done", Scope: scheduled,
			Setup: func(t *testing.T, s machineFake, e *machineEnv) { bind(t, podOf(t, e.ns, s), "pod-node-unzoned") },
			Want: servicetest.Outcome{Result: step.Result{Reason: services.ReasonPodPending, RequeueAfter: poll,
				Message: fmt.Sprintf("resource %q (id %q): pod m-scheduled is Pending, on node pod-node-unzoned", services.KeyPod, scheduledID)}},
			Check: func(t *testing.T, s machineFake, _ *machineEnv) {
				assert.Equal(t, "pod-node-unzoned", s.Object.Status.NodeName)
			},
		},
		{
			Name: "a running Pod with an IP provisions the machine in its zone", Scope: runningPod,
			Setup: func(t *testing.T, s machineFake, e *machineEnv) {
				setPodStatus(t, podOf(t, e.ns, s), running("10.244.1.5"))
			},
			Want:  servicetest.Outcome{Result: done},
			Check: provisioned("10.244.1.5", "zone-a"),
		},
		{
			Name: "a running Pod without an IP is not done", Scope: noIP,
			Setup: func(t *testing.T, s machineFake, e *machineEnv) {
				setPodStatus(t, podOf(t, e.ns, s), corev1.PodStatus{Phase: corev1.PodRunning})
			},
			Want: servicetest.Outcome{Result: step.Result{Reason: services.ReasonPodPending, Message: "pod m-noip runs but has no IP yet"}},
			Check: func(t *testing.T, s machineFake, _ *machineEnv) {
				assert.False(t, s.Object.IsProvisioned())
				assert.Empty(t, s.Object.Status.Addresses)
			},
		},
		{
			Name: "without a failure domain, the machine's is the zone of the Pod's node", Scope: nodeZone,
			Setup: func(t *testing.T, s machineFake, e *machineEnv) {
				createNode(t, "pod-node-zoned", "zone-c")
				pod := podOf(t, e.ns, s)
				assert.Empty(t, pod.Spec.NodeSelector, "placed anywhere")
				bind(t, pod, "pod-node-zoned")
				setPodStatus(t, pod, running("10.244.2.7"))
			},
			Want: servicetest.Outcome{Result: done},
			Check: func(t *testing.T, s machineFake, e *machineEnv) {
				provisioned("10.244.2.7", "zone-c")(t, s, e)
				assert.Equal(t, "pod-node-zoned", s.Object.Status.NodeName)
			},
		},
		{
			Name: "a Pod deleted out of band is terminal and not created again", Scope: gone,
			Setup: func(t *testing.T, s machineFake, e *machineEnv) {
				require.NoError(t, env.Client.Delete(context.Background(), podOf(t, e.ns, s)))
			},
			Want: servicetest.Outcome{Class: reconcile.ClassTerminal, Reason: conditions.ReasonResourceDeleted},
			Check: func(t *testing.T, s machineFake, e *machineEnv) {
				noPod(t, s, e)
				assert.Equal(t, services.PodPhaseDeleted, s.Object.Status.PodPhase)
				assert.Equal(t, v1beta2.ProviderID(goneID), s.Object.Spec.ProviderID, "the provider ID stays")
				assert.False(t, s.Object.IsProvisioned())
			},
		},
		{
			Name: "a Failed Pod is terminal", Scope: failed, Setup: ended(corev1.PodFailed),
			Want: servicetest.Outcome{Class: reconcile.ClassTerminal, Reason: services.ReasonPodFailed, ErrorContains: "Evicted"},
			Check: func(t *testing.T, s machineFake, e *machineEnv) {
				assert.Equal(t, string(corev1.PodFailed), s.Object.Status.PodPhase)
				assert.False(t, s.Object.IsProvisioned())
				assert.Equal(t, corev1.PodFailed, podOf(t, e.ns, s).Status.Phase, "left for a person to look at")
			},
		},
		{
			Name: "a Succeeded Pod is terminal too", Scope: succeeded, Setup: ended(corev1.PodSucceeded),
			Want: servicetest.Outcome{Class: reconcile.ClassTerminal, Reason: services.ReasonPodFailed},
		},
		{
			Name: "deleting a scheduled Pod waits until it is gone", Scope: deleting, Delete: true,
			Setup: func(t *testing.T, s machineFake, e *machineEnv) { bind(t, podOf(t, e.ns, s), "pod-node-unzoned") },
			Want: servicetest.Outcome{Result: step.Result{Reason: conditions.ReasonDeleting, RequeueAfter: poll,
				Message: fmt.Sprintf("resource %q (id %q): being deleted", services.KeyPod, deletingID)}},
			Check: func(t *testing.T, s machineFake, e *machineEnv) {
				pod := podOf(t, e.ns, s)
				require.NotNil(t, pod.DeletionTimestamp, "deleted gracefully")
				forceDelete(t, pod) // the kubelet stopped the containers

				res, err := e.pod.Delete(context.Background(), s)
				require.NoError(t, err)
				assert.Equal(t, done, res)
				noPod(t, s, e)
				assert.Equal(t, v1beta2.ProviderID(deletingID), s.Object.Spec.ProviderID, "the provider ID stays")
			},
		},
		{
			Name: "deleting a Pod never scheduled is done at once", Scope: deleteNow, Delete: true,
			Want: servicetest.Outcome{Result: done},
			Check: func(t *testing.T, s machineFake, e *machineEnv) {
				noPod(t, s, e)
				assert.NotEmpty(t, s.Object.Spec.ProviderID)
			},
		},
		{
			Name: "deleting a machine that has no Pod is done", Scope: machineScope("m-none"), Delete: true,
			Want: servicetest.Outcome{Result: done, Unchanged: true},
		},
	}...)
}

// TestPodIsBuiltFromTheMachine creates the Pod of machines of each kind and checks it, and that its ID is
// recorded in spec.providerID and persisted at once.
func TestPodIsBuiltFromTheMachine(t *testing.T) {
	tests := []struct {
		name string
		// scope is the machine; image is set as the PodMachine's spec.image, specZone as its spec.failureDomain,
		// resources as its spec.resources.
		scope            machineFake
		image, specZone  string
		resources        corev1.ResourceList
		wantQOS          corev1.PodQOSClass // the API server's class of the Pod; BestEffort when empty
		wantImage        string
		wantZone         string // the nodeSelector's zone, "" for none
		wantControlPlane bool
		wantHostname     string
	}{
		{name: "worker", scope: machineScope("w-0"), wantImage: "kindest/node:" + kubeVersion, wantZone: "zone-a", wantHostname: "w-0"},
		{name: "control plane with its own image", scope: machineScope("cp-0", controlPlane), image: "registry.example.com/node:v1",
			wantImage: "registry.example.com/node:v1", wantZone: "zone-a", wantControlPlane: true, wantHostname: "cp-0"},
		{name: "the PodMachine's failure domain when Cluster API chose none", scope: machineScope("w-1", inZone("")), specZone: "zone-b",
			wantImage: "kindest/node:" + kubeVersion, wantZone: "zone-b", wantHostname: "w-1"},
		{name: "Cluster API's failure domain wins", scope: machineScope("w-2", inZone("zone-c")), specZone: "zone-b",
			wantImage: "kindest/node:" + kubeVersion, wantZone: "zone-c", wantHostname: "w-2"},
		{name: "no failure domain: no node selector", scope: machineScope("w-3", inZone("")), wantImage: "kindest/node:" + kubeVersion, wantHostname: "w-3"},
		{name: "a name that is not a host name", scope: machineScope("w.4"), wantImage: "kindest/node:" + kubeVersion, wantZone: "zone-a"},
		{name: "cpu and memory", scope: machineScope("w-5"), resources: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")},
			wantImage: "kindest/node:" + kubeVersion, wantZone: "zone-a", wantHostname: "w-5", wantQOS: corev1.PodQOSGuaranteed},
		{name: "memory only", scope: machineScope("cp-6", controlPlane), resources: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1536Mi")},
			wantImage: "kindest/node:" + kubeVersion, wantZone: "zone-a", wantControlPlane: true, wantHostname: "cp-6", wantQOS: corev1.PodQOSBurstable},
	}
	e := newMachineEnv(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.scope
			s.Object.Spec.Image, s.Object.Spec.FailureDomain, s.Object.Spec.Resources = tt.image, tt.specZone, tt.resources
			res, err := e.pod.Reconcile(t.Context(), s)
			require.NoError(t, err)
			pod := podOf(t, e.ns, s)
			id := e.ns + "/" + pod.Name + "/" + string(pod.UID)
			assert.Equal(t, pendingPod(id, pod.Name), res)
			assert.Equal(t, "podcloud://"+id, s.Object.Spec.ProviderID)
			cps := s.Checkpoints()
			require.Len(t, cps, 1, "one checkpoint, right after the create")
			assert.Equal(t, s.Object.Spec.ProviderID, cps[0].Object.Spec.ProviderID, "persisted")
			assert.NotContains(t, s.Object.Status.Resources, services.KeyPod, "the Pod's ID is the provider ID")

			spec := pod.Spec
			assert.Equal(t, corev1.RestartPolicyNever, spec.RestartPolicy)
			assert.Equal(t, "c1-node", spec.ServiceAccountName)
			assert.Equal(t, boolPtr(false), spec.AutomountServiceAccountToken)
			assert.Equal(t, tt.wantHostname, spec.Hostname)
			if tt.wantZone == "" {
				assert.Empty(t, spec.NodeSelector)
			} else {
				assert.Equal(t, map[string]string{corev1.LabelTopologyZone: tt.wantZone}, spec.NodeSelector)
			}
			require.Len(t, spec.Containers, 1)
			c := spec.Containers[0]
			assert.Equal(t, tt.wantImage, c.Image)
			assert.Equal(t, boolPtr(true), c.SecurityContext.Privileged)
			if tt.resources == nil {
				assert.Empty(t, c.Resources, "no requests and no limits: the machine shares its node")
			} else {
				assert.Equal(t, corev1.ResourceRequirements{Requests: tt.resources, Limits: tt.resources}, c.Resources,
					"the resources, as both requests and limits")
			}
			assert.Equal(t, cmp.Or(tt.wantQOS, corev1.PodQOSBestEffort), pod.Status.QOSClass)
			assert.Equal(t, []string{"/bin/bash", services.MountPath + "/" + services.EntrypointFile}, c.Command)
			role := services.RoleWorker
			if tt.wantControlPlane {
				role = services.RoleControlPlane
				assert.Equal(t, []corev1.ContainerPort{{Name: "apiserver", ContainerPort: 6443, Protocol: corev1.ProtocolTCP}}, c.Ports)
			} else {
				assert.Empty(t, c.Ports)
			}
			assert.Equal(t, role, pod.Labels[services.LabelRole])
			assert.Equal(t, clusterName, pod.Labels[services.LabelCluster])
			assert.Equal(t, s.OwnershipKeyValue, pod.Labels[ensure.TagOwnershipKey])
			var secret *corev1.SecretVolumeSource
			for _, v := range spec.Volumes {
				if v.Secret != nil {
					secret = v.Secret
				}
			}
			require.NotNil(t, secret, "the bootstrap Secret is mounted")
			assert.Equal(t, services.SecretName(s.Object.Name), secret.SecretName)

			setPodStatus(t, pod, running("10.244.3.9"))
			res, err = e.pod.Reconcile(t.Context(), s)
			require.NoError(t, err)
			assert.Equal(t, done, res)
			assert.Equal(t, contract.MachineAddress{Type: contract.MachineHostName, Address: s.Object.Name}, s.Object.Status.Addresses[1],
				"the host name, or the Pod's name")
			assert.Equal(t, tt.wantZone, s.Object.Status.FailureDomain)
		})
	}
}

// TestPodLookupError: a machine whose PodCluster cannot be found creates nothing, and the error is retried.
func TestPodLookupError(t *testing.T) {
	p, err := services.NewPod(env.Client, env.Client, noPodCluster)
	require.NoError(t, err)
	s := machineScope("m-lost")
	_, err = p.Reconcile(t.Context(), s)
	require.ErrorIs(t, err, scope.ErrNoInfraCluster)
	assert.False(t, step.IsTerminal(err))
	assert.Empty(t, s.Object.Spec.ProviderID)
	assert.Empty(t, s.Checkpoints())
}
