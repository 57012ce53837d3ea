package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/memory/foveal"
	"pp-lsp/server/journal"
)

// TestReadToolsKeepTheSDKsSchemas: the read tools, registered without the
// SDK's typed handlers (addRead), show the client exactly the input and
// output schemas sdk.AddTool derives from the same types.
func TestReadToolsKeepTheSDKsSchemas(t *testing.T) {
	ctx := context.Background()
	ref := sdk.NewServer(&sdk.Implementation{Name: "ref", Version: "1"}, nil)
	// The handlers are never called: only the tools are listed.
	sdk.AddTool(ref, &sdk.Tool{Name: "memex_search"}, sdk.ToolHandlerFor[SearchArgs, SearchResult](nil))
	sdk.AddTool(ref, &sdk.Tool{Name: "memex_context"}, sdk.ToolHandlerFor[ContextArgs, foveal.View](nil))
	sdk.AddTool(ref, &sdk.Tool{Name: "node_read"}, sdk.ToolHandlerFor[IDArgs, NodeResult](nil))
	sdk.AddTool(ref, &sdk.Tool{Name: "backlinks"}, sdk.ToolHandlerFor[IDArgs, BacklinksResult](nil))
	sdk.AddTool(ref, &sdk.Tool{Name: "plans_list"}, sdk.ToolHandlerFor[NoArgs, PlansResult](nil))
	list := func(srv *sdk.Server) map[string]*sdk.Tool {
		st, ct := sdk.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		require.NoError(t, err)
		t.Cleanup(func() { ss.Close() })
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
		require.NoError(t, err)
		t.Cleanup(func() { cs.Close() })
		res, err := cs.ListTools(ctx, nil)
		require.NoError(t, err)
		out := map[string]*sdk.Tool{}
		for _, tl := range res.Tools {
			out[tl.Name] = tl
		}
		return out
	}
	want, got := list(ref), list(New(Options{Host: nil, Version: "test"}).srv)
	require.Len(t, want, 5)
	for name, w := range want {
		g, ok := got[name]
		require.True(t, ok, name)
		for _, pair := range [][2]any{{w.InputSchema, g.InputSchema}, {w.OutputSchema, g.OutputSchema}} {
			wb, err := json.Marshal(pair[0])
			require.NoError(t, err)
			gb, err := json.Marshal(pair[1])
			require.NoError(t, err)
			assert.JSONEq(t, string(wb), string(gb), name)
		}
	}
}

// TestAReadIsInTheJournalBeforeItsAnswer: a read's entry is in
// journal.org, chained and recorded in the head, when the client has the
// answer (its fsync may come later), and the journal verifies as doctor
// verifies it, before and after the agent closes.
func TestAReadIsInTheJournalBeforeItsAnswer(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := filepath.Join(f.root, journal.FileName)
	for i, q := range []string{"Garden", "Project plan", "tomatoes"} {
		ok[SearchResult](t, f, "memex_search", map[string]any{"query": q})
		rep, err := journal.Verify(ctx, p, f.data)
		require.NoError(t, err)
		assert.True(t, rep.OK(), "%+v %+v", rep.Broken, rep.FirstUnrecorded)
		assert.Equal(t, i+2, rep.Entries, "the start's entry and one a call")
		assert.Equal(t, rep.Entries, rep.HeadEntries, "the head names the call's entry")
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Contains(t, string(b), `call memex_search {"query":"`+q+`"}`)
	}
	require.NoError(t, f.agent.Close(ctx))
	rep, err := journal.Verify(ctx, p, f.data)
	require.NoError(t, err)
	assert.True(t, rep.OK())
	assert.Equal(t, 4, rep.HeadEntries)
}
