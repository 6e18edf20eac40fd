package ascii

import "testing"

// Only ASCII letters fold: the Kelvin sign and 'Ä' stay as they are.
func TestLower(t *testing.T) {
	for in, want := range map[string]string{"": "", "Bash": "bash", "READ_FILE-2": "read_file-2", "\u212aÄx": "\u212aÄx"} {
		if got := Lower(in); got != want {
			t.Errorf("Lower(%q) = %q, want %q", in, got, want)
		}
	}
}
