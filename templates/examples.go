package templates

// Examples is the Examples section of every command's help, keyed by the
// command's path ("orchestrate resume"); the command layer applies it to
// every command, and a test there checks that none is missing.
var Examples = map[string]string{
	"orchestrate": `  # what was interrupted, and where it would pick up
  orchestrate status

  # resume the most recent interrupted workflow, asking first
  orchestrate resume

  # in CI: resume clean states without a prompt, one JSON document on stdout
  orchestrate resume --mode autopilot --json`,

	"orchestrate status": `  orchestrate status
  orchestrate status --all          # completed and archived states too
  orchestrate status --json         # schema orchestrate/v1, for scripts`,

	"orchestrate resume": `  orchestrate resume                          # the most recent; interactive asks
  orchestrate resume sdc:4.2                  # a named workflow (or its story id: 4.2)
  orchestrate resume --dry-run --mode preflight sdc:4.2
  orchestrate resume --mode autopilot --json  # no prompt; halts on conflicts
  orchestrate resume sdc:4.2 --from-phase validate  # start again from a still-valid phase
  orchestrate resume sdc:4.2 --dry-run --approve --plan-out plan.json && orchestrate resume --plan plan.json`,

	"orchestrate cleanup": `  orchestrate cleanup sdc:4.2 --dry-run   # show what would be archived and reset
  orchestrate cleanup sdc:4.2 --yes       # no confirmation`,

	"orchestrate unlock": `  orchestrate unlock sdc:4.2           # remove a stale lock (its process is gone)
  orchestrate unlock sdc:4.2 --force   # remove it even if its process looks alive`,

	"orchestrate log": `  orchestrate log           # the last 20 events
  orchestrate log -n 0      # every event
  orchestrate log --json    # one JSON document: {schema, command, events}`,

	"orchestrate breadcrumb": `  orchestrate breadcrumb add --cookie "$ORCHESTRATE_WSID" --message "tests pass"
  orchestrate breadcrumb list --cookie "$ORCHESTRATE_WSID"`,

	"orchestrate breadcrumb add": `  orchestrate breadcrumb add --cookie "$ORCHESTRATE_WSID" --message "migrated the schema"
  orchestrate breadcrumb add --cookie "$ORCHESTRATE_WSID" --message '{"step":"qa","ok":true}'`,

	"orchestrate breadcrumb list": `  orchestrate breadcrumb list --cookie "$ORCHESTRATE_WSID"
  orchestrate breadcrumb list --cookie "$ORCHESTRATE_WSID" --json`,

	"orchestrate work": `  orchestrate work done --cookie "$ORCHESTRATE_WSID" --summary "story 4.2 implemented"`,

	"orchestrate work done": `  orchestrate work done --cookie "$ORCHESTRATE_WSID" --summary "story 4.2 implemented"
  orchestrate work done --cookie "$ORCHESTRATE_WSID" --summary "done" --json`,

	"orchestrate version": `  orchestrate version
  orchestrate --version`,

	"orchestrate trust": `  orchestrate trust --show     # what .orchestrate.yaml would run, and whether it is trusted
  orchestrate trust            # trust the file as it is now
  orchestrate trust --revoke   # forget that trust`,

	"orchestrate mcp": `  orchestrate mcp                  # serve this repository to the agent that started it (stdin/stdout)
  orchestrate mcp --repo ../app    # serve another repository`,

	"orchestrate completion": `  source <(orchestrate completion bash)
  orchestrate completion zsh > "${fpath[1]}/_orchestrate"
  orchestrate completion fish > ~/.config/fish/completions/orchestrate.fish
  orchestrate completion powershell | Out-String | Invoke-Expression`,

	"orchestrate help": `  orchestrate help resume
  orchestrate resume --help`,
}
