package cloud

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"maps"
	"regexp"
	"slices"
)

// The methods of this file manage accounts as an administrator's console does, for tests and
// demos. Like the inspection methods they are never counted, delayed or failed by fault
// injection, and need no credentials.

// account is one tenant of the cloud. It is guarded by Cloud.mu.
type account struct {
	name        string
	accessKeyID string
	secretHash  [sha256.Size]byte // the secret itself is not kept
}

// accessKeyIDPrefix starts every access key ID: "MCAK" and 16 hex digits.
const accessKeyIDPrefix = "MCAK"

// secretBytes is the entropy of a secret access key: 30 bytes, 40 base64 characters.
const secretBytes = 30

var accountName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

// CreateAccount creates an account and returns its credentials. The name is a DNS label (1
// to 63 lowercase letters, digits and '-', starting and ending with a letter or digit) that
// no account has; it fails with ErrInvalidParameter otherwise.
//
// From the first account on, every API call needs the credentials of an account (see Cloud),
// and resources created before it, without credentials, belong to no account: only the
// inspection methods see them. The access key ID comes from the cloud's seeded generator;
// the secret comes from crypto/rand, so it cannot be guessed from the seed or the key.
func (c *Cloud) CreateAccount(name string) (Credentials, error) {
	if !accountName.MatchString(name) {
		return Credentials{}, fmt.Errorf("cannot create account %q: %w", name,
			invalid("name", name, "must be 1 to 63 lowercase letters, digits and '-', starting and ending with a letter or digit"))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.accounts[name]; ok {
		return Credentials{}, fmt.Errorf("cannot create account %q: %w", name, invalid("name", name, "is already an account"))
	}
	a := &account{name: name}
	c.accounts[name] = a
	c.hasAccounts = true
	return c.issueLocked(a), nil
}

// RotateCredentials replaces the credentials of an account and returns the new ones. The old
// ones stop working at once: the next call that carries them fails with ErrUnauthorized. It
// fails with ErrNotFound when there is no such account.
func (c *Cloud) RotateCredentials(name string) (Credentials, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.accounts[name]
	if !ok {
		return Credentials{}, fmt.Errorf("cannot rotate the credentials of account %q: %w", name, ErrNotFound)
	}
	delete(c.accessKeys, a.accessKeyID)
	return c.issueLocked(a), nil
}

// issueLocked gives a a new access key and returns it.
func (c *Cloud) issueLocked(a *account) Credentials {
	var id string
	for id == "" || c.issued[id] {
		id = fmt.Sprintf("%s%016X", accessKeyIDPrefix, c.keyIDs.Uint64())
	}
	c.issued[id] = true
	secret := make([]byte, secretBytes)
	_, _ = rand.Read(secret) // never fails: see crypto/rand.Read
	creds := Credentials{AccessKeyID: id, SecretAccessKey: base64.StdEncoding.EncodeToString(secret)}
	a.accessKeyID, a.secretHash = id, sha256.Sum256([]byte(creds.SecretAccessKey))
	c.accessKeys[id] = a
	return creds
}

// DeleteAccount deletes an account with its credentials, its idempotency tokens and its rate
// limit bucket (an account created again with the same name starts afresh). It fails with
// ErrDependencyViolation while the account owns resources (delete them first) and with
// ErrNotFound when there is no such account. Deleting the last account does not bring back
// calls without credentials.
func (c *Cloud) DeleteAccount(name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.accounts[name]
	if !ok {
		return fmt.Errorf("cannot delete account %q: %w", name, ErrNotFound)
	}
	var owned []*record
	for _, r := range c.records {
		if r.account == name {
			owned = append(owned, r)
		}
	}
	if len(owned) > 0 {
		slices.SortFunc(owned, bySeq)
		return fmt.Errorf("cannot delete account %q: %w: still owns %s", name, ErrDependencyViolation, describe(owned))
	}
	delete(c.accounts, name)
	delete(c.accessKeys, a.accessKeyID)
	maps.DeleteFunc(c.tokens, func(k tokenKey, _ *tokenEntry) bool { return k.account == name })
	maps.DeleteFunc(c.findSeq, func(k scope, _ uint64) bool { return k.account == name })
	delete(c.buckets, name)
	return nil
}

// Accounts returns the names of the accounts, sorted.
func (c *Cloud) Accounts() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(maps.Keys(c.accounts))
}

// AccountOf returns the name of the account that owns the live resource with the given ID
// ("" for a resource created without credentials), and false when there is no such resource.
func (c *Cloud) AccountOf(id string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.records[id]; ok {
		return r.account, true
	}
	return "", false
}

// authenticateLocked returns the account whose credentials ctx carries, nil for a call
// without credentials to a cloud that never had an account, or an *UnauthorizedError.
func (c *Cloud) authenticateLocked(op Op, creds Credentials, present bool) (*account, error) {
	if !present {
		if c.hasAccounts {
			return nil, &UnauthorizedError{Op: op, Reason: reasonNoCredentials}
		}
		return nil, nil
	}
	a, ok := c.accessKeys[creds.AccessKeyID]
	if !ok {
		return nil, &UnauthorizedError{Op: op, AccessKeyID: creds.AccessKeyID, Reason: reasonUnknownKey}
	}
	hash := sha256.Sum256([]byte(creds.SecretAccessKey))
	if subtle.ConstantTimeCompare(hash[:], a.secretHash[:]) != 1 {
		return nil, &UnauthorizedError{Op: op, AccessKeyID: creds.AccessKeyID, Reason: reasonWrongSecret}
	}
	return a, nil
}
