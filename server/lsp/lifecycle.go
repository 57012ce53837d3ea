package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// initializeParams is the part of initialize the server reads. It is
// decoded with encoding/json, whose lenient field matching takes whatever
// shape eglot and Neovim send (absent objects, null, false for off).
type initializeParams struct {
	ClientInfo *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"clientInfo"`
	RootPath         *string `json:"rootPath"`
	RootURI          *string `json:"rootUri"`
	WorkspaceFolders []struct {
		URI  string `json:"uri"`
		Name string `json:"name"`
	} `json:"workspaceFolders"`
	InitializationOptions json.RawMessage `json:"initializationOptions"`
	Capabilities          struct {
		Workspace struct {
			ApplyEdit     bool `json:"applyEdit"`
			WorkspaceEdit struct {
				DocumentChanges bool `json:"documentChanges"`
			} `json:"workspaceEdit"`
			Configuration         bool `json:"configuration"`
			DidChangeWatchedFiles struct {
				DynamicRegistration bool `json:"dynamicRegistration"`
			} `json:"didChangeWatchedFiles"`
		} `json:"workspace"`
		TextDocument struct {
			Hover struct {
				ContentFormat []string `json:"contentFormat"`
			} `json:"hover"`
			DocumentSymbol struct {
				Hierarchical bool `json:"hierarchicalDocumentSymbolSupport"`
			} `json:"documentSymbol"`
			PublishDiagnostics struct {
				RelatedInformation bool `json:"relatedInformation"`
			} `json:"publishDiagnostics"`
			CodeAction struct {
				Literals json.RawMessage `json:"codeActionLiteralSupport"`
			} `json:"codeAction"`
			Rename struct {
				PrepareSupport bool `json:"prepareSupport"`
			} `json:"rename"`
		} `json:"textDocument"`
		Window struct {
			WorkDoneProgress bool `json:"workDoneProgress"`
		} `json:"window"`
	} `json:"capabilities"`
}

// clientCaps are what the server needs to know of the client.
type clientCaps struct {
	name                string
	applyEdit           bool
	documentChanges     bool
	configuration       bool
	watchFiles          bool
	workDoneProgress    bool
	markdown            bool
	hierarchicalSymbols bool
	relatedInformation  bool
	codeActionLiterals  bool
	prepareRename       bool
}

// initialize records the client, the roots and the settings, answers the
// capabilities, and starts indexing the memex in the background: requests
// that need it wait for it, with $/progress shown meanwhile.
func (s *Server) initialize(_ context.Context, _ *view, params jsonrpc2.RawMessage) (any, error) {
	var p initializeParams
	if !absent(params) {
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "the params of initialize do not decode: %v", err)
		}
	}
	caps := p.Capabilities
	c := clientCaps{
		applyEdit:           caps.Workspace.ApplyEdit,
		documentChanges:     caps.Workspace.WorkspaceEdit.DocumentChanges,
		configuration:       caps.Workspace.Configuration,
		watchFiles:          caps.Workspace.DidChangeWatchedFiles.DynamicRegistration,
		workDoneProgress:    caps.Window.WorkDoneProgress,
		markdown:            slices.Contains(caps.TextDocument.Hover.ContentFormat, "markdown"),
		hierarchicalSymbols: caps.TextDocument.DocumentSymbol.Hierarchical,
		relatedInformation:  caps.TextDocument.PublishDiagnostics.RelatedInformation,
		codeActionLiterals:  !absent(caps.TextDocument.CodeAction.Literals),
		prepareRename:       caps.TextDocument.Rename.PrepareSupport,
	}
	if p.ClientInfo != nil {
		c.name = strings.TrimSpace(p.ClientInfo.Name + " " + p.ClientInfo.Version)
	}
	set, unknown, err := parseSettings(p.InitializationOptions)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "initializationOptions: %v", err)
	}
	folders := s.workspaceFolders(p)
	roots := folders
	if len(set.Roots) > 0 {
		roots = resolveRoots(set.Roots, folders[0], s.getenv)
	}

	s.mu.Lock()
	s.client, s.settings, s.folders, s.roots = c, set, folders, roots
	s.state = stateRunning
	s.mu.Unlock()
	s.log.Info("initialize", "client", c.name, "roots", roots)
	if len(unknown) > 0 {
		s.logMessage(protocol.MessageTypeWarning, fmt.Sprintf("pp-lsp ignores unknown initializationOptions: %s", strings.Join(unknown, ", ")))
	}
	s.spawn(s.load)
	return s.capabilities(c), nil
}

// workspaceFolders are the workspace folders, else rootUri, else rootPath, else the
// working directory: never empty.
func (s *Server) workspaceFolders(p initializeParams) []string {
	var out []string
	add := func(path string) {
		if path != "" && filepath.IsAbs(path) && !slices.Contains(out, filepath.Clean(path)) {
			out = append(out, filepath.Clean(path))
		}
	}
	for _, f := range p.WorkspaceFolders {
		if u, err := uri.Parse(f.URI); err == nil {
			if path, err := pathOf(u); err == nil {
				add(path)
			}
		}
	}
	if len(out) == 0 && p.RootURI != nil {
		if u, err := uri.Parse(*p.RootURI); err == nil {
			if path, err := pathOf(u); err == nil {
				add(path)
			}
		}
	}
	if len(out) == 0 && p.RootPath != nil {
		add(*p.RootPath)
	}
	if len(out) == 0 {
		dir := s.opts.WorkDir
		if dir == "" {
			dir, _ = os.Getwd()
		}
		add(dir)
	}
	if len(out) == 0 {
		out = append(out, string(filepath.Separator))
	}
	return out
}

// serverCapabilities is the initialize answer, written out here rather
// than with protocol's union types so that it is exactly what every client
// reads.
type serverCapabilities struct {
	PositionEncoding       string            `json:"positionEncoding"`
	TextDocumentSync       textDocumentSync  `json:"textDocumentSync"`
	HoverProvider          bool              `json:"hoverProvider"`
	CompletionProvider     completionOptions `json:"completionProvider"`
	DefinitionProvider     bool              `json:"definitionProvider"`
	ReferencesProvider     bool              `json:"referencesProvider"`
	DocumentSymbolProvider bool              `json:"documentSymbolProvider"`
	WorkspaceSymbol        bool              `json:"workspaceSymbolProvider"`
	CodeActionProvider     any               `json:"codeActionProvider"`
	FoldingRangeProvider   bool              `json:"foldingRangeProvider"`
	RenameProvider         any               `json:"renameProvider"`
	CodeLensProvider       struct {
		ResolveProvider bool `json:"resolveProvider"`
	} `json:"codeLensProvider"`
	DocumentLinkProvider struct {
		ResolveProvider bool `json:"resolveProvider"`
	} `json:"documentLinkProvider"`
	ExecuteCommandProvider struct {
		Commands []string `json:"commands"`
	} `json:"executeCommandProvider"`
	Workspace struct {
		WorkspaceFolders struct {
			Supported           bool `json:"supported"`
			ChangeNotifications bool `json:"changeNotifications"`
		} `json:"workspaceFolders"`
		FileOperations struct {
			WillRename fileOperationRegistration `json:"willRename"`
		} `json:"fileOperations"`
	} `json:"workspace"`
}

// fileOperationRegistration says which renames the server wants to hear
// of: Org files, and folders (which may hold them).
type fileOperationRegistration struct {
	Filters []fileOperationFilter `json:"filters"`
}

type fileOperationFilter struct {
	Pattern struct {
		Glob    string `json:"glob"`
		Matches string `json:"matches,omitempty"`
	} `json:"pattern"`
}

type textDocumentSync struct {
	OpenClose bool `json:"openClose"`
	Change    int  `json:"change"`
	Save      struct {
		IncludeText bool `json:"includeText"`
	} `json:"save"`
}

type completionOptions struct {
	TriggerCharacters []string `json:"triggerCharacters"`
}

type initializeResult struct {
	Capabilities serverCapabilities `json:"capabilities"`
	ServerInfo   struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
}

func (s *Server) capabilities(c clientCaps) initializeResult {
	var r initializeResult
	sc := &r.Capabilities
	sc.PositionEncoding = "utf-16"
	sc.TextDocumentSync = textDocumentSync{OpenClose: true, Change: 2} // incremental
	sc.HoverProvider = true
	sc.CompletionProvider = completionOptions{TriggerCharacters: []string{":", "[", "*", "#"}}
	sc.DefinitionProvider = true
	sc.ReferencesProvider = true
	sc.DocumentSymbolProvider = true
	sc.WorkspaceSymbol = true
	sc.CodeActionProvider = true
	if c.codeActionLiterals {
		sc.CodeActionProvider = map[string]any{"codeActionKinds": []string{string(protocol.CodeActionKindRefactorRewrite), string(protocol.CodeActionKindQuickFix)}}
	}
	sc.FoldingRangeProvider = true
	sc.RenameProvider = true
	if c.prepareRename {
		sc.RenameProvider = map[string]bool{"prepareProvider": true}
	}
	sc.ExecuteCommandProvider.Commands = s.commandNames()
	sc.Workspace.WorkspaceFolders.Supported = true
	sc.Workspace.WorkspaceFolders.ChangeNotifications = true
	var orgFiles, folders fileOperationFilter
	orgFiles.Pattern.Glob, orgFiles.Pattern.Matches = "**/*.org", "file"
	folders.Pattern.Glob, folders.Pattern.Matches = "**", "folder"
	sc.Workspace.FileOperations.WillRename.Filters = []fileOperationFilter{orgFiles, folders}
	r.ServerInfo.Name = "pp-lsp"
	r.ServerInfo.Version = s.opts.Version
	return r
}

func (s *Server) initializedNote(context.Context, jsonrpc2.RawMessage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.initialized:
	default:
		close(s.initialized)
	}
	return nil
}

// shutdownRequest stops the background work and saves the memex; after
// it only exit is served.
func (s *Server) shutdownRequest(ctx context.Context, _ *view, _ jsonrpc2.RawMessage) (any, error) {
	s.mu.Lock()
	s.state = stateShutdown
	s.shutdown = true
	s.mu.Unlock()
	own, _ := ctx.Value(requestKey{}).(string)
	s.drainRequests(own)
	s.closeMemex(context.WithoutCancel(ctx))
	return nil, nil
}

// drainRequests cancels the running requests but own and waits for them
// to return (drainBound): a question being answered writes its turn and
// its journal entry before the agent is closed, never after the server
// said it stopped.
func (s *Server) drainRequests(own string) {
	if !s.running.drain(own, drainBound) {
		s.log.Warn("requests still running after the server was told to stop; they are left to end on their own", "waited", drainBound)
	}
}

// exitNote ends Serve.
func (s *Server) exitNote(context.Context, jsonrpc2.RawMessage) error {
	s.exitOnce.Do(func() { close(s.exit) })
	return nil
}

// didChangeWorkspaceFolders is noted in the log: the memex's roots are
// fixed for the session (memory cannot add a root to a live memex).
func (s *Server) didChangeWorkspaceFolders(context.Context, jsonrpc2.RawMessage) error {
	s.logMessage(protocol.MessageTypeInfo, "pp-lsp keeps the memex roots it started with; restart the server to index new workspace folders")
	return nil
}
