package services_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

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

// clusterSteps are the cluster steps on the target cluster; the cases' dependencies.
type clusterSteps struct {
	serviceAccount *services.ServiceAccount
	endpoint       *services.Endpoint
	failureDomains *services.FailureDomains
}

func newClusterSteps(t testing.TB) *clusterSteps {
	t.Helper()
	sa, err := services.NewServiceAccount(env.Client)
	require.NoError(t, err)
	ep, err := services.NewEndpoint(env.Client)
	require.NoError(t, err)
	fd, err := services.NewFailureDomains(env.Client)
	require.NoError(t, err)
	return &clusterSteps{serviceAccount: sa, endpoint: ep, failureDomains: fd}
}

// clusterService returns the newService of servicetest for one of the cluster steps.
func clusterService(pick func(*clusterSteps) reconcile.Service[services.ClusterScope]) func(*testing.T) (reconcile.Service[scope.ClusterScoper[*v1beta2.PodCluster]], *clusterSteps) {
	return func(t *testing.T) (reconcile.Service[scope.ClusterScoper[*v1beta2.PodCluster]], *clusterSteps) {
		steps := newClusterSteps(t)
		return pick(steps), steps
	}
}

// serviceOf returns the control plane Service of a cluster scope.
func serviceOf(t testing.TB, s clusterFake) *corev1.Service {
	t.Helper()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: s.Object.Spec.Namespace, Name: services.ServiceName(s.ClusterInfo.Name)}}
	get(t, svc)
	return svc
}

// editService changes the control plane Service behind podcloud's back.
func editService(t testing.TB, s clusterFake, edit func(*corev1.Service)) {
	t.Helper()
	svc := serviceOf(t, s)
	edit(svc)
	require.NoError(t, env.Client.Update(t.Context(), svc))
}

// withService sets the type and port of the control plane Service.
func withService(typ v1beta2.ServiceType, port int32) func(*v1beta2.PodCluster) {
	return func(pc *v1beta2.PodCluster) {
		pc.Spec.ControlPlaneService = v1beta2.ControlPlaneServiceSpec{Type: typ, Port: port}
	}
}

func TestServiceAccountCases(t *testing.T) {
	sa := clusterService(func(s *clusterSteps) reconcile.Service[services.ClusterScope] { return s.serviceAccount })
	steps := newClusterSteps(t)
	found := clusterScope(clusterName, env.Namespace(t, "podcloud"))
	preCluster(t, steps.serviceAccount, found, &done)
	deleted := clusterScope(clusterName, env.Namespace(t, "podcloud"))
	preCluster(t, steps.serviceAccount, deleted, &done)
	taken := clusterScope(clusterName, env.Namespace(t, "podcloud"))
	createServiceAccount(t, taken.Object.Spec.Namespace, services.ServiceAccountName(clusterName))
	ownNamespace := env.Namespace(t, "podcloud")

	serviceAccountOf := func(t *testing.T, s clusterFake) (*corev1.ServiceAccount, bool) {
		acc := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: s.Object.TargetNamespace(), Name: services.ServiceAccountName(s.ClusterInfo.Name)}}
		return acc, exists(t, acc)
	}
	servicetest.RunClusterCases(t, sa, []servicetest.ClusterCase[*v1beta2.PodCluster, *clusterSteps]{
		{
			Name: "creates the ServiceAccount without an API token and records it", Scope: clusterScope(clusterName, env.Namespace(t, "podcloud")),
			Want: servicetest.Outcome{Result: done},
			Check: func(t *testing.T, s clusterFake, _ *clusterSteps) {
				acc, ok := serviceAccountOf(t, s)
				require.True(t, ok)
				assert.Equal(t, "c1-node", acc.Name)
				assert.Equal(t, boolPtr(false), acc.AutomountServiceAccountToken)
				assert.Equal(t, map[string]string{services.LabelCluster: clusterName, ensure.TagOwnershipKey: "key-c1",
					ensure.TagResourceKey: services.KeyServiceAccount}, acc.Labels)
				assert.Equal(t, map[string]string{services.KeyServiceAccount: acc.Namespace + "/c1-node/" + string(acc.UID)}, s.Object.Status.Resources)
			},
		},
		{
			Name: "finds the recorded ServiceAccount", Scope: found,
			Want: servicetest.Outcome{Result: done, Unchanged: true},
		},
		{
			Name:  "uses the PodCluster's own namespace when spec.namespace is empty",
			Scope: clusterScope(clusterName, "", func(pc *v1beta2.PodCluster) { pc.Namespace = ownNamespace }),
			Want:  servicetest.Outcome{Result: done},
			Check: func(t *testing.T, s clusterFake, _ *clusterSteps) {
				acc, ok := serviceAccountOf(t, s)
				require.True(t, ok)
				assert.Equal(t, ownNamespace, acc.Namespace)
			},
		},
		{
			Name: "a ServiceAccount of that name that is not the cluster's is not taken", Scope: taken,
			Want: servicetest.Outcome{Class: reconcile.ClassTerminal, Reason: conditions.ReasonNameTaken, Unchanged: true},
			Check: func(t *testing.T, s clusterFake, _ *clusterSteps) {
				acc, _ := serviceAccountOf(t, s)
				assert.Empty(t, acc.Labels, "left alone")
			},
		},
		{
			// Cluster API accepts any label value as a Cluster name ("my_cluster"); it is not a valid object
			// name, which no retry can fix.
			Name: "a Cluster name that makes an invalid ServiceAccount name is terminal", Scope: clusterScope("my_cluster", env.Namespace(t, "podcloud")),
			Want: servicetest.Outcome{Class: reconcile.ClassTerminal, Reason: conditions.ReasonInvalidParameters, Unchanged: true},
		},
		{
			Name: "deletes the ServiceAccount and forgets it", Scope: deleted, Delete: true,
			Want: servicetest.Outcome{Result: done},
			Check: func(t *testing.T, s clusterFake, _ *clusterSteps) {
				_, ok := serviceAccountOf(t, s)
				assert.False(t, ok)
				assert.Empty(t, s.Object.Status.Resources)
			},
		},
	}...)
}

func TestEndpointCases(t *testing.T) {
	ep := clusterService(func(s *clusterSteps) reconcile.Service[services.ClusterScope] { return s.endpoint })
	steps := newClusterSteps(t)
	// prepared returns a cluster scope whose Service the Endpoint step created, with its ID.
	prepared := func(edit ...func(*v1beta2.PodCluster)) (clusterFake, string) {
		s := clusterScope(clusterName, env.Namespace(t, "podcloud"), edit...)
		preCluster(t, steps.endpoint, s, nil)
		id, ok := s.ResourceID(services.KeyEndpoint)
		require.True(t, ok)
		return s, id
	}
	lbPending, lbPendingID := prepared(withService(v1beta2.ServiceLoadBalancer, 0))
	lbReady, _ := prepared(withService(v1beta2.ServiceLoadBalancer, 0))
	drifted, driftedID := prepared()
	portsDrifted, portsDriftedID := prepared(withService(v1beta2.ServiceNodePort, 0))
	retyped, retypedID := prepared()
	deleted, _ := prepared()
	var allocatedNodePort int32 // of portsDrifted's Service

	provisioned := func(host string, port int32) func(*testing.T, clusterFake, *clusterSteps) {
		return func(t *testing.T, s clusterFake, _ *clusterSteps) {
			svc := serviceOf(t, s)
			if host == "" {
				host = svc.Spec.ClusterIP
			}
			assert.Equal(t, contract.APIEndpoint{Host: host, Port: port}, s.Object.Spec.ControlPlaneEndpoint)
			assert.True(t, s.Object.IsProvisioned())
			assert.Equal(t, int64(1), s.Object.Status.ObservedGeneration)
			assert.Equal(t, s.Object.Namespace+"/"+s.Object.Name, mgmtNamespace+"/"+clusterName)
		}
	}
	driftResult := func(id, fields string) step.Result {
		return step.Result{Reason: conditions.ReasonDriftCorrected, RequeueAfter: poll,
			Message: fmt.Sprintf("resource %q (id %q) differed from its spec in %s; updated in place", services.KeyEndpoint, id, fields)}
	}
	// upToDate checks that the next reconcile finds the Service up to date.
	upToDate := func(t *testing.T, s clusterFake, steps *clusterSteps) {
		t.Helper()
		res, err := steps.endpoint.Reconcile(context.Background(), s)
		require.NoError(t, err)
		assert.Equal(t, done, res, "up to date after the update")
	}

	servicetest.RunClusterCases(t, ep, []servicetest.ClusterCase[*v1beta2.PodCluster, *clusterSteps]{
		{
			Name: "creates the ClusterIP Service and sets the endpoint to its cluster IP", Scope: clusterScope(clusterName, env.Namespace(t, "podcloud")),
			Want: servicetest.Outcome{Result: done},
			Check: func(t *testing.T, s clusterFake, steps *clusterSteps) {
				svc := serviceOf(t, s)
				assert.Equal(t, "c1-apiserver", svc.Name)
				assert.Equal(t, corev1.ServiceTypeClusterIP, svc.Spec.Type)
				assert.NotEmpty(t, svc.Spec.ClusterIP, "assigned by the API server")
				assert.Equal(t, map[string]string{services.LabelCluster: clusterName, services.LabelRole: services.RoleControlPlane}, svc.Spec.Selector)
				require.Len(t, svc.Spec.Ports, 1)
				assert.Equal(t, int32(6443), svc.Spec.Ports[0].Port)
				assert.Equal(t, intstr.FromInt32(6443), svc.Spec.Ports[0].TargetPort)
				assert.Equal(t, corev1.ProtocolTCP, svc.Spec.Ports[0].Protocol)
				assert.Equal(t, clusterName, svc.Labels[services.LabelCluster])
				assert.Equal(t, svc.Namespace+"/"+svc.Name+"/"+string(svc.UID), s.Object.Status.Resources[services.KeyEndpoint])
				provisioned("", 6443)(t, s, steps)
				assert.Empty(t, s.Object.Spec.ControlPlaneService, "the spec is defaulted by the webhook, not by the step")
			},
		},
		{
			Name: "keeps the endpoint the user set",
			Scope: clusterScope(clusterName, env.Namespace(t, "podcloud"), func(pc *v1beta2.PodCluster) {
				pc.Spec.ControlPlaneEndpoint = contract.APIEndpoint{Host: "api.example.com", Port: 443}
			}),
			Want:  servicetest.Outcome{Result: done},
			Check: provisioned("api.example.com", 443),
		},
		{
			Name: "a NodePort Service on another port", Scope: clusterScope(clusterName, env.Namespace(t, "podcloud"), withService(v1beta2.ServiceNodePort, 7443)),
			Want: servicetest.Outcome{Result: done},
			Check: func(t *testing.T, s clusterFake, steps *clusterSteps) {
				svc := serviceOf(t, s)
				assert.Equal(t, corev1.ServiceTypeNodePort, svc.Spec.Type)
				assert.NotZero(t, svc.Spec.Ports[0].NodePort)
				assert.Equal(t, intstr.FromInt32(7443), svc.Spec.Ports[0].TargetPort)
				provisioned("", 7443)(t, s, steps)
			},
		},
		{
			Name: "a LoadBalancer without an address is not done", Scope: lbPending,
			Want: servicetest.Outcome{Result: step.Result{Reason: services.ReasonLoadBalancerPending, RequeueAfter: poll,
				Message: fmt.Sprintf("resource %q (id %q): load balancer of Service c1-apiserver has no address yet", services.KeyEndpoint, lbPendingID)}, Unchanged: true},
			Check: func(t *testing.T, s clusterFake, _ *clusterSteps) {
				assert.True(t, s.Object.Spec.ControlPlaneEndpoint.IsZero())
				assert.False(t, s.Object.IsProvisioned())
			},
		},
		{
			Name: "a LoadBalancer is done once it has an address", Scope: lbReady,
			Setup: func(t *testing.T, s clusterFake, _ *clusterSteps) {
				svc := serviceOf(t, s)
				svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "203.0.113.7"}}
				require.NoError(t, env.Client.Status().Update(context.Background(), svc))
			},
			Want:  servicetest.Outcome{Result: done},
			Check: provisioned("203.0.113.7", 6443),
		},
		{
			Name: "puts back a selector changed out of band", Scope: drifted,
			Setup: func(t *testing.T, s clusterFake, _ *clusterSteps) {
				editService(t, s, func(svc *corev1.Service) { svc.Spec.Selector = map[string]string{"app": "intruder"} })
			},
			Want: servicetest.Outcome{Result: driftResult(driftedID, "spec.selector")},
			Check: func(t *testing.T, s clusterFake, steps *clusterSteps) {
				svc := serviceOf(t, s)
				assert.Equal(t, map[string]string{services.LabelCluster: clusterName, services.LabelRole: services.RoleControlPlane}, svc.Spec.Selector)
				assert.Equal(t, driftedID, svc.Namespace+"/"+svc.Name+"/"+string(svc.UID), "updated in place")
				upToDate(t, s, steps)
			},
		},
		{
			Name: "puts back ports changed out of band and keeps the node port", Scope: portsDrifted,
			Setup: func(t *testing.T, s clusterFake, _ *clusterSteps) {
				editService(t, s, func(svc *corev1.Service) {
					allocatedNodePort = svc.Spec.Ports[0].NodePort
					svc.Spec.Ports[0].TargetPort = intstr.FromInt32(8443)
				})
			},
			Want: servicetest.Outcome{Result: driftResult(portsDriftedID, "spec.ports")},
			Check: func(t *testing.T, s clusterFake, steps *clusterSteps) {
				svc := serviceOf(t, s)
				require.Len(t, svc.Spec.Ports, 1)
				assert.Equal(t, intstr.FromInt32(6443), svc.Spec.Ports[0].TargetPort)
				assert.NotZero(t, allocatedNodePort)
				assert.Equal(t, allocatedNodePort, svc.Spec.Ports[0].NodePort, "the node port does not move")
				upToDate(t, s, steps)
			},
		},
		{
			Name: "a Service whose type changed out of band is reported, not replaced", Scope: retyped,
			Setup: func(t *testing.T, s clusterFake, _ *clusterSteps) {
				editService(t, s, func(svc *corev1.Service) { svc.Spec.Type = corev1.ServiceTypeNodePort })
			},
			Want: servicetest.Outcome{Result: step.Result{Reason: conditions.ReasonNeedsReplacement, RequeueAfter: poll,
				Message: fmt.Sprintf("resource %q (id %q) differs from its spec in spec.type, which cannot be changed in place", services.KeyEndpoint, retypedID)}},
			Check: func(t *testing.T, s clusterFake, _ *clusterSteps) {
				svc := serviceOf(t, s)
				assert.Equal(t, corev1.ServiceTypeNodePort, svc.Spec.Type)
				assert.Equal(t, retypedID, svc.Namespace+"/"+svc.Name+"/"+string(svc.UID))
			},
		},
		{
			// Cluster API accepts "my.cluster" as a Cluster name (a label value); "my.cluster-apiserver" is
			// not a Service name (a DNS label), which no retry can fix.
			Name: "a Cluster name that makes an invalid Service name is terminal", Scope: clusterScope("my.cluster", env.Namespace(t, "podcloud")),
			Want: servicetest.Outcome{Class: reconcile.ClassTerminal, Reason: conditions.ReasonInvalidParameters, Unchanged: true},
		},
		{
			Name: "deletes the Service and forgets it", Scope: deleted, Delete: true,
			Want: servicetest.Outcome{Result: done},
			Check: func(t *testing.T, s clusterFake, _ *clusterSteps) {
				svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: s.Object.Spec.Namespace, Name: "c1-apiserver"}}
				assert.False(t, exists(t, svc))
				assert.NotContains(t, s.Object.Status.Resources, services.KeyEndpoint)
			},
		},
	}...)
}

// TestEndpointServiceDeletedOutOfBand deletes the control plane Service behind podcloud's back, once
// spec.controlPlaneEndpoint names its cluster IP. The endpoint cannot change, so the step must not report
// the cluster provisioned behind an address no Service has: it either gets the same address back or says
// it cannot.
func TestEndpointServiceDeletedOutOfBand(t *testing.T) {
	ctx := t.Context()
	steps, s, old := provisionedEndpoint(t)
	require.Equal(t, old.Spec.ClusterIP, s.Object.Spec.ControlPlaneEndpoint.Host)

	require.NoError(t, env.Client.Delete(ctx, old))
	// Another Service takes the freed address, as any Service of the target cluster may.
	squatter := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: old.Namespace, Name: "squatter"},
		Spec: corev1.ServiceSpec{ClusterIP: old.Spec.ClusterIP, Ports: []corev1.ServicePort{{Port: 80}}}}
	require.NoError(t, env.Client.Create(ctx, squatter))

	res, err := steps.endpoint.Reconcile(ctx, s)
	if err == nil && res.Done {
		current := serviceOf(t, s)
		assert.Equal(t, current.Spec.ClusterIP, s.Object.Spec.ControlPlaneEndpoint.Host,
			"the step reports the cluster provisioned, but spec.controlPlaneEndpoint names the deleted Service's address %s and the new Service has %s",
			s.Object.Spec.ControlPlaneEndpoint.Host, current.Spec.ClusterIP)
	}
}

func TestFailureDomainsCases(t *testing.T) {
	fd := clusterService(func(s *clusterSteps) reconcile.Service[services.ClusterScope] { return s.failureDomains })
	servicetest.RunClusterCases(t, fd, []servicetest.ClusterCase[*v1beta2.PodCluster, *clusterSteps]{
		{
			Name: "lists the zones of the nodes, sorted, once each", Scope: clusterScope(clusterName, "ns"),
			Setup: func(t *testing.T, _ clusterFake, _ *clusterSteps) {
				createNode(t, "fd-node-0", "zone-b")
				createNode(t, "fd-node-1", "zone-a")
				createNode(t, "fd-node-2", "zone-b")
				createNode(t, "fd-node-3", "")
			},
			Want: servicetest.Outcome{Result: done},
			Check: func(t *testing.T, s clusterFake, _ *clusterSteps) {
				assert.Equal(t, []contract.FailureDomain{{Name: "zone-a", ControlPlane: boolPtr(true)}, {Name: "zone-b", ControlPlane: boolPtr(true)}},
					s.Object.Status.FailureDomains)
			},
		},
		{
			Name: "nodes without zones: no failure domains", Scope: clusterScope(clusterName, "ns"),
			Setup: func(t *testing.T, _ clusterFake, _ *clusterSteps) { createNode(t, "fd-node-4", "") },
			Want:  servicetest.Outcome{Result: done, Unchanged: true},
			Check: func(t *testing.T, s clusterFake, _ *clusterSteps) { assert.Nil(t, s.Object.Status.FailureDomains) },
		},
		{
			Name:  "zones that went away are dropped",
			Scope: clusterScope(clusterName, "ns", func(pc *v1beta2.PodCluster) { pc.Status.FailureDomains = []contract.FailureDomain{{Name: "gone"}} }),
			Setup: func(t *testing.T, _ clusterFake, _ *clusterSteps) { createNode(t, "fd-node-5", "zone-c") },
			Want:  servicetest.Outcome{Result: done},
			Check: func(t *testing.T, s clusterFake, _ *clusterSteps) {
				assert.Equal(t, []contract.FailureDomain{{Name: "zone-c", ControlPlane: boolPtr(true)}}, s.Object.Status.FailureDomains)
			},
		},
		{
			Name: "delete has nothing to delete", Scope: clusterScope(clusterName, "ns"), Delete: true,
			Want: servicetest.Outcome{Result: done, Unchanged: true},
		},
	}...)
}

// TestEndpointServiceComesBackAtItsAddress deletes the control plane Service behind podcloud's back: the
// step creates it again at the cluster IP spec.controlPlaneEndpoint names, which cannot change.
func TestEndpointServiceComesBackAtItsAddress(t *testing.T) {
	ctx := t.Context()
	steps, s, old := provisionedEndpoint(t)
	require.NoError(t, env.Client.Delete(ctx, old))

	res, err := steps.endpoint.Reconcile(ctx, s)
	require.NoError(t, err)
	assert.True(t, res.Done)
	current := serviceOf(t, s)
	assert.NotEqual(t, old.UID, current.UID, "a new Service")
	assert.Equal(t, old.Spec.ClusterIP, current.Spec.ClusterIP, "at the address the endpoint names")
	assert.Equal(t, current.Spec.ClusterIP, s.Object.Spec.ControlPlaneEndpoint.Host)
}
