package bench_test

import (
	"context"
	"os"
	"path/filepath"
	goruntime "runtime"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
)

// fakeScheme has client-go's types, memcloud's and CRDs (for capkit-discover's CRD read).
func fakeScheme(tb testing.TB) *runtime.Scheme {
	tb.Helper()
	s, err := memcloudtest.Scheme()
	if err == nil {
		err = apiextensionsv1.AddToScheme(s)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// memMachineCRD reads memcloud's MemMachine CRD, which carries the contract label.
func memMachineCRD(tb testing.TB) *apiextensionsv1.CustomResourceDefinition {
	tb.Helper()
	dir, err := memcloudtest.ConfigDir()
	if err != nil {
		tb.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "crd", "bases", "infrastructure.memcloud.capkit.io_memmachines.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		tb.Fatalf("cannot read the MemMachine CRD: %v", err)
	}
	return crd
}

// BenchmarkPatch measures one reconcile's patching, from the object read to the end of the patch, on
// controller-runtime's fake client. Every iteration starts from a new fake client holding the starting
// object (built, and its garbage collected, with the timer stopped), so that every iteration persists the
// same change and no implementation pays in its timed section for the garbage of the set-up.
func BenchmarkPatch(b *testing.B) {
	s := fakeScheme(b)
	crd := memMachineCRD(b)
	ctx := context.Background()
	for _, im := range impls {
		b.Run(im.name, func(b *testing.B) {
			for _, pc := range patchCases {
				b.Run(pc.name, func(b *testing.B) {
					b.ReportAllocs()
					var c client.Client
					m := &v1beta2.MemMachine{}
					for range b.N {
						b.StopTimer()
						c = fake.NewClientBuilder().WithScheme(s).WithStatusSubresource(&v1beta2.MemMachine{}).
							WithObjects(baseMachine("bench", "m"), crd.DeepCopy()).Build()
						m = &v1beta2.MemMachine{}
						if err := c.Get(ctx, client.ObjectKey{Namespace: "bench", Name: "m"}, m); err != nil {
							b.Fatal(err)
						}
						in := newInput(m)
						goruntime.GC() // the garbage of building the fake client is collected outside the timed section
						b.StartTimer()
						if err := im.run(ctx, c, in, pc); err != nil {
							b.Fatal(err)
						}
					}
					b.StopTimer()
					got := &v1beta2.MemMachine{}
					if err := c.Get(ctx, client.ObjectKeyFromObject(m), got); err != nil {
						b.Fatal(err)
					}
					if err := pc.want(got); err != nil {
						b.Fatal(err)
					}
				})
			}
		})
	}
}

// BenchmarkPatchNoChange measures the no-op reconcile alone, on one fake client built once: nothing is
// written, so no iteration changes what the next one reads, and no fake client is rebuilt between
// iterations (whose garbage BenchmarkPatch's timed sections pay for in GC). Every implementation reads a
// fresh copy of the same object in each iteration.
func BenchmarkPatchNoChange(b *testing.B) {
	s := fakeScheme(b)
	ctx := context.Background()
	c := fake.NewClientBuilder().WithScheme(s).WithStatusSubresource(&v1beta2.MemMachine{}).
		WithObjects(baseMachine("bench", "m"), memMachineCRD(b)).Build()
	read := &v1beta2.MemMachine{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "bench", Name: "m"}, read); err != nil {
		b.Fatal(err)
	}
	noChange := patchCases[0]
	for _, im := range impls {
		b.Run(im.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := im.run(ctx, c, newInput(read.DeepCopy()), noChange); err != nil {
					b.Fatal(err)
				}
			}
			got := &v1beta2.MemMachine{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(read), got); err != nil {
				b.Fatal(err)
			}
			if got.ResourceVersion != read.ResourceVersion {
				b.Fatalf("a no-change reconcile wrote: resourceVersion %s, want %s", got.ResourceVersion, read.ResourceVersion)
			}
		})
	}
}
