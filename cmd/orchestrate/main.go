// Command orchestrate resumes interrupted AI-agent development workflows.
// See the README and `orchestrate --help`.
package main

import (
	"os"

	"github.com/orchestrate-dev/orchestrate/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], cli.OSSystem())) }
