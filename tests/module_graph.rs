//! The module graph has no cycle: a module may use another only if that one does not, directly
//! or through others, use it back. Read from the source: the modules are found from `lib.rs`
//! through their `mod` declarations, and an edge is any `crate::`, `super::`, `self::` or
//! child-module path in code (comments and strings aside) to an item of another file, followed
//! through `use` re-exports to the file that defines it (so a parent that re-exports its
//! children's items is not in a cycle with them). A module's use of its own ancestors is not an
//! edge: a submodule is part of its parent's implementation (the `impl App` split over files),
//! which is Rust's own unit of privacy. A cycle fails the test with its files and edges.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A file of the library and the module path it holds.
struct File {
    path: PathBuf,
    module: Vec<String>,
    text: String,
}

/// Every file reachable from `lib.rs`, with its module path.
fn files(src: &Path) -> Vec<File> {
    let mut out = Vec::new();
    let mut todo = vec![(src.join("lib.rs"), Vec::new())];
    while let Some((path, module)) = todo.pop() {
        let Ok(raw) = std::fs::read_to_string(&path) else { continue };
        let text = strip(&raw);
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let owns_dir = matches!(path.file_name().and_then(|n| n.to_str()), Some("mod.rs" | "lib.rs"));
        let child_dir = if owns_dir { dir.clone() } else { dir.join(path.file_stem().unwrap_or_default()) };
        for (name, attr) in declarations(&raw) {
            let mut child = module.clone();
            child.push(name.clone());
            let file = match attr {
                Some(p) => dir.join(p),
                None if child_dir.join(format!("{name}.rs")).exists() => child_dir.join(format!("{name}.rs")),
                None => child_dir.join(&name).join("mod.rs"),
            };
            todo.push((file, child));
        }
        out.push(File { path, module, text });
    }
    out
}

/// `mod name;` declarations of a file (not inline modules), with their `#[path]`.
fn declarations(raw: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut attr = None;
    for line in raw.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("#[path = \"") {
            attr = rest.split('"').next().map(str::to_string);
            continue;
        }
        let decl = line.strip_prefix("pub ").unwrap_or(line);
        let decl = decl.strip_prefix("pub(crate) ").unwrap_or(decl);
        if let Some(name) = decl.strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) {
            out.push((name.trim().to_string(), attr.take()));
        } else if !line.starts_with("#[") {
            attr = None;
        }
    }
    out
}

/// The code without comments, string and char literals (their text is not a path).
fn strip(raw: &str) -> String {
    let b: Vec<char> = raw.chars().collect();
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    while i < b.len() {
        match (b[i], b.get(i + 1).copied()) {
            ('/', Some('/')) => {
                while i < b.len() && b[i] != '\n' {
                    i += 1;
                }
            }
            ('/', Some('*')) => {
                let mut depth = 0;
                while i < b.len() {
                    if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            ('r', Some('#' | '"')) if i == 0 || !is_ident(b[i - 1]) => {
                let mut j = i + 1;
                let mut hashes = 0;
                while b.get(j) == Some(&'#') {
                    hashes += 1;
                    j += 1;
                }
                if b.get(j) != Some(&'"') {
                    out.push(b[i]);
                    i += 1;
                    continue;
                }
                j += 1;
                while j < b.len() && !(b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#'))) {
                    j += 1;
                }
                i = j + 1 + hashes;
                out.push_str("\"\"");
            }
            ('"', _) => {
                i += 1;
                while i < b.len() && b[i] != '"' {
                    i += if b[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            ('\'', _) => {
                // A char literal ('a', '\n', '\u{1b}'), not a lifetime ('a without a closing quote).
                let close = if b.get(i + 1) == Some(&'\\') {
                    (i + 2..b.len().min(i + 12)).find(|&j| b[j] == '\'')
                } else {
                    (b.get(i + 2) == Some(&'\'')).then_some(i + 2)
                };
                match close {
                    Some(j) => {
                        out.push_str("' '");
                        i = j + 1;
                    }
                    None => {
                        out.push('\'');
                        i += 1;
                    }
                }
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    Colons,
    Open,
    Close,
    Comma,
    Star,
    Other,
}

fn tokens(text: &str) -> Vec<Token> {
    let b: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if is_ident(c) {
            let start = i;
            while i < b.len() && is_ident(b[i]) {
                i += 1;
            }
            out.push(Token::Ident(b[start..i].iter().collect()));
            continue;
        }
        out.push(match c {
            ':' if b.get(i + 1) == Some(&':') => {
                i += 1;
                Token::Colons
            }
            '{' => Token::Open,
            '}' => Token::Close,
            ',' => Token::Comma,
            '*' => Token::Star,
            c if c.is_whitespace() => {
                i += 1;
                continue;
            }
            _ => Token::Other,
        });
        i += 1;
    }
    out
}

/// A path as written, and the name a `use … as name` gives it.
type Named = (Vec<String>, Option<String>);

/// Reads a path (or a `use` tree) at `t[*i]`, expanded into every path it names.
fn tree(t: &[Token], i: &mut usize, prefix: Vec<String>, out: &mut Vec<Named>) {
    let mut path = prefix;
    loop {
        match t.get(*i) {
            Some(Token::Ident(s)) => {
                path.push(s.clone());
                *i += 1;
                if t.get(*i) == Some(&Token::Colons) {
                    *i += 1;
                    continue;
                }
                let mut alias = None;
                if t.get(*i) == Some(&Token::Ident("as".into()))
                    && let Some(Token::Ident(name)) = t.get(*i + 1)
                {
                    alias = Some(name.clone());
                    *i += 2;
                }
                out.push((path, alias));
                return;
            }
            Some(Token::Open) => {
                *i += 1;
                while *i < t.len() && t[*i] != Token::Close {
                    if t[*i] == Token::Comma {
                        *i += 1;
                        continue;
                    }
                    let before = *i;
                    tree(t, i, path.clone(), out);
                    if *i == before {
                        *i += 1;
                    }
                }
                *i += 1;
                return;
            }
            _ => {
                out.push((path, None));
                return;
            }
        }
    }
}

/// The module a path names, made absolute from `here` (the module the path is written in).
fn absolute(here: &[String], path: &[String]) -> Option<Vec<String>> {
    let mut abs = here.to_vec();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            abs.clear();
            rest = &rest[1..];
        }
        Some("super" | "self") => {
            while let Some(first) = rest.first() {
                match first.as_str() {
                    "super" => {
                        abs.pop()?;
                    }
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
        }
        _ => {}
    }
    // `self` inside a use tree names the module before it.
    abs.extend(rest.iter().filter(|s| *s != "self").cloned());
    Some(abs)
}

/// What a file's text names: every absolute path it uses (inline modules such as
/// `mod tests { … }` are followed), and the names its own `use` items bring in, with the
/// path each stands for (what its children and importers reach through it).
struct Uses {
    paths: BTreeSet<Vec<String>>,
    names: BTreeMap<String, Vec<String>>,
}

fn uses(file: &File, known: &BTreeSet<Vec<String>>) -> Uses {
    let t = tokens(&file.text);
    let mut found = BTreeSet::new();
    let mut names = BTreeMap::new();
    // Inline modules open at a brace depth; their paths are relative to them.
    let mut depth = 0usize;
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut pending_mod: Option<String> = None;
    let mut i = 0;
    while i < t.len() {
        let here: Vec<String> = file.module.iter().cloned().chain(inline.iter().map(|(n, _)| n.clone())).collect();
        match &t[i] {
            Token::Open => {
                depth += 1;
                if let Some(name) = pending_mod.take() {
                    inline.push((name, depth));
                }
                i += 1;
            }
            Token::Close => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
                i += 1;
            }
            Token::Ident(word) if word == "mod" => {
                pending_mod = match t.get(i + 1) {
                    Some(Token::Ident(name)) if t.get(i + 2) == Some(&Token::Open) => Some(name.clone()),
                    _ => None,
                };
                i += 2;
            }
            Token::Ident(word) if t.get(i + 1) == Some(&Token::Colons) && (i == 0 || t[i - 1] != Token::Colons) => {
                let starts_path = matches!(word.as_str(), "crate" | "super" | "self") || {
                    let mut child = here.clone();
                    child.push(word.clone());
                    known.contains(&child)
                };
                if !starts_path {
                    i += 1;
                    continue;
                }
                let is_use = i > 0 && t[i - 1] == Token::Ident("use".into());
                let mut paths = Vec::new();
                tree(&t, &mut i, Vec::new(), &mut paths);
                for (p, alias) in paths {
                    let Some(abs) = absolute(&here, &p) else { continue };
                    let name = alias.or_else(|| p.iter().rev().find(|s| *s != "self").cloned());
                    if is_use
                        && inline.is_empty()
                        && let Some(name) = name
                    {
                        names.insert(name, abs.clone());
                    }
                    found.insert(abs);
                }
            }
            _ => i += 1,
        }
    }
    Uses { paths: found, names }
}

/// The file that defines what `path` names: down the modules it walks through, and through
/// the `use` items of a module that only brings the name in.
fn owner(path: &[String], modules: &BTreeMap<Vec<String>, usize>, names: &[BTreeMap<String, Vec<String>>]) -> usize {
    let mut at: Vec<String> = Vec::new();
    let mut path = path.to_vec();
    let mut hops = 0;
    let mut k = 0;
    while k < path.len() {
        let mut child = at.clone();
        child.push(path[k].clone());
        if modules.contains_key(&child) {
            at = child;
            k += 1;
            continue;
        }
        let here = modules[&at];
        match names[here].get(&path[k]) {
            Some(target) if hops < 32 && *target != child => {
                hops += 1;
                path = target.iter().chain(&path[k + 1..]).cloned().collect();
                at.clear();
                k = 0;
            }
            _ => break,
        }
    }
    modules[&at]
}

/// Strongly connected components with more than one file (Tarjan).
fn cycles(edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct Walk<'a> {
        edges: &'a [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on_stack: Vec<bool>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(w: &mut Walk, v: usize) {
        w.index[v] = Some(w.next);
        w.low[v] = w.next;
        w.next += 1;
        w.stack.push(v);
        w.on_stack[v] = true;
        for &u in w.edges[v].iter() {
            match w.index[u] {
                None => {
                    visit(w, u);
                    w.low[v] = w.low[v].min(w.low[u]);
                }
                Some(iu) if w.on_stack[u] => w.low[v] = w.low[v].min(iu),
                Some(_) => {}
            }
        }
        if Some(w.low[v]) == w.index[v] {
            let mut scc = Vec::new();
            while let Some(u) = w.stack.pop() {
                w.on_stack[u] = false;
                scc.push(u);
                if u == v {
                    break;
                }
            }
            if scc.len() > 1 {
                w.out.push(scc);
            }
        }
    }
    let n = edges.len();
    let mut w = Walk {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        stack: Vec::new(),
        on_stack: vec![false; n],
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if w.index[v].is_none() {
            visit(&mut w, v);
        }
    }
    w.out
}

/// The files and the edges between them, by index.
fn graph(src: &Path) -> (Vec<File>, Vec<BTreeSet<usize>>) {
    let files = files(src);
    let mut modules: BTreeMap<Vec<String>, usize> = BTreeMap::new();
    let mut known: BTreeSet<Vec<String>> = BTreeSet::new();
    for (i, f) in files.iter().enumerate() {
        modules.insert(f.module.clone(), i);
        known.insert(f.module.clone());
    }
    let all: Vec<Uses> = files.iter().map(|f| uses(f, &known)).collect();
    let names: Vec<BTreeMap<String, Vec<String>>> = all.iter().map(|u| u.names.clone()).collect();
    let edges = all
        .iter()
        .enumerate()
        .map(|(i, u)| {
            let up = |j: usize| files[i].module.starts_with(&files[j].module);
            u.paths.iter().map(|p| owner(p, &modules, &names)).filter(|&j| j != i && !up(j)).collect()
        })
        .collect();
    (files, edges)
}

#[test]
fn no_module_uses_another_that_uses_it_back() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (files, edges) = graph(&src);
    assert!(files.len() > 100, "the walk from lib.rs found the modules ({} files)", files.len());
    let name = |i: usize| files[i].path.strip_prefix(&src).unwrap_or(&files[i].path).display().to_string();
    let found: Vec<String> = cycles(&edges)
        .into_iter()
        .map(|scc| {
            let mut names: Vec<String> = scc.iter().map(|&i| name(i)).collect();
            names.sort();
            let inside: Vec<String> = scc
                .iter()
                .flat_map(|&i| edges[i].iter().filter(|j| scc.contains(j)).map(move |&j| (i, j)))
                .map(|(i, j)| format!("  {} → {}", name(i), name(j)))
                .collect();
            format!("{}\n{}", names.join(" ↔ "), inside.join("\n"))
        })
        .collect();
    assert!(found.is_empty(), "import cycles (move what both use into a module of its own):\n{}", found.join("\n"));
}

#[test]
fn the_reader_finds_paths_and_cycles() {
    let text = strip(
        "use super::{a::B, c::{self, D}};\n// crate::commented::Out\nfn f() { let s = \"crate::in::string\"; crate::x::y(); }\nmod tests { use super::*; }",
    );
    let file = File { path: PathBuf::new(), module: vec!["m".into(), "n".into()], text };
    let known: BTreeSet<Vec<String>> = BTreeSet::new();
    let found = uses(&file, &known);
    let got: Vec<String> = found.paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(got, vec!["m::a::B", "m::c", "m::c::D", "m::n", "x::y"], "tests' super is the file itself");
    assert_eq!(found.names.get("D").map(|p| p.join("::")).as_deref(), Some("m::c::D"));
    assert_eq!(found.names.get("c").map(|p| p.join("::")).as_deref(), Some("m::c"));
    // lib → a (re-exported from b) reaches b: the re-export is not the definition.
    let modules: BTreeMap<Vec<String>, usize> =
        [(vec![], 0), (vec!["a".to_string()], 1), (vec!["a".to_string(), "b".to_string()], 2)].into_iter().collect();
    let mut names = vec![BTreeMap::new(); 3];
    names[1].insert("T".to_string(), vec!["a".to_string(), "b".to_string(), "T".to_string()]);
    assert_eq!(owner(&["a".to_string(), "T".to_string()], &modules, &names), 2);
    assert_eq!(owner(&["a".to_string(), "U".to_string()], &modules, &names), 1);
    let edges = vec![BTreeSet::from([1]), BTreeSet::from([2]), BTreeSet::from([0]), BTreeSet::from([0])];
    let found = cycles(&edges);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].iter().copied().collect::<BTreeSet<_>>(), BTreeSet::from([0, 1, 2]));
}
