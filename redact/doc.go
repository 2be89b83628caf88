// Package redact keeps secrets out of what a reconcile writes for people to read. That is condition messages, events,
// log lines and returned errors.
//
// A Redactor is made per reconcile. The code that reads a secret registers it (Add): capkit's scope registers
// the bootstrap data it reads, the identity binder the credentials it resolves. Everything that leaves the
// reconcile passes through the same Redactor: String for condition messages and event notes, Error for the
// returned error, Logger for the logger handed to provider code. Registered text becomes Placeholder.
//
// # What is masked
//
// For each registered value:
//
//   - the whole value, also without surrounding white space, and escaped as Go's %q and JSON write it;
//   - its base64 encoding (standard and URL alphabets, with or without padding), also where the value sits
//     inside a longer base64 stream;
//   - every line and every white-space separated token of at least MinTokenLength bytes, also without
//     surrounding quotes and punctuation, and the base64 forms of the tokens;
//   - every kubeadm bootstrap token ([a-z0-9]{6}.[a-z0-9]{16}) in the value, and its 16-character secret alone;
//   - the start (MinCutLength bytes or more) of any of these at the end of a text, possibly followed by dots:
//     a cloud that truncates its echo leaves no prefix of a token.
//
// Overlapping matches become one Placeholder, and the reconcilers mask before they cut a message to its
// length limit, so no part of a secret is left at an edge. A text without registered secrets is returned as
// it is (the same string, the same error value).
//
// # What is not
//
//   - A secret nobody registered: a provider's own Secret that it reads itself (call Add with its values).
//   - Values shorter than MinSecretLength bytes; lines and tokens shorter than MinTokenLength bytes unless
//     they are the whole value.
//   - Other encodings of a whole multi-line value (hex, gzip, another escaping; its tokens are still found),
//     and a secret cut at the start of a text.
//   - Log values other than strings, byte slices, errors, fmt.Stringers and logr.Marshalers are checked
//     through their %+v form, which may not show every byte a sink prints.
//   - An error's chain is kept for errors.Is and errors.As: code that unwraps an error and prints an inner one
//     bypasses the Redactor.
//
// The Redactor also masks text that only looks like a registered token: a path or a URL of at least
// MinTokenLength bytes that appears in the bootstrap data is masked in messages too.
//
// # Cost
//
// Registering a value costs time and memory in proportion to its size: 1 MiB of distinct tokens (the largest
// Secret) takes about 0.2 s and 16 MB; a 10 KB cloud-config about 0.5 ms. Masking scans a text once.
//
// # Reading secrets
//
// client-go logs request and response bodies at verbosity 8 and above through the logger of the request's
// context. QuietContext returns a context whose logger discards everything: every read and write of a Secret
// in capkit goes through it, and a provider's own Secret reads should too.
package redact
