package worksession

import (
	"strings"
	"testing"
)

// TestAddBreadcrumbRedacts: a secret in a breadcrumb's message, text or
// JSON, never reaches the work-session file (it is committed to git), and
// the rest of the file is kept byte for byte.
func TestAddBreadcrumbRedacts(t *testing.T) {
	hf := "hf_" + strings.Repeat("Ab3", 12)
	tests := []struct {
		name, msg, want string
		secrets         []string
	}{
		{"text", "tried mysql -pS3cretPw then DB_PASS=zq987x and " + hf,
			`"message": "tried mysql -p[REDACTED] then DB_PASS=[REDACTED] and [REDACTED]"`,
			[]string{"S3cretPw", "zq987x", hf}},
		{"prose", "the password is Tr0ub4dor&3",
			`"message": "the password is [REDACTED]"`, []string{"Tr0ub4dor&3"}},
		{"json", `{"step": "login", "pass": "hunter2", "auth": {"token": 42}, "n": 1}`,
			`"message": {
        "step": "login",
        "pass": "[REDACTED]",
        "auth": {
          "token": "[REDACTED]"
        },
        "n": 1
      }`, []string{"hunter2", "42"}},
		{"clean", "tests pass", `"message": "tests pass"`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := wsRepo(t, map[string]string{parentPath: parentJSON, childPath: childJSON})
			got, err := AddBreadcrumb(r, "wsession-subtask-def456", tc.msg, wsNow)
			if err != nil {
				t.Fatal(err)
			}
			file := readRel(t, r, childPath)
			if !strings.Contains(file, tc.want) {
				t.Errorf("file:\n%s\nwant it to hold:\n%s", file, tc.want)
			}
			for _, s := range tc.secrets {
				if strings.Contains(file, s) {
					t.Errorf("secret %q written:\n%s", s, file)
				}
			}
			// every byte before the breadcrumbs list is kept
			head := childJSON[:strings.Index(childJSON, `"breadcrumbs": [`)]
			if !strings.HasPrefix(file, head) {
				t.Errorf("the rest of the file changed:\n%s", file)
			}
			if m, ok := got.Entry.Message.(string); ok && strings.Contains(m, "S3cretPw") {
				t.Errorf("entry returned unredacted: %q", m)
			}
		})
	}
}

// TestCloseWorkSessionRedacts: `work done --summary` writes the summary into
// the parent's subtasks and the child's own file; a secret in it never
// reaches either file.
func TestCloseWorkSessionRedacts(t *testing.T) {
	r := wsRepo(t, map[string]string{parentPath: parentJSON, childPath: childJSON})
	if _, err := CloseWorkSession(r, "wsession-subtask-def456", "fixed login; DB_PASS=zq987x mysql -pS3cretPw", wsNow); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{parentPath, childPath} {
		file := readRel(t, r, p)
		for _, s := range []string{"zq987x", "S3cretPw"} {
			if strings.Contains(file, s) {
				t.Errorf("%s: secret %q written:\n%s", p, s, file)
			}
		}
	}
	if file := readRel(t, r, parentPath); !strings.Contains(file, "fixed login; DB_PASS=[REDACTED]") {
		t.Errorf("parent summary not kept redacted:\n%s", file)
	}
}
