package story

import "github.com/orchestrate-dev/orchestrate/workflow"

// What a scan keeps of a story that is not in flight (see storyTrimSections).

// storyScanRaw are the sections whose text a scanned story keeps (see
// storyParse): the Change Log (rebuilding a lost state reads its rows) and
// the Dependencies (resume shows them). Every other section keeps only its
// hash and line, which is all drift detection compares.
var storyScanRaw = map[string]bool{
	workflow.SectionChangeLog:    true,
	workflow.SectionDependencies: true,
}

// storyInFlight reports whether st is a story in flight (InProgress or
// InReview: a resumable candidate of its own), whose scan keeps every
// section; see storyTrimSections.
func storyInFlight(st *workflow.Story) bool {
	return st.Status == workflow.StatusInProgress || st.Status == workflow.StatusInReview
}

// storyTrimSections drops from *secs, the sections of a scan's story st
// that is not in flight (most of 20,000 stories are Done), the sections
// kept only for their hash (all but storyScanRaw's), and reports whether it
// dropped any: the story then says so (Story.SectionsTrimmed), and the one
// stage that compares hashes (validate's drift check, for a story a
// workflow still works on) parses the file afresh. 20,000 stories keep
// 2 sections each rather than 7: 7 MB less live heap for the whole run.
func storyTrimSections(st *workflow.Story, secs *workflow.Sections) bool {
	if storyInFlight(st) {
		return false
	}
	kept := (*secs)[:0]
	for _, sec := range *secs {
		if storyScanRaw[sec.Name] {
			kept = append(kept, sec)
		}
	}
	if len(kept) == len(*secs) {
		return false
	}
	clear((*secs)[len(kept):])
	*secs = kept
	return true
}
