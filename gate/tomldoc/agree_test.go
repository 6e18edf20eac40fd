package tomldoc

import (
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Parse skips BurntSushi unless the builder suspects the text, so it must
// reject exactly what BurntSushi rejects among the texts the unstable
// parser accepts (where the unstable parser refuses, Parse refuses first).
var agreementSeeds = []string{
	// Accepted.
	"a = 1\nb = 'x'\n",
	"[a]\nx = 1\n[b]\ny = 2\n",
	"[a.b]\nx = 1\n[a]\ny = 2\n",
	"[a.b.c]\n[a.b]\n",
	"[[rules]]\ntool = \"bash\"\n[[rules]]\ntool = \"x\"\n",
	"[[a]]\n[a.b]\nx = 1\n[[a]]\n[a.b]\nx = 2\n",
	"[[a.b]]\n[[a.b]]\n[a]\nx = 1\n",
	"a.b.c = 1\na.b.d = 2\n",
	"[t]\na.b = 1\na.c = 2\n",
	"x = { a = 1, b.c = 2 }\n",
	"x = [ { a = 1 }, { a = 2 } ]\n",
	"n = 0x_ff\n",
	"n = 1_000\nm = -0\nk = +0\nh = 0xDEAD_beef\no = 0o17\nb = 0b1010\n",
	"f = 1.5e-3\ng = -0.0\nh = inf\ni = -nan\nj = 1e1_0\nk = 6.626e-34\n",
	"d = 1979-05-27T07:32:00Z\ne = 1979-05-27 07:32:00.999-07:00\nf = 1979-05-27\ng = 07:32:00\nh = 1979-05-27T07:32:00\n",
	"s = \"\\u00e9\\U0001F600\\t\"\n",
	"s = \"\"\"\nline \\\n  more\"\"\"\n",
	"# comment \u00e9\nk = 'v' # trailing\n",
	"\"quoted.key\" = 1\n'lit' = 2\n",
	"a = 1\r\nb = 2\r\n",
	// Rejected by BurntSushi, accepted by the unstable parser.
	"a = 1\na = 2\n",
	"[a]\n[a]\n",
	"[a]\nb = 1\n[a.b]\n",
	"a = 1\n[a]\n",
	"a = [1]\n[[a]]\n",
	"[[a]]\n[a]\n",
	"[a]\n[[a]]\n",
	"a = {}\n[a.b]\n",
	"a = { b = 1 }\na.c = 2\n",
	"a.b = 1\na.b.c = 2\n",
	"[t]\na.b = 1\n[t.a]\n",
	"[t]\na.b = 1\n[t]\na.c = 2\n",
	"[a.b]\n[a]\nb.c = 1\n",
	"[x]\na.b = 1\n[y]\n[x.a.c]\n",
	"a = [{}]\n[a.b]\n",
	"x = { a = 1, a = 2 }\n",
	"x = { a.b = 1, a = 2 }\n",
	"n = 01\n",
	"n = 1__0\n",
	"n = 9223372036854775808\n",
	"n = 0x\n",
	"f = 1.e2\n",
	"f = 01.5\n",
	"f = 1_.5\n",
	"d = 1979-13-27\n",
	"d = 1979-02-30\n",
	"t = 25:00:00\n",
	"d = 1979-5-27\n",
	"s = \"a\x01b\"\n",
	"s = 'a\x7fb'\n",
	"k = 1\r",
	"k = \"\xff\"\n",
	"[[a.b]]\n[a]\n[a.b]\n",
	"[a]\nb.c = 1\n[a.b.d]\n",
	// A UTF-8 byte order mark, skipped by both at the start only.
	"\uFEFFa = 1\n",
	"\uFEFF[t]\nx = 'y'\n",
	"\uFEFF\uFEFFa = 1\n",
	"a = 1\n\uFEFFb = 2\n",
	"\uFEFF",
	"\uFEFFa = 1\na = 2\n",
	"\xff\xfea = 1\n",
}

func TestAgreesWithBurntSushi(t *testing.T) {
	for _, src := range agreementSeeds {
		checkAgreement(t, []byte(src))
	}
}

func FuzzAgreesWithBurntSushi(f *testing.F) {
	for _, src := range agreementSeeds {
		f.Add([]byte(src))
	}
	f.Fuzz(checkAgreement)
}

func checkAgreement(t *testing.T, src []byte) {
	t.Helper()
	p := &unstable.Parser{}
	p.Reset(blankBOM(src)) // both skip a leading BOM; see TestParseSkipsBOM
	for p.NextExpression() {
	}
	if p.Error() != nil {
		return
	}
	var sink map[string]any
	_, bsErr := toml.Decode(string(src), &sink)
	_, err := Parse(src)
	if (bsErr != nil) != (err != nil) {
		t.Fatalf("%q: BurntSushi says %v, Parse says %v", src, bsErr, err)
	}
}
