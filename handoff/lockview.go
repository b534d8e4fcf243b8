package handoff

import "strings"

// LockView is the locks folder as one run looks at it: listed once, so a
// run asking about many workflows whose locks do not exist opens nothing
// per workflow (issue 25: `status` on 1,000 workflows opened the locks
// folder and the lock file of each). A workflow whose lock file is listed
// — or one equal to a listed name but for case, as a file system that
// ignores case would open it — is inspected exactly as Inspect does, at
// the time of asking. A lock taken after the listing is not seen: the view
// is for reports (status, the age step, autopilot's skip), never for
// taking a lock, which Acquire decides on its own.
type LockView struct {
	root string
	// names holds the folder's names, lower-cased; nil when the folder
	// could not be listed, and then every question is Inspect's.
	names map[string]struct{}
}

// ViewLocks lists the locks folder of the repository at root. A missing or
// refused folder holds no lock (as Inspect says); one that cannot be
// listed leaves every question to Inspect.
func ViewLocks(root string) *LockView {
	v := &LockView{root: root}
	d, err := openLocksDir(root, false)
	if err != nil {
		v.names = map[string]struct{}{}
		return v
	}
	defer d.Close()
	names, err := d.Names()
	if err != nil {
		return v
	}
	v.names = make(map[string]struct{}, len(names))
	for _, n := range names {
		v.names[strings.ToLower(n)] = struct{}{}
	}
	return v
}

// Inspect is Inspect(root, id) for a lock the listing holds, and no lock
// for one it does not.
func (v *LockView) Inspect(id string) LockState {
	if v.names != nil {
		if _, ok := v.names[strings.ToLower(lockName(id))]; !ok {
			return LockState{}
		}
	}
	return Inspect(v.root, id)
}

// StateOf is LockStateOf(root, id) through the view.
func (v *LockView) StateOf(id string) LockStatus { return statusOf(v.Inspect(id)) }
