package ipam

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/netip"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// addressOf returns the address of claim for request r; ok is false while there is none to use yet: no claim
// (not readable yet), a claim being deleted, no status.addressRef, or an IPAddress not readable yet.
func (c *Claimer) addressOf(ctx context.Context, claim *unstructured.Unstructured, r Request) (addr Address, ok bool, err error) {
	if claim == nil || claim.GetDeletionTimestamp() != nil {
		return Address{}, false, nil
	}
	name, _, _ := unstructured.NestedString(claim.Object, "status", "addressRef", "name")
	if name == "" {
		return Address{}, false, nil
	}
	key := client.ObjectKey{Namespace: claim.GetNamespace(), Name: name}
	ip := &unstructured.Unstructured{}
	ip.SetGroupVersionKind(AddressGVK)
	if err := c.reader.Get(ctx, key, ip); apierrors.IsNotFound(err) {
		return Address{}, false, nil
	} else if err != nil {
		return Address{}, false, fmt.Errorf("cannot get IPAddress %q of IPAddressClaim %q: %w", key, claim.GetName(), err)
	}
	addr, err = parseAddress(ip, claim.GetName(), r)
	if err != nil {
		return Address{}, false, &addressError{err}
	}
	return addr, true, nil
}

// addressError is an IPAddress that a claim's address cannot be (parseAddress refused it): Claim makes it
// terminal, also when it wraps ErrConflict (another claim's or pool's), since an IPAddress's spec is immutable.
type addressError struct{ error }

func (e *addressError) Unwrap() error { return e.error }

// parseAddress reads the IPAddress ip of the claim named claim for request r. It refuses an IPAddress of another
// claim or pool (ErrConflict) and bad values (ErrInvalid).
func parseAddress(ip *unstructured.Unstructured, claim string, r Request) (Address, error) {
	key := client.ObjectKeyFromObject(ip)
	fail := func(sentinel error, format string, args ...any) (Address, error) {
		return Address{}, fmt.Errorf("cannot use IPAddress %q of IPAddressClaim %q: %s: %w", key, claim, fmt.Sprintf(format, args...), sentinel)
	}
	if got, _, _ := unstructured.NestedString(ip.Object, "spec", "claimRef", "name"); got != claim {
		return fail(ErrConflict, "spec.claimRef.name is %q", got)
	}
	if got := poolOf(ip.Object, "spec", "poolRef"); got != r.Pool {
		return fail(ErrConflict, "spec.poolRef is %s, not %s", got, r.Pool)
	}
	s, _, _ := unstructured.NestedString(ip.Object, "spec", "address")
	addr, err := parseIP(s)
	if err != nil {
		return fail(ErrInvalid, "spec.address %q: %v", s, err)
	}
	bits := addr.BitLen()
	prefix, err := intField(ip.Object, "spec", "prefix")
	if err != nil {
		return fail(ErrInvalid, "spec.prefix: %v", err)
	}
	if prefix < 0 || prefix > int64(bits) {
		return fail(ErrInvalid, "spec.prefix %d is not in 0..%d", prefix, bits)
	}
	out := Address{Device: r.Device, Pool: r.Pool, Claim: claim, Address: addr, Prefix: int(prefix)}
	if s, _, _ := unstructured.NestedString(ip.Object, "spec", "gateway"); s != "" {
		if out.Gateway, err = parseIP(s); err != nil {
			return fail(ErrInvalid, "spec.gateway %q: %v", s, err)
		}
		if out.Gateway.Is4() != addr.Is4() {
			return fail(ErrInvalid, "spec.gateway %q is not of the family of spec.address %q", s, addr)
		}
	}
	return out, nil
}

// parseIP parses an IPv4 or IPv6 address without zone.
func parseIP(s string) (netip.Addr, error) {
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, errors.New("not an IP address")
	}
	if a.Zone() != "" {
		return netip.Addr{}, errors.New("an IP address with a zone")
	}
	return a, nil
}

// intField reads an integer at path; JSON numbers decode as int64, or float64 from some clients.
func intField(obj map[string]any, path ...string) (int64, error) {
	v, found, err := unstructured.NestedFieldNoCopy(obj, path...)
	if err != nil || !found {
		return 0, errors.New("missing")
	}
	switch n := v.(type) {
	case int64:
		return n, nil
	case int32:
		return int64(n), nil
	case int:
		return int64(n), nil
	case float64:
		if n == math.Trunc(n) && math.Abs(n) <= 1<<31 {
			return int64(n), nil
		}
	}
	return 0, fmt.Errorf("%v is not an integer", v)
}
