//! The crate's shape, read from its sources: `model/` is the ground floor (it names nothing of the crate outside
//! itself), and no public item is reachable both at the crate root and in a public module.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// Every `crate::` path in `text` outside comments, as the text that follows `crate::`.
fn crate_paths(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let before = rest[..at].chars().next_back();
            let after = &rest[at + "crate::".len()..];
            // `$crate::` in a macro is the same crate; `oa_crate::` would be another word.
            if before.is_none_or(|c| !(c.is_alphanumeric() || c == '_')) || before == Some('$') {
                let path: String = after
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                    .collect();
                found.push(path);
            }
            rest = after;
        }
    }
    found
}

#[test]
fn model_imports_nothing_above_it() {
    let mut files = Vec::new();
    rust_files(&src().join("model"), &mut files);
    assert!(files.len() >= 10, "model/ has its files: {files:?}");
    let mut upward = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        for path in crate_paths(&text) {
            if !path.starts_with("model::") && path != "model" {
                upward.push(format!("{}: crate::{path}", file.display()));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "model/ names the crate above it:\n{}",
        upward.join("\n")
    );
}

#[test]
fn the_scanner_sees_an_upward_path() {
    // The check above is only as good as its reading of the sources.
    let text = "use crate::call::AttemptHook;\n// use crate::call::Commented;\nlet x = $crate::Foo;";
    assert_eq!(crate_paths(text), ["call::AttemptHook", "Foo"]);
}

/// The names a `pub use` statement brings in (its last segments, or their `as` names).
fn used_names(statement: &str) -> Vec<String> {
    let body = statement
        .trim()
        .trim_start_matches("pub use")
        .trim()
        .trim_end_matches(';');
    let list = match (body.find('{'), body.rfind('}')) {
        (Some(open), Some(close)) => body[open + 1..close].to_owned(),
        _ => body.rsplit("::").next().unwrap_or("").to_owned(),
    };
    list.split(',')
        .map(|item| {
            item.split(" as ")
                .last()
                .unwrap_or("")
                .rsplit("::")
                .next()
                .unwrap_or("")
                .trim()
                .to_owned()
        })
        .filter(|name| !name.is_empty() && name != "self")
        .collect()
}

/// Whole `pub use …;` statements of `text`, each with whether it sits at the top level (no indentation).
fn pub_uses(text: &str) -> Vec<(bool, String)> {
    let mut statements = Vec::new();
    let mut current: Option<(bool, String)> = None;
    for line in text.lines() {
        if let Some((_, statement)) = current.as_mut() {
            statement.push_str(line.trim());
        } else if line.trim_start().starts_with("pub use ") {
            current = Some((!line.starts_with(' '), line.trim().to_owned()));
        }
        if current
            .as_ref()
            .is_some_and(|(_, statement)| statement.ends_with(';'))
        {
            statements.push(current.take().unwrap());
        }
    }
    statements
}

/// The names an item definition line makes public (`pub struct Name`, `pub fn name`, …).
fn defined_names(text: &str) -> Vec<String> {
    const KINDS: [&str; 7] = [
        "pub struct ",
        "pub enum ",
        "pub trait ",
        "pub type ",
        "pub fn ",
        "pub const ",
        "pub static ",
    ];
    text.lines()
        .filter(|line| !line.starts_with(' '))
        .filter_map(|line| KINDS.iter().find_map(|kind| line.strip_prefix(kind)))
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

#[test]
fn no_public_item_is_reachable_at_the_root_and_in_a_module() {
    let lib = fs::read_to_string(src().join("lib.rs")).unwrap();
    let statements = pub_uses(&lib);
    let root: BTreeSet<String> = statements
        .iter()
        .filter(|(top, statement)| *top && !statement.starts_with("pub use structured::fit"))
        .flat_map(|(_, statement)| used_names(statement))
        .collect();
    assert!(
        root.contains("Provider") && root.contains("OpenAiProvider"),
        "{root:?}"
    );
    assert!(
        root.len() <= 40,
        "the root grew to {} names: {root:?}",
        root.len()
    );

    // What the public modules offer: the facades in lib.rs, and what the public folders re-export or define at
    // their top.
    let mut in_modules: Vec<(String, String)> = statements
        .iter()
        .filter(|(top, _)| !*top)
        .flat_map(|(_, statement)| {
            used_names(statement)
                .into_iter()
                .map(|name| ("lib.rs facade".to_owned(), name))
        })
        .collect();
    for module in [
        "model/mod.rs",
        "enforcement/mod.rs",
        "openai/mod.rs",
        "anthropic/mod.rs",
        "gemini/mod.rs",
        "structured/fit/mod.rs",
    ] {
        let text = fs::read_to_string(src().join(module)).unwrap();
        let names = pub_uses(&text)
            .into_iter()
            .flat_map(|(_, statement)| used_names(&statement))
            .chain(defined_names(&text));
        in_modules.extend(names.map(|name| (module.to_owned(), name)));
    }
    assert!(in_modules.len() > 40, "the modules were read: {in_modules:?}");
    let twice: Vec<String> = in_modules
        .iter()
        .filter(|(_, name)| root.contains(name))
        .map(|(module, name)| format!("{name} (root and {module})"))
        .collect();
    assert!(twice.is_empty(), "reachable at two paths: {twice:?}");
    let mut seen = BTreeSet::new();
    let repeated: Vec<&String> = in_modules
        .iter()
        .filter(|(module, _)| module == "lib.rs facade")
        .map(|(_, name)| name)
        .filter(|name| !seen.insert(*name))
        .collect();
    assert!(repeated.is_empty(), "in two facades: {repeated:?}");
}
