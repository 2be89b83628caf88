// Package logtest captures what a test's code logs, so that tests can assert that no secret is ever logged. It captures
// every verbosity and every goroutine, including client-go's own request and response logging.
//
// client-go logs response bodies at -v=8 through the logger of the request's context, or through klog when the
// context has none; protobuf bodies (Secrets among them) appear as hex dumps whose values span lines.
// FromHexDumps decodes them, so that a search for a secret also finds it there.
package logtest
