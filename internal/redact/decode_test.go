package redact

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
)

// TestDefaultRulesDecodeAsViper: the default rules decoded by freshctx are
// what gitleaks' own loader (viper) makes of the same TOML, rule by rule.
func TestDefaultRulesDecodeAsViper(t *testing.T) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		t.Fatal(err)
	}
	var want config.ViperConfig
	if err := v.Unmarshal(&want); err != nil {
		t.Fatal(err)
	}
	got, err := defaultViperConfig()
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Rules) != len(want.Rules) || len(want.Rules) < 100 {
		t.Fatalf("%d rules decoded, viper decodes %d", len(got.Rules), len(want.Rules))
	}
	for i := range want.Rules {
		if !reflect.DeepEqual(got.Rules[i], want.Rules[i]) {
			t.Errorf("rule %s:\n got %+v\nwant %+v", want.Rules[i].ID, got.Rules[i], want.Rules[i])
		}
	}
	if want.AllowList == nil && len(want.Allowlists) == 0 {
		t.Fatal("viper decoded no global allowlist")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the configurations differ outside their rules:\n got %+v\nwant %+v", got.AllowList, want.AllowList)
	}
}
