//! `KB-REPRO-COMPILE`: a syntax check of a repro script without a Python interpreter.
//!
//! The old tool ran `ast.parse`; evokb parses with tree-sitter's Python grammar
//! (`tree-sitter-python`, maintained by the tree-sitter project), which needs no interpreter
//! and reports where the parse went wrong. tree-sitter recovers from errors, so a script gets
//! every syntax error it has, not only the first: an `ERROR` node is text the grammar could
//! not place, a `MISSING` node a token the parser had to assume (a closing bracket, a colon).
//! The grammar is more lenient than CPython 3 in two ways, which are checked on its tree: it
//! still accepts Python 2 `print`/`exec` statements, and it takes any indentation inside a
//! block (and an empty block after a `:`). CPython's later checks (a `return` outside a
//! function) are not run, as `ast.parse` does not run them either.

use tree_sitter::{Node, Parser};

/// One syntax error in a script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What the parser found, e.g. `expected ')'` or `invalid syntax at 'def'`.
    pub message: String,
}

/// The syntax errors of a Python source text, in source order; empty when it parses. A text
/// the parser cannot be set up for (never expected: the grammar is compiled in) is reported
/// as one error at line 1.
pub fn check_python_syntax(src: &str) -> Vec<SyntaxError> {
    let mut parser = Parser::new();
    let language: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
    if let Err(e) = parser.set_language(&language) {
        return vec![SyntaxError {
            line: 1,
            column: 1,
            message: format!("the Python grammar could not be loaded: {e}"),
        }];
    }
    let Some(tree) = parser.parse(src, None) else {
        return vec![SyntaxError { line: 1, column: 1, message: "the parser gave up".into() }];
    };
    let mut out = Vec::new();
    if tree.root_node().has_error() {
        collect(tree.root_node(), src, &mut out);
    }
    python3_only(tree.root_node(), src, &mut out);
    out.sort_by_key(|e| (e.line, e.column));
    out.dedup();
    out
}

/// What the grammar accepts and CPython 3 does not: Python 2 `print`/`exec` statements, and
/// indentation. tree-sitter's grammar takes any indentation of a statement inside its
/// block and an empty block after a `:`, where CPython's tokenizer requires one indentation
/// level per block, deeper than the statement that opens it.
fn python3_only(node: Node<'_>, src: &str, out: &mut Vec<SyntaxError>) {
    match node.kind() {
        "print_statement" => {
            out.push(at(node, src, "missing parentheses in call to 'print'".into()));
        }
        "exec_statement" => {
            out.push(at(node, src, "missing parentheses in call to 'exec'".into()));
        }
        "module" => {
            for stmt in line_statements(node, src) {
                if stmt.start_position().column != 0 {
                    out.push(at(stmt, src, "unexpected indent".into()));
                }
            }
        }
        "block" => check_block(node, src, out),
        _ => {}
    }
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        python3_only(child, src, out);
    }
}

/// The statements of a module or block that begin their line (not `a; b` or `if x: y`).
fn line_statements<'t>(node: Node<'t>, src: &str) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|c| !c.is_extra() && c.kind() != "ERROR" && starts_line(*c, src))
        .collect()
}

fn starts_line(node: Node<'_>, src: &str) -> bool {
    let start = node.start_byte().min(src.len());
    let line_start = src.as_bytes()[..start].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    src.as_bytes()[line_start..start].iter().all(|b| *b == b' ' || *b == b'\t')
}

/// The indentation (in bytes) of the line `node` starts on.
fn line_indent(node: Node<'_>, src: &str) -> usize {
    let start = node.start_byte().min(src.len());
    let line_start = src.as_bytes()[..start].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    src.as_bytes()[line_start..].iter().take_while(|b| **b == b' ' || **b == b'\t').count()
}

fn check_block(block: Node<'_>, src: &str, out: &mut Vec<SyntaxError>) {
    let Some(owner) = block.parent() else { return };
    let mut cursor = block.walk();
    let has_statement = block.named_children(&mut cursor).any(|c| !c.is_extra());
    if !has_statement {
        // `if x:` followed by a dedented line: the grammar leaves the block empty.
        if !block.has_error() {
            let mut e = at(owner, src, "expected an indented block".into());
            e.line = block.end_position().row + 1;
            out.push(e);
        }
        return;
    }
    let stmts = line_statements(block, src);
    let Some(first) = stmts.first() else { return };
    let level = first.start_position().column;
    if level <= line_indent(owner, src) {
        out.push(at(*first, src, "expected an indented block".into()));
        return;
    }
    for stmt in &stmts[1..] {
        let col = stmt.start_position().column;
        if col > level {
            out.push(at(*stmt, src, "unexpected indent".into()));
        } else if col < level {
            out.push(at(*stmt, src, "unindent does not match any outer indentation level".into()));
        }
    }
}

fn collect(node: Node<'_>, src: &str, out: &mut Vec<SyntaxError>) {
    if node.is_missing() {
        out.push(at(node, src, format!("expected '{}'", node.kind())));
        return;
    }
    if node.is_error() {
        let text = node.utf8_text(src.as_bytes()).unwrap_or("");
        let token: String = text.split_whitespace().next().unwrap_or("").chars().take(40).collect();
        let message = if token.is_empty() {
            "invalid syntax".to_string()
        } else {
            format!("invalid syntax at '{token}'")
        };
        out.push(at(node, src, message));
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.has_error() || child.is_missing() {
            collect(child, src, out);
        }
    }
}

fn at(node: Node<'_>, src: &str, message: String) -> SyntaxError {
    let pos = node.start_position();
    // tree-sitter counts columns in bytes; people and CPython count characters.
    let line_start = src.as_bytes()[..node.start_byte().min(src.len())]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let col = src.get(line_start..node.start_byte()).map_or(pos.column, |s| s.chars().count());
    SyntaxError { line: pos.row + 1, column: col + 1, message }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_python_has_no_errors() {
        let src = "\"\"\"PL-1 repro. First verified: 2026\"\"\"\nimport os\n\ndef f(x):\n    return [i * 2 for i in range(x) if i]\n\nclass A:\n    async def g(self):\n        await f(1)\n\nprint(f\"{os.sep}\", end='')\n";
        assert_eq!(check_python_syntax(src), []);
    }

    #[test]
    fn errors_name_their_place() {
        let e = check_python_syntax("def f(x)\n    return x\n");
        assert!(!e.is_empty());
        assert_eq!(e[0].line, 1, "{e:?}");
        let e = check_python_syntax("x = (1,\ny = 2\n");
        assert!(!e.is_empty(), "an unclosed bracket");
        let e = check_python_syntax("x = 1\n    y = 2\n");
        assert_eq!((e[0].line, e[0].column, e[0].message.as_str()), (2, 5, "unexpected indent"));
        let e = check_python_syntax("if x:\npass\n");
        assert_eq!(e[0].message, "expected an indented block", "{e:?}");
        let e = check_python_syntax("def f():\n    x = 1\n      y = 2\n");
        assert_eq!((e[0].line, e[0].message.as_str()), (3, "unexpected indent"), "{e:?}");
        let e = check_python_syntax("print \"hello\"\n");
        assert!(e[0].message.contains("print"), "{e:?}");
        assert_eq!(check_python_syntax("if x: pass\nelse:\n    y = 1; z = 2\n"), []);
        let e = check_python_syntax("名字 = 1\n$ = 2\n");
        assert_eq!((e[0].line, e[0].column), (2, 1), "{e:?}");
        assert!(e[0].message.contains('$'), "{e:?}");
    }
}
