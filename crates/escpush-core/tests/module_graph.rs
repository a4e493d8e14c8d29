//! No import cycle among the modules of any crate of the workspace: for every crate under
//! `crates/` (found by listing the directory, so a crate added later is covered) and every
//! module of it, the graph of its child modules (one node each, with everything under it)
//! and of which one names which (`crate::a::...`, `super::a`, `self::a`,
//! `use super::{a::...}`) has no cycle. A child naming its parent's own items is not an edge:
//! that is how a module and its parts work. A cycle is named with its crate, e.g.
//! "escpush-http: import cycle among the modules of `crate::`: builder -> client -> builder".
//!
//! It lives in escpush-core's tests because every build of the workspace (`make test`,
//! `cargo test --workspace`) runs them; it reads the other crates' sources as text.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The module path of a source file: `src/filter/line/mod.rs` is `filter::line`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_owned());
    }
    parts
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module paths a file names, resolved against the known modules (an item's path ends
/// at its module).
fn references(module: &[String], text: &str, known: &BTreeSet<Vec<String>>) -> Vec<Vec<String>> {
    // `super` of `a/b.rs` and of `a/b/mod.rs` (both module a::b) is `a`.
    let mut out = Vec::new();
    let words = |s: &str| -> Vec<String> {
        s.split("::")
            .map(|w| {
                w.chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect::<String>()
            })
            .take_while(|w| !w.is_empty())
            .collect()
    };
    let resolve = |mut base: Vec<String>, rest: Vec<String>, out: &mut Vec<Vec<String>>| {
        for w in rest {
            base.push(w);
            if !known.contains(&base) {
                base.pop();
                break;
            }
        }
        out.push(base);
    };
    for (prefix, up) in [
        ("crate::", None),
        ("super::super::", Some(2)),
        ("super::", Some(1)),
        ("self::", Some(0)),
    ] {
        let mut rest = text;
        while let Some(i) = rest.find(prefix) {
            let before = rest[..i].chars().last();
            rest = &rest[i + prefix.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let base: Vec<String> = match up {
                None => Vec::new(),
                Some(n) => module[..module.len().saturating_sub(n)].to_vec(),
            };
            if let Some(list) = rest.strip_prefix('{') {
                let end = list.find('}').unwrap_or(list.len());
                for item in list[..end].split(',') {
                    resolve(base.clone(), words(item.trim()), &mut out);
                }
            } else {
                resolve(base, words(rest), &mut out);
            }
        }
    }
    out
}

/// Depth-first search from `node`: the first cycle found, as the modules along it.
fn visit<'a>(
    node: &'a str,
    graph: &BTreeMap<&'a str, Vec<&'a str>>,
    state: &mut BTreeMap<&'a str, bool>,
    path: &mut Vec<&'a str>,
) -> Option<Vec<String>> {
    match state.get(node) {
        Some(true) => return None,
        Some(false) => {
            let at = path.iter().position(|n| *n == node).unwrap();
            let mut cycle: Vec<String> = path[at..].iter().map(|s| (*s).to_owned()).collect();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        None => {}
    }
    state.insert(node, false);
    path.push(node);
    for next in graph.get(node).into_iter().flatten() {
        if let Some(cycle) = visit(next, graph, state, path) {
            return Some(cycle);
        }
    }
    path.pop();
    state.insert(node, true);
    None
}

/// Every cycle found in `graph` (each reported once, then its closing edge dropped and the
/// search run again, so that independent cycles are all named).
fn cycles(pairs: &BTreeSet<(String, String)>) -> Vec<Vec<String>> {
    let mut pairs = pairs.clone();
    let mut found = Vec::new();
    loop {
        let mut graph: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (a, b) in &pairs {
            graph.entry(a.as_str()).or_default().push(b.as_str());
        }
        let mut state = BTreeMap::new();
        let cycle = graph
            .keys()
            .find_map(|node| visit(node, &graph, &mut state, &mut Vec::new()));
        let Some(cycle) = cycle else {
            return found;
        };
        let n = cycle.len();
        pairs.remove(&(cycle[n - 2].clone(), cycle[n - 1].clone()));
        found.push(cycle);
    }
}

/// The import cycles of the crate whose sources are `src`: one line each, naming the parent
/// module and the cycle; and whether any module names a sibling at all (a check that the
/// reading of the sources works).
fn crate_cycles(src: &Path) -> (Vec<String>, bool) {
    let mut all = Vec::new();
    files(src, &mut all);
    let known: BTreeSet<Vec<String>> = all.iter().map(|f| module_of(src, f)).collect();
    // For each parent, edges between its children: child -> sibling it names.
    let mut edges: BTreeMap<Vec<String>, BTreeSet<(String, String)>> = BTreeMap::new();
    for file in &all {
        let module = module_of(src, file);
        let text = std::fs::read_to_string(file).unwrap();
        // Test modules may name anything.
        let text = text.split("#[cfg(test)]\nmod tests {").next().unwrap();
        for target in references(&module, text, &known) {
            let common = module.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if common < module.len() && common < target.len() {
                let parent = module[..common].to_vec();
                edges
                    .entry(parent)
                    .or_default()
                    .insert((module[common].clone(), target[common].clone()));
            }
        }
    }
    let mut out = Vec::new();
    for (parent, pairs) in &edges {
        for cycle in cycles(pairs) {
            out.push(format!(
                "import cycle among the modules of `crate::{}`: {}",
                parent.join("::"),
                cycle.join(" -> ")
            ));
        }
    }
    (out, !edges.is_empty())
}

/// The crates of the workspace: every folder of `crates/` with a `src`.
fn crates() -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("src").is_dir())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p.join("src")))
        .collect();
    out.sort();
    out
}

#[test]
fn no_module_imports_a_module_that_imports_it() {
    let crates = crates();
    let names: Vec<&str> = crates.iter().map(|(n, _)| n.as_str()).collect();
    assert!(
        names.contains(&"escpush-core") && names.contains(&"escpush-http"),
        "the crates are found by listing crates/: {names:?}"
    );
    let mut problems = Vec::new();
    for (name, src) in &crates {
        let (cycles, read) = crate_cycles(src);
        // A crate of more than one module whose modules name none of each other is a sign
        // that the sources were not read as meant.
        assert!(
            read || std::fs::read_dir(src).unwrap().count() < 3,
            "{name}: no module names another; is the reading of `crate::` paths broken?"
        );
        problems.extend(cycles.into_iter().map(|c| format!("{name}: {c}")));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The reading finds a cycle where there is one, in a crate made for the test: two
/// top-level modules naming each other (one through `use crate::{..}`, one through a path),
/// and a pair of siblings below a module through `super::`.
#[test]
fn a_cycle_is_found_and_named() {
    let dir = std::env::temp_dir().join(format!("escpush-module-graph-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("c")).unwrap();
    let write = |path: &str, text: &str| std::fs::write(src.join(path), text).unwrap();
    write("lib.rs", "mod a;\nmod b;\nmod c;\n");
    write("a.rs", "use crate::{b::Thing, c};\n");
    write("b.rs", "pub struct Thing;\nfn f() { crate::a::g() }\n");
    write("c/mod.rs", "mod x;\nmod y;\n");
    write("c/x.rs", "use super::y::Y;\n");
    write(
        "c/y.rs",
        "pub struct Y;\n#[cfg(test)]\nmod tests {\n    use super::super::x;\n}\n",
    );
    let (found, read) = crate_cycles(&src);
    assert!(read);
    assert_eq!(found, ["import cycle among the modules of `crate::`: a -> b -> a"]);
    write("c/y.rs", "pub struct Y;\nuse super::x;\n");
    let (found, _) = crate_cycles(&src);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        found,
        [
            "import cycle among the modules of `crate::`: a -> b -> a",
            "import cycle among the modules of `crate::c`: x -> y -> x",
        ]
    );
}
