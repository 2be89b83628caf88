// Package myprovider is the provider the README's and docs/' snippets are cut from. Its regions ("// snippet:start
// NAME") are pasted into the Markdown, and the docstest test keeps them equal. Its own tests run the sketch's service
// through providertest/servicetest.
package myprovider
