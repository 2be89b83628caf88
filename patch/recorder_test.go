package patch_test

import (
	"context"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// request is one API request a Helper sent, as a recorder saw it.
type request struct {
	verb string // "get" or "patch"
	sub  string // "status" for the status subresource
	body string // the patch
	err  error
}

// locked reports whether the patch carries a resourceVersion (optimistic locking).
func (r request) locked() bool { return strings.Contains(r.body, `"resourceVersion"`) }

// recorder is a client that records every get and patch, with its body and outcome, before returning it.
type recorder struct {
	client.WithWatch
	reqs []request
}

func newRecorder(t *testing.T) *recorder {
	t.Helper()
	r := &recorder{}
	r.WithWatch = interceptor.NewClient(watchClient(t), interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			err := c.Get(ctx, key, obj, opts...)
			r.reqs = append(r.reqs, request{verb: "get", err: err})
			return err
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			body, _ := p.Data(obj)
			err := c.Patch(ctx, obj, p, opts...)
			r.reqs = append(r.reqs, request{verb: "patch", body: string(body), err: err})
			return err
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			body, _ := p.Data(obj)
			err := c.SubResource(sub).Patch(ctx, obj, p, opts...)
			r.reqs = append(r.reqs, request{verb: "patch", sub: sub, body: string(body), err: err})
			return err
		},
	})
	return r
}

// take returns the requests recorded so far and forgets them.
func (r *recorder) take() []request {
	out := r.reqs
	r.reqs = nil
	return out
}

// summary renders requests as "patch", "patch status", "get", with " (locked)" for a patch that carries a
// resourceVersion and " -> error" for a request that failed, for assertions that read like the API log.
func summary(reqs []request) []string {
	var out []string
	for _, q := range reqs {
		s := q.verb
		if q.sub != "" {
			s += " " + q.sub
		}
		if q.locked() {
			s += " (locked)"
		}
		if q.err != nil {
			s += " -> error"
		}
		out = append(out, s)
	}
	return out
}
