package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// gen makes fake secrets of a given alphabet and length, the same ones on
// every run.
type gen struct{ r *rand.Rand }

const (
	alnum    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	lowalnum = "abcdefghijklmnopqrstuvwxyz0123456789"
	upalnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	hexLower = "0123456789abcdef"
	digits   = "0123456789"
	word     = alnum + "_"
	wordDash = word + "-"
	b64      = alnum + "+/"
	letters  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

func (g gen) s(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(b)
}

type secretCase struct {
	kind   string // the rule that must catch it
	line   string
	secret string // what must not survive
}

// secretCorpus is one line per kind of secret, in the context it is met
// in: a log line, an environment dump, a command line, a config file.
func secretCorpus() []secretCase {
	g := gen{rand.New(rand.NewPCG(2026, 11))}
	var cs []secretCase
	add := func(kind, prefix, secret, suffix string) {
		cs = append(cs, secretCase{kind, prefix + secret + suffix, secret})
	}
	tok := func(kind, prefix, secret string) { add(kind, "using "+prefix, secret, " for upload") }

	tok("1password-service-account-token", "", "ops_eyJ"+g.s(b64, 260))
	add("adafruit-api-key", `ADAFRUIT_IO_KEY = "`, g.s(lowalnum, 32), `"`)
	tok("age-secret-key", "", "AGE-SECRET-KEY-1"+g.s("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58))
	tok("airtable-personnal-access-token", "airtable ", "pat"+g.s(alnum, 14)+"."+g.s(hexLower, 64))
	tok("alibaba-access-key-id", "", "LTAI"+g.s(lowalnum, 20))
	tok("anthropic-api-key", "", "sk-ant-api03-"+g.s(wordDash, 93)+"AA")
	tok("anthropic-admin-api-key", "", "sk-ant-admin01-"+g.s(wordDash, 93)+"AA")
	tok("artifactory-api-key", "", "AKCp"+g.s(alnum, 69))
	tok("atlassian-api-token", "", "ATATT3"+g.s(wordDash, 186))
	add("aws-access-token", "export AWS_ACCESS_KEY_ID=", "AKIA"+g.s("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16), "")
	add("azure-ad-client-secret", "client secret: ", g.s(alnum, 3)+"8Q~"+g.s(alnum, 32), "")
	tok("clojars-api-token", "", "CLOJARS_"+g.s(lowalnum, 60))
	tok("cloudflare-origin-ca-key", "", "v1.0-"+g.s(hexLower, 24)+"-"+g.s(hexLower, 146))
	tok("databricks-api-token", "", "dapi"+g.s(hexLower, 32))
	tok("digitalocean-pat", "", "dop_v1_"+g.s(hexLower, 64))
	tok("digitalocean-access-token", "", "doo_v1_"+g.s(hexLower, 64))
	add("discord-api-token", "DISCORD_TOKEN=", g.s(hexLower, 64), "")
	tok("doppler-api-token", "", "dp.pt."+g.s(alnum, 43))
	tok("duffel-api-token", "", "duffel_test_"+g.s(alnum, 43))
	tok("dynatrace-api-token", "", "dt0c01."+g.s(upalnum, 24)+"."+g.s(upalnum, 64))
	tok("easypost-api-token", "", "EZAK"+g.s(alnum, 54))
	tok("flutterwave-secret-key", "", "FLWSECK_TEST-"+g.s("abcdefgh0123456789", 32)+"-X")
	tok("flyio-access-token", "", "fo1_"+g.s(wordDash, 43))
	tok("frameio-api-token", "", "fio-u-"+g.s(alnum, 64))
	tok("gcp-api-key", "", "AIza"+g.s(wordDash, 35))
	tok("github-app-token", "", "ghs_"+g.s(alnum, 36))
	tok("github-fine-grained-pat", "", "github_pat_"+g.s(word, 82))
	tok("github-oauth", "", "gho_"+g.s(alnum, 36))
	add("github-pat", "cloning https://github.com with ", "ghp_"+g.s(alnum, 36), "")
	tok("github-refresh-token", "", "ghr_"+g.s(alnum, 36))
	tok("gitlab-pat", "", "glpat-"+g.s(alnum, 20))
	tok("gitlab-ptt", "", "glptt-"+g.s(hexLower, 40))
	tok("gitlab-rrt", "", "GR1348941"+g.s(alnum, 20))
	tok("gitlab-deploy-token", "", "gldt-"+g.s(alnum, 20))
	tok("grafana-cloud-api-token", "", "glc_"+g.s(alnum, 40))
	tok("grafana-service-account-token", "", "glsa_"+g.s(alnum, 32)+"_"+g.s(hexLower, 8))
	tok("hashicorp-tf-api-token", "", g.s(lowalnum, 14)+".atlasv1."+g.s(lowalnum, 64))
	tok("heroku-api-key-v2", "", "HRKU-AA"+g.s(wordDash, 58))
	tok("huggingface-access-token", "", "hf_"+g.s(letters, 34))
	tok("jwt", "cookie ", "eyJ"+g.s(alnum, 20)+".eyJ"+g.s(alnum, 30)+"."+g.s(alnum, 43))
	tok("linear-api-key", "", "lin_api_"+g.s(alnum, 40))
	add("mailchimp-api-key", "MAILCHIMP_KEY=", g.s(hexLower, 32)+"-us12", "")
	add("mailgun-private-api-token", "mailgun_key = ", "key-"+g.s(hexLower, 32), "")
	add("mapbox-api-token", "MAPBOX_TOKEN=", "pk."+g.s(lowalnum, 60)+"."+g.s(lowalnum, 22), "")
	add("new-relic-user-api-key", "NEW_RELIC_KEY=", "NRAK-"+g.s(upalnum, 27), "")
	tok("notion-api-token", "", "ntn_"+g.s(digits, 11)+g.s(alnum, 35))
	add("npm-access-token", "//registry.npmjs.org/:_authToken=", "npm_"+g.s(lowalnum, 36), "")
	tok("openai-api-key", "", "sk-proj-"+g.s(wordDash, 74)+"T3BlbkFJ"+g.s(wordDash, 74))
	tok("perplexity-api-key", "", "pplx-"+g.s(alnum, 48))
	tok("planetscale-api-token", "", "pscale_tkn_"+g.s(alnum, 43))
	tok("planetscale-password", "", "pscale_pw_"+g.s(alnum, 43))
	tok("postman-api-token", "", "PMAK-"+g.s(hexLower, 24)+"-"+g.s(hexLower, 34))
	tok("prefect-api-token", "", "pnu_"+g.s(alnum, 36))
	tok("pulumi-api-token", "", "pul-"+g.s(hexLower, 40))
	tok("pypi-upload-token", "", "pypi-AgEIcHlwaS5vcmc"+g.s(wordDash, 70))
	tok("readme-api-token", "", "rdme_"+g.s(lowalnum, 70))
	tok("rubygems-api-token", "", "rubygems_"+g.s(hexLower, 48))
	tok("scalingo-api-token", "", "tk-us-"+g.s(wordDash, 48))
	tok("sendgrid-api-token", "", "SG."+g.s(alnum, 22)+"."+g.s(alnum, 43))
	tok("sendinblue-api-token", "", "xkeysib-"+g.s(hexLower, 64)+"-"+g.s(alnum, 16))
	tok("sentry-user-token", "", "sntryu_"+g.s(hexLower, 64))
	tok("shippo-api-token", "", "shippo_live_"+g.s(hexLower, 40))
	tok("shopify-access-token", "", "shpat_"+g.s(hexLower, 32))
	tok("slack-app-token", "", "xapp-1-A"+g.s(upalnum, 10)+"-"+g.s(digits, 13)+"-"+g.s(hexLower, 64))
	tok("slack-bot-token", "", "xoxb-"+g.s(digits, 12)+"-"+g.s(digits, 13)+"-"+g.s(alnum, 24))
	tok("slack-user-token", "", "xoxp-"+g.s(digits, 12)+"-"+g.s(digits, 12)+"-"+g.s(digits, 13)+"-"+g.s(alnum, 32))
	add("slack-webhook-url", "POST ", "https://hooks.slack.com/services/T"+g.s(upalnum, 8)+"/B"+g.s(upalnum, 8)+"/"+g.s(alnum, 24), " 200")
	tok("square-access-token", "", "EAAA"+g.s(wordDash, 60))
	tok("stripe-access-token", "", "sk_live_"+g.s(alnum, 24))
	add("telegram-bot-api-token", "TELEGRAM_BOT_TOKEN=", g.s(digits, 10)+":A"+g.s(lowalnum, 34), "")
	tok("twilio-api-key", "", "SK"+g.s(hexLower, 32))
	tok("vault-service-token", "", "hvs."+g.s(wordDash, 100))
	tok("vault-batch-token", "", "hvb."+g.s(wordDash, 150))
	tok("sourcegraph-access-token", "", "sgp_"+g.s(hexLower, 40))
	add("snyk-api-token", "SNYK_TOKEN=", g.s(hexLower, 8)+"-"+g.s(hexLower, 4)+"-"+g.s(hexLower, 4)+"-"+g.s(hexLower, 4)+"-"+g.s(hexLower, 12), "")
	add("curl-auth-header", `curl -H "Authorization: Bearer `, g.s(alnum, 32), `" https://api.example.com/v1`)
	add("curl-auth-user", "curl --user deploy:", "Zq8rT2mK9xWp", " https://api.example.com/v1")
	add("generic-api-key", "auth_code: ", g.s(alnum, 24), "")

	// freshctx's own rules.
	add("url-credentials", "fetching postgres://app:", "Wq9xLm2Pz4", "@db.internal:5432/app")
	add("url-credentials", "connecting to redis://:", "hunter2pw", "@cache:6379/0")
	add("password-flag", "mysql -h db --password ", "S3cretPw9", " app")
	add("password-flag", "psql --password=", "Tr0ub4dor", " -h db")
	add("secret-assignment", "DB_PASS=", "hunter2", "")
	add("secret-assignment", "ENCRYPTION_KEY=", g.s(hexLower, 32), "")
	add("secret-assignment", "SESSION_KEY=", g.s(alnum, 40), "")
	add("secret-assignment", "SIGNING_KEY=", g.s(alnum, 40), "")
	add("secret-assignment", "PGPASSWORD=", "p4ssw0rd!", " psql -h db")
	add("secret-assignment", `  "password": "`, "correct horse battery", `",`)
	add("secret-assignment", "aws_secret_access_key = ", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "")
	add("secret-assignment", "Server=db;User Id=app;Password=", "Zx9!qLm2", ";")
	add("azure-storage-key", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=", g.s(b64, 86)+"==", ";EndpointSuffix=core.windows.net")
	add("azure-sas-signature", "GET https://acct.blob.core.windows.net/c/b?sv=2022-11-02&se=2026-01-01&sig=", g.s(alnum, 43)+"%3D", " 403")
	tok("stripe-webhook-secret", "", "whsec_"+g.s(alnum, 32))
	tok("google-oauth-client-secret", "", "GOCSPX-"+g.s(wordDash, 28))
	add("authorization-header", "> Authorization: Basic ", "dXNlcjpwYXNzd29yZA==", "")
	add("api-key-header", "< x-api-key: ", g.s(alnum, 32), "")
	add("bearer-token", "request failed with Bearer ", g.s(alnum, 40), " (401)")
	add("discord-webhook-url", "posting to https://discord.com/api/webhooks/1234567890/", g.s(wordDash, 68), "")
	add("netrc-password", "machine api.example.com login deploy password ", "Qz7mN4pL", "")
	return cs
}

func TestSecretCorpus(t *testing.T) {
	cs := secretCorpus()
	kinds := map[string]bool{}
	for _, c := range cs {
		kinds[c.kind] = true
		t.Run(c.kind, func(t *testing.T) {
			var r Redactor
			got := string(r.Line([]byte(c.line)))
			if strings.Contains(got, c.secret) {
				t.Fatalf("secret survived:\n in: %s\nout: %s", c.line, got)
			}
			if !strings.Contains(got, Mark) {
				t.Fatalf("no mark: %s", got)
			}
			if !contains(r.Kinds(), c.kind) {
				t.Fatalf("caught by %v, want %s\nout: %s", r.Kinds(), c.kind, got)
			}
		})
	}
	if len(kinds) < 60 {
		t.Fatalf("the corpus holds %d kinds of secret, want at least 60", len(kinds))
	}
}

func TestPrivateKeyBlock(t *testing.T) {
	in := "before\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\nafter"
	var r Redactor
	var out []string
	for _, l := range strings.Split(in, "\n") {
		if got := r.Line([]byte(l)); got != nil {
			out = append(out, string(got))
		}
	}
	got := strings.Join(out, "\n")
	if strings.Contains(got, "b3BlbnNzaC1rZXktdjEAAAAA") || strings.Contains(got, "AAAAMwAAAAtzc2gtZW") {
		t.Fatalf("key material survived:\n%s", got)
	}
	if !strings.HasPrefix(got, "before\n") || !strings.HasSuffix(got, "after") || !contains(r.Kinds(), KindPrivateKey) {
		t.Fatalf("got %q, kinds %v", got, r.Kinds())
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
