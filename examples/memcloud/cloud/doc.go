// Package cloud is memcloud, an in-memory IaaS for the capkit example provider, its tests and
// its demo. It behaves like a small remote cloud API, with the failure modes that make real
// providers leak and duplicate resources, and it can report afterwards what was leaked or
// duplicated.
//
// # Resources
//
// Six kinds (Kind) form a tree: a Network holds Subnets, SecurityGroups and LoadBalancers; a
// Subnet holds InstanceGroups and Instances. Every resource has an ID made of a kind prefix and
// 8 hex digits ("net-1f2e3d4c", "subnet-…", "sg-…", "lb-…", "ig-…", "i-…"), a Name, Tags and a
// creation time. An instance gets the lowest free private IP of its subnet and keeps its user
// data (read it with InstanceUserData); it may also be created with static addresses
// (InstanceSpec.StaticIPs, reported in Instance.StaticIPs), for example from an IPAM pool, which
// are unique in the whole cloud (ErrAddressInUse) until the instance is deleted (StaticIPs lists
// those attached); a load balancer has a Host ("<id>.memcloud.local") and
// a Port (6443 by default) and a list of registered instances.
//
// An instance group (an auto scaling group, what a Cluster API MachinePool runs on) keeps Size
// identical instances in its subnet. They are ordinary Instance resources named
// "<group name>-<n>" that carry the group's tags and TagInstanceGroup; the group lists them,
// oldest first. ScaleInstanceGroup sets the size and brings the number of live instances to it:
// it starts instances with the group's current user data (UpdateInstanceGroupUserData rotates
// it for later instances only), deletes the newest ones first and replaces instances deleted
// with DeleteInstance, which leave the group. DeleteInstanceGroup deletes the instances with
// the group.
//
// # API calls
//
// Each kind has Create, Get, Delete and Find methods that read like a cloud SDK (Example):
//
//	c, _ := cloud.New(cloud.WithSeed(42))
//	net, _ := c.CreateNetwork(ctx, cloud.NetworkSpec{
//		Name: "demo", CIDR: "10.0.0.0/16",
//		Tags:             map[string]string{"capkit.io/cluster": "default/demo"},
//		IdempotencyToken: "demo-network",
//	})
//	subnet, _ := c.CreateSubnet(ctx, cloud.SubnetSpec{Name: "demo", NetworkID: net.ID, CIDR: "10.0.1.0/24"})
//	found, err := c.FindNetworks(ctx, map[string]string{"capkit.io/cluster": "default/demo"})
//
// A security group's ingress rules can be changed in place with UpdateSecurityGroupRules, an
// instance group's user data with UpdateInstanceGroupUserData and its size with
// ScaleInstanceGroup, an instance's tags with TagInstance (at once) and its flavor, one of the
// cloud's (WithFlavors, DefaultFlavors otherwise), with ResizeInstance: a running instance stops
// and starts again, pending with Instance.ResizingTo set for as many GetInstance calls as a new
// one, then running with the new flavor. Both are idempotent. Nothing else changes after creation.
// API calls return copies, never internal pointers, and errors of the form
// `cannot create subnet "demo": invalid parameter: cidr "10.1.0.0/24" is not inside …` that wrap
// one sentinel: ErrNotFound (Delete of a resource already gone returns it: treat it as
// success), ErrInvalidParameter, ErrDependencyViolation, ErrTokenReused, ErrTokenMismatch,
// ErrQuotaExceeded, ErrIncorrectState, ErrUnauthorized, ErrThrottled or ErrInjected.
//
// A create request with an IdempotencyToken is safe to retry: the cloud returns the resource
// created with that token instead of a second one, even when the first response was lost. A
// token whose resource has been deleted fails with ErrTokenReused rather than resurrect it.
//
// # Asynchronous creates, search lag and clouds without tokens
//
// By default creates are synchronous, Find lists a resource as soon as it exists and tokens are
// honoured. Three options of New make memcloud behave like clouds that are harder to use safely
// (Behavior reports them; they never change after New):
//
//   - WithAsyncCreates(d): a create returns an *AcceptedError (ErrAccepted; Accepted returns the
//     operation's ID, "op-net-1f2e3d4c") instead of the resource, which exists for the API only d
//     later on the cloud's clock. GetOperation reports the operation: running, done with the
//     ResourceID, or failed (FaultConfig.InOperation, FailNext with InOperation), in which case
//     nothing was created. A token seen before returns the same operation while it runs, and the
//     resource once it is done; a failed operation does not use up its token.
//   - WithSearchLag(d): Find lists a resource d after it exists (after its operation ended).
//   - WithoutTokens(): IdempotencyToken is ignored, so a retried create makes a second resource.
//
// Operations end on the clock of WithClock, read by the API calls: a test moves a fake clock past
// them, and on the real clock they end by themselves, with no goroutine. The inspection methods
// see a resource whose operation still runs (it holds its quota, addresses and ID), and
// CompleteOperation ends an operation at once.
//
// # Accounts
//
// A cloud without accounts needs no credentials, as above. Like a multi-tenant cloud, it can
// have accounts, created from the test or demo side as an administrator's console would:
// CreateAccount returns an account's Credentials, RotateCredentials replaces them (the old
// ones stop working at once), DeleteAccount removes an account without resources, Accounts
// lists them. Calls carry credentials on their context (ExampleWithCredentials):
//
//	creds, _ := c.CreateAccount("team-a")
//	ctx = cloud.WithCredentials(ctx, creds)
//	net, _ := c.CreateNetwork(ctx, cloud.NetworkSpec{Name: "demo", CIDR: "10.0.0.0/16"})
//	_, err := c.GetNetwork(context.Background(), net.ID) // ErrUnauthorized: no credentials
//
// From the first account on, every API call needs valid credentials, checked on every call: a
// call without them, with an unknown access key (never issued, rotated, deleted) or a wrong
// secret fails with an *UnauthorizedError matching ErrUnauthorized, naming the operation and
// the access key ID, before any fault, delay or change. Each account sees only its own
// resources: another account's IDs are not found (ErrNotFound, or ErrInvalidParameter "does not
// exist" for a parent ID in a spec), Find leaves them out, and idempotency tokens, quotas and
// search lag are per account. IDs stay unique across accounts. Credentials never print their
// secret (fmt, JSON, text). Stats.ByAccount counts the calls of each account and
// Stats.Unauthorized the refused ones, so a test can assert that no call was made for an
// account; the inspection methods see every account, Resource.Account and AccountOf tell
// which one owns a resource.
//
// # Rate limits
//
// Like a real cloud, memcloud can throttle callers that call too fast. WithRateLimit (or
// SetRateLimit at run time, SetRateLimit(0, 0) to remove it) gives each account a token bucket
// of burst tokens refilled at perSecond tokens per second (calls without credentials share
// one). Every API call admitted for its credentials takes a token; a call that finds none fails
// at once, before any fault, delay or change, with a *ThrottledError matching ErrThrottled. It
// names the operation and the account, and its RetryAfter is the time until the bucket has a
// token again (at least MinRetryAfter). From ExampleRetryAfter, whose clock is a fake one:
//
//	c, _ := cloud.New(cloud.WithRateLimit(1, 1), clock)
//	_, _ = c.FindNetworks(ctx, nil) // takes the only token
//	net, err := c.CreateNetwork(ctx, spec)
//	if wait, ok := cloud.RetryAfter(err); ok {
//		now = now.Add(wait) // nothing was created: retry with the same idempotency token after wait
//		net, err = c.CreateNetwork(ctx, spec)
//	}
//
// Buckets fill on the clock set with WithClock, so a test with a fake clock is deterministic.
// A throttled call draws no fault and takes no queued FailNext fault. Stats counts throttled
// calls in Calls and ByAccount like any call, and in Throttled and ThrottledByAccount. A cloud
// without a rate limit never throttles.
//
// # Fault injection
//
// FaultConfig (WithFaults, SetFaults) injects, with seeded probabilities, failures before the
// change (nothing happens) and after the change (the change is made, the response is lost),
// latency with jitter that honours context cancellation, and eventual consistency of tag
// search: with SearchLag n, a new resource is missing from the next n Find calls of its kind
// (in its account), besides the search lag in time of WithSearchLag.
// FailNext queues one fault for the next call of an operation, for tests that need a failure
// at one precise point. Injected errors are *FaultError values matching ErrInjected.
// WithPendingGets keeps new instances pending for some GetInstance (or GetInstanceGroup) calls,
// so that providers exercise their "wait until running" path.
//
// # Inspection
//
// Tests and demos look inside without going through the API (nothing is counted or failed):
// Count, List, All and TotalCreated; Calls returns per-operation call counters (ResetCounters
// clears them); Report and Leaks group the live resources by owner, given the owner tag
// convention as an Owner (OwnerTagValue, OwnerTagKeyPrefix); Duplicates finds resources of the
// same kind sharing an owner and a role, which a correct provider never creates.
//
// # Determinism
//
// All methods are safe for concurrent use. IDs (of resources and access keys), fault decisions
// and jitter come from generators seeded by WithSeed (DefaultSeed otherwise) and search lag
// counts calls rather than time, so a test that makes its calls in a fixed order sees the same
// IDs and the same faults on every run; WithClock fixes creation times and the refill of rate
// limit buckets too. Secret access keys are the exception: they come from crypto/rand, so that
// no one can guess them.
package cloud
