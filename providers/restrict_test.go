package providers

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/providers/providertest"
)

func TestIsLocal(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		pc   ProviderConfig
		want bool
	}{
		{ProviderConfig{Kind: ProviderOllama, Model: "m"}, true},
		{ProviderConfig{Kind: ProviderOllama, Model: "m", BaseURL: "http://localhost:11434"}, true},
		{ProviderConfig{Kind: ProviderOllama, Model: "m", BaseURL: "http://[::1]:11434"}, true},
		{ProviderConfig{Kind: ProviderOllama, Model: "m", BaseURL: "http://192.168.1.9:11434"}, false},
		{ProviderConfig{Kind: ProviderOllama, Model: "m", BaseURL: "https://ollama.com"}, false},
		{ProviderConfig{Kind: ProviderOllama, Model: "m", Local: &no}, false},
		{ProviderConfig{Kind: ProviderOpenAI, Model: "m", BaseURL: "http://127.0.0.1:8080/v1"}, false},
		{ProviderConfig{Kind: ProviderOpenAI, Model: "m", BaseURL: "http://127.0.0.1:8080/v1", Local: &yes}, true},
		{ProviderConfig{Kind: ProviderAnthropic, Model: "m"}, false},
		{ProviderConfig{Kind: ProviderReplay, File: "x.jsonl"}, true},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, c.pc.IsLocal(), "%+v", c.pc)
	}
}

// TestARequestMayNameItsProviderOrAskForLocalOnes: the cascade asks only
// the providers a request allows, and says why when none is left.
func TestARequestMayNameItsProviderOrAskForLocalOnes(t *testing.T) {
	yes := true
	cases := []struct {
		name      string
		provider  string
		localOnly bool
		answers   []int // which servers are asked
		err       string
	}{
		{"no restriction", "", false, []int{0}, ""},
		{"by kind:model", "ollama:test-model", false, []int{2}, ""},
		{"by kind", "anthropic", false, []int{1}, ""},
		{"unknown", "nobody", false, nil, `no provider of the cascade is named "nobody"`},
		{"local only", "", true, []int{2}, ""},
		{"local and named remote", "anthropic", true, nil, "no provider it may use is marked local"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srvs := []*providertest.Server{
				providertest.NewServer(t, providertest.Reply{Frames: framesOf(ProviderOpenAI, textAnswer)}),
				providertest.NewServer(t, providertest.Reply{Frames: framesOf(ProviderAnthropic, textAnswer)}),
				providertest.NewServer(t, providertest.Reply{Frames: framesOf(ProviderOllama, textAnswer)}),
			}
			local := providerConfig(ProviderOllama, srvs[2].URL)
			local.Local = &yes
			cas, _ := cascadeOf(t, fastTimeouts(), providerConfig(ProviderOpenAI, srvs[0].URL), providerConfig(ProviderAnthropic, srvs[1].URL), local)
			s, err := cas.Stream(context.Background(), Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}, Provider: c.provider, LocalOnly: c.localOnly})
			if c.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
			} else {
				require.NoError(t, err)
				_, err = s.Collect()
				require.NoError(t, err)
			}
			var asked []int
			for i, srv := range srvs {
				if len(srv.Requests()) > 0 {
					asked = append(asked, i)
				}
			}
			assert.Equal(t, c.answers, asked)
		})
	}
}
