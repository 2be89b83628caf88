package kbplugin_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/capkit/capkit/internal/kbplugin"
	"github.com/capkit/capkit/internal/scaffold"
)

// oneFile is a stand-in for package scaffold that writes one file.
type oneFile struct{}

func (oneFile) Init(o scaffold.Options) (scaffold.Files, error) {
	return scaffold.Files{"go.mod": []byte("module " + o.Module + "\n")}, nil
}

func (oneFile) CreateMachinePool(scaffold.Options, func(string) ([]byte, error)) (scaffold.Files, error) {
	return scaffold.Files{}, nil
}

// Kubebuilder runs the plugin with a request on stdin and writes the files of the response's universe.
func ExamplePlugin_Run() {
	request := `{"apiVersion":"v1alpha1","command":"init","universe":{},` +
		`"args":["--repo","github.com/acme/cluster-api-provider-acme","--provider","acme"]}`
	p := kbplugin.New(kbplugin.WithScaffolder(oneFile{}))
	if err := p.Run(strings.NewReader(request), os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"apiVersion":"v1alpha1","command":"init","metadata":{"Description":"","Examples":""},"universe":{"go.mod":"module github.com/acme/cluster-api-provider-acme\n"}}
}

// A command the plugin does not support gets an error response that names what it supports.
func ExamplePlugin_Handle() {
	res := kbplugin.New().Handle(kbplugin.Request{APIVersion: kbplugin.APIVersion, Command: kbplugin.CommandEdit})
	fmt.Println(res.Error, res.ErrorMsgs[0])
	// Output:
	// true cannot run command "edit": kubebuilder-capkit/v1-alpha supports "init" and "create api" (with --kind <Provider>MachinePool)
}
