package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	configDir := flag.String("config", filepath.Join("examples", "memcloud", "config"), "folder holding crd/bases, rbac and webhook")
	out := flag.String("o", "", "output file (default CONFIG/infrastructure-components.yaml)")
	flag.Parse()
	if *out == "" {
		*out = filepath.Join(*configDir, "infrastructure-components.yaml")
	}
	data, err := Build(*configDir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "components: %v\n", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "components: cannot write %q: %v\n", *out, err)
		os.Exit(1)
	}
}
