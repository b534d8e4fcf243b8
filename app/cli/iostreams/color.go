package iostreams

// ColorEnabled decides whether output may use colour, from the --no-color
// flag, the environment getenv reads (the injected one, never the
// process's) and whether the output is a terminal. By the usual
// conventions (no-color.org, bixense.com/clicolors): --no-color and
// NO_COLOR always turn colour off; CLICOLOR_FORCE (set, not "0") forces it
// on, even without a terminal; CLICOLOR=0 and TERM=dumb turn it off;
// otherwise colour follows the terminal.
func ColorEnabled(noColor bool, getenv func(string) string, tty bool) bool {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if noColor || getenv("NO_COLOR") != "" {
		return false
	}
	if f := getenv("CLICOLOR_FORCE"); f != "" && f != "0" {
		return true
	}
	if getenv("CLICOLOR") == "0" || getenv("TERM") == "dumb" {
		return false
	}
	return tty
}
