package kbplugin

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The plugin's identity: Kubebuilder takes the name from the folder under its plugins root and the version from the
// folder below it, and runs the executable of the same name in it.
const (
	// Name is the plugin's name, a DNS-1123 subdomain as Kubebuilder requires, and the executable's file name.
	Name = "kubebuilder-capkit"
	// Version is the plugin's version, in Kubebuilder's format v<number>[-alpha|-beta].
	Version = "v1-alpha"
	// Key is the plugin key users pass to --plugins and that PROJECT records in its layout.
	Key = Name + "/" + Version
	// APIVersion is the version of the request and response schema, the only one Kubebuilder v4 sends.
	APIVersion = "v1alpha1"
)

// The commands of the protocol, as Kubebuilder writes them in Request.Command.
const (
	CommandInit          = "init"
	CommandCreateAPI     = "create api"
	CommandCreateWebhook = "create webhook"
	CommandEdit          = "edit"
	CommandFlags         = "flags"
	CommandMetadata      = "metadata"
)

// Bounds of a request.
const (
	// MaxRequestBytes is the default limit on a request's size: Kubebuilder sends every file of the project.
	MaxRequestBytes int64 = 256 << 20
	// MaxFileBytes is the largest Universe file that is kept; a larger one (a built binary) is dropped and reading it
	// fails with ErrFileTooLarge.
	MaxFileBytes = 8 << 20
)

// ErrRequestTooLarge is returned by ReadRequest for a request over its limit.
var ErrRequestTooLarge = errors.New("request too large")

// ErrFileTooLarge is returned when the scaffold reads a Universe file that was over MaxFileBytes.
var ErrFileTooLarge = errors.New("file too large")

// Request is what Kubebuilder writes to the plugin's stdin (pkg/plugin/external.PluginRequest).
type Request struct {
	// APIVersion is the schema version, APIVersion.
	APIVersion string `json:"apiVersion"`
	// Args are the command line's flags and their values, --plugins removed; for "flags" and "metadata" the one
	// argument names the subcommand asked about: "--init", "--api", "--webhook" or "--edit".
	Args []string `json:"args"`
	// Command is one of the Command constants.
	Command string `json:"command"`
	// Universe holds the project's files by slash-separated relative path: every file under the project directory.
	Universe map[string]string `json:"universe"`
	// PluginChain lists the keys of the plugins in use, this one included.
	PluginChain []string `json:"pluginChain,omitempty"`
	// Config is the PROJECT file, absent before it exists (during init it holds version, layout and cliVersion).
	Config map[string]any `json:"config,omitempty"`

	// tooLarge records the sizes of the Universe files that ReadRequest dropped for being over MaxFileBytes.
	tooLarge map[string]int
}

// Response is what the plugin writes to stdout (pkg/plugin/external.PluginResponse).
type Response struct {
	// APIVersion is the schema version, APIVersion.
	APIVersion string `json:"apiVersion"`
	// Command repeats the request's command.
	Command string `json:"command"`
	// Metadata is the help text of a subcommand, for "metadata".
	Metadata Metadata `json:"metadata"`
	// Universe holds the files Kubebuilder writes: the new and edited ones only.
	Universe map[string]string `json:"universe"`
	// Error tells Kubebuilder that the command failed; ErrorMsgs says why.
	Error bool `json:"error,omitempty"`
	// ErrorMsgs are the messages Kubebuilder prints when Error is set.
	ErrorMsgs []string `json:"errorMsgs,omitempty"`
	// Flags are a subcommand's flags, for "flags".
	Flags []Flag `json:"flags,omitempty"`
}

// Metadata is a subcommand's help (pkg/plugin.SubcommandMetadata, which has no JSON tags).
type Metadata struct {
	// Description replaces the subcommand's long help.
	Description string `json:"Description"`
	// Examples replaces the subcommand's examples.
	Examples string `json:"Examples"`
}

// Flag declares a flag of a subcommand (pkg/plugin/external.Flag, which has no JSON tags).
type Flag struct {
	// Name is the flag's name without dashes.
	Name string `json:"Name"`
	// Type is "string", "bool", "int" or "float".
	Type string `json:"Type"`
	// Default is the default value, as text.
	Default string `json:"Default"`
	// Usage is the flag's help.
	Usage string `json:"Usage"`
}

// ReadRequest reads one request from r, refusing one over limit bytes (ErrRequestTooLarge). It reads the Universe
// one file at a time, decoding each file's content as it streams in, and keeps the files up to MaxFileBytes only: a
// dropped file costs one decoding buffer of at most MaxFileBytes, reused, not its size, so memory stays near the
// size of the kept files. Every other field
// is bounded by MaxFileBytes, a file path by maxPathBytes.
func ReadRequest(r io.Reader, limit int64) (Request, error) {
	lr := &limitedReader{r: r, left: limit}
	req, err := decodeRequest(bufio.NewReaderSize(lr, readBufferBytes))
	if lr.over {
		return Request{}, fmt.Errorf("cannot read the request: over %d bytes (Kubebuilder sends every file of the project "+
			"directory: move large files such as built binaries out of it): %w", limit, ErrRequestTooLarge)
	}
	if err != nil {
		return Request{}, fmt.Errorf("cannot read the request: %w", err)
	}
	return req, nil
}

// limitedReader reads up to left bytes and records an attempt to read more.
type limitedReader struct {
	r    io.Reader
	left int64
	over bool
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// One byte more tells a request of exactly the limit from a larger one.
		var b [1]byte
		n, err := l.r.Read(b[:])
		if n > 0 {
			l.over = true
			return 0, ErrRequestTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// WriteResponse writes res to w as one JSON object.
func WriteResponse(w io.Writer, res Response) error {
	if res.Universe == nil {
		res.Universe = map[string]string{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		return fmt.Errorf("cannot write the response: %w", err)
	}
	return nil
}

// errorResponse is the response to a failed command.
func errorResponse(command string, err error) Response {
	return Response{APIVersion: APIVersion, Command: command, Universe: map[string]string{}, Error: true,
		ErrorMsgs: []string{err.Error()}}
}
