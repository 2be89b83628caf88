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
// controller-runtime's fake client: BenchmarkPatch/<case>/<impl>, every implementation of a case one after
// the other, so that all of them run in the same state of the process.
//
// A case that writes starts every iteration from a new fake client holding the starting object (built, and
// its garbage collected, with the timer stopped), so that every iteration persists the same change and no
// implementation pays in its timed section for the garbage of the set-up. The no-change case writes
// nothing, so it reuses one fake client and reads a fresh copy of the same object in every iteration, and
// checks that nothing was written.
func BenchmarkPatch(b *testing.B) {
	s := fakeScheme(b)
	crd := memMachineCRD(b)
	ctx := context.Background()
	for _, pc := range patchCases {
		b.Run(pc.name, func(b *testing.B) {
			for _, im := range impls {
				b.Run(im.name, func(b *testing.B) {
					b.ReportAllocs()
					if pc.name == noChange {
						benchNoChange(ctx, b, s, crd, im)
						return
					}
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
						goruntime.GC()
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

// benchNoChange is the no-change case of BenchmarkPatch on one fake client.
func benchNoChange(ctx context.Context, b *testing.B, s *runtime.Scheme, crd *apiextensionsv1.CustomResourceDefinition, im impl) {
	c := fake.NewClientBuilder().WithScheme(s).WithStatusSubresource(&v1beta2.MemMachine{}).
		WithObjects(baseMachine("bench", "m"), crd.DeepCopy()).Build()
	read := &v1beta2.MemMachine{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "bench", Name: "m"}, read); err != nil {
		b.Fatal(err)
	}
	pc := patchCases[0]
	b.ResetTimer()
	for range b.N {
		if err := im.run(ctx, c, newInput(read.DeepCopy()), pc); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	got := &v1beta2.MemMachine{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(read), got); err != nil {
		b.Fatal(err)
	}
	if got.ResourceVersion != read.ResourceVersion {
		b.Fatalf("a no-change reconcile wrote: resourceVersion %s, want %s", got.ResourceVersion, read.ResourceVersion)
	}
}
