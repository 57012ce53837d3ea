package gates

import "mvdan.cc/sh/v3/syntax"

// walkSyntax calls f with node and, when f returns true, with each node
// below it, depth first, in the order syntax.Walk visits them; it never
// calls f(nil) and does not visit comments. It is syntax.Walk without
// the deferred call every visit of that one pays (a function holding a
// defer in a loop leaves through the runtime's defer machinery: a sixth
// of a walk's cost, and the walks are a tenth of a long script's
// analysis). A node type it does not know (a newer parser's) is walked by
// syntax.Walk, so nothing below a node is ever skipped.
// TestWalkSyntaxIsWalk compares the two over the corpus.
func walkSyntax(node syntax.Node, f func(syntax.Node) bool) {
	if !f(node) {
		return
	}
	switch n := node.(type) {
	case *syntax.File:
		walkStmts(n.Stmts, f)
	case *syntax.Stmt:
		if n.Cmd != nil {
			walkSyntax(n.Cmd, f)
		}
		for _, r := range n.Redirs {
			walkSyntax(r, f)
		}
	case *syntax.Assign:
		if n.Name != nil {
			walkSyntax(n.Name, f)
		}
		if n.Value != nil {
			walkSyntax(n.Value, f)
		}
		if n.Index != nil {
			walkSyntax(n.Index, f)
		}
		if n.Array != nil {
			walkSyntax(n.Array, f)
		}
	case *syntax.Redirect:
		if n.N != nil {
			walkSyntax(n.N, f)
		}
		walkSyntax(n.Word, f)
		if n.Hdoc != nil {
			walkSyntax(n.Hdoc, f)
		}
	case *syntax.CallExpr:
		for _, a := range n.Assigns {
			walkSyntax(a, f)
		}
		walkWords(n.Args, f)
	case *syntax.Subshell:
		walkStmts(n.Stmts, f)
	case *syntax.Block:
		walkStmts(n.Stmts, f)
	case *syntax.IfClause:
		walkStmts(n.Cond, f)
		walkStmts(n.Then, f)
		if n.Else != nil {
			walkSyntax(n.Else, f)
		}
	case *syntax.WhileClause:
		walkStmts(n.Cond, f)
		walkStmts(n.Do, f)
	case *syntax.ForClause:
		walkSyntax(n.Loop, f)
		walkStmts(n.Do, f)
	case *syntax.WordIter:
		walkSyntax(n.Name, f)
		walkWords(n.Items, f)
	case *syntax.CStyleLoop:
		if n.Init != nil {
			walkSyntax(n.Init, f)
		}
		if n.Cond != nil {
			walkSyntax(n.Cond, f)
		}
		if n.Post != nil {
			walkSyntax(n.Post, f)
		}
	case *syntax.BinaryCmd:
		walkSyntax(n.X, f)
		walkSyntax(n.Y, f)
	case *syntax.FuncDecl:
		if n.Name != nil {
			walkSyntax(n.Name, f)
		}
		for _, l := range n.Names {
			walkSyntax(l, f)
		}
		walkSyntax(n.Body, f)
	case *syntax.Word:
		walkParts(n.Parts, f)
	case *syntax.Lit, *syntax.SglQuoted:
	case *syntax.DblQuoted:
		walkParts(n.Parts, f)
	case *syntax.CmdSubst:
		walkStmts(n.Stmts, f)
	case *syntax.ParamExp:
		if n.Flags != nil {
			walkSyntax(n.Flags, f)
		}
		if n.Param != nil {
			walkSyntax(n.Param, f)
		}
		if n.NestedParam != nil {
			walkSyntax(n.NestedParam, f)
		}
		if n.Index != nil {
			walkSyntax(n.Index, f)
		}
		if n.Slice != nil {
			if n.Slice.Offset != nil {
				walkSyntax(n.Slice.Offset, f)
			}
			if n.Slice.Length != nil {
				walkSyntax(n.Slice.Length, f)
			}
		}
		if n.Repl != nil {
			if n.Repl.Orig != nil {
				walkSyntax(n.Repl.Orig, f)
			}
			if n.Repl.With != nil {
				walkSyntax(n.Repl.With, f)
			}
		}
		if n.Exp != nil && n.Exp.Word != nil {
			walkSyntax(n.Exp.Word, f)
		}
	case *syntax.ArithmExp:
		walkSyntax(n.X, f)
	case *syntax.ArithmCmd:
		walkSyntax(n.X, f)
	case *syntax.BinaryArithm:
		walkSyntax(n.X, f)
		walkSyntax(n.Y, f)
	case *syntax.BinaryTest:
		walkSyntax(n.X, f)
		walkSyntax(n.Y, f)
	case *syntax.UnaryArithm:
		walkSyntax(n.X, f)
	case *syntax.UnaryTest:
		walkSyntax(n.X, f)
	case *syntax.ParenArithm:
		walkSyntax(n.X, f)
	case *syntax.ParenTest:
		walkSyntax(n.X, f)
	case *syntax.CaseClause:
		walkSyntax(n.Word, f)
		for _, it := range n.Items {
			walkSyntax(it, f)
		}
	case *syntax.CaseItem:
		walkWords(n.Patterns, f)
		walkStmts(n.Stmts, f)
	case *syntax.TestClause:
		walkSyntax(n.X, f)
	case *syntax.DeclClause:
		for _, a := range n.Args {
			walkSyntax(a, f)
		}
	case *syntax.ArrayExpr:
		for _, e := range n.Elems {
			walkSyntax(e, f)
		}
	case *syntax.ArrayElem:
		if n.Index != nil {
			walkSyntax(n.Index, f)
		}
		if n.Value != nil {
			walkSyntax(n.Value, f)
		}
	case *syntax.ExtGlob:
		walkSyntax(n.Pattern, f)
	case *syntax.ProcSubst:
		walkStmts(n.Stmts, f)
	case *syntax.TimeClause:
		if n.Stmt != nil {
			walkSyntax(n.Stmt, f)
		}
	case *syntax.CoprocClause:
		if n.Name != nil {
			walkSyntax(n.Name, f)
		}
		walkSyntax(n.Stmt, f)
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			walkSyntax(x, f)
		}
	default:
		// Below the node, every child as syntax.Walk finds it (the node
		// itself was visited above).
		first := true
		syntax.Walk(node, func(c syntax.Node) bool {
			if first {
				first = false
				return true
			}
			if c == nil {
				return true
			}
			walkSyntax(c, f)
			return false
		})
	}
}

func walkStmts(list []*syntax.Stmt, f func(syntax.Node) bool) {
	for _, st := range list {
		walkSyntax(st, f)
	}
}

func walkWords(list []*syntax.Word, f func(syntax.Node) bool) {
	for _, w := range list {
		walkSyntax(w, f)
	}
}

func walkParts(list []syntax.WordPart, f func(syntax.Node) bool) {
	for _, p := range list {
		walkSyntax(p, f)
	}
}
