package gates

// Typed views of each tool's arguments, for code that builds or executes
// actions (the server's actuators). The Action keeps its arguments by name
// so that every decoder, the validator and the canonical form share one
// representation; these structs are the compile-time checked way in and out.

// ShellArgs are the arguments of shell.
type ShellArgs struct{ Cmd, Cwd string }

// FileReadArgs are the arguments of file_read.
type FileReadArgs struct{ Path string }

// FileWriteArgs are the arguments of file_write.
type FileWriteArgs struct{ Path, Content string }

// HTTPArgs are the arguments of http.
type HTTPArgs struct{ Method, URL, Body string }

// MessageArgs are the arguments of message.
type MessageArgs struct{ Text string }

// SendArgs are the arguments of send.
type SendArgs struct{ Channel, To, Text string }

// EvalArgs are the arguments of eval.
type EvalArgs struct{ Lang, Code string }

// MemoryEditArgs are the arguments of memory_edit.
type MemoryEditArgs struct{ ID, Content string }

// ToolArgs is one of the typed argument structs above.
type ToolArgs interface{ tool() Tool }

func (ShellArgs) tool() Tool      { return ToolShell }
func (FileReadArgs) tool() Tool   { return ToolFileRead }
func (FileWriteArgs) tool() Tool  { return ToolFileWrite }
func (HTTPArgs) tool() Tool       { return ToolHTTP }
func (MessageArgs) tool() Tool    { return ToolMessage }
func (SendArgs) tool() Tool       { return ToolSend }
func (EvalArgs) tool() Tool       { return ToolEval }
func (MemoryEditArgs) tool() Tool { return ToolMemoryEdit }

// Build makes an action from typed arguments.
func Build(args ToolArgs, explanation string) Action {
	var m map[string]string
	switch a := args.(type) {
	case ShellArgs:
		m = map[string]string{"cmd": a.Cmd, "cwd": a.Cwd}
		if a.Cwd == "" {
			m["cwd"] = "."
		}
	case FileReadArgs:
		m = map[string]string{"path": a.Path}
	case FileWriteArgs:
		m = map[string]string{"path": a.Path, "content": a.Content}
	case HTTPArgs:
		m = map[string]string{"method": a.Method, "url": a.URL, "body": a.Body}
	case MessageArgs:
		m = map[string]string{"text": a.Text}
	case SendArgs:
		m = map[string]string{"channel": a.Channel, "to": a.To, "text": a.Text}
	case EvalArgs:
		m = map[string]string{"lang": a.Lang, "code": a.Code}
	case MemoryEditArgs:
		m = map[string]string{"id": a.ID, "content": a.Content}
	}
	return NewAction(args.tool(), explanation, m)
}

// Typed returns the action's arguments as the struct of its tool (nil for
// an unknown tool).
func (a Action) Typed() ToolArgs {
	g := a.Args
	switch a.Tool {
	case ToolShell:
		return ShellArgs{Cmd: g["cmd"], Cwd: g["cwd"]}
	case ToolFileRead:
		return FileReadArgs{Path: g["path"]}
	case ToolFileWrite:
		return FileWriteArgs{Path: g["path"], Content: g["content"]}
	case ToolHTTP:
		return HTTPArgs{Method: g["method"], URL: g["url"], Body: g["body"]}
	case ToolMessage:
		return MessageArgs{Text: g["text"]}
	case ToolSend:
		return SendArgs{Channel: g["channel"], To: g["to"], Text: g["text"]}
	case ToolEval:
		return EvalArgs{Lang: g["lang"], Code: g["code"]}
	case ToolMemoryEdit:
		return MemoryEditArgs{ID: g["id"], Content: g["content"]}
	}
	return nil
}
