// Package cloud is what the quux provider needs of its cloud: the narrow interface its services call
// (Cloud), and Memory, an in-memory implementation safe for concurrent use that the tests run against.
//
// Replace Memory with an adapter over your cloud's SDK that implements Cloud: the services, controllers
// and tests do not change. Keep the interface narrow: one method per cloud call the services make.
//
// The rules every implementation follows, because reconcile.Ensure relies on them to never create a
// resource twice:
//
//   - Create is idempotent per token: a second Create with the same token returns the first resource;
//   - every resource carries the tags it was created with, and Find returns the resources that carry all
//     the tags given (Ensure tags each resource with its ownership key and adopts it by them);
//   - Get and Delete of a resource that does not exist fail with an error wrapping ErrNotFound.
package cloud
