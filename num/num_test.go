package num

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestParseInt(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"1", 1, true}, {"-1", -1, true}, {"10", 10, true},
		{"9223372036854775807", math.MaxInt64, true},
		{"-9223372036854775808", math.MinInt64, true},
		{"9223372036854775808", 0, false}, {"-9223372036854775809", 0, false},
		{"18446744073709551616", 0, false}, {"99999999999999999999", 0, false},
		{"-99999999999999999999", 0, false}, {"000000000000000000001", 0, false},
		{"", 0, false}, {"-", 0, false}, {"+", 0, false}, {"-0", 0, false}, {"+0", 0, false},
		{"+1", 0, false}, {"01", 0, false}, {"-01", 0, false}, {"00", 0, false},
		{" 1", 0, false}, {"1 ", 0, false}, {"1a", 0, false}, {"0x10", 0, false},
		{"1e3", 0, false}, {"1.0", 0, false}, {"1_0", 0, false},
	} {
		got, ok := ParseInt([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseInt(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzParseInt checks ParseInt against its model: string2ll accepts
// exactly the canonical decimal texts of int64 values.
func FuzzParseInt(f *testing.F) {
	for _, s := range []string{"0", "-0", "+1", "01", "9223372036854775808", "-9223372036854775808", " 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseInt([]byte(s))
		v, err := strconv.ParseInt(s, 10, 64)
		want := err == nil && strconv.FormatInt(v, 10) == s
		if ok != want || ok && got != v {
			t.Fatalf("ParseInt(%q) = %d, %v; want %d, %v", s, got, ok, v, want)
		}
	})
}

func TestParseUlong(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"", 0, true}, {"0", 0, true}, {"007", 7, true}, {"+5", 5, true}, {"-1", math.MaxUint64, true},
		{"18446744073709551615", math.MaxUint64, true}, {"18446744073709551616", 0, false},
		{"-", 0, false}, {" 1", 0, false}, {"1 ", 0, false}, {"0x1", 0, false}, {"1_0", 0, false},
	} {
		got, ok := ParseUlong([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseUlong(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// strtodRE is strtod's grammar in the C locale, written apart from scan.
var strtodRE = regexp.MustCompile(`^[ \t\n\v\f\r]*[+-]?(?:(?i:inf(?:inity)?)|(?i:nan)(?:\([0-9A-Za-z_]*\))?|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)$`)

// modelStrtod is the reference for ParseStrtod: the grammar above, and
// the value through big.Float.
func modelStrtod(s string) (f float64, erange, ok bool) {
	if !strtodRE.MatchString(s) {
		return 0, false, false
	}
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	u := strings.TrimLeft(t, "+-")
	neg := strings.HasPrefix(t, "-")
	switch l := strings.ToLower(u); {
	case strings.HasPrefix(l, "inf"):
		return math.Copysign(math.Inf(1), map[bool]float64{true: -1, false: 1}[neg]), false, true
	case strings.HasPrefix(l, "nan"):
		return math.NaN(), false, true
	case strings.HasPrefix(l, "0x") && !strings.ContainsAny(l, "p"):
		t += "p0"
	}
	x, _, err := new(big.Float).SetPrec(2048).Parse(t, 0)
	if err != nil { // an exponent past big.Float's range
		return 0, false, false
	}
	f, _ = x.Float64()
	return f, math.IsInf(f, 0) || f == 0 && x.Sign() != 0, true
}

var hugeExp = regexp.MustCompile(`[eEpP][+-]?[0-9]{9}`)

func sameFloat(a, b float64) bool {
	return a == b && math.Signbit(a) == math.Signbit(b) || math.IsNaN(a) && math.IsNaN(b)
}

var floatCases = []string{
	"0", "-0", "1", "+1", "-1.5", "01", " 1", "\t-2", "1 ", "", " ", "-", "+", ".", "1.", ".5",
	"1e3", "1E3", "1e", "1e+", "e1", "1e-3", "1.5e2", "0x10", "0X1p3", "0x.8", "0x", "0x.", "0xg",
	"0x1p", "0x1.8p1", "inf", "-inf", "+inf", "INF", "Infinity", "-infinity", "infinit", "nan",
	"-nan", "NaN", "nan(1)", "nan(", "nan()", "1e400", "-1e400", "1e-400", "-1e-400", "1e-320",
	"0x1p-1080", "0x1p1024", "1e308", "1_0", "0x1_0", "1,5", "1abc", "9223372036854775808",
	"0.1", "0e999", "0x0p99999", "1e999999",
}

func TestParseStrtod(t *testing.T) {
	for _, s := range floatCases {
		f, erange, ok := ParseStrtod([]byte(s))
		wf, werange, wok := modelStrtod(s)
		if ok != wok || ok && (!sameFloat(f, wf) || erange != werange) {
			t.Errorf("ParseStrtod(%q) = %v, %v, %v; want %v, %v, %v", s, f, erange, ok, wf, werange, wok)
		}
	}
}

func FuzzParseStrtod(f *testing.F) {
	for _, s := range floatCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 400 || hugeExp.MatchString(s) {
			return // past what the model parses
		}
		v, erange, ok := ParseStrtod([]byte(s))
		wv, werange, wok := modelStrtod(s)
		if ok != wok || ok && (!sameFloat(v, wv) || erange != werange) {
			t.Fatalf("ParseStrtod(%q) = %v, %v, %v; want %v, %v, %v", s, v, erange, ok, wv, werange, wok)
		}
	})
}

func TestParseDouble(t *testing.T) {
	if f, erange, ok := ParseStrtod([]byte("1e99999999999999999999")); !ok || !erange || !math.IsInf(f, 1) {
		t.Errorf("a huge exponent: %v, %v, %v", f, erange, ok)
	}
	if f, erange, ok := ParseStrtod([]byte("-1e-99999999999999999999")); !ok || !erange || f != 0 {
		t.Errorf("a huge negative exponent: %v, %v, %v", f, erange, ok)
	}
	for _, tt := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1", 1, true}, {"-0", math.Copysign(0, -1), true}, {"+1", 1, true}, {"01", 1, true},
		{"1.", 1, true}, {".5", 0.5, true}, {"1e3", 1000, true}, {"0x10", 16, true},
		{"inf", math.Inf(1), true}, {"+inf", math.Inf(1), true}, {"-inf", math.Inf(-1), true},
		{"1e-320", 1e-320, true}, {"9223372036854775808", 9223372036854775808, true},
		{"", 0, false}, {" 1", 0, false}, {"1 ", 0, false}, {"nan", 0, false},
		{"1e400", 0, false}, {"-1e400", 0, false}, {"1e-400", 0, false}, {"-1e-400", 0, false},
		{"0x1p-1080", 0, false}, {"1_0", 0, false}, {"abc", 0, false},
	} {
		got, ok := ParseDouble([]byte(tt.in))
		if ok != tt.ok || ok && !sameFloat(got, tt.want) {
			t.Errorf("ParseDouble(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseLongDouble(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string // AppendLongDouble of the result; "" when refused, "*" not compared
		f64  float64
	}{
		{"1", "1", 1}, {"-1.5", "-1.5", -1.5}, {"+1", "1", 1}, {"01", "1", 1}, {"1.", "1", 1},
		{".5", "0.5", 0.5}, {"1e3", "1000", 1000}, {"0x10", "16", 16}, {"0x1p3", "8", 8},
		{"0.1", "0.1", 0.1}, {"-0", "0", math.Copysign(0, -1)}, {"-0.0", "0", math.Copysign(0, -1)},
		{"1e400", "*", math.Inf(1)}, {"-1e400", "*", math.Inf(-1)}, {"1e19", "10000000000000000000", 1e19},
		{"1e-400", "0", 0}, {"1e4932", "*", math.Inf(1)}, {"1e-4950", "0", 0},
		{"", "", 0}, {" 1", "", 0}, {"1 ", "", 0}, {"nan", "", 0}, {"1e5000", "", 0},
		{"1e-5000", "", 0}, {"1_0", "", 0}, {"0x", "", 0}, {strings.Repeat("1", 5120), "", 0},
	} {
		x, ok := ParseLongDouble([]byte(tt.in))
		f, ok64 := ParseLongDouble64([]byte(tt.in))
		if ok != ok64 {
			t.Errorf("%q: ParseLongDouble ok %v, ParseLongDouble64 ok %v", tt.in, ok, ok64)
		}
		if ok && !sameFloat(f, tt.f64) {
			t.Errorf("ParseLongDouble64(%q) = %v, want %v", tt.in, f, tt.f64)
		}
		if tt.want == "" {
			if ok {
				t.Errorf("ParseLongDouble(%q) accepted", tt.in)
			}
			continue
		}
		if !ok {
			t.Errorf("ParseLongDouble(%q) refused", tt.in)
			continue
		}
		if tt.want != "*" {
			if got := string(AppendLongDouble(nil, x)); got != tt.want {
				t.Errorf("AppendLongDouble(ParseLongDouble(%q)) = %q, want %q", tt.in, got, tt.want)
			}
		}
	}
	for _, s := range []string{"inf", "-Infinity"} {
		x, ok := ParseLongDouble([]byte(s))
		if !ok || !x.IsInf() || x.Signbit() != (s[0] == '-') {
			t.Errorf("ParseLongDouble(%q) = %v, %v", s, x, ok)
		}
	}
}

// TestAddLongDouble checks long double arithmetic and Redis's human
// formatting on values whose float64 results would print differently.
func TestAddLongDouble(t *testing.T) {
	ld := func(s string) *big.Float {
		x, ok := ParseLongDouble([]byte(s))
		if !ok {
			t.Fatal(s)
		}
		return x
	}
	for _, tt := range []struct{ a, b, want string }{
		{"10.50", "0.1", "10.6"}, {"0.1", "0.2", "0.3"}, {"5.0e3", "2.0e2", "5200"},
		{"1", "1e-20", "1"}, {"0", "-1e-20", "0"}, {"3", "0.1", "3.1"},
		{"123456789012345678", "0.5", "123456789012345678.5"}, {"-0.5", "0.5", "0"},
		{"-1.5", "1e-20", "-1.5"}, {"5.0e3", "-5000", "0"},
		{"1e4932", "1e4932", ""}, {"inf", "1", ""}, {"1", "-inf", ""},
	} {
		sum, ok := AddLongDouble(ld(tt.a), ld(tt.b))
		if tt.want == "" {
			if ok {
				t.Errorf("%s + %s accepted", tt.a, tt.b)
			}
			continue
		}
		if !ok || string(AppendLongDouble(nil, sum)) != tt.want {
			t.Errorf("%s + %s = %v, %v; want %s", tt.a, tt.b, sum, ok, tt.want)
		}
	}
}

func TestAppendDouble(t *testing.T) {
	for _, tt := range []struct {
		f    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "-0"}, {1, "1"}, {-2.5, "-2.5"}, {0.1, "0.10000000000000001"},
		{1e17, "1e+17"}, {1e16, "10000000000000000"}, {123456789012345678, "1.2345678901234568e+17"},
		{1e-5, "1.0000000000000001e-05"}, {0.0001, "0.0001"}, {1e300, "1.0000000000000001e+300"},
		{math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {math.NaN(), "nan"},
	} {
		if got := string(AppendDouble([]byte("x"), tt.f)); got != "x"+tt.want {
			t.Errorf("AppendDouble(%v) = %q, want %q", tt.f, got, "x"+tt.want)
		}
	}
}

func TestNoAllocs(t *testing.T) {
	in, fl, ld := []byte("-9223372036854775808"), []byte("-1.5e10"), []byte("3.25")
	var sink float64
	if n := testing.AllocsPerRun(100, func() {
		v, _ := ParseInt(in)
		f, _ := ParseDouble(fl)
		g, _ := ParseLongDouble64(ld)
		sink += float64(v) + f + g
	}); n != 0 {
		t.Errorf("%v allocations per parse", n)
	}
	_ = sink
}
