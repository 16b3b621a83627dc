package redact

import (
	"reflect"
	"regexp"
	"testing"

	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
)

// TestLightAllowlistKeepsEveryField fills every exported field of an
// allowlist and checks light copies it: a field gitleaks adds later must
// not be dropped without notice.
func TestLightAllowlistKeepsEveryField(t *testing.T) {
	var a config.Allowlist
	v := reflect.ValueOf(&a).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		if !v.Type().Field(i).IsExported() {
			continue
		}
		switch f.Kind() {
		case reflect.String:
			f.SetString("x")
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			f.SetInt(1)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			f.SetUint(1)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		default:
			t.Fatalf("field %s of kind %s: teach this test to fill it", v.Type().Field(i).Name, f.Kind())
		}
	}
	a.Regexes = []*regexp.Regexp{regexp.MustCompile("x")}
	got := light([]*config.Allowlist{&a})[0]
	gv := reflect.ValueOf(got).Elem()
	for i := range v.NumField() {
		if !v.Type().Field(i).IsExported() {
			continue
		}
		if !reflect.DeepEqual(gv.Field(i).Interface(), v.Field(i).Interface()) {
			t.Errorf("light dropped %s", v.Type().Field(i).Name)
		}
	}
}

// TestStopWordsAllowAsGitleaksDoes runs the generic rule, whose allowlist
// has stop words, against gitleaks' own detector: a secret that holds a
// stop word is allowed by both, one that holds none found by both.
func TestStopWordsAllowAsGitleaksDoes(t *testing.T) {
	var generic *leakRule
	for i, g := range rules().gitleaks {
		if g.id == "generic-api-key" {
			generic = rules().gitleaks[i]
		}
	}
	if generic == nil {
		t.Fatal("no generic-api-key rule")
	}
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		line  string
		found bool
	}{
		{`api_key = "Xk9Lm2Qp7Rt4Vw8Zy3Bn6Jc"`, true},
		{`api_key = "Xk9Lm2clientQp7Rt4Vw8Zy"`, false}, // "client" is a stop word
	} {
		theirs := 0
		for _, f := range d.DetectString(c.line) {
			if f.RuleID == "generic-api-key" {
				theirs++
			}
		}
		ours := len(generic.find([]byte(c.line), nil, nil))
		if (ours > 0) != c.found || (theirs > 0) != c.found {
			t.Errorf("%s: freshctx found %d, gitleaks %d, want found=%v", c.line, ours, theirs, c.found)
		}
	}
}
